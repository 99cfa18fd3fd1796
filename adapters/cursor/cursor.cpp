// SPDX-License-Identifier: MIT
#include "adapters/cursor/cursor.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "adapters/common/json.hpp"
#include "adapters/common/memory_stream.hpp"
#include "adapters/common/sqlite_source.hpp"
#include "adapters/common/stream_cursor.hpp"
#include "adapters/common/title.hpp"
#include "core/ingest/walk.hpp"
#include "core/util/hash.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

namespace {

constexpr std::size_t kMaxTreeDepth = 64;

// The child ids a tree blob lists: protobuf field 1, length 32 (0x0A 0x20),
// each as hex.  Other fields are skipped as protobuf says.
std::vector<std::string> ChildIds(std::string_view b) {
  std::vector<std::string> out;
  std::size_t i = 0;
  auto varint = [&](std::uint64_t& v) {
    v = 0;
    for (int shift = 0; i < b.size() && shift < 64; shift += 7) {
      auto c = static_cast<unsigned char>(b[i++]);
      v |= static_cast<std::uint64_t>(c & 0x7f) << shift;
      if ((c & 0x80) == 0) return true;
    }
    return false;
  };
  while (i < b.size()) {
    std::uint64_t tag = 0;
    if (!varint(tag)) break;
    const std::uint64_t field = tag >> 3, wire = tag & 7;
    if (wire == 0) {
      std::uint64_t ignored;
      if (!varint(ignored)) break;
    } else if (wire == 1) {
      i += 8;
    } else if (wire == 5) {
      i += 4;
    } else if (wire == 2) {
      std::uint64_t len = 0;
      if (!varint(len) || len > b.size() - i) break;
      if (field == 1 && len == 32) out.push_back(Hex(b.substr(i, 32)));
      i += len;
    } else {
      break;  // groups, or not protobuf
    }
  }
  return out;
}

struct Chat {
  std::string agent_id, name, model;
  std::int64_t created = 0;
  std::vector<std::pair<std::string, std::string>> messages;  // blob id, JSON
};

// The chat's messages in the order of its latest tree.
Chat ReadChat(Db& db) {
  Chat chat;
  std::string root;
  {
    auto meta = db.Prepare("SELECT key, value FROM meta");
    while (meta.Step()) {
      std::string value(meta.Text(1));
      std::optional<std::string> json = Unhex(value);
      if (!json) json = value;
      rapidjson::Document d;
      d.Parse(json->data(), json->size());
      if (d.HasParseError() || !d.IsObject()) continue;
      chat.agent_id = std::string(Str(d, "agentId").value_or(chat.agent_id));
      root = std::string(Str(d, "latestRootBlobId").value_or(root));
      chat.name = std::string(Str(d, "name").value_or(chat.name));
      chat.model = std::string(Str(d, "lastUsedModel").value_or(chat.model));
      if (const Json* c = Member(d, "createdAt")) {
        if (c->IsInt64()) chat.created = c->GetInt64();
        if (c->IsString()) chat.created = std::strtoll(c->GetString(), nullptr, 10);
      }
    }
  }
  if (root.empty()) return chat;
  auto blob = db.Prepare("SELECT data FROM blobs WHERE id = ?");
  std::set<std::string> seen;
  // Depth first, children in order; a blob reached twice is read once.
  std::function<void(const std::string&, std::size_t)> walk = [&](const std::string& id,
                                                                  std::size_t depth) {
    if (depth > kMaxTreeDepth || !seen.insert(id).second) return;
    blob.Bind(1, id);
    std::string data;
    bool found = blob.Step();
    if (found) data = std::string(blob.Blob(0));
    blob.Reset();
    if (!found) return;
    if (!data.empty() && data.front() == '{') {
      chat.messages.emplace_back(id, std::move(data));
      return;
    }
    for (const std::string& child : ChildIds(data)) walk(child, depth + 1);
  };
  walk(root, 0);
  return chat;
}

// The folder a workspace.json's URI opens (file:///abs/path, or a remote's
// vscode-remote://<authority>/path), percent-decoded (taken as it is when an
// escape is malformed).
std::optional<std::string> FolderPath(std::string_view uri) {
  const std::size_t scheme = uri.find("://");
  if (scheme == std::string_view::npos) return std::nullopt;
  const std::size_t slash = uri.find('/', scheme + 3);
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view path = uri.substr(slash);
  return PercentDecode(path).value_or(std::string(path));
}

// How long a conversation the IDE lists without bubbles may still be
// getting its first ones (AddTranscripts).
constexpr std::int64_t kYoungMs = 10 * 60 * 1000;

struct Composer {
  std::string name, model;
  std::int64_t created = 0, updated = 0;
  std::string folder;                // its workspaceIdentifier's, when it names one
  std::vector<std::string> bubbles;  // in order
  bool generating = true;            // unless its status says otherwise
  std::string status;
};

// A conversation's header, from its composerData value; with the older
// layout (before 0.40) its bubbles are inline, in `legacy`.
std::optional<Composer> ParseComposer(std::string_view value,
                                      rapidjson::Document* legacy = nullptr) {
  rapidjson::Document d;
  if (!JsonDepthWithin(value, kMaxJsonDepth)) return std::nullopt;
  d.Parse<rapidjson::kParseIterativeFlag>(value.data(), value.size());
  if (d.HasParseError() || !d.IsObject()) return std::nullopt;
  Composer c;
  c.name = std::string(Str(d, "name").value_or(""));
  if (const Json* mc = Member(d, "modelConfig"); mc != nullptr && mc->IsObject())
    c.model = std::string(Str(*mc, "modelName").value_or(""));
  if (const Json* t = Member(d, "createdAt"); t != nullptr && t->IsInt64())
    c.created = t->GetInt64();
  if (const Json* t = Member(d, "lastUpdatedAt"); t != nullptr && t->IsInt64())
    c.updated = t->GetInt64();
  // Newer versions name the workspace: {id, uri: {fsPath, external, path}}.
  if (const Json* ws = Member(d, "workspaceIdentifier"); ws != nullptr && ws->IsObject())
    if (const Json* uri = Member(*ws, "uri"); uri != nullptr && uri->IsObject()) {
      if (auto fs = NonEmpty(*uri, "fsPath"))
        c.folder = *fs;
      else if (auto ext = NonEmpty(*uri, "external"))
        c.folder = FolderPath(*ext).value_or("");
    }
  if (const Json* h = Member(d, "fullConversationHeadersOnly"); h != nullptr && h->IsArray())
    for (const Json& b : h->GetArray())
      if (auto id2 = Str(b, "bubbleId")) c.bubbles.emplace_back(*id2);
  c.status = std::string(Str(d, "status").value_or(""));
  c.generating = !(c.status == "completed" || c.status == "aborted");
  if (legacy != nullptr) *legacy = std::move(d);
  return c;
}

std::optional<Composer> LoadComposer(Db& db, const std::string& id) {
  auto st = db.Prepare("SELECT value FROM cursorDiskKV WHERE key = ?");
  st.Bind(1, "composerData:" + id);
  std::optional<std::string> value;
  if (st.Step()) value = std::string(st.Blob(0));
  if (!value) return std::nullopt;
  return ParseComposer(*value);
}

// The folder a workspace storage directory's workspace.json opens.
std::optional<std::string> WorkspaceFolder(const std::string& dir) {
  auto ws = ReadJsonObject(dir + "/workspace.json");
  if (!ws) return std::nullopt;
  return FolderPath(Str(*ws, "folder").value_or(""));
}

// The IDE's workspaces (workspaceStorage/<hash>/workspace.json): each
// storage directory and the folder it opens.
std::vector<std::pair<std::string, std::string>> Workspaces(const std::string& ide_user) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string storage = ide_user + "/workspaceStorage";
  for (const std::string& hash : SubDirs(storage)) {
    const std::string dir = storage + "/" + hash;
    if (auto folder = WorkspaceFolder(dir)) out.emplace_back(dir, std::move(*folder));
  }
  return out;
}

// A path as Cursor names its project directory (~/.cursor/projects/<slug>:
// /Users/me/prj -> Users-me-prj), every character but a letter or digit
// taken as a '-', so that either spelling compares.
std::string Slug(std::string_view path) {
  std::string out;
  for (char c : path)
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || (c & 0x80) != 0) ? c : '-';
  const std::size_t start = out.find_first_not_of('-');
  return start == std::string::npos ? "" : out.substr(start);
}

// The events of one message, {role, content}, of a cursor-agent chat
// (content parts text, reasoning, tool-call, tool-result) or of an agent
// transcript ({role, message: {content}}, parts text, tool_use,
// tool_result), under `id` (parts: <id>#<n>):
//   user       the text (the <user_query> in it, when there is one): a
//              message; a message of only <user_info> context: meta
//   assistant  text parts joined: a message; each tool call a tool_call
//   tool, or a user's tool results: each a tool_result (is_error)
// Reasoning is not indexed.  `event` adds one with its id; this sets the rest.
void MessageEvents(const Json& msg, const std::string& id,
                   const std::function<ParsedEvent&(std::string)>& event) {
  const std::string role(Str(msg, "role").value_or(""));
  const Json* content = Member(msg, "content");
  if (content == nullptr)
    if (const Json* m = Member(msg, "message"); m != nullptr && m->IsObject())
      content = Member(*m, "content");
  auto add = [&](std::string native_id, const char* r, const char* kind,
                 std::string text) -> ParsedEvent& {
    ParsedEvent& e = event(std::move(native_id));
    e.role = r;
    e.kind = kind;
    e.text = std::move(text);
    return e;
  };
  const std::string text = TextParts(content);
  const bool has_text = text.find_first_not_of(" \t\r\n") != std::string::npos;
  if (role == "user" && has_text) {
    if (auto query = TagContent(text, "user_query")) {
      add(id, "user", "message", *query);
    } else {
      // Only the environment the agent injects (<user_info>): context, not a prompt.
      const bool context = TagContent(text, "user_info").has_value();
      add(id, context ? "system" : "user", context ? "meta" : "message", text);
    }
  } else if (role == "assistant" && has_text) {
    add(id, "assistant", "message", text);
  }
  if (content == nullptr || !content->IsArray()) return;
  int n = 0;
  for (const Json& p : content->GetArray()) {
    ++n;
    const std::string_view type = Str(p, "type").value_or("");
    if (type == "tool-call" || type == "tool_use") {
      const Json* args = Member(p, type == "tool-call" ? "args" : "input");
      ParsedEvent& e = add(id + "#" + std::to_string(n), "assistant", "tool_call",
                           Truncate(args != nullptr ? Serialize(*args) : "", kToolCallChars));
      e.tool_name = NonEmpty(p, type == "tool-call" ? "toolName" : "name");
      e.call_id = NonEmpty(p, type == "tool-call" ? "toolCallId" : "id");
    } else if (type == "tool-result" || type == "tool_result") {
      const Json* result = Member(p, type == "tool-result" ? "result" : "content");
      std::string t = result == nullptr ? ""
                      : result->IsString()
                          ? std::string(result->GetString(), result->GetStringLength())
                      : result->IsArray() ? TextParts(result)
                                          : Serialize(*result);
      ParsedEvent& e =
          add(id + "#" + std::to_string(n), "tool", "tool_result", Truncate(t, kToolResultChars));
      e.tool_name = NonEmpty(p, "toolName");
      e.call_id = NonEmpty(p, type == "tool-result" ? "toolCallId" : "tool_use_id");
      e.is_error = Bool(p, type == "tool-result" ? "isError" : "is_error");
    }
  }
}

}  // namespace

Discovery CursorAdapter::Discover() const {
  Discovery d = RootDiscovery(root_);
  // Conversations held elsewhere, which an agent transcript repeats: the
  // IDE's and the CLI's.
  std::set<std::string> held;
  // The IDE's database.
  const std::string global = ide_user_ + "/globalStorage";
  if (auto f = DatabaseStream(global + "/state.vscdb", "ide/state.vscdb.jsonl")) {
    d.files.push_back(std::move(*f));
    d.dirs.push_back(global);
    d.root_exists = true;
  }
  // The oldest chat panel, in each workspace's own database.  Those are
  // not watched: Cursor writes an open workspace's UI state there all the
  // time, and the panel they hold no longer changes; the rescan looks.
  const std::string storage = ide_user_ + "/workspaceStorage";
  if (IsDirectory(storage)) {
    d.dirs.push_back(storage);
    d.root_exists = true;
    for (const std::string& hash : SubDirs(storage)) {
      if (auto f = DatabaseStream(storage + "/" + hash + "/state.vscdb",
                                  "ide/workspaceStorage/" + hash + ".aichat.jsonl"))
        d.files.push_back(std::move(*f));
    }
  }
  const std::string chats = root_ + "/chats";
  if (IsDirectory(chats)) {
    d.dirs.push_back(chats);
    for (const std::string& ws : SubDirs(chats)) {
      d.dirs.push_back(chats + "/" + ws);
      for (const std::string& agent : SubDirs(chats + "/" + ws)) {
        const std::string dir = chats + "/" + ws + "/" + agent;
        held.insert(agent);
        if (auto f = DatabaseStream(dir + "/store.db", "chats/" + ws + "/" + agent + ".jsonl")) {
          d.files.push_back(std::move(*f));
          d.dirs.push_back(dir);
        }
      }
    }
  }
  AddTranscripts(d, held);
  return d;
}

// Agent transcripts (3.2): ~/.cursor/projects/<slug>/agent-transcripts/
// <id>/<id>.jsonl, a sub-agent's in <id>/subagents/<sub>.jsonl, each a
// generated stream of its items, transcripts/<slug>/<id>/ then the same.
// <id> is the conversation's id, the IDE's composer id (or the CLI's agent
// id): a transcript repeats a conversation read there, so it is read only
// for a conversation held nowhere else (SourceFile::dedup: the session is
// the conversation, the group a transcript and its sub-agents').
void CursorAdapter::AddTranscripts(Discovery& d, std::set<std::string>& held) const {
  const std::string projects = root_ + "/projects";
  if (!IsDirectory(projects)) return;
  WalkRules rules;
  rules.enter_dir = [](std::string_view rel) {
    const std::vector<std::string_view> p = SplitPath(rel);
    return p.size() == 1 || p.size() == 3 || (p.size() == 2 && p[1] == "agent-transcripts") ||
           (p.size() == 4 && p[3] == "subagents");
  };
  rules.accept_file = [](std::string_view rel, SourceFile& f) {
    const std::vector<std::string_view> p = SplitPath(rel);
    if (p.size() < 4 || p[1] != "agent-transcripts" || !EndsWith(rel, ".jsonl")) return false;
    const std::string slug(p[0]), id(p[2]);
    Dedup dedup{id, "transcripts/" + slug + "/" + id + "/"};
    if (p.size() == 4 && p[3] == id + ".jsonl")
      f.key = dedup.group + id + ".jsonl";
    else if (p.size() == 5 && p[3] == "subagents")
      f.key = dedup.group + "subagents/" + std::string(p[4]);
    else
      return false;
    f.generated = true;
    f.token = std::to_string(f.size) + ":" + std::to_string(f.mtime_ns);
    f.dedup = std::move(dedup);
    return true;
  };
  Discovery t = Walk(projects, rules);
  d.dirs.insert(d.dirs.end(), t.dirs.begin(), t.dirs.end());
  d.problems.insert(d.problems.end(), t.problems.begin(), t.problems.end());
  if (t.files.empty()) return;
  d.root_exists = true;
  // Which of them the IDE's database holds.  A conversation it holds with
  // bubbles is read there.  One it lists without bubbles is kept somewhere
  // this does not read (a newer layout): its transcript is read, once the
  // conversation has been quiet for kYoungMs, since a new one's first
  // bubbles may still be on their way to the database.  While the database
  // cannot be read, every transcript not started waits.
  std::set<std::string> ids;
  for (const SourceFile& f : t.files)
    if (held.count(f.dedup->session) == 0) ids.insert(f.dedup->session);
  bool unknown = false;
  const std::string global = ide_user_ + "/globalStorage/state.vscdb";
  if (!ids.empty() && ::access(global.c_str(), F_OK) == 0) {
    const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    try {
      ReadDatabase(global, [&](Db& db) {
        if (db.QueryInt("SELECT count(*) FROM sqlite_master WHERE name = 'cursorDiskKV'") == 0)
          return std::string();  // an older layout: no conversation there to repeat
        auto st = db.Prepare(
            "SELECT value, EXISTS (SELECT 1 FROM cursorDiskKV WHERE key > 'bubbleId:' || ?1 || "
            "':' AND key < 'bubbleId:' || ?1 || ';') FROM cursorDiskKV WHERE key = "
            "'composerData:' || ?1");
        for (const std::string& id : ids) {
          st.Bind(1, id);
          if (st.Step()) {
            bool young = false;
            if (st.Int(1) == 0) {
              std::optional<Composer> c = ParseComposer(st.Blob(0));
              young = c && now - std::max(c->created, c->updated) < kYoungMs;
            }
            if (st.Int(1) != 0 || young) held.insert(id);
          }
          st.Reset();
        }
        return std::string();
      });
    } catch (const SourceBusy&) {
      unknown = true;
    }
  }
  for (SourceFile& f : t.files) {
    f.dedup->held = unknown || held.count(f.dedup->session) != 0;
    d.files.push_back(std::move(f));
  }
}

std::string CursorAdapter::GenerateTranscript(const SourceFile& stream, std::string_view last_line,
                                              std::size_t max_bytes) const {
  // The conversation's name and workspace, when the IDE lists it (keeping
  // its messages elsewhere); else the project is the IDE's workspace whose
  // folder has the transcript's slug.
  const std::vector<std::string_view> p = SplitPath(stream.key);
  std::string cwd, title;
  const std::string global = ide_user_ + "/globalStorage/state.vscdb";
  if (p.size() >= 3 && ::access(global.c_str(), F_OK) == 0) {
    try {
      ReadDatabase(global, [&](Db& db) {
        if (db.QueryInt("SELECT count(*) FROM sqlite_master WHERE name = 'cursorDiskKV'") != 0)
          if (std::optional<Composer> c = LoadComposer(db, std::string(p[2]))) {
            title = c->name;
            cwd = c->folder;
          }
        return std::string();
      });
    } catch (const std::exception&) {
      // Not now: these lines go without them.
    }
  }
  if (p.size() >= 3 && cwd.empty())
    for (const auto& [dir, folder] : Workspaces(ide_user_))
      if (Slug(folder) == Slug(p[1])) cwd = folder;
  // No times in a transcript: its items are dated when they are first seen,
  // by the file's mtime, 1 ms apart.
  const std::int64_t seen = stream.mtime_ns / 1000000;
  std::optional<std::size_t> first;
  return GenerateItems(stream.abs_path, last_line, max_bytes, [&](JsonWriter& w, std::size_t i) {
    if (!first) first = i;
    w.Key("ts");
    w.Int64(seen + static_cast<std::int64_t>(i - *first));
    if (!cwd.empty()) WriteMember(w, "cwd", cwd);
    if (!title.empty()) WriteMember(w, "title", title);
  });
}

ParsedLine CursorAdapter::ParseTranscript(std::string_view line, std::string_view key) {
  rapidjson::Document doc;
  const ItemLine il = ParseItemLine(line, doc);
  // transcripts/<slug>/<id>/<id>.jsonl, transcripts/<slug>/<id>/subagents/<sub>.jsonl
  const std::vector<std::string_view> p = SplitPath(key.substr(0, key.size() - 6));
  if (p.size() < 4 || p.size() > 5) throw ParseError("not a Cursor transcript stream");
  const std::string session(p[2]);
  const std::optional<std::string> agent =
      p.size() == 5 ? std::optional<std::string>(p[4]) : std::nullopt;
  const std::optional<std::string> cwd = NonEmpty(doc, "cwd");
  ParsedLine out;
  if (auto title = NonEmpty(doc, "title"))
    out.titles.push_back(MakeTitle(session, *title, false, il.ts));
  MessageEvents(*il.item, session + ":t:" + (agent ? *agent + ":" : "") + il.id,
                [&](std::string native_id) -> ParsedEvent& {
                  ParsedEvent& e = out.events.emplace_back();
                  e.native_id = std::move(native_id);
                  e.session = session;
                  e.ts = il.ts;
                  e.cwd = cwd;
                  e.agent = agent;
                  return e;
                });
  return out;
}

std::string CursorAdapter::Generate(const SourceFile& stream, std::string_view last_line,
                                    std::size_t max_bytes, std::int64_t) const {
  if (stream.key == "ide/state.vscdb.jsonl") return GenerateIde(stream, last_line, max_bytes);
  if (EndsWith(stream.key, ".aichat.jsonl")) return GenerateChatPanel(stream, last_line, max_bytes);
  if (stream.key.rfind("transcripts/", 0) == 0)
    return GenerateTranscript(stream, last_line, max_bytes);
  SequenceCursor cursor = SequenceCursor::FromLine(last_line);
  return ReadDatabase(stream.abs_path, [&](Db& db) {
    Chat chat = ReadChat(db);
    // After a rewind (another branch) the tree is written again from its
    // start: the messages it shares with the old one are the same blobs,
    // whose events are there already.
    std::vector<std::string> ids;
    for (const auto& m : chat.messages) ids.push_back(m.first);
    std::string out;
    for (std::size_t i = cursor.Start(ids); i < ids.size(); ++i) {
      const auto& [id, json] = chat.messages[i];
      rapidjson::StringBuffer sb;
      rapidjson::Writer<rapidjson::StringBuffer> w(sb);
      w.StartObject();
      w.Key("agent_id");
      WriteString(w, chat.agent_id);
      w.Key("name");
      WriteString(w, chat.name);
      w.Key("model");
      WriteString(w, chat.model);
      w.Key("created_at");
      w.Int64(chat.created);
      cursor.Write(w, i, id);
      w.Key("blob");
      WriteString(w, id);
      w.Key("message");
      WriteJsonText(w, json);
      w.EndObject();
      out.append(sb.GetString(), sb.GetSize()).push_back('\n');
      if (out.size() >= max_bytes) break;
    }
    return out;
  });
}

ParsedLine CursorAdapter::ParseLine(std::string_view line, ParseContext& ctx) const {
  if (ctx.key == "ide/state.vscdb.jsonl") return ParseBubble(line);
  if (EndsWith(ctx.key, ".aichat.jsonl")) return ParseChatPanel(line);
  if (ctx.key.rfind("transcripts/", 0) == 0) return ParseTranscript(line, ctx.key);
  rapidjson::Document doc;
  ParseObject(line, doc);
  auto blob = NonEmpty(doc, "blob");
  const Json* index = Member(doc, "index");
  const Json* created = Member(doc, "created_at");
  const Json* msg = Member(doc, "message");
  if (!blob || index == nullptr || !index->IsInt64() || created == nullptr || !created->IsInt64() ||
      msg == nullptr || !msg->IsObject())
    throw ParseError("not a cursor-agent message line");
  // The session: the agent id, else the directory's name.
  std::string session(Str(doc, "agent_id").value_or(""));
  if (session.empty()) {
    std::string_view key = ctx.key;
    session = std::string(Basename(key.substr(0, key.size() - 6)));
  }
  ParsedLine out;
  const std::int64_t ts = created->GetInt64() + index->GetInt64();
  if (auto name = NonEmpty(doc, "name")) out.titles.push_back(MakeTitle(session, *name, false, ts));
  MessageEvents(*msg, *blob, [&](std::string native_id) -> ParsedEvent& {
    ParsedEvent& e = out.events.emplace_back();
    e.native_id = std::move(native_id);
    e.session = session;
    e.ts = ts;
    return e;
  });
  for (ParsedEvent& e : out.events)
    if (e.role == "assistant" && e.kind == "message") e.model = NonEmpty(doc, "model");
  return out;
}

}  // namespace origin::adapters

namespace origin::adapters {

namespace {

constexpr std::size_t kMaxToolField = 64 << 10;

// The bubbles of an older composerData (before 0.40): `conversation`, an
// array of bubbles (or of headers whose bubbles are in `conversationMap`).
std::vector<const Json*> InlineBubbles(const rapidjson::Document& d) {
  std::vector<const Json*> out;
  const Json* conv = Member(d, "conversation");
  if (conv == nullptr || !conv->IsArray()) return out;
  const Json* map = Member(d, "conversationMap");
  for (const Json& b : conv->GetArray()) {
    if (!b.IsObject()) continue;
    if (Member(b, "text") == nullptr && map != nullptr && map->IsObject())
      if (auto id = Str(b, "bubbleId"))
        if (const Json* full = Member(*map, std::string(*id).c_str()); full != nullptr)
          if (full->IsObject()) {
            out.push_back(full);
            continue;
          }
    out.push_back(&b);
  }
  return out;
}

// A tool field as text, cut to the limit (bubbles can hold whole files).
std::string ToolField(const Json* v) {
  if (v == nullptr || v->IsNull()) return "";
  std::string s = v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : Serialize(*v);
  return std::string(TruncateChars(s, kMaxToolField));
}

}  // namespace

// Which workspace folder each conversation belongs to: the composer ids
// each workspace's own database lists (ItemTable composer.composerData).
// A workspace database that cannot be read now gives none.  What a
// database lists is kept while its size and mtime (and its -wal's) stay
// the same: a first import asks at every look, and would otherwise open
// every workspace database each time.
std::map<std::string, std::string> CursorAdapter::ComposerFolders() const {
  std::map<std::string, std::string> out;
  std::lock_guard<std::mutex> lock(workspaces_mu_);
  std::map<std::string, WorkspaceList> seen;
  for (const auto& [dir, folder] : Workspaces(ide_user_)) {
    const std::string db_path = dir + "/state.vscdb";
    const std::string stamp = FileStamp(db_path) + "|" + FileStamp(db_path + "-wal");
    auto cached = workspaces_.find(db_path);
    if (cached != workspaces_.end() && cached->second.stamp == stamp) {
      seen[db_path] = std::move(cached->second);
    } else if (::access(db_path.c_str(), F_OK) == 0) {
      WorkspaceList list{stamp, {}};
      try {
        ReadDatabase(db_path, [&](Db& db) {
          auto st = db.Prepare("SELECT value FROM ItemTable WHERE key = 'composer.composerData'");
          if (st.Step()) {
            std::string_view v = st.Blob(0);
            rapidjson::Document d;
            if (JsonDepthWithin(v, kMaxJsonDepth))
              d.Parse<rapidjson::kParseIterativeFlag>(v.data(), v.size());
            if (!d.HasParseError() && d.IsObject())
              if (const Json* all = Member(d, "allComposers"); all != nullptr && all->IsArray())
                for (const Json& c : all->GetArray())
                  if (auto id = NonEmpty(c, "composerId")) list.composers.push_back(*id);
          }
          return std::string();
        });
        seen[db_path] = std::move(list);
      } catch (const std::exception&) {
        // Not now (busy, or not a workspace database): asked again next time.
      }
    }
    if (auto it = seen.find(db_path); it != seen.end())
      for (const std::string& id : it->second.composers) out.emplace(id, folder);
  }
  workspaces_ = std::move(seen);  // workspaces gone are dropped
  return out;
}

namespace {

// A line of the IDE's stream: the conversation and one bubble.
std::string BubbleLine(const std::string& cid, const Composer& c, const std::string& bid,
                       const Json& b, const RowCursor& cursor, std::string_view folder) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("composer");
  w.StartObject();
  WriteMember(w, "id", cid);
  WriteMember(w, "name", c.name);
  WriteMember(w, "model", c.model);
  w.Key("created_at");
  w.Int64(c.created);
  if (!folder.empty()) WriteMember(w, "cwd", folder);
  w.EndObject();
  w.Key("bubble");
  w.StartObject();
  WriteMember(w, "id", bid);
  w.Key("type");
  const Json* type = Member(b, "type");
  w.Int(type != nullptr && type->IsInt() ? type->GetInt() : 0);
  WriteMember(w, "text", Str(b, "text").value_or(""));
  WriteMember(w, "created_at", Str(b, "createdAt").value_or(""));
  if (const Json* t = Member(b, "toolFormerData"); t != nullptr && t->IsObject()) {
    w.Key("tool");
    w.StartObject();
    const Json* name = Member(*t, "name");
    if (name == nullptr || !name->IsString()) name = Member(*t, "tool");
    WriteMember(w, "name", ToolField(name));
    const Json* args = Member(*t, "rawArgs");
    if (args == nullptr) args = Member(*t, "params");
    WriteMember(w, "args", ToolField(args));
    WriteMember(w, "result", ToolField(Member(*t, "result")));
    WriteMember(w, "status", ToolField(Member(*t, "status")));
    w.EndObject();
  }
  w.EndObject();
  cursor.Write(w);
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize()) + "\n";
}

}  // namespace

std::string CursorAdapter::GenerateIde(const SourceFile& stream, std::string_view last_line,
                                       std::size_t max_bytes) const {
  RowCursor cursor = RowCursor::FromLine(last_line);
  return ReadDatabase(stream.abs_path, [&](Db& db) {
    std::string out;
    std::map<std::string, std::optional<Composer>> composers;   // this look's
    std::optional<std::map<std::string, std::string>> folders;  // read once a bubble goes out
    auto folder = [&](const std::string& cid) -> std::string_view {
      if (!folders) folders = ComposerFolders();
      auto it = folders->find(cid);
      return it == folders->end() ? std::string_view() : std::string_view(it->second);
    };
    auto rows = db.Prepare(
        "SELECT rowid, key, value FROM cursorDiskKV WHERE rowid > ? AND "
        "(key LIKE 'bubbleId:%' OR key LIKE 'composerData:%') "
        "ORDER BY rowid");  // stepped only as far as this look goes
    rows.Bind(1, cursor.upto());
    while (rows.Step() && out.size() < max_bytes) {
      const std::int64_t rowid = rows.Int(0);
      if (cursor.Done(rowid)) continue;
      std::string_view key = rows.Text(1);
      if (key.rfind("composerData:", 0) == 0) {
        // The older layout (before 0.40) keeps a finished conversation's
        // bubbles inline: they go out together.  Newer headers give nothing.
        const std::string cid(key.substr(std::string_view("composerData:").size()));
        rapidjson::Document d;
        std::optional<Composer> c = ParseComposer(rows.Blob(2), &d);
        std::vector<const Json*> inline_bubbles;
        if (c && c->bubbles.empty()) inline_bubbles = InlineBubbles(d);
        // An older conversation without a status is finished long ago.
        if (inline_bubbles.empty() || c->status == "generating") {
          if (!inline_bubbles.empty())
            cursor.Hold();
          else
            cursor.Pass(rowid);
          continue;
        }
        cursor.Out(rowid);
        for (const Json* b : inline_bubbles)
          if (auto bid = Str(*b, "bubbleId"))
            out += BubbleLine(cid, *c, std::string(*bid), *b, cursor,
                              c->folder.empty() ? folder(cid) : c->folder);
        continue;
      }
      // bubbleId:<composer>:<bubble>
      key.remove_prefix(std::string_view("bubbleId:").size());
      const std::size_t colon = key.find(':');
      if (colon == std::string_view::npos) {
        cursor.Pass(rowid);
        continue;
      }
      const std::string cid(key.substr(0, colon)), bid(key.substr(colon + 1));
      auto it = composers.find(cid);
      if (it == composers.end()) it = composers.emplace(cid, LoadComposer(db, cid)).first;
      if (!it->second) {  // no conversation holds it (deleted)
        cursor.Pass(rowid);
        continue;
      }
      const Composer& c = *it->second;
      auto pos = std::find(c.bubbles.begin(), c.bubbles.end(), bid);
      if (pos == c.bubbles.end()) {
        if (c.generating)
          cursor.Hold();  // not listed yet
        else
          cursor.Pass(rowid);  // not part of the conversation
        continue;
      }
      if (pos + 1 == c.bubbles.end() && c.generating) {
        cursor.Hold();  // the last one, still streaming
        continue;
      }
      std::string_view value = rows.Blob(2);
      rapidjson::Document b;
      b.Parse<rapidjson::kParseIterativeFlag>(value.data(), value.size());
      if (b.HasParseError() || !b.IsObject()) {
        cursor.Pass(rowid);
        continue;
      }
      cursor.Out(rowid);
      out += BubbleLine(cid, c, bid, b, cursor, c.folder.empty() ? folder(cid) : c.folder);
    }
    return out;
  });
}

ParsedLine CursorAdapter::ParseBubble(std::string_view line) {
  rapidjson::Document doc;
  ParseObject(line, doc);
  const Json* c = Member(doc, "composer");
  const Json* b = Member(doc, "bubble");
  if (c == nullptr || !c->IsObject() || b == nullptr || !b->IsObject())
    throw ParseError("not a Cursor bubble line");
  auto cid = NonEmpty(*c, "id");
  auto bid = NonEmpty(*b, "id");
  if (!cid || !bid) throw ParseError("a Cursor bubble without its ids");
  ParsedLine out;
  std::int64_t ts = 0;
  if (const Json* t = Member(*c, "created_at"); t != nullptr && t->IsInt64()) ts = t->GetInt64();
  if (auto at = ParseIsoMs(Str(*b, "created_at").value_or(""))) ts = *at;
  if (auto name = NonEmpty(*c, "name")) out.titles.push_back(MakeTitle(*cid, *name, false, ts));
  const Json* type = Member(*b, "type");
  const int kind = type != nullptr && type->IsInt() ? type->GetInt() : 0;
  const std::optional<std::string> cwd = NonEmpty(*c, "cwd");
  auto event = [&](std::string id, const char* role, const char* ev_kind) -> ParsedEvent& {
    ParsedEvent& e = out.events.emplace_back();
    e.native_id = std::move(id);
    e.session = *cid;
    e.cwd = cwd;
    e.ts = ts;
    e.role = role;
    e.kind = ev_kind;
    return e;
  };
  const std::string text(Str(*b, "text").value_or(""));
  if (text.find_first_not_of(" \t\r\n") != std::string::npos && (kind == 1 || kind == 2)) {
    ParsedEvent& e = event(*bid, kind == 1 ? "user" : "assistant", "message");
    e.text = text;
    if (kind == 2) e.model = NonEmpty(*c, "model");
  }
  if (const Json* t = Member(*b, "tool"); t != nullptr && t->IsObject()) {
    const std::optional<std::string> name = NonEmpty(*t, "name");
    ParsedEvent& call = event(*bid + "#call", "assistant", "tool_call");
    call.tool_name = name;
    call.text = Truncate(Str(*t, "args").value_or(""), kToolCallChars);
    auto status = Str(*t, "status");
    if (status == "completed" || status == "error" || status == "failed") {
      ParsedEvent& res = event(*bid + "#result", "tool", "tool_result");
      res.tool_name = name;
      res.text = Truncate(Str(*t, "result").value_or(""), kToolResultChars);
      res.is_error = status != "completed";
    }
  }
  return out;
}

// The oldest chat panel (Cursor before 0.40): a workspace database's
// ItemTable row workbench.panel.aichat.view.aichat.chatdata holds
// {tabs: [{tabId, chatTitle, bubbles: [{id, type: user|ai, text}]}]}, one
// JSON value rewritten as a whole.  Its bubbles, tab after tab, are a
// sequence (SequenceCursor), each a line with its tab's id and title, the
// workspace's folder and the bubble.  Those Cursor versions are long
// replaced, so the panel's content is taken as final.
std::string CursorAdapter::GenerateChatPanel(const SourceFile& stream, std::string_view last_line,
                                             std::size_t max_bytes) const {
  const std::string dir = stream.abs_path.substr(0, stream.abs_path.rfind('/'));
  std::string value;
  ReadDatabase(stream.abs_path, [&](Db& db) {
    if (db.QueryInt("SELECT count(*) FROM sqlite_master WHERE name = 'ItemTable'") == 0)
      return std::string();
    auto st = db.Prepare(
        "SELECT value FROM ItemTable WHERE key = 'workbench.panel.aichat.view.aichat.chatdata'");
    if (st.Step()) value = std::string(st.Blob(0));
    return std::string();
  });
  if (value.empty() || !JsonDepthWithin(value, kMaxJsonDepth)) return "";
  rapidjson::Document d;
  d.Parse<rapidjson::kParseIterativeFlag>(value.data(), value.size());
  const Json* tabs = d.HasParseError() || !d.IsObject() ? nullptr : Member(d, "tabs");
  if (tabs == nullptr || !tabs->IsArray()) return "";
  const std::string folder = WorkspaceFolder(dir).value_or("");
  struct Item {
    const Json* tab;
    const Json* bubble;
    std::size_t index;  // in its tab
  };
  std::vector<std::string> ids;
  std::vector<Item> items;
  for (const Json& tab : tabs->GetArray()) {
    const Json* bubbles = Member(tab, "bubbles");
    auto tab_id = NonEmpty(tab, "tabId");
    if (!tab_id || bubbles == nullptr || !bubbles->IsArray()) continue;
    std::size_t i = 0;
    for (const Json& b : bubbles->GetArray()) {
      if (!b.IsObject()) continue;
      ids.push_back(*tab_id + ":" + NonEmpty(b, "id").value_or("#" + std::to_string(i)));
      items.push_back({&tab, &b, i++});
    }
  }
  SequenceCursor cursor = SequenceCursor::FromLine(last_line);
  std::string out;
  for (std::size_t i = cursor.Start(ids); i < ids.size() && out.size() < max_bytes; ++i) {
    rapidjson::StringBuffer sb;
    JsonWriter w(sb);
    w.StartObject();
    WriteMember(w, "id", ids[i]);
    w.Key("tab");
    w.StartObject();
    WriteMember(w, "id", Str(*items[i].tab, "tabId").value_or(""));
    WriteMember(w, "title", Str(*items[i].tab, "chatTitle").value_or(""));
    // No time per bubble: the tab's, else the database's mtime.
    std::int64_t time = stream.mtime_ns / 1000000;
    for (const char* t : {"lastSendTime", "createdAt"})
      if (const Json* v = Member(*items[i].tab, t); v != nullptr && v->IsInt64()) {
        time = v->GetInt64();
        break;
      }
    w.Key("time");
    w.Int64(time);
    if (!folder.empty()) WriteMember(w, "cwd", folder);
    w.EndObject();
    w.Key("index");
    w.Int64(static_cast<std::int64_t>(items[i].index));
    cursor.Write(w, i, ids[i]);
    w.Key("bubble");
    items[i].bubble->Accept(w);
    w.EndObject();
    out.append(sb.GetString(), sb.GetSize()).push_back('\n');
  }
  return out;
}

ParsedLine CursorAdapter::ParseChatPanel(std::string_view line) {
  rapidjson::Document doc;
  ParseObject(line, doc);
  auto id = NonEmpty(doc, "id");
  const Json* tab = Member(doc, "tab");
  const Json* b = Member(doc, "bubble");
  const Json* index = Member(doc, "index");
  if (!id || tab == nullptr || !tab->IsObject() || b == nullptr || !b->IsObject() ||
      index == nullptr || !index->IsInt64())
    throw ParseError("not a Cursor chat panel line");
  auto tab_id = NonEmpty(*tab, "id");
  if (!tab_id) throw ParseError("a Cursor chat panel line without its tab");
  ParsedLine out;
  // The tab's time, one ms apart in order.
  const Json* t = Member(*tab, "time");
  const std::int64_t ts = (t != nullptr && t->IsInt64() ? t->GetInt64() : 0) + index->GetInt64();
  if (auto title = NonEmpty(*tab, "title"))
    out.titles.push_back(MakeTitle(*tab_id, *title, false, ts));
  const std::string type(Str(*b, "type").value_or(""));
  std::string text(Str(*b, "text").value_or(""));
  if (TrimSpace(text).empty()) text = std::string(Str(*b, "rawText").value_or(""));
  if (TrimSpace(text).empty() || (type != "user" && type != "ai")) return out;
  ParsedEvent& e = out.events.emplace_back();
  e.native_id = "aichat:" + *id;
  e.session = *tab_id;
  e.ts = ts;
  e.role = type == "user" ? "user" : "assistant";
  e.kind = "message";
  e.text = std::move(text);
  e.cwd = NonEmpty(*tab, "cwd");
  if (type == "ai") e.model = NonEmpty(*b, "modelType");
  return out;
}

}  // namespace origin::adapters
