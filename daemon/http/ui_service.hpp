// SPDX-License-Identifier: MIT
#pragma once
// origin ui's life in the daemon (spec: "On a device: origin ui"): the
// operation `ui`, asked by an `origin ui` client (hello client "origin-ui")
// on its socket connection, starts the HTTP listener on 127.0.0.1 and
// answers the sign-in link; `ui` with {"new_link": true} on the same
// connection issues a new link and retires the previous one.  While that
// connection stays open the UI is served; when it closes (the client
// exits, is killed or crashes) the listener, its connections, the
// sessions and the secret go with it.  One origin ui at a time: a second is
// refused while the first runs.  Loop thread.  Never an MCP tool or an API call.

#include <uv.h>

#include <cstdint>
#include <memory>
#include <string>

#include "daemon/http/admin.hpp"
#include "daemon/http/http_server.hpp"
#include "daemon/operations/operations.hpp"

namespace origin::http {

inline constexpr int kDefaultUiPort = 7079;

class UiService {
 public:
  UiService(uv_loop_t* loop, Operations& ops, const Clock& clock, ServerLimits limits);
  UiService(const UiService&) = delete;
  UiService& operator=(const UiService&) = delete;

  /// The `ui` operation (on the loop): start, or a new link.
  void Ui(const rapidjson::Value* params, const Caller& caller, Reply reply);
  /// Stops serving: listener, connections, sessions, secret.
  void Stop();
  bool running() const { return server_.listening(); }

 private:
  std::string Link();
  Answer LinkAnswer();

  const Clock& clock_;
  AdminUi admin_;
  HttpServer server_;
  std::uint64_t owner_ = 0;  // the socket connection of the origin ui that runs it
};

/// The table's entry point of `ui` (daemon/operations/table.cpp).
void StartUi(Operations& ops, const Operation& op, const rapidjson::Value* params, Caller caller,
             Reply reply);

}  // namespace origin::http
