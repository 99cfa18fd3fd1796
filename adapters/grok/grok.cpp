// SPDX-License-Identifier: MIT
#include "adapters/grok/grok.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <map>
#include <vector>

#include "adapters/common/json.hpp"
#include "adapters/common/memory_stream.hpp"
#include "adapters/common/stream_cursor.hpp"
#include "core/ingest/walk.hpp"
#include "core/util/hash.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

namespace {

// The run of message chunks in progress (see grok.hpp), carried from line
// to line and saved with the cursor.
struct GrokState final : FileState {
  std::string kind;  // user_message_chunk | agent_message_chunk; "" for none
  std::string id, text;
  std::int64_t ts = 0, line = 0;
  std::optional<std::string> model;

  std::string Save() const override {
    if (kind.empty()) return "";
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    d.AddMember("kind", rapidjson::Value(kind.c_str(), a), a);
    d.AddMember("id", rapidjson::Value(id.c_str(), a), a);
    d.AddMember("text",
                rapidjson::Value(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), a),
                a);
    d.AddMember("ts", ts, a);
    d.AddMember("line", line, a);
    if (model) d.AddMember("model", rapidjson::Value(model->c_str(), a), a);
    return Serialize(d);
  }
};

// sessions/<encoded-cwd>/<uuid>/updates.jsonl, or
// sessions/<encoded-cwd>/<uuid>/subagents/<id>/updates.jsonl.
struct SessionKey {
  std::string session;
  std::optional<std::string> cwd, agent;
};

SessionKey ParseKey(std::string_view key) {
  const std::vector<std::string_view> parts = SplitPath(key);
  SessionKey k;
  if (parts.size() >= 4) {
    k.session = std::string(parts[2]);
    if (auto cwd = PercentDecode(parts[1]); cwd && !cwd->empty() && cwd->front() == '/')
      k.cwd = cwd;
  }
  if (parts.size() == 6 && parts[3] == "subagents") k.agent = std::string(parts[4]);
  return k;
}

// The text of a tool call update's content items, else its rawOutput.
std::string ToolOutput(const Json& update) {
  std::string out;
  if (const Json* content = Member(update, "content"); content != nullptr && content->IsArray()) {
    for (const Json& item : content->GetArray()) {
      auto type = Str(item, "type");
      if (type == "content") {
        if (const Json* c = Member(item, "content"))
          AppendParagraph(out, Str(*c, "text").value_or(""));
      } else if (type == "diff") {
        AppendParagraph(out, "[diff " + std::string(Str(item, "path").value_or("?")) + "]");
      }
    }
  }
  if (out.empty())
    if (const Json* raw = Member(update, "rawOutput"))
      out =
          raw->IsString() ? std::string(raw->GetString(), raw->GetStringLength()) : Serialize(*raw);
  return out;
}

// The seconds whose milliseconds an int64 holds.
constexpr std::int64_t kMaxSeconds = INT64_MAX / 1000;

std::optional<std::int64_t> Millis(const Json* meta) {
  if (meta == nullptr) return std::nullopt;
  const Json* t = Member(*meta, "agentTimestampMs");
  if (t != nullptr && t->IsInt64()) return t->GetInt64();
  return std::nullopt;
}

}  // namespace

std::unique_ptr<FileState> GrokAdapter::LoadState(std::string_view key,
                                                  std::string_view saved) const {
  if (key.rfind("memory/", 0) == 0) return nullptr;
  auto st = std::make_unique<GrokState>();
  if (!saved.empty()) {
    rapidjson::Document d;
    d.Parse(saved.data(), saved.size());
    if (!d.HasParseError() && d.IsObject()) {
      st->kind = std::string(Str(d, "kind").value_or(""));
      st->id = std::string(Str(d, "id").value_or(""));
      st->text = std::string(Str(d, "text").value_or(""));
      if (const Json* t = Member(d, "ts"); t != nullptr && t->IsInt64()) st->ts = t->GetInt64();
      if (const Json* l = Member(d, "line"); l != nullptr && l->IsInt64()) st->line = l->GetInt64();
      st->model = NonEmpty(d, "model");
    }
  }
  return st;
}

Discovery GrokAdapter::Discover() const {
  WalkRules rules;
  rules.enter_dir = [](std::string_view rel) {
    std::string_view name = Basename(rel);
    return name != "images" && name != "prompts" && name != "compaction_checkpoints" &&
           name != "compaction_requests" && name != "recap_requests";
  };
  rules.accept_file = [](std::string_view rel, SourceFile& f) {
    if (Basename(rel) == "updates.jsonl") {
      f.key = "sessions/" + std::string(rel);
      return true;
    }
    // chat_history.jsonl, where the session has no updates.jsonl: a
    // generated stream of its items (it is rewritten on compaction).
    if (Basename(rel) == "chat_history.jsonl" &&
        rel.find("/subagents/") == std::string_view::npos) {
      const std::string dir = f.abs_path.substr(0, f.abs_path.rfind('/'));
      if (::access((dir + "/updates.jsonl").c_str(), F_OK) == 0) return false;
      f.key = "sessions/" + std::string(rel.substr(0, rel.size() - 6)) + ".items.jsonl";
      f.generated = true;
      // Items are dated from summary.json: it is part of the token.
      f.token = Sha256Hex(std::to_string(f.size) + ":" + std::to_string(f.mtime_ns) + "|" +
                          FileStamp(dir + "/summary.json"));
      return true;
    }
    // A persisted session's summary.json, rewritten every turn: its titles
    // as a generated stream (not in a sub-agent's directory).
    if (Basename(rel) == "summary.json" && rel.find("/subagents/") == std::string_view::npos) {
      f.key = "sessions/" + std::string(rel.substr(0, rel.size() - 5)) + ".titles.jsonl";
      f.generated = true;
      f.token = Sha256Hex(std::to_string(f.size) + ":" + std::to_string(f.mtime_ns));
      return true;
    }
    return false;
  };
  Discovery d = Walk(root_ + "/sessions", rules);
  Discovery top = RootDiscovery(root_);
  d.root_exists = top.root_exists;
  if (!d.root_exists) return d;
  d.dirs.insert(d.dirs.begin(), top.dirs.begin(), top.dirs.end());
  const std::string memory = root_ + "/memory";
  AddMemoryStream(d, memory, "memory/global.jsonl");
  for (const std::string& ws : SubDirs(memory)) {
    AddMemoryStream(d, memory + "/" + ws, "memory/" + ws + ".jsonl");
    AddMemoryStream(d, memory + "/" + ws + "/sessions", "memory/" + ws + "/sessions.jsonl");
  }
  return d;
}

std::string GrokAdapter::Generate(const SourceFile& stream, std::string_view last_line,
                                  std::size_t max_bytes, std::int64_t now_ms) const {
  if (EndsWith(stream.key, ".items.jsonl")) return GenerateHistory(stream, last_line, max_bytes);
  if (stream.key.rfind("sessions/", 0) == 0) return GenerateTitles(stream, last_line);
  MemoryPlace place;
  // memory/global.jsonl, memory/<ws>.jsonl, memory/<ws>/sessions.jsonl
  std::string_view ws = stream.key;
  ws.remove_prefix(std::string_view("memory/").size());
  ws.remove_suffix(std::string_view(".jsonl").size());
  if (EndsWith(ws, "/sessions")) ws.remove_suffix(std::string_view("/sessions").size());
  if (stream.key != "memory/global.jsonl") place.project = WithoutHashSuffix(ws, 8);
  return GenerateMemoryLines(stream, last_line, max_bytes, now_ms, place);
}

std::string GrokAdapter::CursorOf(std::string_view key, std::string_view line) const {
  if (EndsWith(key, ".items.jsonl")) return SequenceCursor::CursorOf(line);
  // A title line goes on from its title, which is its text: its digest
  // stands for it.
  if (key.rfind("sessions/", 0) == 0) {
    rapidjson::Document d;
    d.Parse(line.data(), line.size());
    if (d.HasParseError() || !d.IsObject() || Str(d, "title").value_or("").empty()) return {};
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    w.StartObject();
    w.Key("title_sha256");
    WriteString(w, Sha256Hex(std::string(Str(d, "title").value_or(""))));
    w.Key("manual");
    w.Bool(Bool(d, "manual"));
    w.EndObject();
    return std::string(sb.GetString(), sb.GetSize());
  }
  return key.rfind("memory/", 0) == 0 ? MemoryCursorOf(line) : std::string();
}

std::optional<OriginalLine> GrokAdapter::Original(std::string_view key,
                                                  std::string_view mirror_line) const {
  if (!EndsWith(key, ".items.jsonl")) return std::nullopt;
  return ItemOriginal(mirror_line);
}

ParsedLine GrokAdapter::ParseLine(std::string_view line, ParseContext& ctx) const {
  if (EndsWith(ctx.key, ".titles.jsonl")) return ParseTitle(line, ctx);
  if (EndsWith(ctx.key, ".items.jsonl")) return ParseHistoryItem(line, ctx);
  if (ctx.key.rfind("memory/", 0) != 0) return ParseUpdate(line, ctx);
  const bool session_log = EndsWith(ctx.key, "/sessions.jsonl");
  return ParseMemoryLine(line, [session_log](std::string_view file, std::string_view content) {
    return MarkdownMemory(file, content, [session_log](std::string_view, const std::string&) {
      return std::string(session_log ? "memory" : "knowledge");
    });
  });
}

}  // namespace origin::adapters

namespace origin::adapters {

ParsedLine GrokAdapter::ParseUpdate(std::string_view line, ParseContext& ctx) const {
  auto& st = *static_cast<GrokState*>(ctx.state);
  rapidjson::Document doc;
  ParseObject(line, doc);  // a torn append is a parse error, counted
  const Json* params = Member(doc, "params");
  const Json* update = params != nullptr ? Member(*params, "update") : nullptr;
  if (update == nullptr || !update->IsObject()) return {};
  const std::string kind(Str(*update, "sessionUpdate").value_or(""));
  const SessionKey key = ParseKey(ctx.key);
  const Json* meta = Member(*params, "_meta");
  const Json* update_meta = Member(*update, "_meta");
  std::int64_t ts = 0;
  if (auto ms = Millis(meta))
    ts = *ms;
  else if (auto ms2 = Millis(update_meta))
    ts = *ms2;
  else if (const Json* t = Member(doc, "timestamp"); t != nullptr && t->IsInt64() &&
                                                        t->GetInt64() <= kMaxSeconds &&
                                                        t->GetInt64() >= -kMaxSeconds)
    ts = t->GetInt64() * 1000;  // seconds; beyond milliseconds' range, no time
  std::string id;
  if (meta != nullptr) id = std::string(Str(*meta, "eventId").value_or(""));
  if (id.empty()) id = key.session + ":" + std::to_string(ctx.line_no);
  std::optional<std::string> model;
  if (update_meta != nullptr) model = NonEmpty(*update_meta, "modelId");

  ParsedLine out;
  auto event = [&](std::string native_id, const char* role, const char* ev_kind) -> ParsedEvent& {
    ParsedEvent& e = out.events.emplace_back();
    e.native_id = std::move(native_id);
    e.session = key.session;
    e.ts = ts;
    e.role = role;
    e.kind = ev_kind;
    e.cwd = key.cwd;
    e.agent = key.agent;
    return e;
  };
  const bool chunk = kind == "user_message_chunk" || kind == "agent_message_chunk";
  if (chunk && kind == st.kind) {  // the run goes on
    if (const Json* c = Member(*update, "content")) st.text += Str(*c, "text").value_or("");
    if (model) st.model = model;
    return out;
  }
  // The run in progress ends here: its message.
  if (!st.kind.empty()) {
    const bool user = st.kind == "user_message_chunk";
    if (st.text.find_first_not_of(" \t\r\n") != std::string::npos) {
      ParsedEvent& e = event(st.id, user ? "user" : "assistant", "message");
      e.ts = st.ts;
      e.text = st.text;
      e.line = st.line;
      if (!user) e.model = st.model;
    }
    st = GrokState{};
  }
  if (chunk) {
    st.kind = kind;
    st.id = id;
    st.ts = ts;
    st.line = ctx.line_no;
    st.model = model;
    if (const Json* c = Member(*update, "content")) st.text = Str(*c, "text").value_or("");
  } else if (kind == "tool_call") {
    ParsedEvent& e = event(id, "assistant", "tool_call");
    e.tool_name = NonEmpty(*update, "title");
    e.call_id = NonEmpty(*update, "toolCallId");
    const Json* input = Member(*update, "rawInput");
    e.text = Truncate(input != nullptr ? Serialize(*input) : "", kToolCallChars);
    e.model = model;
  } else if (kind == "tool_call_update") {
    auto status = Str(*update, "status");
    if (status == "completed" || status == "failed") {
      ParsedEvent& e = event(id, "tool", "tool_result");
      e.call_id = NonEmpty(*update, "toolCallId");
      e.text = Truncate(ToolOutput(*update), kToolResultChars);
      e.is_error = status == "failed";
    }
  }
  return out;
}

}  // namespace origin::adapters

namespace origin::adapters {

// summary.json's title as sources.md 5.2 gives it: a name the user gave
// (/rename: title_is_manual, the name in info.title, else generated_title),
// else the generated title, else session_summary; trimmed.
std::string GrokAdapter::GenerateTitles(const SourceFile& stream,
                                        std::string_view last_line) const {
  // Mid-rename, or being written: the next look.
  auto d = ReadJsonObject(stream.abs_path);
  if (!d) throw SourceBusy(stream.abs_path + " cannot be read as JSON (being written?)");
  const bool manual = Bool(*d, "title_is_manual");
  std::string title;
  if (manual)
    if (const Json* info = Member(*d, "info"); info != nullptr && info->IsObject())
      title = TrimSpace(Str(*info, "title").value_or(""));
  if (title.empty()) title = TrimSpace(Str(*d, "generated_title").value_or(""));
  if (title.empty()) title = TrimSpace(Str(*d, "session_summary").value_or(""));
  if (title.empty()) return "";
  // The session: the directory's uuid.
  std::string_view key = stream.key;  // sessions/<enc>/<uuid>/summary.titles.jsonl
  key = key.substr(0, key.rfind('/'));
  const std::string session(Basename(key));
  if (!last_line.empty()) {  // a title line, or its cursor (CursorOf): the title's digest
    rapidjson::Document last;
    last.Parse(last_line.data(), last_line.size());
    if (!last.HasParseError() && last.IsObject() && Bool(last, "manual") == manual &&
        (Str(last, "title").value_or("") == title ||
         Str(last, "title_sha256").value_or("") == Sha256Hex(title)))
      return "";  // as the last line says
  }
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("session");
  WriteString(w, session);
  w.Key("title");
  WriteString(w, title);
  w.Key("manual");
  w.Bool(manual);
  // When the title was seen: the session's last update then (else its last
  // activity, its creation, the file's mtime), written into the line so
  // that every store dates its event alike.
  std::optional<std::int64_t> time;
  for (const char* when : {"updated_at", "last_active_at", "created_at"})
    if (!time) time = ParseIsoMs(Str(*d, when).value_or(""));
  w.Key("time");
  w.Int64(time.value_or(stream.mtime_ns / 1000000));
  w.EndObject();
  return std::string(sb.GetString()) + "\n";
}

ParsedLine GrokAdapter::ParseTitle(std::string_view line, ParseContext& ctx) const {
  rapidjson::Document d;
  ParseObject(line, d);
  auto session = NonEmpty(d, "session");
  auto title = NonEmpty(d, "title");
  if (!session || !title) throw ParseError("not a title line");
  ParsedLine out;
  // A line per change of title: each is a title event, <session>:title:<line>
  // (the stream is written once, never rewritten).  Lines written before
  // they carried a time are dated 0.
  ParsedTitle& t = out.titles.emplace_back();
  t.native_id = *session + ":title:" + std::to_string(ctx.line_no);
  t.session = *session;
  t.text = *title;
  t.manual = Bool(d, "manual");
  if (const Json* time = Member(d, "time"); time != nullptr && time->IsInt64())
    t.ts = time->GetInt64();
  return out;
}

}  // namespace origin::adapters

namespace origin::adapters {

// chat_history.jsonl's items (sources.md 5.4), written out with an id from
// their own bytes (and how often the same line came before), so that the
// items a compaction keeps are the same items; dated from the session's
// creation (summary.json's created_at, else the file's mtime), one ms apart.
std::string GrokAdapter::GenerateHistory(const SourceFile& stream, std::string_view last_line,
                                         std::size_t max_bytes) const {
  const std::string dir = stream.abs_path.substr(0, stream.abs_path.rfind('/'));
  std::int64_t base = stream.mtime_ns / 1000000;
  if (auto summary = ReadJsonObject(dir + "/summary.json"))
    if (auto at = ParseIsoMs(Str(*summary, "created_at").value_or(""))) base = *at;
  return GenerateItems(stream.abs_path, last_line, max_bytes, [&](JsonWriter& w, std::size_t i) {
    w.Key("ts");
    w.Int64(base + static_cast<std::int64_t>(i));
  });
}

ParsedLine GrokAdapter::ParseHistoryItem(std::string_view line, ParseContext& ctx) const {
  rapidjson::Document doc;
  const ItemLine il = ParseItemLine(line, doc);
  const Json* item = il.item;
  const SessionKey key = ParseKey(ctx.key);
  ParsedLine out;
  auto event = [&](std::string suffix, const char* role, const char* kind) -> ParsedEvent& {
    ParsedEvent& e = out.events.emplace_back();
    e.native_id = key.session + ":h:" + il.id + suffix;
    e.session = key.session;
    e.ts = il.ts;
    e.role = role;
    e.kind = kind;
    e.cwd = key.cwd;
    return e;
  };
  const std::string type(Str(*item, "type").value_or(""));
  const std::string text = TextParts(Member(*item, "content"));
  if (type == "user") {
    if (Member(*item, "synthetic_reason") != nullptr) return out;  // injected, not said
    if (auto q = TagContent(text, "user_query")) {
      if (!q->empty()) event("", "user", "message").text = *q;
    } else if (Member(*item, "prompt_index") != nullptr &&
               text.find_first_not_of(" \t\r\n") != std::string::npos) {
      event("", "user", "message").text = text;
    }
    // Neither: the environment preamble (<user_info>), not a prompt.
  } else if (type == "assistant") {
    if (text.find_first_not_of(" \t\r\n") != std::string::npos) {
      ParsedEvent& e = event("", "assistant", "message");
      e.text = text;
      e.model = NonEmpty(*item, "model_id");
    }
    if (const Json* calls = Member(*item, "tool_calls"); calls != nullptr && calls->IsArray()) {
      int n = 0;
      for (const Json& c : calls->GetArray()) {
        ParsedEvent& e = event("#" + std::to_string(++n), "assistant", "tool_call");
        e.tool_name = NonEmpty(c, "name");
        e.call_id = NonEmpty(c, "id");
        e.text = Truncate(Str(c, "arguments").value_or(""), kToolCallChars);
      }
    }
  } else if (type == "tool_result") {
    ParsedEvent& e = event("", "tool", "tool_result");
    e.call_id = NonEmpty(*item, "tool_call_id");
    e.text = Truncate(text, kToolResultChars);
  } else if (type == "backend_tool_call") {
    ParsedEvent& e = event("", "assistant", "tool_call");
    e.tool_name = NonEmpty(*item, "name");
    const Json* args = Member(*item, "arguments");
    e.text = Truncate(args == nullptr    ? ""
                      : args->IsString() ? std::string(args->GetString(), args->GetStringLength())
                                         : Serialize(*args),
                      kToolCallChars);
  }
  // system and reasoning items: nothing.
  return out;
}

}  // namespace origin::adapters
