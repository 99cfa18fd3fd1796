// SPDX-License-Identifier: MIT
#pragma once
// The commands that set Origin up on this machine rather than ask the
// daemon anything: `origin mcp` (run the MCP shim, or register it with the
// agents) and `origin service` (run originsd as a user service).  See
// docs/cli.md for what each writes, and ../shared/spec/mcp.md section 9.

#include <optional>
#include <string>
#include <vector>

namespace origin::client {

/// `origin mcp [install [claude-code|codex|cursor|all] [--print]]`; returns
/// the exit code.  Without arguments it becomes origin-mcp (exec).
int McpCommand(const std::vector<std::string>& args);

/// `origin service install|uninstall|status [--print]`; returns the exit code.
int ServiceCommand(const std::vector<std::string>& args);

// The edits, for the tests: each returns the file's new content, or nothing
// when the file already says what it should.  They throw std::runtime_error
// when the file cannot be read as what it should be (nothing is written).

/// A JSON file with a top-level "mcpServers" object (Claude Code's
/// ~/.claude.json, Cursor's ~/.cursor/mcp.json): mcpServers.origin gets
/// `command` and `args` (and `"type":"stdio"` when `typed`); its other
/// members, other servers and the rest of the file are kept.
std::optional<std::string> MergeJsonServer(const std::string& existing, const std::string& command,
                                           bool typed);

/// Codex's config.toml: the table [mcp_servers.origin] gets `command` and
/// `args`; its other keys, other tables and every other line are kept.
std::optional<std::string> MergeCodexToml(const std::string& existing, const std::string& command);

}  // namespace origin::client
