// SPDX-License-Identifier: MIT
// Cursor: the cursor-agent CLI's chats (sources.md 3.3, cursor.hpp), and the
// events of one message, which the agent transcripts give too.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdlib>
#include <functional>
#include <set>
#include <vector>

#include "adapters/common/json.hpp"
#include "adapters/common/sqlite_source.hpp"
#include "adapters/common/stream_cursor.hpp"
#include "adapters/common/title.hpp"
#include "adapters/cursor/cursor.hpp"
#include "adapters/cursor/parts.hpp"
#include "core/ingest/walk.hpp"
#include "core/util/hash.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

namespace cursor_parts {

std::string OutsideTag(std::string_view text, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  const std::size_t a = text.find(open);
  if (a == std::string_view::npos) return std::string(TrimSpace(text));
  const std::size_t b = text.find(close, a + open.size());
  if (b == std::string_view::npos) return std::string(TrimSpace(text));
  std::string out(TrimSpace(text.substr(0, a)));
  AppendParagraph(out, std::string(TrimSpace(text.substr(b + close.size()))));
  return out;
}

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
      // What Cursor wraps around the query (<user_info>,
      // <git_diff_from_branch_to_main>, <cursor_commands>, attached files):
      // context, not the user's words, but kept.
      const std::string context = OutsideTag(text, "user_query");
      if (!context.empty()) add(id + "#context", "system", "meta", context);
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

}  // namespace cursor_parts

using namespace cursor_parts;

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

}  // namespace

std::string CursorAdapter::GenerateChat(const SourceFile& stream, std::string_view last_line,
                                        std::size_t max_bytes) {
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

ParsedLine CursorAdapter::ParseChat(std::string_view line, std::string_view key) {
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
