// SPDX-License-Identifier: MIT
#pragma once
// `origin mcp`: run the MCP shim (exec origin-mcp), or register it with the
// agents by their own conventions (`origin mcp install`): Claude Code through
// its `claude mcp add` when it is on PATH, else in its file; Codex in
// config.toml; Cursor in mcp.json (config_merge.hpp makes the edits).  See
// docs/cli.md for what each writes.

#include <string>
#include <vector>

namespace origin::client {

/// `origin mcp [install [claude-code|codex|cursor|all] [--print]]`; returns
/// the exit code.  Without arguments it becomes origin-mcp (exec).
int McpCommand(const std::vector<std::string>& args);

}  // namespace origin::client
