// SPDX-License-Identifier: MIT
#pragma once
// The MCP server (spec: MCP server; ../shared/spec/mcp.md), apart from any
// transport: it takes one JSON-RPC message (or a batch) and the peer that
// sent it, and hands back the reply, so that stdio through the socket
// (origin-mcp) now and HTTP later run the same code.  The legacy lifecycle
// (initialize, notifications/initialized, ping) with versions 2025-11-25,
// 2025-06-18, 2025-03-26 and 2024-11-05; tools/list with the seven tools;
// tools/call checks the arguments against the tool's schema and runs the
// operation the tool names (daemon/mcp/tools.cpp), so the CLI and agents
// share one implementation (invariant 5); its answer, shaped for a context
// window (daemon/mcp/answers.cpp), comes back as a text block of JSON and,
// from protocol 2025-06-18 on, as structuredContent beside it; an error as
// a tool error (isError) with a readable message.

#include <rapidjson/document.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "daemon/operations/operations.hpp"

namespace origin {

namespace mcp {
struct Tool;
}

/// One MCP client, as its transport keeps it between messages.
struct McpPeer {
  std::string agent;    // clientInfo.name of its initialize
  std::string session;  // the transport's session: writes are keyed by it and the request id
  std::string protocol;  // the version its initialize agreed on ("" before one)
  /// Who its writes are by, when the transport knows better than the
  /// agent's name on this store (the hub's /mcp: <agent>@<token name>).
  std::string author;
  /// Whether its tools have output schemas and its answers structured
  /// content (protocol 2025-06-18 and later).
  bool structured() const { return !protocol.empty() && protocol >= "2025-06-18"; }
};

class McpServer {
 public:
  /// The reply to a message or a batch, or "" when none is due.
  using Done = std::function<void(std::string)>;
  McpServer(Operations& ops, const ThreadRole& loop_thread) : ops_(ops), thread_(loop_thread) {}
  McpServer(const McpServer&) = delete;
  McpServer& operator=(const McpServer&) = delete;

  /// One message or batch from `peer` (loop thread); `done` runs once, on
  /// the loop thread.
  void Handle(std::string_view text, std::shared_ptr<McpPeer> peer, Done done);
  /// Whether `version` is a protocol version this server speaks.
  static bool KnownVersion(std::string_view version);

 private:
  void Message(const rapidjson::Value& m, const std::shared_ptr<McpPeer>& peer, Done done);
  void CallTool(const std::string& id_json, const rapidjson::Value* params,
                const std::shared_ptr<McpPeer>& peer, Done done);
  /// On a connected device, asks the hub `tool` with the agent's `given`
  /// arguments and returns what takes the device's answer: it merges the
  /// two (or adds why the hub was not consulted) and hands that to
  /// `answered`.
  std::function<void(Answer)> AskHub(const mcp::Tool& tool,
                                     std::shared_ptr<rapidjson::Document> given,
                                     const std::string& agent, std::function<void(Answer)> answered);
  /// On a relay, every tool is the hub's (spec: MCP server, On a relay):
  /// the agents' new lines are sent first (before a read at most every
  /// kRelaySendEveryMs, waiting at most the hub timeout; before a write,
  /// waiting at most kRelayWriteWaitMs), then the hub's answer is the
  /// answer, or an error saying that the relay cannot answer offline.
  void AskRelayHub(const mcp::Tool& tool, std::shared_ptr<rapidjson::Document> given,
                   const McpPeer& peer, const std::string& id_json, bool structured, Done done);
  static constexpr std::int64_t kRelaySendEveryMs = 10'000;
  static constexpr int kRelayWriteWaitMs = 15'000;
  static constexpr long kRelayAnswerMs = 15'000;
  static constexpr std::int64_t kRelayWarnEveryMs = 3'600'000;

  Operations& ops_;
  const ThreadRole& thread_;
  std::int64_t last_relay_send_ms_ = -kRelaySendEveryMs;  // steady clock, loop thread
  std::int64_t last_relay_warning_ms_ = -kRelayWarnEveryMs;
};

}  // namespace origin
