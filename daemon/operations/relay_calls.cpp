// SPDX-License-Identifier: MIT
// A relay's CLI (spec: Relays): a relay keeps no memory of its own, so its
// queries and curation commands are run by its hub, as user@<relay>, with
// the request the socket took and the answer the hub's operation gave
// (POST /v1/call, daemon/http/replication.cpp): the CLI prints on a relay
// what it prints on a device.  The agents' new lines go first, as before
// the MCP tools' (daemon/mcp/server.cpp), so that an answer holds what was
// said a moment ago and a quote of it resolves.
#include "daemon/hub/asker.hpp"
#include "daemon/hub/sync.hpp"
#include "daemon/operations/operations.hpp"
#include "daemon/timers.hpp"

namespace origin {

namespace {

// How long the hub may take to answer, and how long a write waits for the
// agents' new lines to reach it first (a read waits the hub timeout).
constexpr long kHubAnswerMs = 15'000;
constexpr int kWriteSendWaitMs = 15'000;

Answer FromHub(hub::ToolReply r) {
  switch (r.kind) {
    case hub::ToolReply::Kind::kNotConnected:
      return Answer::Fail(OpError::Code::kUnavailable,
                          "this store is a relay, which answers through its hub, and it is not "
                          "connected to one: origin hub connect URL --token T --relay");
    case hub::ToolReply::Kind::kFailed:
      return Answer::Fail(OpError::Code::kUnavailable,
                          "this relay keeps no memory of its own, and its hub (" + r.url +
                              ") did not answer (" + r.error +
                              "). What the agents write waits in their logs until the hub is "
                              "back.");
    case hub::ToolReply::Kind::kAnswered:
      break;
  }
  if (!r.code.empty()) return Answer::Fail(CodeNamed(r.code), std::move(r.tool_error));
  Answer a{std::move(r.result), std::nullopt, std::move(r.notice)};
  return a;
}

}  // namespace

void Operations::CallHub(const Operation& op, const rapidjson::Value* params, Reply reply) {
  if (ctx_.hub_ask == nullptr || ctx_.hub_sync == nullptr)
    return reply(Answer::Fail(OpError::Code::kInternal, "a relay without its hub's parts"));
  auto release = Hold();
  std::string request = params != nullptr && params->IsObject()
                            ? rpc::Json([&](rpc::Writer& w) { params->Accept(w); })
                            : std::string("{}");
  auto ask = [this, method = std::string(op.method), request = std::move(request),
              reply = std::move(reply), release] {
    ctx_.hub_ask->RunOperation(
        method, request,
        [reply, release](hub::ToolReply r) {
          struct Release {  // counted out even when the reply throws
            const std::function<void()>& fn;
            ~Release() { fn(); }
          } done{release};
          reply(FromHub(std::move(r)));
        },
        kHubAnswerMs);
  };
  auto then = AtMostAfter(ctx_.timers,
                          op.writes ? kWriteSendWaitMs : static_cast<int>(ctx_.hub_ask->timeout_ms()),
                          std::move(ask));
  ctx_.hub_sync->Request([then](const hub::SyncReport&) { then(); });
}

}  // namespace origin
