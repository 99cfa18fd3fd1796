// SPDX-License-Identifier: MIT
// Cursor: the IDE's database (sources.md 3.1, cursor.hpp): conversations'
// headers and bubbles, the IDE's workspaces.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <vector>

#include "adapters/common/json.hpp"
#include "adapters/common/sqlite_source.hpp"
#include "adapters/common/stream_cursor.hpp"
#include "adapters/common/title.hpp"
#include "adapters/cursor/cursor.hpp"
#include "adapters/cursor/parts.hpp"
#include "core/ingest/walk.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

namespace cursor_parts {

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

// A conversation's header, from its composerData value; with the older
// layout (before 0.40) its bubbles are inline, in `legacy`.
std::optional<Composer> ParseComposer(std::string_view value, rapidjson::Document* legacy) {
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

}  // namespace cursor_parts

using namespace cursor_parts;

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

}  // namespace origin::adapters
