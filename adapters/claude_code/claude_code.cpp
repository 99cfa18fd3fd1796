// SPDX-License-Identifier: MIT
#include "adapters/claude_code/claude_code.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "adapters/common/harness.hpp"
#include "adapters/common/json.hpp"
#include "adapters/common/memory_stream.hpp"
#include "adapters/common/title.hpp"
#include "core/ingest/walk.hpp"
#include "core/util/hash.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

namespace {

// A sub-agent's own log: its title lines are not the session's.
bool IsSubagentFile(std::string_view key) {
  return key.find("/subagents/") != std::string_view::npos ||
         Basename(key).substr(0, 6) == "agent-";
}

// The session a file belongs to when a line does not say: the file's stem,
// or for the new sub-agent layout the directory above subagents/.
std::string SessionFromKey(std::string_view key) {
  std::size_t sub = key.find("/subagents/");
  if (sub != std::string_view::npos) return std::string(Basename(key.substr(0, sub)));
  std::string_view base = Basename(key);
  if (EndsWith(base, ".jsonl")) base.remove_suffix(6);
  return std::string(base);
}

// The compaction worker's own log (subagents/agent-acompact-<hex>.jsonl):
// its prompt is the harness's instruction, its answer the summary the
// parent's compact summary repeats.  Neither is anyone's message.
bool IsCompactionWorker(std::string_view key) {
  return IsSubagentFile(key) && Basename(key).substr(0, 15) == "agent-acompact-";
}

// The marker of an attachment block (image, document, ...) of the Messages
// API: its media type and size, from its source ({type: base64, media_type,
// data}, {type: text, media_type, data}, {type: url, url}, {type: file}).
std::optional<std::string> Attachment(const Json& block, std::string_view type) {
  if (type != "image" && type != "document" && type != "file" && type != "audio" &&
      type != "video")
    return std::nullopt;
  const Json* src = Member(block, "source");
  std::string what;
  std::optional<std::int64_t> bytes;
  if (src != nullptr && src->IsObject()) {
    what = std::string(Str(*src, "media_type").value_or(""));
    auto stype = Str(*src, "type");
    const Json* data = Member(*src, "data");
    if (data != nullptr && data->IsString()) {
      std::string_view d(data->GetString(), data->GetStringLength());
      if (stype == "base64") {
        bytes = Base64DecodedSize(d);
      } else {
        bytes = static_cast<std::int64_t>(d.size());
      }
    }
    if (what.empty() && stype == "url") what = std::string(Str(*src, "url").value_or(""));
  }
  if (what.empty()) what = std::string(Str(block, "title").value_or(""));
  return AttachmentMarker(type, what, bytes);
}

// Text of a tool_result's content: a string, or text blocks (attachments
// are marked, tool references named, not inlined).
std::string ToolResultText(const Json& content) {
  if (content.IsString()) return std::string(content.GetString(), content.GetStringLength());
  std::string out;
  if (!content.IsArray()) return out;
  for (const Json& b : content.GetArray()) {
    auto type = Str(b, "type");
    if (!type) continue;
    if (type == "text") {
      AppendParagraph(out, Str(b, "text").value_or(""));
    } else if (auto marker = Attachment(b, *type)) {
      AppendParagraph(out, *marker);
    } else if (type == "tool_reference") {
      auto name = Str(b, "tool_name");
      AppendParagraph(out, "[tool " + std::string(name.value_or("?")) + "]");
    }
  }
  return out;
}

// What a session log carries from line to line: title lines have no time of
// their own and repeat the current title many times (sources.md 1.2).
struct ClaudeState final : FileState {
  std::optional<std::int64_t> ts;  // the time of the last line that gave one
  // The last title of each kind per session ("<session>\n1" for the user's,
  // "\n0" for generated ones): a SHA-256 of its text, never the text.
  std::map<std::string, std::string> last;
  std::vector<ParsedTitle> waiting;  // titles seen before any time

  std::string Save() const override {
    if (!ts && last.empty() && waiting.empty()) return "";
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    auto str = [&](const std::string& v) {
      return rapidjson::Value(v.data(), static_cast<rapidjson::SizeType>(v.size()), a);
    };
    if (ts) d.AddMember("ts", *ts, a);
    rapidjson::Value l(rapidjson::kObjectType);
    for (const auto& [k, v] : last) l.AddMember(str(k), str(v), a);
    d.AddMember("last", l, a);
    rapidjson::Value w(rapidjson::kArrayType);
    for (const ParsedTitle& t : waiting) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("id", str(t.native_id), a);
      o.AddMember("session", str(t.session), a);
      o.AddMember("text", str(t.text), a);
      o.AddMember("manual", t.manual, a);
      o.AddMember("line", t.line.value_or(0), a);
      if (t.leaf) o.AddMember("leaf", str(*t.leaf), a);
      w.PushBack(o, a);
    }
    d.AddMember("waiting", w, a);
    return Serialize(d);
  }
};

// The cwd of the first session log of a project directory (by name) that
// names one in its first 64 KiB.
std::optional<std::string> FirstCwd(const std::string& project_dir) {
  std::vector<std::string> logs;
  ForEachEntry(project_dir, [&](std::string_view name, const struct stat& st) {
    if (S_ISREG(st.st_mode) && EndsWith(name, ".jsonl")) logs.emplace_back(name);
  });
  std::sort(logs.begin(), logs.end());
  for (const std::string& name : logs) {
    std::ifstream in(project_dir + "/" + name, std::ios::binary);
    std::string line;
    std::size_t read = 0;
    while (read < (64u << 10) && std::getline(in, line)) {
      read += line.size() + 1;
      rapidjson::Document doc;
      doc.Parse(line.data(), line.size());
      if (doc.HasParseError() || !doc.IsObject()) continue;
      if (auto cwd = NonEmpty(doc, "cwd")) return cwd;
    }
  }
  return std::nullopt;
}

}  // namespace

Discovery ClaudeCodeAdapter::Discover() const {
  WalkRules rules;
  rules.enter_dir = [](std::string_view rel) {
    std::string_view name = Basename(rel);
    if (name == "tool-results") return false;
    // <slug>/memory is the project's native memory, read later as a memory stream.
    if (name == "memory" && rel.find('/') == rel.rfind('/') &&
        rel.find('/') != std::string_view::npos)
      return false;
    return true;
  };
  rules.accept_file = [](std::string_view rel, SourceFile& f) {
    if (!EndsWith(rel, ".jsonl") || rel.find('/') == std::string_view::npos) return false;
    f.key = "projects/" + std::string(rel);
    return true;
  };
  Discovery d = Walk(root_ + "/projects", rules);
  if (IsDirectory(root_)) {
    d.dirs.insert(d.dirs.begin(), root_);
    d.root_exists = true;
  }
  // The projects' memory directories, each a memory stream (watched too).
  for (const std::string& dir : std::vector<std::string>(d.dirs)) {
    const std::string projects = root_ + "/projects/";
    if (dir.rfind(projects, 0) != 0) continue;
    std::string slug = dir.substr(projects.size());
    if (slug.empty() || slug.find('/') != std::string::npos) continue;
    AddMemoryStream(d, dir + "/memory", "memory/" + slug + ".jsonl");
  }
  return d;
}

std::string ClaudeCodeAdapter::Generate(const SourceFile& stream, std::string_view last_line,
                                        std::size_t max_bytes, std::int64_t now_ms) const {
  // Where the memories belong: the cwd the project's sessions give (the
  // slug alone is ambiguous), from the first of them that says.
  MemoryPlace place;
  const std::string project_dir = stream.abs_path.substr(0, stream.abs_path.rfind('/'));
  place.cwd = FirstCwd(project_dir);
  if (place.cwd) place.project = LastPathSegment(*place.cwd);
  return GenerateMemoryLines(stream, last_line, max_bytes, now_ms, place);
}

std::string ClaudeCodeAdapter::CursorOf(std::string_view key, std::string_view line) const {
  return key.rfind("memory/", 0) == 0 ? MemoryCursorOf(line) : std::string();
}

std::unique_ptr<FileState> ClaudeCodeAdapter::LoadState(std::string_view key,
                                                        std::string_view saved) const {
  if (key.rfind("memory/", 0) == 0) return nullptr;
  auto st = std::make_unique<ClaudeState>();
  if (saved.empty()) return st;
  rapidjson::Document d;
  d.Parse(saved.data(), saved.size());
  if (d.HasParseError() || !d.IsObject()) return st;
  if (const Json* t = Member(d, "ts"); t != nullptr && t->IsInt64()) st->ts = t->GetInt64();
  if (const Json* l = Member(d, "last"); l != nullptr && l->IsObject())
    for (const auto& m : l->GetObject())
      if (m.value.IsString())
        st->last[std::string(m.name.GetString(), m.name.GetStringLength())] =
            std::string(m.value.GetString(), m.value.GetStringLength());
  if (const Json* w = Member(d, "waiting"); w != nullptr && w->IsArray())
    for (const Json& o : w->GetArray()) {
      const Json* line = Member(o, "line");
      auto id = NonEmpty(o, "id"), session = NonEmpty(o, "session");
      if (!id || !session || line == nullptr || !line->IsInt64()) continue;
      ParsedTitle& t = st->waiting.emplace_back();
      t.native_id = *id;
      t.session = *session;
      t.text = std::string(Str(o, "text").value_or(""));
      t.manual = Bool(o, "manual");
      t.line = line->GetInt64();
      t.leaf = NonEmpty(o, "leaf");
    }
  return st;
}

namespace {

// One line of a session log (not a memory stream), given its time if it
// has one.  Throws ParseError before it changes `st`.
ParsedLine ParseRecord(const rapidjson::Document& doc, const ParseContext& ctx, ClaudeState& st,
                       std::optional<std::int64_t> ts) {
  ParsedLine out;
  auto type = Str(doc, "type");
  if (!type) return out;  // not a record we know: nothing to index
  out.agent_version = NonEmpty(doc, "version");

  const bool subagent_file = IsSubagentFile(ctx.key);
  std::string session = NonEmpty(doc, "sessionId").value_or(SessionFromKey(ctx.key));

  if (*type == "ai-title" || *type == "custom-title" || *type == "summary") {
    if (subagent_file) return out;
    const char* field = *type == "ai-title"       ? "aiTitle"
                        : *type == "custom-title" ? "customTitle"
                                                  : "summary";
    auto t = NonEmpty(doc, field);
    if (!t) return out;
    std::string text = SanitizeUtf8(*t);
    const bool manual = *type == "custom-title";
    // A summary names the conversation that holds its leaf, which may be
    // another session's (the old CLI writes the summary of an earlier
    // conversation into the next session's file): the ingester applies it
    // there, once that line's event is in the store.
    std::optional<std::string> leaf;
    if (*type == "summary") leaf = NonEmpty(doc, "leafUuid");
    std::string of = *type == "summary" ? SessionFromKey(ctx.key) : session;
    // A line that repeats the title its kind gave last is no new event.
    std::string& last = st.last[of + (manual ? "\n1" : "\n0") + (leaf ? "\n" + *leaf : "")];
    std::string digest = Sha256Hex(text);
    if (digest == last) return out;
    if (!ts) ts = st.ts;
    ParsedTitle title = MakeTitle(std::move(of), std::move(text), manual, ts.value_or(0), last);
    title.leaf = std::move(leaf);
    last = std::move(digest);
    if (ts) {
      out.titles.push_back(std::move(title));
    } else {  // no time yet: it waits for the next line that has one
      title.line = ctx.line_no;
      st.waiting.push_back(std::move(title));
    }
    return out;
  }
  const bool is_user = *type == "user", is_assistant = *type == "assistant";
  const bool is_system = *type == "system";
  if (!is_user && !is_assistant && !is_system) return out;

  auto uuid = NonEmpty(doc, "uuid");
  if (!uuid) throw ParseError("a " + std::string(*type) + " line without uuid");
  if (!ts) throw ParseError("a " + std::string(*type) + " line without a valid timestamp");

  ParsedEvent base;
  base.session = session;
  base.ts = *ts;
  base.cwd = NonEmpty(doc, "cwd");
  base.git_branch = NonEmpty(doc, "gitBranch");
  if (Bool(doc, "isSidechain") || subagent_file) {
    base.agent = NonEmpty(doc, "agentId");
    if (!base.agent) base.agent = std::string("sidechain");
  }

  if (is_system) {
    // compact_boundary, local_command, api_error, informational...: kept when
    // they say something; hook summaries and durations carry no text.
    auto content = NonEmpty(doc, "content");
    if (!content) return out;
    ParsedEvent ev = base;
    ev.native_id = *uuid;
    ev.role = "system";
    ev.kind = "meta";
    ev.text = *content;
    ev.is_error = Str(doc, "level") == "error" || Str(doc, "subtype") == "api_error";
    out.events.push_back(std::move(ev));
    return out;
  }

  const Json* message = Member(doc, "message");
  if (message == nullptr || !message->IsObject()) return out;
  // "<synthetic>" stands in for a model on the harness's own assistant
  // lines (API errors): not a model, so the event names none and the
  // session's model stays the latest real one.
  if (is_assistant) base.model = NonEmpty(*message, "model");
  const bool synthetic = base.model == std::string("<synthetic>");
  if (synthetic) base.model.reset();
  const bool api_error = Bool(doc, "isApiErrorMessage") || (is_assistant && synthetic);
  const bool meta = Bool(doc, "isMeta") || Bool(doc, "isCompactSummary") || api_error ||
                    IsCompactionWorker(ctx.key);
  const std::string role = is_user ? "user" : "assistant";

  // A user's text pieces: what the person wrote, and what the harness
  // injected (adapters/common/harness.hpp), which is meta.
  std::string text, harness;
  auto add_text = [&](std::string_view piece) {
    AppendParagraph(is_user && IsHarnessText(piece) ? harness : text, piece);
  };
  const Json* content = Member(*message, "content");
  if (content != nullptr && content->IsString()) {
    add_text(std::string_view(content->GetString(), content->GetStringLength()));
  } else if (content != nullptr && content->IsArray()) {
    int index = -1;
    for (const Json& block : content->GetArray()) {
      ++index;
      auto btype = Str(block, "type");
      if (!btype) continue;
      if (*btype == "text") {
        add_text(Str(block, "text").value_or(""));
      } else if (auto marker = Attachment(block, *btype)) {
        AppendParagraph(text, *marker);
      } else if (*btype == "tool_use") {
        ParsedEvent ev = base;
        ev.native_id = *uuid + "#" + std::to_string(index);
        ev.role = "assistant";
        ev.kind = "tool_call";
        ev.tool_name = NonEmpty(block, "name");
        ev.call_id = NonEmpty(block, "id");
        const Json* input = Member(block, "input");
        ev.text = Truncate(input != nullptr ? Serialize(*input) : "", kToolCallChars);
        out.events.push_back(std::move(ev));
      } else if (*btype == "tool_result") {
        ParsedEvent ev = base;
        ev.native_id = *uuid + "#" + std::to_string(index);
        ev.role = "tool";
        ev.kind = "tool_result";
        ev.call_id = NonEmpty(block, "tool_use_id");
        ev.is_error = Bool(block, "is_error");
        const Json* rc = Member(block, "content");
        ev.text = Truncate(rc != nullptr ? ToolResultText(*rc) : "", kToolResultChars);
        out.events.push_back(std::move(ev));
      }
      // thinking, redacted_thinking: not indexed; the mirror keeps them.
    }
  }
  // Text of white space alone ("\n\n" before a tool call) says nothing:
  // no event; the mirror keeps it.  The harness's text is a meta event of
  // the system: the line's own (<uuid>) when the person wrote nothing in it,
  // else <uuid>#context beside their message.
  const bool said = !TrimSpace(text).empty(), injected = !TrimSpace(harness).empty();
  if (injected) {
    ParsedEvent ev = base;
    ev.native_id = said ? *uuid + "#context" : *uuid;
    ev.role = "system";
    ev.kind = "meta";
    ev.is_error = api_error;
    ev.text = std::move(harness);
    out.events.insert(out.events.begin(), std::move(ev));
  }
  if (said) {
    ParsedEvent ev = base;
    ev.native_id = *uuid;
    ev.role = role;
    ev.kind = meta ? "meta" : "message";
    ev.is_error = api_error;
    ev.text = std::move(text);
    out.events.insert(out.events.begin(), std::move(ev));
  }
  return out;
}

}  // namespace

ParsedLine ClaudeCodeAdapter::ParseLine(std::string_view line, ParseContext& ctx) const {
  if (ctx.key.rfind("memory/", 0) == 0) {
    return ParseMemoryLine(line, [](std::string_view file, std::string_view content) {
      return MarkdownMemory(file, content, ClaudeStyleKind);
    });
  }
  rapidjson::Document doc;
  ParseObject(line, doc);
  ClaudeState scratch;
  auto* st = dynamic_cast<ClaudeState*>(ctx.state);
  if (st == nullptr) st = &scratch;
  auto ts_str = Str(doc, "timestamp");
  const std::optional<std::int64_t> ts = ts_str ? ParseIsoMs(*ts_str) : std::nullopt;
  ParsedLine out = ParseRecord(doc, ctx, *st, ts);
  if (ts) {
    // The titles that waited for a time take this line's, before its events.
    st->ts = ts;
    for (ParsedTitle& t : st->waiting) t.ts = *ts;
    out.titles.insert(out.titles.begin(), std::make_move_iterator(st->waiting.begin()),
                      std::make_move_iterator(st->waiting.end()));
    st->waiting.clear();
  }
  return out;
}

}  // namespace origin::adapters
