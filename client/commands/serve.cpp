// SPDX-License-Identifier: MIT
// origin serve: this store's daemon in the foreground as a hub (design.md:
// `exec originsd --hub ...`), for containers and service units.  The hub's
// HTTP side is daemon/http/hub_service.hpp.

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "client/commands/commands.hpp"
#include "client/connection.hpp"
#include "proto/protocol.hpp"

namespace origin::client {

namespace {

constexpr Option kServeOptions[] = {
    {"listen", "ADDR", "the address to listen on (127.0.0.1; 0.0.0.0 or :: for every one)"},
    {"port", "N", "the port (7077)"},
    {"public-url", "URL", "the URL clients reach the hub by, behind a proxy (ORIGIN_PUBLIC_URL)"},
};

constexpr std::string_view kServeDetails =
    "Runs this store's daemon in the foreground as a hub: everything originsd\n"
    "does, plus an HTTP server for other machines' agents and devices:\n"
    "  GET  /healthz   {\"ok\": true, \"version\": ...}, without a token\n"
    "  POST /mcp       MCP over Streamable HTTP (stateless, JSON answers): the\n"
    "                  seven tools of origin mcp, for a bearer token\n"
    "Tokens are made with origin token create NAME, on the hub.  The store is\n"
    "named hub the first time it needs a name.  Another originsd must not run on\n"
    "the store (origin serve says which does).  Stops on SIGTERM or Ctrl-C.\n"
    "The hub speaks plain HTTP: before it is reached from beyond this machine,\n"
    "put it behind a TLS reverse proxy (README: Run a hub) and give --public-url,\n"
    "the https URL clients use, whose host name the hub then answers to.\n"
    "Without one, it answers requests addressed to an IP address or localhost\n"
    "only (a DNS name pointed at it by someone else is refused: DNS rebinding).\n";

constexpr std::string_view kServeExamples =
    "  origin serve\n"
    "  origin serve --listen 0.0.0.0 --public-url https://hub.example.com\n"
    "  origin serve --port 8080\n";

int ServeCommand(const std::vector<std::string>& words) {
  const Command& cmd = *FindCommand("serve");
  bool help = false;
  Invocation inv;
  try {
    inv = Parse(cmd, words, &help);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "origin: %s\n%s", e.what(), UsageLine(cmd).c_str());
    return proto::kExitUsage;
  }
  if (help) {
    std::fputs(CommandHelp(cmd).c_str(), stdout);
    return proto::kExitOk;
  }
  // originsd checks every value and says what is wrong.
  std::vector<std::string> argv = {DaemonPath(), "--foreground", "--hub"};
  for (const char* name : {"listen", "port", "public-url"})
    if (auto v = inv.Value(name)) {
      argv.push_back(std::string("--") + name);
      argv.push_back(*v);
    }
  std::vector<char*> c;
  for (std::string& a : argv) c.push_back(a.data());
  c.push_back(nullptr);
  ::execvp(c[0], c.data());
  std::fprintf(stderr, "origin: cannot run %s: %s\n", c[0], std::strerror(errno));
  return proto::kExitError;
}

}  // namespace

const Command kServeCommand{
    .name = "serve",
    .summary = "run as a hub: MCP over HTTP for other machines' agents (foreground)",
    .options = kServeOptions,
    .details = kServeDetails,
    .examples = kServeExamples,
    .run = ServeCommand,
};

}  // namespace origin::client
