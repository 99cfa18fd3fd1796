// SPDX-License-Identifier: MIT
#pragma once
// `origin mcp`: run the MCP shim (exec origin-mcp), or set it up with the
// agents by their own conventions: `origin mcp install` registers it
// (Claude Code through its `claude mcp add` when it is on PATH, else in its
// file; Codex in config.toml; Cursor in mcp.json, JSONC comments kept),
// `origin mcp uninstall` removes that, and `origin mcp status` says what
// each agent has registered and whether it answers an MCP initialize.
// config_merge.hpp makes the edits; docs/cli.md says what each writes.

#include <map>
#include <string>
#include <vector>

#include "client/mcp_probe.hpp"

namespace origin::client {

/// `origin mcp [install|uninstall [AGENT] [--print] | status [AGENT] [--json]]`;
/// returns the exit code.  Without arguments it becomes origin-mcp (exec).
int McpCommand(const std::vector<std::string>& args);

/// One agent's registration as `origin mcp status` reports it.
struct AgentRegistration {
  std::string agent;  // claude-code, codex, cursor
  std::string file;   // where it is kept
  bool registered = false;
  std::string error;  // the file could not be read
  std::string command;
  std::vector<std::string> args;
  std::string url;    // a server by url, not origin-mcp
  std::string store;  // the ORIGIN_HOME it is given, or the default
  bool store_is_default = true;
  bool probed = false;
  ProbeResult probe;
};

/// Every agent's registration (or only agent `only`'s); `probe`: run each
/// registered command and ask it an MCP initialize (at most `timeout_ms`).
std::vector<AgentRegistration> AgentRegistrations(bool probe, const std::string& only = "",
                                                  int timeout_ms = 10000);

/// What origin-mcp's registration is given to run, for this user's store:
/// ORIGIN_HOME when the store is not the default ~/.origin.
std::map<std::string, std::string> RegistrationEnv();

}  // namespace origin::client
