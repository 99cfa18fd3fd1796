// SPDX-License-Identifier: MIT
#pragma once
// What the hub's end-to-end tests share: its port, tokens made by the real
// CLI, and the headers of an MCP request.

#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "tests/e2e/daemon_fixture.hpp"
#include "tests/support/http_client.hpp"

namespace origin::test {

// The hub's port, from the line originsd logs once it listens
// ("hub: serving http://ADDR:PORT (...") at its latest start.
inline int HubPort(DaemonFixture& f) {
  int port = 0;
  f.WaitFor([&] { return (port = HubPortInLog(f.log())) != 0; });
  REQUIRE_MESSAGE(port != 0, "the hub logged no port");
  return port;
}

// Starts `hub` in hub mode on 127.0.0.1:`port` (0: any free port); the
// port it listens on.
inline int StartHub(DaemonFixture& hub, int port = 0) {
  hub.Start({"--hub", "--port", std::to_string(port)});
  return HubPort(hub);
}

// A new token for `name`, made by the CLI.
inline std::string NewToken(DaemonFixture& f, const std::string& name) {
  RunResult r = f.Cli({"token", "create", name, "--json"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return Json(r.out)["token"].GetString();
}

// `origin status --json` (exit 5: a status with a problem to show).
inline rapidjson::Document Status(DaemonFixture& f) {
  RunResult r = f.Cli({"status", "--json"});
  REQUIRE_MESSAGE((r.status == 0 || r.status == 5), (r.out + r.err));
  return Json(r.out);
}

inline std::map<std::string, std::string> McpHeaders(const std::string& token,
                                              std::map<std::string, std::string> more = {}) {
  more.emplace("Content-Type", "application/json");
  more.emplace("Accept", "application/json, text/event-stream");
  if (!token.empty()) more.emplace("Authorization", "Bearer " + token);
  return more;
}

// A device named `name`: its own store, ingesting one session
// (claude-code:<name>-session, events claude-code:<name>-u0 to -u3, the
// third holding `words`).
inline void StartDevice(DaemonFixture& dev, const std::string& name, const std::string& words) {
  dev.env()["ORIGIN_DEVICE"] = name;
  std::string log;
  for (int i = 0; i < 4; ++i)
    log += ClaudeLine(name + "-u" + std::to_string(i),
                      name + " said line " + std::to_string(i) + (i == 2 ? " " + words : ""),
                      name + "-session");
  WriteFile(dev.claude() + "/projects/app/" + name + ".jsonl", log);
  dev.Start();
  REQUIRE(dev.WaitFor([&] { return dev.Events() == 4; }));
}

// `origin sync --json`'s `hub` part, REQUIREd to have no error.
inline rapidjson::Document Sync(DaemonFixture& dev) {
  RunResult r = dev.Cli({"sync", "--json"});
  REQUIRE_MESSAGE(r.status == 0, (r.out + r.err));
  rapidjson::Document d = Json(r.out);
  REQUIRE_MESSAGE(d.HasMember("hub"), r.out);
  REQUIRE_MESSAGE(d["hub"]["error"].IsNull(), r.out);
  rapidjson::Document hub;
  hub.CopyFrom(d["hub"], hub.GetAllocator());
  return hub;
}

}  // namespace origin::test
