// SPDX-License-Identifier: MIT
#include "daemon/mcp/tools.hpp"

#include "core/util/op_error.hpp"
#include "proto/time.hpp"

namespace origin::mcp {

const char* const kInstructions =
    "Origin is the user's shared memory of every coding agent's sessions (Claude Code, Codex, "
    "and others) on this machine: the logs of past conversations, and durable entries "
    "(memory, knowledge, cognition) with their sources.\n"
    "- search before answering questions about earlier work, decisions, or the user's "
    "preferences; timeline to walk recent sessions; get and sources to expand an answer down "
    "to the original log line.\n"
    "- remember decisions with their reasons, stable facts about the projects, and the "
    "user's preferences, citing the events they come from (an event id, or a quote of the "
    "conversation); correct an entry when it is wrong or out of date.\n"
    "- forget only when the user explicitly asks, with the user's reason. Only the user can "
    "restore what was forgotten, from the origin CLI.\n"
    "- An entry marked imported mirrors an agent's own memory file: a later change of that "
    "file supersedes a correction made in Origin.";

constexpr Tool kTools[] = {
    {"search",
     "Search the user's memory: durable entries and the events of every agent's past "
     "sessions. Each word must occur (case-insensitive substring). Ranked by relevance, or "
     "newest first with recent. Without a query, lists recent entries.",
     R"json({"type":"object","properties":{
"query":{"type":"string","description":"words that must all occur"},
"scope":{"type":"string","enum":["both","entries","events"]},
"kind":{"type":"string","enum":["memory","knowledge","cognition"],"description":"entries of this kind"},
"include_tools":{"type":"boolean","description":"search tool calls and results too"},
"recent":{"type":"boolean","description":"newest first instead of by relevance"},
"history":{"type":"boolean","description":"superseded and ended entries too"},
"source":{"type":"string","description":"an agent: claude-code, codex, cursor, zcode, grok"},
"project":{"type":"string"},
"since":{"type":"string","description":"ISO 8601 date or time"},
"until":{"type":"string","description":"ISO 8601 date or time"},
"limit":{"type":"integer","minimum":1,"maximum":50}},"additionalProperties":false})json",
     true, "search", Fresh::kWatched, 50, 20, "id", false},
    {"timeline",
     "Sessions of a time range (default the last 7 days), latest first, each with its title "
     "or first prompt; or, given a session id, that session's events in order.",
     R"json({"type":"object","properties":{
"session":{"type":"string","description":"a session id: its events"},
"days":{"type":"integer","minimum":1},
"since":{"type":"string","description":"ISO 8601 date or time"},
"until":{"type":"string","description":"ISO 8601 date or time"},
"source":{"type":"string"},"project":{"type":"string"},
"include_tools":{"type":"boolean","description":"tool calls and results too (one session)"},
"limit":{"type":"integer","minimum":1,"maximum":200},
"offset":{"type":"integer","minimum":0}},"additionalProperties":false})json",
     true, "timeline", Fresh::kWatched, 200, 50, "id", false},
    {"get",
     "An entry with its sources and the history of its versions, or an event with its full "
     "text.",
     R"json({"type":"object","properties":{"id":{"type":"string","description":"an entry id (ent_...) or an event id"}},"required":["id"],"additionalProperties":false})json",
     true, "show", Fresh::kNone, 0, 0, "id", false},
    {"sources",
     "The original log lines behind an entry or an event: file, mirror, line number and raw "
     "text.",
     R"json({"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false})json",
     true, "sources", Fresh::kNone, 0, 0, "id", false},
    {"remember",
     "Write a durable entry: a decision with its reason, a stable fact, a preference. Cite "
     "at least one source: an event id, or a quote of a message the user or an agent wrote.",
     R"json({"type":"object","properties":{
"kind":{"type":"string","enum":["memory","knowledge","cognition"]},
"text":{"type":"string"},
"confidence":{"type":"number","minimum":0,"maximum":1},
"project":{"type":"string"},
"valid_from":{"type":"string","description":"ISO 8601"},
"valid_to":{"type":"string","description":"ISO 8601"},
"sources":{"type":"array","minItems":1,"items":{"type":"object","properties":{
"event_id":{"type":"string"},"quote":{"type":"string"}},"additionalProperties":false}}},
"required":["kind","text","confidence","sources"],"additionalProperties":false})json",
     false, "remember", Fresh::kWritten, 0, 0, "id", false},
    {"correct",
     "Supersede the current version of an entry with a corrected one; what is not given "
     "carries over, and sources given are added.",
     R"json({"type":"object","properties":{
"id":{"type":"string","description":"the entry's current version"},
"kind":{"type":"string","enum":["memory","knowledge","cognition"]},
"text":{"type":"string"},
"confidence":{"type":"number","minimum":0,"maximum":1},
"project":{"type":"string"},
"valid_from":{"type":"string"},"valid_to":{"type":"string"},
"sources":{"type":"array","items":{"type":"object","properties":{
"event_id":{"type":"string"},"quote":{"type":"string"}},"additionalProperties":false}}},
"required":["id"],"additionalProperties":false})json",
     false, "correct", Fresh::kWritten, 0, 0, "id", false},
    {"forget",
     "Hide an entry (every version), an event, or a whole session (every event of it, also "
     "those that arrive later), and what cites it, from every answer. Only on the user's "
     "explicit request, with the user's reason. Only the user can restore it. With dry_run, "
     "nothing is hidden: the answer says what would be.",
     R"json({"type":"object","properties":{
"id":{"type":"string","description":"an entry, event or session id, a unique prefix of one or of its ref, or a session's bare UUID"},
"reason":{"type":"string","description":"the user's reason"},
"dry_run":{"type":"boolean","description":"only say what would be hidden"}},
"required":["id","reason"],"additionalProperties":false})json",
     false, "forget", Fresh::kNone, 0, 0, "target", true},
};


namespace {

[[noreturn]] void Invalid(const std::string& message) {
  throw OpError(OpError::Code::kInvalidArgument, message);
}

bool IsTime(std::string_view k) {
  return k == "since" || k == "until" || k == "valid_from" || k == "valid_to";
}

}  // namespace

std::span<const Tool> AllTools() { return kTools; }

const Tool* FindTool(std::string_view name) {
  for (const Tool& t : kTools)
    if (name == t.name) return &t;
  return nullptr;
}

rapidjson::Document ToParams(const Tool& tool, const rapidjson::Value* given) {
  rapidjson::Document args;
  args.SetObject();
  auto& a = args.GetAllocator();
  if (given != nullptr && !given->IsNull() && !given->IsObject())
    Invalid("arguments must be an object");
  if (given != nullptr && given->IsObject()) {
    for (const auto& kv : given->GetObject()) {
      const std::string_view k(kv.name.GetString(), kv.name.GetStringLength());
      if (IsTime(k) && !kv.value.IsNull()) {
        // An ISO 8601 date or time, as the operation's milliseconds.
        if (!kv.value.IsString()) Invalid(std::string(k) + " must be an ISO 8601 date or time");
        const std::string s(kv.value.GetString(), kv.value.GetStringLength());
        auto ms = proto::ParseDateTime(s);
        if (!ms) Invalid(std::string(k) + " is not an ISO 8601 date or time: " + s);
        args.AddMember(rapidjson::Value(kv.name, a), rapidjson::Value(*ms), a);
        continue;
      }
      const bool id = k == "id";
      args.AddMember(id ? rapidjson::Value(tool.id_param, a) : rapidjson::Value(kv.name, a),
                     rapidjson::Value(kv.value, a), a);
    }
  }
  // Answers stay bounded: at most 50 hits, 200 sessions or events.
  if (tool.max_limit > 0) {
    auto l = args.FindMember("limit");
    if (l != args.MemberEnd() && l->value.IsInt64()) {
      if (l->value.GetInt64() > tool.max_limit)
        Invalid("limit must be at most " + std::to_string(tool.max_limit));
    } else if (l == args.MemberEnd() && tool.default_limit > 0) {
      args.AddMember("limit", tool.default_limit, a);
    }
  }
  if (tool.needs_reason) {
    auto r = args.FindMember("reason");
    if (r == args.MemberEnd() || !r->value.IsString() ||
        std::string_view(r->value.GetString()).find_first_not_of(" \t\r\n") ==
            std::string_view::npos)
      Invalid("forget needs the user's reason");
  }
  return args;
}

}  // namespace origin::mcp
