// SPDX-License-Identifier: MIT
// The MCP server (spec: MCP server; ../shared/spec/mcp.md): the lines of an
// origin-mcp connection are MCP JSON-RPC messages.  The legacy lifecycle
// (initialize, notifications/initialized, ping) with versions 2025-11-25,
// 2025-06-18, 2025-03-26 and 2024-11-05; tools/list with the seven tools;
// tools/call hands each tool to the socket method that implements it, so the
// CLI and agents share one implementation (invariant 5), and its answer
// comes back as a text block of JSON, or as a tool error (isError) with a
// readable message.
#include <rapidjson/document.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <string_view>

#include "core/util/text.hpp"
#include "daemon/daemon.hpp"
#include "daemon/log.hpp"
#include "origin_config.h"
#include "proto/protocol.hpp"
#include "proto/time.hpp"

namespace origin {

namespace {

constexpr std::array<std::string_view, 4> kVersions = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                       "2024-11-05"};

constexpr int kParseError = -32700, kInvalidRequest = -32600, kMethodNotFound = -32601,
              kInvalidParams = -32602;

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

// The tools: name, description, input schema.
struct Tool {
  const char* name;
  const char* description;
  const char* schema;
  bool read_only;
};

const Tool kTools[] = {
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
     true},
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
     true},
    {"get",
     "An entry with its sources and the history of its versions, or an event with its full "
     "text.",
     R"json({"type":"object","properties":{"id":{"type":"string","description":"an entry id (ent_...) or an event id"}},"required":["id"],"additionalProperties":false})json",
     true},
    {"sources",
     "The original log lines behind an entry or an event: file, mirror, line number and raw "
     "text.",
     R"json({"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false})json",
     true},
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
     false},
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
     false},
    {"forget",
     "Hide an entry (every version) or an event, and what cites it, from every answer. Only "
     "on the user's explicit request, with the user's reason. Only the user can restore it.",
     R"json({"type":"object","properties":{
"id":{"type":"string","description":"an entry or event id"},
"reason":{"type":"string","description":"the user's reason"}},
"required":["id","reason"],"additionalProperties":false})json",
     false},
};

std::string Id(const rapidjson::Value* id) { return id == nullptr ? "null" : proto::ToJson(*id); }

std::string ErrorReply(const std::string& id_json, int code, const std::string& message) {
  return proto::JsonRpcError(id_json, code, message);
}

std::string ResultReply(const std::string& id_json, const std::string& result_json) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + id_json + ",\"result\":" + result_json + "}";
}

// An ISO 8601 date or time argument as ms, into `out` under `key`.
void CopyTime(const rapidjson::Value& args, const char* from, const char* to,
              rapidjson::Document& out) {
  auto it = args.FindMember(from);
  if (it == args.MemberEnd() || it->value.IsNull()) return;
  if (!it->value.IsString())
    throw rpc::RequestError(proto::code::kInvalidArgument,
                            std::string(from) + " must be an ISO 8601 date or time");
  std::string s = it->value.GetString();
  auto ms = proto::ParseDateTime(s);
  if (!ms)
    throw rpc::RequestError(proto::code::kInvalidArgument,
                            std::string(from) + " is not an ISO 8601 date or time: " + s);
  out.AddMember(rapidjson::Value(to, out.GetAllocator()), rapidjson::Value(*ms),
                out.GetAllocator());
}

}  // namespace

void Daemon::McpLine(std::uint64_t conn, const std::string& line) {
  rapidjson::Document d;
  if (!JsonDepthWithin(line, 64)) {
    Send(conn, ErrorReply("null", kInvalidRequest, "message nested too deeply"));
    return;
  }
  d.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
  if (d.HasParseError()) {
    Send(conn, ErrorReply("null", kParseError, "Parse error: not JSON"));
    return;
  }
  if (d.IsArray()) {
    // A batch (2025-03-26; accepted on every version): one array of the
    // answers, none when it held only notifications.
    if (d.Empty()) {
      Send(conn, ErrorReply("null", kInvalidRequest, "an empty batch"));
      return;
    }
    auto batch = std::make_shared<Batch>();
    batch->conn = conn;
    std::size_t answered = 0;
    for (const auto& m : d.GetArray()) {
      const std::uint64_t part = next_conn_++;
      batch_of_[part] = batch;
      if (McpMessage(part, m))
        ++answered;
      else
        batch_of_.erase(part);
    }
    batch->expected = answered;
    if (batch->replies.size() == answered) FlushBatch(*batch);
    return;
  }
  McpMessage(conn, d);
}

bool Daemon::McpMessage(std::uint64_t conn, const rapidjson::Value& m) {
  if (!m.IsObject()) {
    Send(conn, ErrorReply("null", kInvalidRequest, "a message is a JSON object"));
    return true;
  }
  const rapidjson::Value* id = nullptr;
  if (auto it = m.FindMember("id"); it != m.MemberEnd()) id = &it->value;
  auto jr = m.FindMember("jsonrpc");
  auto method = m.FindMember("method");
  if (jr == m.MemberEnd() || !jr->value.IsString() ||
      std::string_view(jr->value.GetString()) != "2.0") {
    Send(conn, ErrorReply(id && (id->IsString() || id->IsInt64()) ? Id(id) : "null",
                          kInvalidRequest, "jsonrpc must be \"2.0\""));
    return true;
  }
  if (method == m.MemberEnd()) {
    // A response to a request of ours (we send none), or nothing valid.
    if (m.HasMember("result") || m.HasMember("error")) return false;
    Send(conn, ErrorReply("null", kInvalidRequest, "a request needs a method"));
    return true;
  }
  if (!method->value.IsString()) {
    Send(conn, ErrorReply("null", kInvalidRequest, "method must be a string"));
    return true;
  }
  const std::string name = method->value.GetString();
  const rapidjson::Value* params = nullptr;
  if (auto it = m.FindMember("params"); it != m.MemberEnd()) params = &it->value;
  if (id == nullptr) {
    // A notification: never answered.  notifications/initialized,
    // notifications/cancelled and unknown ones are ignored.
    return false;
  }
  if (!id->IsString() && !id->IsInt64()) {
    Send(conn, ErrorReply("null", kInvalidRequest, "id must be a string or an integer"));
    return true;
  }
  const std::string id_json = Id(id);
  if (params != nullptr && !params->IsObject()) {
    Send(conn, ErrorReply(id_json, kInvalidParams, "params must be an object"));
    return true;
  }
  if (name == "initialize") {
    std::string version = "2025-11-25";
    if (params != nullptr) {
      if (auto v = params->FindMember("protocolVersion");
          v != params->MemberEnd() && v->value.IsString()) {
        for (auto known : kVersions)
          if (known == v->value.GetString()) version = std::string(known);
      }
      if (auto ci = params->FindMember("clientInfo");
          ci != params->MemberEnd() && ci->value.IsObject()) {
        if (auto n = ci->value.FindMember("name");
            n != ci->value.MemberEnd() && n->value.IsString() && n->value.GetStringLength() > 0)
          SetAgent(conn,
                   SanitizeUtf8(std::string(n->value.GetString(), n->value.GetStringLength())));
      }
    }
    rapidjson::StringBuffer sb;
    rpc::Writer w(sb);
    w.StartObject();
    w.Key("protocolVersion");
    w.String(version.c_str());
    w.Key("capabilities");
    w.StartObject();
    w.Key("tools");
    w.StartObject();
    w.EndObject();
    w.EndObject();
    w.Key("serverInfo");
    w.StartObject();
    w.Key("name");
    w.String("origin");
    w.Key("version");
    w.String(ORIGIN_VERSION);
    w.EndObject();
    w.Key("instructions");
    w.String(kInstructions);
    w.EndObject();
    Send(conn, ResultReply(id_json, sb.GetString()));
    return true;
  }
  if (name == "ping") {
    Send(conn, ResultReply(id_json, "{}"));
    return true;
  }
  if (name == "tools/list") {
    std::string tools = "{\"tools\":[";
    bool first = true;
    for (const Tool& t : kTools) {
      rapidjson::Document schema;
      schema.Parse(t.schema);
      rapidjson::StringBuffer sb;
      rpc::Writer w(sb);
      w.StartObject();
      w.Key("name");
      w.String(t.name);
      w.Key("description");
      w.String(t.description);
      w.Key("inputSchema");
      schema.Accept(w);
      w.Key("annotations");
      w.StartObject();
      w.Key("readOnlyHint");
      w.Bool(t.read_only);
      w.Key("destructiveHint");
      w.Bool(std::string_view(t.name) == "forget");
      w.EndObject();
      w.EndObject();
      tools += (first ? "" : ",") + std::string(sb.GetString());
      first = false;
    }
    Send(conn, ResultReply(id_json, tools + "]}"));
    return true;
  }
  if (name == "tools/call") {
    McpCall(conn, id_json, params);
    return true;
  }
  if (name == "origin/left") {
    // origin-mcp: the agent left.  Ingest once more, then answer.
    DoSync(conn, id_json);
    return true;
  }
  Send(conn, ErrorReply(id_json, kMethodNotFound, "Method not found: " + name));
  return true;
}

void Daemon::McpCall(std::uint64_t conn, const std::string& id_json, const rapidjson::Value* params,
                     bool fresh, bool waited) {
  const rapidjson::Value* name = nullptr;
  if (params != nullptr)
    if (auto it = params->FindMember("name"); it != params->MemberEnd()) name = &it->value;
  if (name == nullptr || !name->IsString()) {
    Send(conn, ErrorReply(id_json, kInvalidParams, "tools/call needs the tool's name"));
    return;
  }
  const std::string tool = name->GetString();
  // The call again, later: its params copied, dropped if the agent left.
  auto later = [&](bool then_fresh, bool then_waited) {
    auto copy = std::make_shared<rapidjson::Document>();
    copy->CopyFrom(*params, copy->GetAllocator());
    return [this, conn, id_json, copy, then_fresh, then_waited] {
      if (Alive(conn)) McpCall(conn, id_json, copy.get(), then_fresh, then_waited);
    };
  };
  if (first_syncs_left_ > 0 && !waited) {
    // Tools answer from the logs as they are: after the first sync of every
    // source since the start, as the socket's queries do, or after at most
    // opts_.first_sync_wait_ms, from what is stored so far (with a note that says so).
    after_first_sync_.push_back(AtMostAfter(opts_.first_sync_wait_ms, later(fresh, true)));
    return;
  }
  if (!fresh && (tool == "remember" || tool == "correct")) {
    // Freshness: the line the agent wrote a moment ago is ingested first, so
    // that a quote of it resolves to its event (at most 2 s of waiting).
    Freshen(2000, later(true, waited));
    return;
  }
  if (!fresh && (tool == "search" || tool == "timeline") && !SyncsIdle()) {
    // What the watcher marked changed is ingested first (at most 1 s).
    WhenSynced(1000, later(true, waited));
    return;
  }
  static const std::map<std::string, std::string> kMethod = {
      {"search", "search"},   {"timeline", "timeline"}, {"get", "show"},
      {"sources", "sources"}, {"remember", "remember"}, {"correct", "correct"},
      {"forget", "forget"}};
  auto m = kMethod.find(tool);
  if (m == kMethod.end()) {
    Send(conn, ErrorReply(id_json, kInvalidParams, "Unknown tool: " + tool));
    return;
  }
  rapidjson::Document args;
  args.SetObject();
  try {
    const rapidjson::Value* given = nullptr;
    if (auto it = params->FindMember("arguments"); it != params->MemberEnd()) given = &it->value;
    if (given != nullptr && !given->IsNull() && !given->IsObject())
      throw rpc::RequestError(proto::code::kInvalidArgument, "arguments must be an object");
    auto& a = args.GetAllocator();
    if (given != nullptr && given->IsObject()) {
      for (const auto& kv : given->GetObject()) {
        std::string_view k = kv.name.GetString();
        if (k == "since" || k == "until" || k == "valid_from" || k == "valid_to") continue;
        // forget's id is the socket method's target.
        const char* key = tool == "forget" && k == "id" ? "target" : kv.name.GetString();
        args.AddMember(rapidjson::Value(key, a), rapidjson::Value(kv.value, a), a);
      }
      CopyTime(*given, "since", "since", args);
      CopyTime(*given, "until", "until", args);
      CopyTime(*given, "valid_from", "valid_from", args);
      CopyTime(*given, "valid_to", "valid_to", args);
    }
    // Answers stay bounded: at most 50 hits, 200 sessions or events.
    if (auto l = args.FindMember("limit"); l != args.MemberEnd() && l->value.IsInt64()) {
      std::int64_t cap = tool == "search" ? 50 : 200;
      if (l->value.GetInt64() > cap)
        throw rpc::RequestError(proto::code::kInvalidArgument,
                                "limit must be at most " + std::to_string(cap));
    } else if (tool == "timeline" || tool == "search") {
      args.AddMember("limit", tool == "search" ? 20 : 50, a);
    }
    if (tool == "forget") {
      auto r = args.FindMember("reason");
      if (r == args.MemberEnd() || !r->value.IsString() ||
          std::string_view(r->value.GetString()).find_first_not_of(" \t\r\n") ==
              std::string_view::npos)
        throw rpc::RequestError(proto::code::kInvalidArgument, "forget needs the user's reason");
    }
    if (!DispatchQuery(conn, id_json, m->second, rpc::Params(&args)))
      throw rpc::RequestError(proto::code::kInternal, "no method for tool " + tool);
  } catch (const rpc::RequestError& e) {
    SendError(conn, id_json, e.code(), e.what());
  }
}

std::string Daemon::McpToolResult(const std::string& id_json, const std::string& text,
                                  bool is_error, const std::string& note) {
  rapidjson::StringBuffer sb;
  rpc::Writer w(sb);
  w.StartObject();
  w.Key("content");
  w.StartArray();
  for (const std::string* t : {&text, &note}) {
    if (t->empty() && t == &note) continue;
    w.StartObject();
    w.Key("type");
    w.String("text");
    w.Key("text");
    w.String(t->c_str(), static_cast<rapidjson::SizeType>(t->size()));
    w.EndObject();
  }
  w.EndArray();
  w.Key("isError");
  w.Bool(is_error);
  w.EndObject();
  return ResultReply(id_json, sb.GetString());
}

}  // namespace origin
