// SPDX-License-Identifier: MIT
#pragma once
// The hub's HTTP side (spec: Personal hub; issue 17), on the daemon's HTTP
// server when originsd runs as a hub (origin serve):
//   GET  /healthz   {"ok": true, "version": ...}; no token
//   POST /mcp       MCP over Streamable HTTP, stateless, JSON answers
//                   (../shared/spec/mcp.md section 6): the daemon's MCP
//                   server (daemon/mcp/), the one origin-mcp reaches through
//                   the socket, for a bearer token
//   GET  /mcp       405 (no stream is offered), Allow: POST
//   /v1/...         the replication API of devices (replication.cpp)
// Every /mcp request, before the MCP server sees it:
//   - Authorization: Bearer <token> of an active token (core/hub/tokens.hpp),
//     looked up on a reader: 401 with WWW-Authenticate otherwise;
//   - an Origin header, when sent, names a loopback origin or the public
//     URL's (403): a browser's page of another site cannot call it;
//   - MCP-Protocol-Version, when sent, is one the server speaks (400); when
//     absent, 2025-03-26 (the spec's default for a stateless server);
//   - Content-Type application/json (415); an Accept that admits JSON (406);
//   - X-Origin-Device, when sent, is the token's name (403, with the token's
//     device in the body): no token writes as another device;
//   - X-Origin-Client names the agent: writes are by <agent>@<token name>,
//     or by the token's name alone without it.
// Requests whose Host is neither an IP address, localhost, nor the public
// URL's host are refused (403) by the server itself: a DNS name pointed at
// the hub by someone else (DNS rebinding) reaches nothing.
// Loop thread.

#include <uv.h>

#include <memory>
#include <optional>
#include <string>

#include "daemon/http/http_server.hpp"
#include "daemon/mcp/server.hpp"
#include "daemon/operations/operations.hpp"

namespace origin::http {

inline constexpr int kDefaultHubPort = 7077;

/// The parts of a public URL the hub checks requests against.
struct PublicUrl {
  std::string origin;  // scheme://host[:port], lower case
  std::string host;    // host[:port], as a Host header names it, lower case
};
/// `url` (http or https, a host, no user info), or nullopt with `*error`.
std::optional<PublicUrl> ParsePublicUrl(const std::string& url, std::string* error);
/// Whether a request's Host header may reach the hub: an IP address or
/// localhost (with any port), or the public URL's host.
bool HubHostAllowed(const std::string& host, const PublicUrl* public_url);
/// Whether an Origin header may call /mcp: a loopback origin, or the
/// public URL's.
bool HubOriginAllowed(const std::string& origin, const PublicUrl* public_url);
/// The token of `Authorization: Bearer <token>`, or nothing.
std::optional<std::string> BearerToken(const Request& r);
/// The body of a 403 for a request naming another device than its token's
/// (spec: Access): {error: `message`, device: the token's `device`}.
std::string DeviceRefusal(const std::string& message, const std::string& device);
/// `r` (a 401) with the WWW-Authenticate header asking for a bearer token.
Response Unauthorized(Response r);
/// What a 401 without a token says.
inline constexpr char kNeedToken[] =
    "a token is needed: Authorization: Bearer TOKEN (origin token create NAME, on the hub)";

struct HubOptions {
  std::string listen = "127.0.0.1";  // an IP address; 0.0.0.0 or :: for every one
  int port = kDefaultHubPort;        // 0: a free one (tests)
  /// The URL clients reach the hub by (ParsePublicUrl); none behind no proxy.
  std::optional<PublicUrl> public_url;
};

class HubService {
 public:
  /// A request's body, at most (/mcp's message).
  static constexpr std::size_t kMaxBodyBytes = std::size_t{1} << 20;
  /// A push's body (POST /v1/...) as sent, and as inflated: a chunk of at
  /// most 1 MiB of lines (kMaxChunkBytes) or one longer line, in base64
  /// (4/3), in JSON; or up to 1,000 entries or tombstones.  A longer line is
  /// refused (413): its file is the device's to report.
  static constexpr std::size_t kMaxPushBodyBytes = std::size_t{24} << 20;
  static constexpr std::size_t kMaxPushJsonBytes = std::size_t{24} << 20;
  static constexpr std::size_t kMaxChunkBytes = std::size_t{1} << 20;

  HubService(uv_loop_t* loop, Operations& ops, McpServer& mcp, HubOptions options,
             ServerLimits limits);
  HubService(const HubService&) = delete;
  HubService& operator=(const HubService&) = delete;

  /// Listens (throws std::invalid_argument for a bad address, UvError when
  /// the port cannot be bound); logs where.
  void Start();
  void Stop();
  int port() const { return server_.port(); }

 private:
  void Handle(const Request& r, Respond respond);
  void Mcp(const Request& r, Respond respond);
  /// The replication API, /v1/* (replication.cpp).
  void V1(const Request& r, Respond respond);
  static std::size_t BodyLimit(const Request& r);
  const PublicUrl* public_url() const {
    return options_.public_url ? &*options_.public_url : nullptr;
  }

  Operations& ops_;
  McpServer& mcp_;
  HubOptions options_;
  HttpServer server_;
};

}  // namespace origin::http
