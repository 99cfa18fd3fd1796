// SPDX-License-Identifier: MIT
#include "adapters/zcode/zcode.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <set>
#include <vector>

#include "adapters/common/harness.hpp"
#include "adapters/common/json.hpp"
#include "adapters/common/memory_stream.hpp"
#include "adapters/common/sqlite_source.hpp"
#include "adapters/common/stream_cursor.hpp"
#include "adapters/common/title.hpp"
#include "core/c/sqlite.hpp"
#include "core/ingest/walk.hpp"
#include "core/util/hash.hpp"

namespace origin::adapters {

namespace {

void PutText(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key, const Stmt& st,
             int col) {
  w.Key(key);
  if (st.IsNull(col)) {
    w.Null();
    return;
  }
  WriteString(w, st.Text(col));
}

}  // namespace

Discovery ZcodeAdapter::Discover() const {
  Discovery d = RootDiscovery(root_);
  if (!d.root_exists) return d;
  const std::string db_dir = root_ + "/cli/db";
  if (auto f = DatabaseStream(db_dir + "/db.sqlite", "sessions/db.jsonl")) {
    d.files.push_back(std::move(*f));
    d.dirs.push_back(db_dir);
  }
  const std::string projects = root_ + "/cli/memories/projects";
  if (IsDirectory(projects)) {
    d.dirs.push_back(projects);
    for (const std::string& slug : SubDirs(projects)) {
      d.dirs.push_back(projects + "/" + slug);
      AddMemoryStream(d, projects + "/" + slug + "/memory", "memory/" + slug + ".jsonl");
    }
  }
  return d;
}

std::string ZcodeAdapter::Generate(const SourceFile& stream, std::string_view last_line,
                                   std::size_t max_bytes, std::int64_t now_ms) const {
  if (stream.key == "sessions/db.jsonl") return GenerateMessages(stream, last_line, max_bytes);
  MemoryPlace place;
  std::string_view key = stream.key;  // memory/<slug>.jsonl
  key.remove_prefix(std::string_view("memory/").size());
  key.remove_suffix(std::string_view(".jsonl").size());
  place.project = WithoutHashSuffix(key, 16);
  return GenerateMemoryLines(stream, last_line, max_bytes, now_ms, place);
}

std::string ZcodeAdapter::CursorOf(std::string_view key, std::string_view line) const {
  if (key == "sessions/db.jsonl") return RowCursor::CursorOf(line);
  return key.rfind("memory/", 0) == 0 ? MemoryCursorOf(line) : std::string();
}

ParsedLine ZcodeAdapter::ParseLine(std::string_view line, ParseContext& ctx) const {
  if (ctx.key == "sessions/db.jsonl") return ParseMessage(line);
  if (ctx.key.rfind("memory/", 0) != 0) throw ParseError("not a ZCode stream");
  return ParseMemoryLine(line, [](std::string_view file, std::string_view content) {
    return MarkdownMemory(file, content, ClaudeStyleKind);
  });
}

}  // namespace origin::adapters

namespace origin::adapters {

std::string ZcodeAdapter::GenerateMessages(const SourceFile& stream, std::string_view last_line,
                                           std::size_t max_bytes) const {
  RowCursor cursor = RowCursor::FromLine(last_line);
  return ReadDatabase(stream.abs_path, [&](Db& db) {
    std::string out;
    auto msgs = db.Prepare(
        "SELECT rowid, id, session_id, sequence, time_created, data FROM message "
        "WHERE rowid > ? ORDER BY rowid");  // stepped only as far as this look goes
    msgs.Bind(1, cursor.upto());
    while (msgs.Step() && out.size() < max_bytes) {
      const std::int64_t rowid = msgs.Int(0);
      if (cursor.Done(rowid)) continue;
      const std::string id(msgs.Text(1)), session(msgs.Text(2));
      const std::int64_t sequence = msgs.Int(3);
      std::string_view data = msgs.Text(5);
      rapidjson::Document m;
      m.Parse<rapidjson::kParseIterativeFlag>(data.data(), data.size());
      bool complete = false;
      if (!m.HasParseError() && m.IsObject()) {
        const auto role = Str(m, "role");
        const Json* time = Member(m, "time");
        complete = role == "user" || Member(m, "finish") != nullptr ||
                   (time != nullptr && time->IsObject() && Member(*time, "completed") != nullptr);
      }
      if (!complete) {
        auto later =
            db.Prepare("SELECT 1 FROM message WHERE session_id = ? AND sequence > ? LIMIT 1");
        later.Bind(1, session).Bind(2, sequence);
        complete = later.Step();
      }
      if (!complete) {
        cursor.Hold();
        continue;
      }
      cursor.Out(rowid);
      rapidjson::StringBuffer sb;
      rapidjson::Writer<rapidjson::StringBuffer> w(sb);
      w.StartObject();
      w.Key("message");
      w.StartObject();
      w.Key("id");
      WriteString(w, id);
      w.Key("session_id");
      WriteString(w, session);
      w.Key("sequence");
      w.Int64(sequence);
      w.Key("time_created");
      w.Int64(msgs.Int(4));
      w.Key("data");
      WriteJsonText(w, data);
      w.EndObject();
      auto sess = db.Prepare(
          "SELECT id, parent_id, directory, title, title_source, version FROM session WHERE id = "
          "?");
      sess.Bind(1, session);
      w.Key("session");
      if (sess.Step()) {
        w.StartObject();
        PutText(w, "id", sess, 0);
        PutText(w, "parent_id", sess, 1);
        PutText(w, "directory", sess, 2);
        PutText(w, "title", sess, 3);
        PutText(w, "title_source", sess, 4);
        PutText(w, "version", sess, 5);
        w.EndObject();
      } else {
        w.Null();
      }
      auto parts = db.Prepare(
          "SELECT id, time_created, data FROM part WHERE message_id = ? "
          "ORDER BY sequence, time_created, id");
      parts.Bind(1, id);
      w.Key("parts");
      w.StartArray();
      while (parts.Step()) {
        w.StartObject();
        PutText(w, "id", parts, 0);
        w.Key("time_created");
        w.Int64(parts.Int(1));
        w.Key("data");
        WriteJsonText(w, parts.Text(2));
        w.EndObject();
      }
      w.EndArray();
      cursor.Write(w);
      w.EndObject();
      out.append(sb.GetString(), sb.GetSize()).push_back('\n');
    }
    return out;
  });
}

ParsedLine ZcodeAdapter::ParseMessage(std::string_view line) {
  rapidjson::Document doc;
  ParseObject(line, doc);
  const Json* msg = Member(doc, "message");
  if (msg == nullptr || !msg->IsObject()) throw ParseError("a ZCode line without its message");
  const Json* data = Member(*msg, "data");
  auto id = NonEmpty(*msg, "id");
  auto session_id = NonEmpty(*msg, "session_id");
  const Json* created = Member(*msg, "time_created");
  if (!id || !session_id || data == nullptr || !data->IsObject() || created == nullptr ||
      !created->IsInt64())
    throw ParseError("a ZCode message without id, session, time or data");
  const Json* sess = Member(doc, "session");
  std::optional<std::string> parent, directory;
  ParsedLine out;
  if (sess != nullptr && sess->IsObject()) {
    parent = NonEmpty(*sess, "parent_id");
    directory = NonEmpty(*sess, "directory");
    out.agent_version = NonEmpty(*sess, "version");
    // The session's title as the line saw it: every line repeats it, so
    // its event's id comes from the title (the first line that carries it).
    if (auto title = NonEmpty(*sess, "title"); title && !parent)
      out.titles.push_back(MakeTitle(*session_id, *title, Str(*sess, "title_source") == "custom",
                                     created->GetInt64()));
  }
  const std::string role(Str(*data, "role").value_or(""));
  std::optional<std::string> cwd = directory;
  if (const Json* path = Member(*data, "path"); path != nullptr && path->IsObject())
    if (auto c = NonEmpty(*path, "cwd")) cwd = c;
  auto event = [&](std::string native_id, const char* r, const char* kind,
                   std::int64_t ts) -> ParsedEvent& {
    ParsedEvent& e = out.events.emplace_back();
    e.native_id = std::move(native_id);
    e.session = parent.value_or(*session_id);
    if (parent) e.agent = *session_id;
    e.ts = ts;
    e.role = r;
    e.kind = kind;
    e.cwd = cwd;
    return e;
  };
  // The harness's own text in a user message (a text part marked
  // synthetic, or one the harness rule takes for its own, such as a
  // <system-reminder>: adapters/common/harness.hpp) is context, not what the
  // user said.
  std::string text, harness;
  std::vector<const Json*> tools;
  if (const Json* parts = Member(doc, "parts"); parts != nullptr && parts->IsArray()) {
    for (const Json& p : parts->GetArray()) {
      const Json* pd = Member(p, "data");
      if (pd == nullptr || !pd->IsObject()) continue;
      auto type = Str(*pd, "type");
      if (type == "text") {
        const std::string_view t = Str(*pd, "text").value_or("");
        const bool injected = Bool(*pd, "synthetic") || IsHarnessText(t);
        AppendParagraph(role == "user" && injected ? harness : text, t);
      }
      if (type == "tool") tools.push_back(&p);
    }
  }
  const std::int64_t ts = created->GetInt64();
  if (role == "user" || role == "assistant") {
    if (text.find_first_not_of(" \t\r\n") != std::string::npos) {
      ParsedEvent& e = event(*id, role == "user" ? "user" : "assistant", "message", ts);
      e.text = text;
      if (role == "assistant") e.model = NonEmpty(*data, "modelID");
    }
    if (harness.find_first_not_of(" \t\r\n") != std::string::npos)
      event(*id + "#context", "system", "meta", ts).text = harness;
  }
  for (const Json* p : tools) {
    const Json& pd = (*p)["data"];
    const std::string part_id(Str(*p, "id").value_or(""));
    std::int64_t pts = ts;
    if (const Json* t = Member(*p, "time_created");
        t != nullptr && t->IsInt64() && t->GetInt64() > 0)
      pts = t->GetInt64();
    const Json* state = Member(pd, "state");
    const std::optional<std::string> tool = NonEmpty(pd, "tool"), call_id = NonEmpty(pd, "callID");
    ParsedEvent& call = event(part_id + "#call", "assistant", "tool_call", pts);
    call.tool_name = tool;
    call.call_id = call_id;
    const Json* input = state != nullptr ? Member(*state, "input") : nullptr;
    call.text = Truncate(input != nullptr ? Serialize(*input) : "", kToolCallChars);
    auto status = state != nullptr ? Str(*state, "status") : std::nullopt;
    if (status == "completed" || status == "error") {
      ParsedEvent& res = event(part_id + "#result", "tool", "tool_result", pts);
      res.call_id = call_id;  // not through `call`: the vector may have moved
      res.tool_name = tool;
      const Json* o = Member(*state, status == "error" ? "error" : "output");
      res.text = Truncate(o == nullptr    ? ""
                          : o->IsString() ? std::string(o->GetString(), o->GetStringLength())
                                          : Serialize(*o),
                          kToolResultChars);
      res.is_error = status == "error";
    }
  }
  return out;
}

}  // namespace origin::adapters
