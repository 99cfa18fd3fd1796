// SPDX-License-Identifier: MIT
#include "daemon/mcp/server.hpp"

#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <array>
#include <vector>

#include "core/store/request_keys.hpp"
#include "core/util/hash.hpp"
#include "core/util/text.hpp"
#include "daemon/log.hpp"
#include "daemon/hub/asker.hpp"
#include "daemon/hub/relay.hpp"
#include "daemon/hub/sync.hpp"
#include "daemon/mcp/answers.hpp"
#include "daemon/mcp/merge.hpp"
#include "daemon/mcp/tools.hpp"
#include "origin_config.h"
#include "proto/protocol.hpp"

namespace origin {

namespace {

constexpr std::array<std::string_view, 4> kVersions = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                       "2024-11-05"};

constexpr int kParseError = -32700, kInvalidRequest = -32600, kMethodNotFound = -32601,
              kInvalidParams = -32602, kInternalError = -32603;

std::string Id(const rapidjson::Value* id) { return id == nullptr ? "null" : proto::ToJson(*id); }

std::string ErrorReply(const std::string& id_json, int code, const std::string& message) {
  return proto::JsonRpcError(id_json, code, message);
}

std::string ResultReply(const std::string& id_json, const std::string& result_json) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + id_json + ",\"result\":" + result_json + "}";
}

// The one place an operation's answer becomes a tool's reply: the result as
// JSON text in a text block (spec: MCP server), a notice in a second one,
// and for `structured` peers the same JSON as structuredContent (which the
// tool's outputSchema describes); an error as a tool error the agent can
// read and correct.
std::string ToolReply(const std::string& id_json, const Answer& a, bool structured) {
  const std::string& text = a.error ? std::string(a.error->what()) : a.result;
  rapidjson::StringBuffer sb;
  rpc::Writer w(sb);
  w.StartObject();
  w.Key("content");
  w.StartArray();
  for (const std::string* t : {&text, &a.notice}) {
    if (t->empty() && t == &a.notice) continue;
    w.StartObject();
    w.Key("type");
    w.String("text");
    w.Key("text");
    w.String(std::string_view(*t));
    w.EndObject();
  }
  w.EndArray();
  if (structured && !a.error) {
    w.Key("structuredContent");
    w.RawValue(a.result.data(), a.result.size(), rapidjson::kObjectType);
  }
  w.Key("isError");
  w.Bool(a.error.has_value());
  w.EndObject();
  return ResultReply(id_json, sb.GetString());
}

}  // namespace

bool McpServer::KnownVersion(std::string_view version) {
  return std::find(kVersions.begin(), kVersions.end(), version) != kVersions.end();
}

void McpServer::Handle(std::string_view text, std::shared_ptr<McpPeer> peer, Done done) {
  ORIGIN_ASSERT_INSIDE(thread_);
  if (!JsonDepthWithin(text, 64)) return done(ErrorReply("null", kInvalidRequest, "message nested too deeply"));
  rapidjson::Document d;
  d.Parse<proto::kJsonParseFlags>(text.data(), text.size());
  if (d.HasParseError()) return done(ErrorReply("null", kParseError, "Parse error: not JSON"));
  if (!d.IsArray()) return Message(d, peer, std::move(done));
  // A batch (2025-03-26; accepted on every version): one array of the
  // answers, none when it held only notifications.
  if (d.Empty()) return done(ErrorReply("null", kInvalidRequest, "an empty batch"));
  struct Batch {
    std::size_t left;
    std::vector<std::string> replies;
    Done done;
  };
  auto batch = std::make_shared<Batch>(Batch{d.Size(), {}, std::move(done)});
  for (const auto& m : d.GetArray())
    Message(m, peer, [batch](std::string reply) {
      if (!reply.empty()) batch->replies.push_back(std::move(reply));
      if (--batch->left > 0) return;
      std::string out;
      for (const std::string& r : batch->replies) out += (out.empty() ? "[" : ",") + r;
      batch->done(out.empty() ? out : out + "]");
    });
}

void McpServer::Message(const rapidjson::Value& m, const std::shared_ptr<McpPeer>& peer,
                        Done done) {
  if (!m.IsObject()) return done(ErrorReply("null", kInvalidRequest, "a message is a JSON object"));
  const rapidjson::Value* id = nullptr;
  if (auto it = m.FindMember("id"); it != m.MemberEnd()) id = &it->value;
  auto jr = m.FindMember("jsonrpc");
  auto method = m.FindMember("method");
  if (jr == m.MemberEnd() || !jr->value.IsString() ||
      std::string_view(jr->value.GetString()) != "2.0")
    return done(ErrorReply(id && (id->IsString() || id->IsInt64()) ? Id(id) : "null",
                           kInvalidRequest, "jsonrpc must be \"2.0\""));
  if (method == m.MemberEnd()) {
    // A response to a request of ours (we send none), or nothing valid.
    if (m.HasMember("result") || m.HasMember("error")) return done("");
    return done(ErrorReply("null", kInvalidRequest, "a request needs a method"));
  }
  if (!method->value.IsString())
    return done(ErrorReply("null", kInvalidRequest, "method must be a string"));
  const std::string name = method->value.GetString();
  const rapidjson::Value* params = nullptr;
  if (auto it = m.FindMember("params"); it != m.MemberEnd()) params = &it->value;
  // A notification: never answered.  notifications/initialized,
  // notifications/cancelled and unknown ones are ignored.
  if (id == nullptr) return done("");
  if (!id->IsString() && !id->IsInt64())
    return done(ErrorReply("null", kInvalidRequest, "id must be a string or an integer"));
  const std::string id_json = Id(id);
  if (params != nullptr && !params->IsObject())
    return done(ErrorReply(id_json, kInvalidParams, "params must be an object"));
  if (name == "initialize") {
    // On a device connected to a hub, its connection opens now, so that the
    // first read does not wait for it (spec: MCP server).
    if (ops_.ctx().hub_ask != nullptr) ops_.ctx().hub_ask->Warm();
    std::string version = "2025-11-25";
    peer->protocol = version;
    if (params != nullptr) {
      if (auto v = params->FindMember("protocolVersion");
          v != params->MemberEnd() && v->value.IsString()) {
        for (auto known : kVersions)
          if (known == v->value.GetString()) version = std::string(known);
      }
      peer->protocol = version;
      if (auto ci = params->FindMember("clientInfo");
          ci != params->MemberEnd() && ci->value.IsObject()) {
        if (auto n = ci->value.FindMember("name");
            n != ci->value.MemberEnd() && n->value.IsString() && n->value.GetStringLength() > 0)
          peer->agent =
              SanitizeUtf8(std::string(n->value.GetString(), n->value.GetStringLength()));
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
    w.String(mcp::kInstructions);
    w.EndObject();
    return done(ResultReply(id_json, sb.GetString()));
  }
  if (name == "ping") return done(ResultReply(id_json, "{}"));
  if (name == "tools/list") {
    std::string tools = "{\"tools\":[";
    bool first = true;
    for (const mcp::Tool& t : mcp::AllTools()) {
      rapidjson::StringBuffer sb;
      rpc::Writer w(sb);
      w.StartObject();
      w.Key("name");
      w.String(t.name);
      w.Key("description");
      w.String(t.description);
      w.Key("inputSchema");
      mcp::InputSchema(t).Accept(w);
      if (peer->structured()) {
        w.Key("outputSchema");
        mcp::OutputSchema(t).Accept(w);
      }
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
    return done(ResultReply(id_json, tools + "]}"));
  }
  if (name == "tools/call") return CallTool(id_json, params, peer, std::move(done));
  if (name == "origin/left") {
    // origin-mcp: the agent left.  Ingest once more, then answer.
    return ops_.Call("sync", nullptr, Caller{}, [id_json, done](Answer a) {
      done(a.error ? ErrorReply(id_json, kInternalError, a.error->what())
                   : ResultReply(id_json, a.result));
    });
  }
  done(ErrorReply(id_json, kMethodNotFound, "Method not found: " + name));
}

void McpServer::CallTool(const std::string& id_json, const rapidjson::Value* params,
                         const std::shared_ptr<McpPeer>& peer, Done done) {
  const rapidjson::Value* name = nullptr;
  if (params != nullptr)
    if (auto it = params->FindMember("name"); it != params->MemberEnd()) name = &it->value;
  if (name == nullptr || !name->IsString())
    return done(ErrorReply(id_json, kInvalidParams, "tools/call needs the tool's name"));
  const mcp::Tool* tool = mcp::FindTool(name->GetString());
  if (tool == nullptr)
    return done(ErrorReply(id_json, kInvalidParams, std::string("Unknown tool: ") + name->GetString()));
  const bool structured = peer->structured();
  // The agent's arguments, checked (kept for the answer's shape), and the
  // operation's params made of them.
  auto given = std::make_shared<rapidjson::Document>();
  auto args = std::make_shared<rapidjson::Document>();
  try {
    const rapidjson::Value* arguments = nullptr;
    if (auto it = params->FindMember("arguments"); it != params->MemberEnd())
      arguments = &it->value;
    *given = mcp::CheckArguments(*tool, arguments);
    *args = mcp::ToParams(*tool, *given, ops_.ctx().clock.NowMs());
  } catch (const OpError& e) {
    return done(ToolReply(id_json, Answer{{}, e, {}}, structured));
  }
  if (ops_.ctx().relay)
    return AskRelayHub(*tool, given, *peer, id_json, structured, std::move(done));
  const Operation* op = Operations::Find(tool->operation);
  if (op != nullptr && op->writes && !peer->session.empty()) {
    // The same request replayed (origin-mcp after a reconnect) is answered
    // once: keyed by the peer's session and the request's id.
    // An agent's id may be a long string: the key stays within the store's
    // bound as a hash of the two, when written out it would not.
    std::string key = "mcp:" + peer->session + ":" + id_json;
    if (key.size() > kRequestKeyMaxBytes) key = "mcp:" + Sha256Hex(peer->session + ":" + id_json);
    args->AddMember("request_key", rapidjson::Value(key.c_str(), args->GetAllocator()),
                    args->GetAllocator());
  }
  Caller caller;
  caller.author = !peer->author.empty()
                      ? peer->author
                      : (peer->agent.empty() ? std::string("agent") : peer->agent) + "@" +
                            ops_.ctx().store_name.Get();
  caller.channel = "mcp";
  caller.shape = [tool, given](Db& db, std::string json) {
    return mcp::ShapeAnswer(*tool, *given, db, std::move(json));
  };
  // In flight from now on: a shutdown during the freshness wait answers it
  // (unavailable) rather than closing on it.
  auto release = ops_.Hold();
  // On a device connected to a hub, a read tool asks the hub at the same
  // time, and the answers are merged (daemon/mcp/merge.hpp).
  Context& ctx = ops_.ctx();
  std::function<void(Answer)> answered = [id_json, done, structured](Answer a) {
    done(ToolReply(id_json, a, structured));
  };
  if (ctx.hub_ask != nullptr && tool->read_only)
    answered = AskHub(*tool, given, peer->agent, std::move(answered));
  auto run = [this, tool, args, caller, answered, release] {
    ops_.Call(tool->operation, args.get(), caller, answered);
    release();
  };
  // A write citing what was said a moment ago (Operation::cites_fresh): the
  // line the agent wrote is ingested first, so that a quote of it resolves
  // to its event (at most 2 s of waiting), as on the socket.
  if (op != nullptr && op->cites_fresh) return ctx.ingestion.Freshen(2000, run);
  switch (tool->fresh) {
    case mcp::Fresh::kWatched:
      // What the watcher marked changed is ingested first (at most 1 s).
      return ctx.scheduler.WhenSynced(1000, run);
    case mcp::Fresh::kNone:
      return run();
  }
}

void McpServer::AskRelayHub(const mcp::Tool& tool, std::shared_ptr<rapidjson::Document> given,
                            const McpPeer& peer, const std::string& id_json, bool structured,
                            Done done) {
  Context& ctx = ops_.ctx();
  auto release = ops_.Hold();
  auto give = [id_json, structured, done, release](const Answer& a) {
    done(ToolReply(id_json, a, structured));
    release();
  };
  auto answer = [this, &ctx, give](hub::ToolReply r) {
    switch (r.kind) {
      case hub::ToolReply::Kind::kNotConnected:
        return give(Answer::Fail(OpError::Code::kUnavailable,
                                 "this store is a relay, which answers through its hub, and it "
                                 "is not connected to one: origin hub connect URL --token T"));
      case hub::ToolReply::Kind::kAnswered:
        if (!r.tool_error.empty())
          return give(Answer::Fail(OpError::Code::kInvalidArgument, r.tool_error));
        return give(Answer{std::move(r.result), std::nullopt, {}});
      case hub::ToolReply::Kind::kFailed:
        break;
    }
    std::string why = "this relay cannot answer offline: it keeps no memory of its own, and the "
                      "hub (" + r.url + ") was not reached: " + r.error +
                      ". What the agents write waits in their logs until the hub is back.";
    // At most once an hour while the hub cannot be reached, the warnings
    // before an agent's cleanup loses what the hub has not received, in
    // the log and in the error the agent sees (spec: Relays).
    const std::int64_t now = SteadyMs();
    if (now - last_relay_warning_ms_ < kRelayWarnEveryMs)
      return give(Answer::Fail(OpError::Code::kUnavailable, why));
    last_relay_warning_ms_ = now;
    ops_.OnWorker(
        Thread::kReader, Caller{},
        [&ctx](Db& db, rpc::Writer& w) {
          w.StartArray();
          for (const std::string& warning : hub::RelayWarningsNow(ctx, db)) w.String(warning);
          w.EndArray();
        },
        [give, why](Answer a) mutable {
          rapidjson::Document warnings;
          if (!a.error) warnings.Parse(a.result.data(), a.result.size());
          if (!warnings.HasParseError() && warnings.IsArray())
            for (const auto& warning : warnings.GetArray()) {
              LOG_WARN("relay: %s", warning.GetString());
              why += std::string("\nWarning: ") + warning.GetString();
            }
          give(Answer::Fail(OpError::Code::kUnavailable, why));
        });
  };
  // A write the agent may send again (origin-mcp replays what was not
  // answered when it lost the daemon) is keyed as the daemon keys its own
  // (the session and the request's id), and the hub carries it out once.
  const std::string request =
      !tool.read_only && !peer.session.empty() ? Sha256Hex(peer.session + ":" + id_json) : "";
  auto ask = [&ctx, name = std::string(tool.name),
              arguments = rpc::Json([&](rpc::Writer& w) { given->Accept(w); }),
              agent = peer.agent, answer, request] {
    ctx.hub_ask->Ask(name, arguments, agent, answer, kRelayAnswerMs, request);
  };
  // The agents' new lines first, so that the hub's answer holds them and
  // an entry can cite what was said a moment ago.
  const std::int64_t now = SteadyMs();
  if (tool.read_only && now - last_relay_send_ms_ < kRelaySendEveryMs) return ask();
  last_relay_send_ms_ = now;
  auto then = AtMostAfter(ctx.timers,
                          tool.read_only ? static_cast<int>(ctx.hub_ask->timeout_ms())
                                         : kRelayWriteWaitMs,
                          std::move(ask));
  ctx.hub_sync->Request([then](const hub::SyncReport&) { then(); });
}

std::function<void(Answer)> McpServer::AskHub(const mcp::Tool& tool,
                                              std::shared_ptr<rapidjson::Document> given,
                                              const std::string& agent,
                                              std::function<void(Answer)> answered) {
  // Both answers, whichever comes first; the hub's within its timeout.
  struct Both {
    std::optional<Answer> local;
    std::optional<hub::ToolReply> hub;
  };
  auto both = std::make_shared<Both>();
  auto hold = ops_.Hold();  // until the merged answer is given
  auto finish = [this, &tool, given, both, answered, hold] {
    if (!both->local || !both->hub) return;
    Answer local = std::move(*both->local);
    const hub::ToolReply hub = std::move(*both->hub);
    auto give = [answered, hold](Answer a) {
      answered(std::move(a));
      hold();
    };
    const bool not_here = local.error && local.error->code() == OpError::Code::kNotFound;
    if (hub.kind == hub::ToolReply::Kind::kNotConnected || (local.error && !not_here))
      return give(std::move(local));
    std::string from_hub = hub.result;
    if (hub.kind == hub::ToolReply::Kind::kFailed || !hub.tool_error.empty()) {
      // The device answers alone, and says so (spec: MCP server); its
      // items are labelled all the same.
      const std::string why = hub.kind == hub::ToolReply::Kind::kFailed
                                  ? hub.error
                                  : "it answered an error: " + hub.tool_error;
      // An id the hub does not hold (yet) is no failure of the hub.
      const bool by_id = given->HasMember("id") || given->HasMember("session");
      if (hub.kind == hub::ToolReply::Kind::kFailed || !by_id)
        local.notice += std::string(local.notice.empty() ? "" : "\n") + "The hub (" + hub.url +
                        ") was not consulted: " + why +
                        ". This answer is from this device alone.";
      if (not_here) return give(std::move(local));
      from_hub = "{}";
    }
    // Merged on a reader, which tells what this device holds and hides.
    // The device's answer is read there ("" when it does not hold the id)
    // and kept for the reply.
    auto fallback = std::make_shared<Answer>(std::move(local));
    ops_.OnWorker(
        Thread::kReader, Caller{},
        [&tool, given, fallback, result = std::move(from_hub)](Db& db, rpc::Writer& w) {
          const std::string merged = mcp::MergeAnswers(
              tool, *given, db, fallback->error ? std::string() : fallback->result, result);
          w.RawValue(merged.data(), merged.size(), rapidjson::kObjectType);
        },
        [give, fallback](Answer a) {
          // What the hub has and this device hides is not found here.
          if (a.error && a.error->code() == OpError::Code::kNotFound) return give(*fallback);
          if (!a.error) a.notice = fallback->notice;
          give(std::move(a));
        });
  };
  std::string arguments = rpc::Json([&](rpc::Writer& w) { given->Accept(w); });
  ops_.ctx().hub_ask->Ask(tool.name, std::move(arguments), agent,
                          [both, finish](hub::ToolReply r) {
                            both->hub = std::move(r);
                            finish();
                          });
  return [both, finish](Answer a) {
    both->local = std::move(a);
    finish();
  };
}

}  // namespace origin
