// SPDX-License-Identifier: MIT
#include "daemon/http/hub_service.hpp"

#include <arpa/inet.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "core/hub/tokens.hpp"
#include "core/util/text.hpp"
#include "daemon/http/form.hpp"
#include "daemon/hub/wire.hpp"
#include "daemon/log.hpp"
#include "origin_config.h"
#include "proto/protocol.hpp"

namespace origin::http {

namespace {

constexpr char kJson[] = "application/json";
// A JSON-RPC error of the transport, before any message was read (no id).
constexpr int kTransportError = -32000;
// What a stateless server assumes without MCP-Protocol-Version (mcp.md 6).
constexpr char kDefaultProtocol[] = "2025-03-26";

// A host and optional port as a Host header or an origin's authority
// writes them: the name (an IPv6 address without its brackets), or
// nothing when the port is not a port number or an IPv6 address is not
// bracketed.
std::optional<std::string> HostName(std::string_view authority) {
  std::string_view name, rest;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    name = authority.substr(1, close - 1);
    rest = authority.substr(close + 1);
  } else {
    const std::size_t colon = authority.find(':');
    name = authority.substr(0, colon);
    rest = colon == std::string_view::npos ? "" : authority.substr(colon);
  }
  if (!rest.empty()) {
    if (rest[0] != ':' || rest.size() < 2 || rest.size() > 6) return std::nullopt;
    long port = 0;
    for (char c : rest.substr(1)) {
      if (c < '0' || c > '9') return std::nullopt;
      port = port * 10 + (c - '0');
    }
    if (port > 65535) return std::nullopt;
  }
  if (name.empty()) return std::nullopt;
  return std::string(name);
}

bool IsIp(const std::string& name, bool* loopback) {
  unsigned char buf[16];
  if (inet_pton(AF_INET, name.c_str(), buf) == 1) {
    *loopback = buf[0] == 127;
    return true;
  }
  if (inet_pton(AF_INET6, name.c_str(), buf) == 1) {
    static const unsigned char kOne[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    *loopback = std::equal(buf, buf + 16, kOne);
    return true;
  }
  return false;
}

Response JsonResponse(int status, std::string body) {
  return WithBody(status, kJson, std::move(body));
}

// An error of /mcp's transport: a JSON-RPC error without an id.
Response McpError(int status, const std::string& message) {
  return JsonResponse(status, proto::JsonRpcError("null", kTransportError, message));
}

// Whether an Accept header admits a JSON answer (none sent: any).
bool AcceptsJson(const std::string* accept) {
  if (accept == nullptr) return true;
  const std::string a = AsciiLower(*accept);
  return a.find("application/json") != std::string::npos ||
         a.find("application/*") != std::string::npos || a.find("*/*") != std::string::npos;
}

}  // namespace

std::optional<PublicUrl> ParsePublicUrl(const std::string& url, std::string* error) {
  const std::string lower = AsciiLower(url);
  std::string scheme;
  if (lower.starts_with("https://"))
    scheme = "https";
  else if (lower.starts_with("http://"))
    scheme = "http";
  else {
    *error = "the public URL starts with https:// (or http://): " + url;
    return std::nullopt;
  }
  std::string authority = lower.substr(scheme.size() + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (authority.find('@') != std::string::npos || !HostName(authority)) {
    *error = "the public URL names a host (and a port), without a user: " + url;
    return std::nullopt;
  }
  // The default port is left out, as browsers leave it out of Origin.
  const std::string default_port = scheme == "https" ? ":443" : ":80";
  if (authority.ends_with(default_port) && authority.back() != ']')
    authority.resize(authority.size() - default_port.size());
  return PublicUrl{scheme + "://" + authority, authority};
}

bool HubHostAllowed(const std::string& host, const PublicUrl* public_url) {
  const std::string h = AsciiLower(host);
  if (public_url != nullptr && h == public_url->host) return true;
  const std::optional<std::string> name = HostName(h);
  if (!name) return false;
  bool loopback = false;
  // An unbracketed IPv6 address is no Host header (HostName cut it at its
  // first colon, which leaves no address).
  return *name == "localhost" || IsIp(*name, &loopback);
}

bool HubOriginAllowed(const std::string& origin, const PublicUrl* public_url) {
  const std::string o = AsciiLower(origin);
  if (public_url != nullptr && o == public_url->origin) return true;
  std::string_view rest;
  if (o.starts_with("http://"))
    rest = std::string_view(o).substr(7);
  else if (o.starts_with("https://"))
    rest = std::string_view(o).substr(8);
  else
    return false;  // "null" among others
  if (rest.find_first_of("/?#@") != std::string_view::npos) return false;
  const std::optional<std::string> name = HostName(rest);
  bool loopback = false;
  return name && (*name == "localhost" || (IsIp(*name, &loopback) && loopback));
}

std::string DeviceRefusal(const std::string& message, const std::string& device) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("error");
  w.String(message.c_str(), static_cast<rapidjson::SizeType>(message.size()));
  w.Key("device");
  w.String(device.c_str(), static_cast<rapidjson::SizeType>(device.size()));
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

std::optional<std::string> BearerToken(const Request& r) {
  const std::string* auth = r.Header("authorization");
  if (auth == nullptr || auth->size() < 7 || AsciiLower(auth->substr(0, 7)) != "bearer ")
    return std::nullopt;
  return std::string(TrimSpace(std::string_view(*auth).substr(7), " \t"));
}

Response Unauthorized(Response r) {
  r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"origin\"");
  return r;
}

HubService::HubService(uv_loop_t* loop, Operations& ops, McpServer& mcp, HubOptions options,
                       ServerLimits limits)
    : ops_(ops),
      mcp_(mcp),
      options_(std::move(options)),
      server_(loop, ops.ctx().loop_thread, limits) {}

void HubService::Start() {
  server_.Listen(
      options_.listen, options_.port,
      [this](const Request& r, Respond respond) { Handle(r, std::move(respond)); },
      [](int status, const std::string& message) {
        return JsonResponse(status, proto::ErrorJson("http", message));
      },
      Reach::kNetwork);
  server_.SetBodyLimit(&HubService::BodyLimit);
  const PublicUrl* pub = public_url();
  server_.SetHostFilter([pub](const std::string& host) { return HubHostAllowed(host, pub); },
                        pub ? pub->host
                            : std::string("an IP address or localhost (--public-url names the "
                                          "hub's host)"));
  const std::string where = (options_.listen.find(':') != std::string::npos
                                 ? "[" + options_.listen + "]"
                                 : options_.listen) +
                            ":" + std::to_string(server_.port());
  LOG_INFO("hub: serving http://%s (/mcp, /v1, /healthz)%s%s", where.c_str(),
           pub ? ", public URL " : "", pub ? pub->origin.c_str() : "");
  ops_.ctx().hub_serving = "http://" + where;
  ops_.ctx().hub_public_url = pub ? pub->origin : "";
}

void HubService::Stop() {
  if (!server_.listening()) return;
  LOG_INFO("hub: stopped serving");
  ops_.ctx().hub_serving.clear();
  ops_.ctx().hub_public_url.clear();
  server_.Close();
}

void HubService::Handle(const Request& r, Respond respond) {
  if (r.path == "/healthz") {
    if (r.method != "GET") {
      Response out = JsonResponse(405, proto::ErrorJson("http", "/healthz takes GET"));
      out.headers.emplace_back("Allow", "GET");
      return respond(std::move(out));
    }
    return respond(JsonResponse(
        200, std::string("{\"ok\":true,\"version\":\"") + ORIGIN_VERSION + "\"}"));
  }
  if (r.path == "/mcp") {
    if (r.method != "POST") {
      // No stream of server messages is offered (a stateless server).
      Response out = McpError(405, "/mcp takes POST: this server offers no stream");
      out.headers.emplace_back("Allow", "POST");
      return respond(std::move(out));
    }
    return Mcp(r, std::move(respond));
  }
  if (r.path.starts_with("/v1/")) return V1(r, std::move(respond));
  respond(JsonResponse(404, proto::ErrorJson("not_found", "no such endpoint: " + r.path)));
}

void HubService::Mcp(const Request& r, Respond respond) {
  const PublicUrl* pub = public_url();
  if (const std::string* origin = r.Header("origin"); origin && !HubOriginAllowed(*origin, pub))
    return respond(McpError(403, "requests from the origin " + *origin + " are not answered"));
  std::optional<std::string> token = BearerToken(r);
  if (!token) return respond(Unauthorized(McpError(401, kNeedToken)));
  std::string protocol = kDefaultProtocol;
  if (const std::string* v = r.Header("mcp-protocol-version")) {
    if (!McpServer::KnownVersion(*v))
      return respond(McpError(400, "unsupported MCP-Protocol-Version " + *v +
                                       ": 2025-11-25, 2025-06-18, 2025-03-26 or 2024-11-05"));
    protocol = *v;
  }
  if (MediaType(r) != kJson)
    return respond(McpError(415, "/mcp takes a JSON-RPC message as application/json"));
  if (!AcceptsJson(r.Header("accept")))
    return respond(McpError(406, "/mcp answers application/json: the Accept header refuses it"));
  std::string agent;
  if (const std::string* client = r.Header("x-origin-client")) {
    if (!hub_wire::ValidAgentName(*client))
      return respond(McpError(400, "X-Origin-Client names an agent: letters, digits, '.', '_' "
                                   "and '-', at most 64"));
    agent = *client;
  }
  std::optional<std::string> device;
  if (const std::string* d = r.Header("x-origin-device")) device = *d;
  // A relay's key for a write its agent may send again: the hub carries it
  // out once (the request key of the spec's Entries, kept per token).
  std::string request;
  if (const std::string* q = r.Header("x-origin-request")) {
    if (q->empty() || q->size() > 128 ||
        !std::all_of(q->begin(), q->end(), [](unsigned char c) {
          return std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == ':';
        }))
      return respond(McpError(400, "X-Origin-Request is a key of at most 128 letters, digits, "
                                   "'-', '_', '.' and ':'"));
    request = *q;
  }
  // The token, then the message: what is needed of the request is copied,
  // since it is answered later, on the loop.
  auto ask = [this, body = r.body, protocol, agent, device, request, respond](Answer a) {
    if (a.error)
      return respond(McpError(503, std::string("the token could not be checked: ") +
                                       a.error->what()));
    rapidjson::Document d;
    d.Parse(a.result.c_str());
    if (!d.IsString()) {
      Response out = McpError(401, "the token is unknown or revoked");
      out.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"origin\", error=\"invalid_token\"");
      return respond(std::move(out));
    }
    const std::string name(d.GetString(), d.GetStringLength());
    if (device && *device != name)
      return respond(JsonResponse(
          403, DeviceRefusal("X-Origin-Device names " + *device + ", but the token is " + name + "'s",
                             name)));
    auto peer = std::make_shared<McpPeer>();
    peer->protocol = protocol;
    peer->author = agent.empty() ? name : agent + "@" + name;
    // Writes are keyed by the session and the message's id: the token's
    // name keeps one device's keys from meeting another's.
    if (!request.empty()) peer->session = "request:" + name + ":" + request;
    mcp_.Handle(body, peer, [respond](std::string reply) {
      if (reply.empty()) {
        Response accepted;
        accepted.status = 202;  // notifications and responses only
        return respond(std::move(accepted));
      }
      respond(JsonResponse(200, std::move(reply)));
    });
  };
  ops_.OnWorker(
      Thread::kReader, Caller{},
      [token = std::move(*token)](Db& db, rpc::Writer& w) {
        if (std::optional<std::string> name = TokenOwner(db, token))
          w.String(*name);
        else
          w.Null();
      },
      std::move(ask));
}

}  // namespace origin::http
