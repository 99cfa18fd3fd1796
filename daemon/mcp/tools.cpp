// SPDX-License-Identifier: MIT
#include "daemon/mcp/tools.hpp"

#include <cmath>
#include <vector>

#include "core/util/op_error.hpp"
#include "proto/time.hpp"

namespace origin::mcp {

const char* const kInstructions =
    "Origin is the user's shared memory of every coding agent's sessions (Claude Code, Codex, "
    "and others) on the machines it gathers: the logs of past conversations, and durable entries "
    "(memory, knowledge, cognition) with their sources.\n"
    "- search before answering questions about earlier work, decisions, or the user's "
    "preferences; timeline to walk recent sessions; get and sources to expand an answer down "
    "to the original log line. search and timeline answer pages of snippets or previews: get "
    "an id for its whole text, and ask again with offset=next_offset while more is true.\n"
    "- remember decisions with their reasons, stable facts about the projects, and the "
    "user's preferences, citing the events they come from (an event id, or a quote of the "
    "conversation); correct an entry when it is wrong or out of date.\n"
    "- forget only when the user explicitly asks, with the user's reason. Only the user can "
    "restore what was forgotten, from the origin CLI.\n"
    "- An entry marked imported mirrors an agent's own memory file: a later change of that "
    "file supersedes a correction made in Origin.";

// What separates the three kinds of entries (spec: Memory, knowledge, and
// cognition), in every tool that takes or filters by a kind.
#define ORIGIN_KINDS                                                                          \
  "Kinds: memory is what happened (episodic: a decision, when and why, an incident); "        \
  "knowledge is a stable fact or relation (project A depends on B; the API takes ISO dates); " \
  "cognition is a model of the user (preferences, methods, goals, boundaries)."
#define ORIGIN_KIND_SCHEMA                                                                   \
  R"s("kind":{"type":"string","enum":["memory","knowledge","cognition"],"description":"memory: what happened; knowledge: a stable fact; cognition: the user's preferences, methods, goals"})s"
// The id forms taken wherever an id is.
#define ORIGIN_ID_FORMS "its full id, its short ref, or a unique prefix of either"

// Where an item of a connected device's answer comes from.
#define ORIGIN_ORIGIN_PROP                                                                     \
  R"s("origin":{"type":"string","enum":["local","hub"],"description":"on a device connected to a hub: local when this device holds it, else hub"})s"

// The answers' schemas: open (members may be added), exact about what is
// always there.  Times are local ISO 8601 with milliseconds; no member is
// ever null: what is unknown is left out.
#define ORIGIN_ENTRY_SCHEMA                                                                    \
  R"s({"type":"object","properties":{"id":{"type":"string"},"kind":{"type":"string"},"text":{"type":"string"},)s" \
  R"s("confidence":{"type":"number"},"author":{"type":"string"},"project":{"type":"string"},"status":{"type":"string"},)s" \
  R"s("imported":{"type":"boolean"},"created":{"type":"string"},"store":{"type":"string","description":"the store that wrote it"},)s" \
  ORIGIN_ORIGIN_PROP R"s(,"sources":{"type":"array","items":{"type":"object"}}},)s" \
  R"s("required":["id","kind","text","confidence","status","imported"]})s"
#define ORIGIN_SESSION_SCHEMA                                                                  \
  R"s({"type":"object","properties":{"id":{"type":"string"},"source":{"type":"string"},"title":{"type":"string"},)s" \
  R"s("project":{"type":"string"},"first_time":{"type":"string"},"last_time":{"type":"string"},)s" \
  R"s("messages":{"type":"integer"},"events":{"type":"integer"},)s" ORIGIN_ORIGIN_PROP R"s(},"required":["id","source"]})s"
#define ORIGIN_HIT_SCHEMA                                                                      \
  R"s({"type":"object","properties":{"id":{"type":"string"},"time":{"type":"string"},"role":{"type":"string"},)s" \
  R"s("kind":{"type":"string","description":"left out for a message"},"tool":{"type":"string"},"is_error":{"type":"boolean"},)s" \
  R"s("snippet":{"type":"string","description":"around the first match, matches in [brackets]"},)s" \
  R"s("rank":{"type":"integer","minimum":1,"description":"1 is the best match (or the newest)"},)s" \
  ORIGIN_ORIGIN_PROP R"s(},"required":["id","time","role","snippet","rank"]})s"
#define ORIGIN_EVENT_SCHEMA                                                                    \
  R"s({"type":"object","properties":{"id":{"type":"string"},"session":{"type":"string"},"time":{"type":"string"},)s" \
  R"s("role":{"type":"string"},"kind":{"type":"string"},"tool":{"type":"string"},"is_error":{"type":"boolean"},)s" \
  R"s("text":{"type":"string","description":"in a timeline, a preview: get gives the whole text"},)s" \
  ORIGIN_ORIGIN_PROP R"s(},)s" \
  R"s("required":["id","time","role","text"]})s"

constexpr Tool kTools[] = {
    {"search",
     "Search the user's memory: durable entries, and the events of every agent's past "
     "sessions (messages; with include_tools, tool calls and results too). Every word must "
     "occur (case-insensitive substring). Ranked by relevance (rank 1 is the best match), or "
     "newest first with recent. Each hit is a snippet around its matches (in [brackets]); "
     "event hits come under their session's title in `sessions`; get an id for its whole "
     "text. When "
     "`more` is true, the next page is offset=next_offset. Without a query, lists recent "
     "entries. " ORIGIN_KINDS,
     R"json({"type":"object","properties":{
"query":{"type":"string","description":"words that must all occur"},
"scope":{"type":"string","enum":["both","entries","events"],"description":"entries, events, or both (default)"},
)json" ORIGIN_KIND_SCHEMA R"json(,
"include_tools":{"type":"boolean","description":"search tool calls and results too"},
"recent":{"type":"boolean","description":"newest first instead of by relevance"},
"history":{"type":"boolean","description":"superseded and ended entries too"},
"source":{"type":"string","description":"an agent: claude-code, codex, cursor, zcode, grok"},
"project":{"type":"string","description":"a project's name"},
"since":{"type":"string","description":"ISO 8601 date or time, or now, today, yesterday, or a time ago: 30m, 12h, 2d, 1w"},
"until":{"type":"string","description":"as since"},
"limit":{"type":"integer","minimum":1,"maximum":50,"description":"hits per list (default 20)"},
"offset":{"type":"integer","minimum":0,"maximum":950,"description":"hits to skip: next_offset of the previous page"}},"additionalProperties":false})json",
     R"json({"type":"object","properties":{
"order":{"type":"string","enum":["relevance","newest"],"description":"how rank orders the hits"},
"entries":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"kind":{"type":"string"},
"snippet":{"type":"string"},"confidence":{"type":"number"},"project":{"type":"string"},"imported":{"type":"boolean"},
"status":{"type":"string"},"rank":{"type":"integer","minimum":1,"description":"1 is the best match (or the newest)"},
"chain":{"type":"string","description":"a corrected entry: its first version's id"},)json" ORIGIN_ORIGIN_PROP
     R"json(},
"required":["id","kind","snippet","confidence","imported","rank"]}},
"sessions":{"type":"array","description":"event hits by session, in the order of each session's best hit","items":{"type":"object","properties":{
"id":{"type":"string"},"source":{"type":"string"},"title":{"type":"string","description":"its title, or its first prompt"},"project":{"type":"string"},
"events":{"type":"array","items":)json" ORIGIN_HIT_SCHEMA R"json(}},"required":["id","events"]}},
"events":{"type":"array","description":"event hits without a session","items":)json" ORIGIN_HIT_SCHEMA
     R"json(},
"more":{"type":"boolean","description":"more hits follow this page"},
"next_offset":{"type":"integer","description":"the offset of the next page, when more"}},
"required":["order","entries","sessions","events","more"]})json",
     true, "search", Fresh::kWatched, 20, "id", false},
    {"timeline",
     "Sessions of a time range (default the last 7 days), latest first, each with its title "
     "or first prompt (with name, only those whose title or first prompt holds every word); "
     "or, given a session, a page of that session's events in order, each "
     "with a preview of its text (chars: the whole length; get an id for the whole text). "
     "When `more` is true, the next page is offset=next_offset.",
     R"json({"type":"object","properties":{
"session":{"type":"string","description":"a session (its full id, its short ref, a unique prefix of either, or its bare UUID): its events"},
"days":{"type":"integer","minimum":1,"description":"the range's length in days, up to until (default 7); not with since"},
"since":{"type":"string","description":"ISO 8601 date or time, or now, today, yesterday, or a time ago: 30m, 12h, 2d, 1w"},
"until":{"type":"string","description":"as since"},
"source":{"type":"string","description":"an agent: claude-code, codex, cursor, zcode, grok"},
"project":{"type":"string","description":"a project's name"},
"name":{"type":"string","description":"words the session's title (else its first prompt) holds, each in any case (not with session)"},
"include_tools":{"type":"boolean","description":"tool calls and results too (one session)"},
"limit":{"type":"integer","minimum":1,"maximum":200,"description":"sessions or events (default 50)"},
"offset":{"type":"integer","minimum":0,"description":"a session's events to skip: next_offset of the previous page"}},"additionalProperties":false})json",
     R"json({"type":"object","properties":{
"sessions":{"type":"array","items":)json" ORIGIN_SESSION_SCHEMA R"json(},
"session":)json" ORIGIN_SESSION_SCHEMA R"json(,
"events":{"type":"array","items":)json" ORIGIN_EVENT_SCHEMA R"json(},
"since":{"type":"string"},"until":{"type":"string"},
"more":{"type":"boolean","description":"more sessions or events follow"},
"next_offset":{"type":"integer","description":"a session's next page, when more"}},
"required":["more"]})json",
     true, "timeline", Fresh::kWatched, 50, "id", false},
    {"get",
     "An entry with its sources, the events it cites and the history of its versions, or an "
     "event with its whole text.",
     R"json({"type":"object","properties":{"id":{"type":"string","description":"an entry (ent_...) or an event: )json" ORIGIN_ID_FORMS
     R"json("}},"required":["id"],"additionalProperties":false})json",
     R"json({"type":"object","properties":{"entry":)json" ORIGIN_ENTRY_SCHEMA R"json(,
"history":{"type":"array","items":)json" ORIGIN_ENTRY_SCHEMA R"json(},
"cited":{"type":"array","items":)json" ORIGIN_EVENT_SCHEMA R"json(},
"event":)json" ORIGIN_EVENT_SCHEMA R"json(}})json",
     true, "show", Fresh::kNone, 0, "id", false},
    {"sources",
     "The original log lines behind an entry or an event: file, mirror, line number and raw "
     "text.",
     R"json({"type":"object","properties":{"id":{"type":"string","description":"an entry (ent_...) or an event: )json" ORIGIN_ID_FORMS
     R"json("}},"required":["id"],"additionalProperties":false})json",
     R"json({"type":"object","properties":{"id":{"type":"string"},"sources":{"type":"array","items":{"type":"object","properties":{
"file":{"type":"string"},"mirror":{"type":"string"},"generation":{"type":"integer"},"line":{"type":"integer","description":"1-based"},
"raw":{"type":"string","description":"the line, without its newline"},"raw_base64":{"type":"string","description":"its exact bytes, when they are not UTF-8"},
"withheld":{"type":"string","description":"why raw is empty: the line also holds a forgotten event's text"}},
"required":["file","line","raw"]}},)json" ORIGIN_ORIGIN_PROP
     R"json(},"required":["id","sources"]})json",
     true, "sources", Fresh::kNone, 0, "id", false},
    {"remember",
     "Write a durable entry: one self-contained statement. Cite at least one source: an event "
     "id, or a quote of a message the user or an agent wrote. " ORIGIN_KINDS,
     R"json({"type":"object","properties":{
)json" ORIGIN_KIND_SCHEMA R"json(,
"text":{"type":"string","description":"the statement, self-contained"},
"confidence":{"type":"number","minimum":0,"maximum":1,"description":"0 to 1"},
"project":{"type":"string","description":"the project it is about"},
"valid_from":{"type":"string","description":"ISO 8601: when it starts to hold"},
"valid_to":{"type":"string","description":"ISO 8601: when it stops holding"},
"sources":{"type":"array","minItems":1,"description":"what it comes from","items":{"type":"object","properties":{
"event_id":{"type":"string","description":"an event: )json" ORIGIN_ID_FORMS
     R"json("},"quote":{"type":"string","description":"words of a message, exactly"}},"additionalProperties":false}}},
"required":["kind","text","confidence","sources"],"additionalProperties":false})json",
     R"json({"type":"object","properties":{"entry":)json" ORIGIN_ENTRY_SCHEMA
     R"json(},"required":["entry"]})json",
     false, "remember", Fresh::kNone, 0, "id", false},
    {"correct",
     "Supersede the current version of an entry with a corrected one; what is not given "
     "carries over, and sources given are added. " ORIGIN_KINDS,
     R"json({"type":"object","properties":{
"id":{"type":"string","description":"the entry's current version: )json" ORIGIN_ID_FORMS R"json("},
)json" ORIGIN_KIND_SCHEMA R"json(,
"text":{"type":"string","description":"the corrected statement"},
"confidence":{"type":"number","minimum":0,"maximum":1,"description":"0 to 1"},
"project":{"type":"string","description":"the project it is about"},
"valid_from":{"type":"string","description":"ISO 8601"},"valid_to":{"type":"string","description":"ISO 8601"},
"sources":{"type":"array","description":"sources to add","items":{"type":"object","properties":{
"event_id":{"type":"string","description":"an event: )json" ORIGIN_ID_FORMS
     R"json("},"quote":{"type":"string","description":"words of a message, exactly"}},"additionalProperties":false}}},
"required":["id"],"additionalProperties":false})json",
     R"json({"type":"object","properties":{"entry":)json" ORIGIN_ENTRY_SCHEMA
     R"json(},"required":["entry"]})json",
     false, "correct", Fresh::kNone, 0, "id", false},
    {"forget",
     "Hide an entry (every version), an event, or a whole session (every event of it, also "
     "those that arrive later), and what cites it, from every answer. Only on the user's "
     "explicit request, with the user's reason. Only the user can restore it. With dry_run, "
     "nothing is hidden: the answer says what would be.",
     R"json({"type":"object","properties":{
"id":{"type":"string","description":"an entry, an event or a session: its full id, a unique prefix of it or of its ref, or a session's bare UUID"},
"reason":{"type":"string","description":"the user's reason"},
"dry_run":{"type":"boolean","description":"only say what would be hidden"}},
"required":["id","reason"],"additionalProperties":false})json",
     R"json({"type":"object","properties":{"target":{"type":"string"},"recorded":{"type":"boolean"},"dry_run":{"type":"boolean"}}})json",
     false, "forget", Fresh::kNone, 0, "target", true},
};

#undef ORIGIN_KINDS
#undef ORIGIN_KIND_SCHEMA
#undef ORIGIN_ID_FORMS
#undef ORIGIN_ENTRY_SCHEMA
#undef ORIGIN_SESSION_SCHEMA
#undef ORIGIN_EVENT_SCHEMA
#undef ORIGIN_HIT_SCHEMA
#undef ORIGIN_ORIGIN_PROP

namespace {

[[noreturn]] void Invalid(const std::string& message) {
  throw OpError(OpError::Code::kInvalidArgument, message);
}

bool IsTime(std::string_view k) {
  return k == "since" || k == "until" || k == "valid_from" || k == "valid_to";
}

std::string Str(const rapidjson::Value& v) { return std::string(v.GetString(), v.GetStringLength()); }

// A number as the schema wrote it: 50, 0.5.
std::string Num(double d) {
  if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
  std::string s = std::to_string(d);
  while (s.back() == '0') s.pop_back();
  return s;
}

bool TypeIs(const std::string& type, const rapidjson::Value& v) {
  if (type == "string") return v.IsString();
  if (type == "integer") return v.IsInt64();
  if (type == "number") return v.IsNumber();
  if (type == "boolean") return v.IsBool();
  if (type == "array") return v.IsArray();
  if (type == "object") return v.IsObject();
  return true;
}

const char* TypeName(const std::string& type) {
  if (type == "string") return "a string";
  if (type == "integer") return "an integer";
  if (type == "number") return "a number";
  if (type == "boolean") return "true or false";
  if (type == "array") return "a list";
  return "an object";
}

// The names of an object schema's properties, in the schema's order.
std::string Names(const rapidjson::Value& schema) {
  std::string out;
  if (auto p = schema.FindMember("properties"); p != schema.MemberEnd())
    for (const auto& kv : p->value.GetObject()) out += (out.empty() ? "" : ", ") + Str(kv.name);
  return out;
}

}  // namespace

std::span<const Tool> AllTools() { return kTools; }

const Tool* FindTool(std::string_view name) {
  for (const Tool& t : kTools)
    if (name == t.name) return &t;
  return nullptr;
}

namespace {
// Both schemas of every tool, parsed once (they are constants: a parse
// error is a bug, caught by the tests).
struct Schemas {
  std::vector<rapidjson::Document> in, out;
  Schemas() : in(std::size(kTools)), out(std::size(kTools)) {
    for (std::size_t i = 0; i < std::size(kTools); ++i) {
      in[i].Parse(kTools[i].schema);
      out[i].Parse(kTools[i].output_schema);
      if (in[i].HasParseError() || out[i].HasParseError())
        throw std::logic_error(std::string("the schema of ") + kTools[i].name + " is not JSON");
    }
  }
};
const Schemas& AllSchemas() {
  static const Schemas s;
  return s;
}
std::size_t IndexOf(const Tool& t) { return static_cast<std::size_t>(&t - kTools); }
}  // namespace

const rapidjson::Value& InputSchema(const Tool& tool) { return AllSchemas().in[IndexOf(tool)]; }
const rapidjson::Value& OutputSchema(const Tool& tool) { return AllSchemas().out[IndexOf(tool)]; }

void CheckSchema(const rapidjson::Value& schema, const rapidjson::Value& v, const std::string& name) {
  const std::string what = name.empty() ? "arguments" : name;
  if (auto t = schema.FindMember("type"); t != schema.MemberEnd()) {
    const std::string type = Str(t->value);
    if (!TypeIs(type, v)) Invalid(what + " must be " + TypeName(type));
  }
  if (auto e = schema.FindMember("enum"); e != schema.MemberEnd()) {
    bool found = false;
    std::string all;
    for (const auto& x : e->value.GetArray()) {
      found = found || x == v;
      all += (all.empty() ? "" : ", ") + (x.IsString() ? Str(x) : std::string("?"));
    }
    if (!found)
      Invalid(what + " must be one of " + all +
              (v.IsString() ? " (not '" + Str(v) + "')" : std::string()));
  }
  if (v.IsNumber()) {
    const double d = v.GetDouble();
    if (auto m = schema.FindMember("minimum"); m != schema.MemberEnd() && d < m->value.GetDouble())
      Invalid(what + " must be at least " + Num(m->value.GetDouble()));
    if (auto m = schema.FindMember("maximum"); m != schema.MemberEnd() && d > m->value.GetDouble())
      Invalid(what + " must be at most " + Num(m->value.GetDouble()));
  }
  if (v.IsArray()) {
    if (auto m = schema.FindMember("minItems");
        m != schema.MemberEnd() && v.Size() < m->value.GetUint())
      Invalid(what + " needs at least " + std::to_string(m->value.GetUint()) + " item" +
              (m->value.GetUint() == 1 ? "" : "s"));
    if (auto items = schema.FindMember("items"); items != schema.MemberEnd())
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i)
        CheckSchema(items->value, v[i], what + "[" + std::to_string(i) + "]");
  }
  if (!v.IsObject()) return;
  auto props = schema.FindMember("properties");
  const bool closed = [&] {
    auto a = schema.FindMember("additionalProperties");
    return a != schema.MemberEnd() && a->value.IsBool() && !a->value.GetBool();
  }();
  const std::string prefix = name.empty() ? "" : name + ".";
  for (const auto& kv : v.GetObject()) {
    const rapidjson::Value* sub = nullptr;
    if (props != schema.MemberEnd())
      if (auto p = props->value.FindMember(kv.name); p != props->value.MemberEnd()) sub = &p->value;
    if (sub == nullptr) {
      if (!closed) continue;
      Invalid((name.empty() ? "unknown argument '" : "unknown field '") + Str(kv.name) + "'" +
              (name.empty() ? "" : " in " + name) + "; the valid ones are: " + Names(schema));
    }
    if (kv.value.IsNull()) continue;  // as absent
    CheckSchema(*sub, kv.value, prefix + Str(kv.name));
  }
  if (auto r = schema.FindMember("required"); r != schema.MemberEnd())
    for (const auto& k : r->value.GetArray()) {
      auto m = v.FindMember(k);
      if (m == v.MemberEnd() || m->value.IsNull()) Invalid(prefix + Str(k) + " is required");
    }
}

rapidjson::Document CheckArguments(const Tool& tool, const rapidjson::Value* given) {
  rapidjson::Document args;
  args.SetObject();
  if (given == nullptr || given->IsNull()) given = &args;
  CheckSchema(InputSchema(tool), *given, "");
  if (given == &args) return args;
  for (const auto& kv : given->GetObject())
    if (!kv.value.IsNull())
      args.AddMember(rapidjson::Value(kv.name, args.GetAllocator()),
                     rapidjson::Value(kv.value, args.GetAllocator()), args.GetAllocator());
  return args;
}

rapidjson::Document ToParams(const Tool& tool, const rapidjson::Value& given, std::int64_t now_ms) {
  rapidjson::Document args;
  args.SetObject();
  auto& a = args.GetAllocator();
  const bool search = std::string_view(tool.name) == "search";
  for (const auto& kv : given.GetObject()) {
    const std::string_view k(kv.name.GetString(), kv.name.GetStringLength());
    if (IsTime(k)) {
      // An ISO 8601 date or time, as the operation's milliseconds; a
      // range's ends also as a time ago, as the CLI takes them.
      const std::string s = Str(kv.value);
      const bool range = k == "since" || k == "until";
      auto ms = range ? proto::ParseWhen(s, now_ms) : proto::ParseDateTime(s);
      if (!ms)
        Invalid(std::string(k) + " is not an ISO 8601 date or time" +
                (range ? " (nor now, today, yesterday, or a time ago such as 30m, 12h, 2d or 1w)"
                       : "") +
                ": " + s);
      args.AddMember(rapidjson::Value(kv.name, a), rapidjson::Value(*ms), a);
      continue;
    }
    // A page is asked for with one more than it holds, so that the answer
    // can say whether more follow; search, whose operation has no offset,
    // asks for every hit up to the page's end (its order does not depend
    // on the limit) and answers.cpp keeps the page.
    if ((k == "limit" && tool.default_limit > 0) || (search && k == "offset")) continue;
    const bool id = k == "id";
    args.AddMember(id ? rapidjson::Value(tool.id_param, a) : rapidjson::Value(kv.name, a),
                   rapidjson::Value(kv.value, a), a);
  }
  const auto int_arg = [&](const char* key, std::int64_t fallback) {
    auto m = given.FindMember(key);
    return m == given.MemberEnd() ? fallback : m->value.GetInt64();
  };
  if (search) {
    const std::int64_t end = int_arg("offset", 0) + int_arg("limit", tool.default_limit) + 1;
    args.AddMember("limit", std::min<std::int64_t>(end, 1000), a);
  } else if (tool.default_limit > 0) {
    args.AddMember("limit", int_arg("limit", tool.default_limit) + 1, a);
  }
  if (tool.needs_reason) {
    auto r = args.FindMember("reason");
    if (r == args.MemberEnd() ||
        std::string_view(r->value.GetString()).find_first_not_of(" \t\r\n") ==
            std::string_view::npos)
      Invalid("forget needs the user's reason");
  }
  return args;
}

}  // namespace origin::mcp
