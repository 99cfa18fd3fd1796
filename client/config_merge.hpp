// SPDX-License-Identifier: MIT
#pragma once
// The edits `origin mcp install` makes to the agents' settings, as pure
// functions of the file's text (for the tests: tests/unit/client/).  Each
// returns the file's new content, or nothing when the file already says
// what it should (a second run writes nothing).  They throw
// std::runtime_error when the file cannot be read as what it should be;
// the caller then writes nothing.

#include <optional>
#include <string>

namespace origin::client {

/// A JSON file with a top-level "mcpServers" object (Claude Code's
/// ~/.claude.json, Cursor's ~/.cursor/mcp.json): mcpServers.origin gets
/// `command` and `args` (and `"type":"stdio"` when `typed`); its other
/// members, other servers and the rest of the file are kept (the file is
/// written again, pretty-printed with two spaces: JSON has no comments to
/// keep).
std::optional<std::string> MergeJsonServer(const std::string& existing, const std::string& command,
                                           bool typed);

/// Codex's config.toml: the table [mcp_servers.origin] gets `command` and
/// `args`; its other keys, other tables and every other line (comments
/// among them) are kept as they are.  Refused: [mcp_servers.origin] twice,
/// or mcp_servers.origin set in another form (an inline table, dotted keys).
std::optional<std::string> MergeCodexToml(const std::string& existing, const std::string& command);

}  // namespace origin::client
