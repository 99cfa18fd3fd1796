// SPDX-License-Identifier: MIT
#pragma once
// The edits `origin mcp install` and `origin mcp uninstall` make to the
// agents' settings, and the reading `origin mcp status` does, as pure
// functions of the file's text (for the tests: tests/unit/client/).  An
// edit returns the file's new content, or nothing when the file already
// says what it should (a second run writes nothing).  They throw
// std::runtime_error when the file cannot be read as what it should be, or
// cannot be changed without losing something of the user's; the caller then
// writes nothing and prints the block to paste (RenderJsonServer,
// RenderCodexTable).
//
// Edits change the file's text in place: only the members origin sets
// (command, args, type, env.ORIGIN_HOME) are written, every other byte of
// the file (other servers, their layout, comments) stays as it was.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace origin::client {

/// What an agent is told to run.  `env` holds ORIGIN_HOME when the store is
/// not the default one (so that the agent uses the user's store).
struct McpServer {
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
};

/// A registration as read back from an agent's file.
struct Registration {
  std::string command;  // "" for a server by url
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::string url;
};

/// A JSON file with a top-level "mcpServers" object (Claude Code's
/// ~/.claude.json, Cursor's ~/.cursor/mcp.json).  `jsonc`: comments and
/// trailing commas are accepted and kept (Cursor reads JSONC); otherwise the
/// file must be strict JSON (Claude Code's is).  mcpServers.origin gets
/// `command` and `args` (and `"type":"stdio"` when `typed`), env.ORIGIN_HOME
/// is set from `server.env` or removed when it has none; a `url` goes (a
/// hub's server under this name).  Refused (throws): a file that does not
/// parse, is not an object, a mcpServers or origin that is not an object, a
/// key twice, or an edit that would drop a comment.
std::optional<std::string> MergeJsonServer(const std::string& existing, const McpServer& server,
                                           bool typed, bool jsonc = false);
/// mcpServers.origin removed (comments inside it go with it); nothing when
/// there is none.
std::optional<std::string> RemoveJsonServer(const std::string& existing, bool jsonc = false);
/// mcpServers.origin, when the file has one.
std::optional<Registration> ReadJsonServer(const std::string& existing, bool jsonc = false);
/// The "origin" member to paste into mcpServers, by hand.
std::string RenderJsonServer(const McpServer& server, bool typed);

/// Codex's config.toml: the table [mcp_servers.origin] gets `command`,
/// `args` and, when `server.env` has ORIGIN_HOME, `env = { ORIGIN_HOME = .. }`
/// (or that key in an existing [mcp_servers.origin.env] or inline env); its
/// other keys, other tables and every other line (comments among them) are
/// kept as they are.  Refused: [mcp_servers.origin] twice,
/// mcp_servers.origin set in another form (an inline table, dotted keys),
/// an env it cannot read.
std::optional<std::string> MergeCodexToml(const std::string& existing, const McpServer& server);
/// [mcp_servers.origin] and its subtables removed.
std::optional<std::string> RemoveCodexToml(const std::string& existing);
std::optional<Registration> ReadCodexToml(const std::string& existing);
std::string RenderCodexTable(const McpServer& server);

/// `s` without the white space around it (a file of blank lines is empty).
std::string TrimSpace(std::string_view s);

}  // namespace origin::client
