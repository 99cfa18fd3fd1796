// SPDX-License-Identifier: MIT
// The order of the CLI's commands, and the two that set Origin up rather
// than ask the daemon (they parse their own arguments: mcp_register.hpp, service_units.hpp).

#include <string_view>

#include "client/commands/commands.hpp"
#include "client/mcp_register.hpp"
#include "client/service_units.hpp"

namespace origin::client {

namespace {

constexpr Option kMcpOptions[] = {
    {"print", "", "install, uninstall: show what it would write, write nothing"},
    {"json", "", "status: the answer as JSON, for scripts"}};
constexpr Option kServiceOptions[] = {
    {"print", "", "install: show the unit it would write, write nothing"}};

constexpr std::string_view kMcpDetails =
    "Without arguments: the MCP server on stdio (origin-mcp), what agents launch.\n"
    "\n"
    "install registers origin-mcp with each agent by its own conventions:\n"
    "  claude-code  `claude mcp add --scope user` when claude is on PATH, else\n"
    "               mcpServers.origin in ~/.claude.json (or in $CLAUDE_CONFIG_DIR)\n"
    "  codex        [mcp_servers.origin] in ~/.codex/config.toml ($CODEX_HOME)\n"
    "  cursor       mcpServers.origin in ~/.cursor/mcp.json (JSONC: comments kept)\n"
    "  all          each of them that is used on this machine (the default)\n"
    "When $ORIGIN_HOME is not ~/.origin, it goes into the registration (env), so\n"
    "that the agents use the store you use.  Other servers, their layout and the\n"
    "comments are kept, a file is backed up before it changes, and a second run\n"
    "changes nothing.  A file that cannot be changed safely is left as it is: the\n"
    "lines to add by hand are printed, and the exit code is 1.\n"
    "uninstall removes the registration the same way.\n"
    "status says, for each agent, whether Origin is registered, with what command\n"
    "and store, and whether that command answers: it is run as the agent runs it\n"
    "and asked an MCP initialize (10 s at most).  Exit code 1 when a registration\n"
    "does not answer or a file cannot be read.\n";

constexpr std::string_view kMcpExamples =
    "  origin mcp install\n"
    "  origin mcp install cursor --print\n"
    "  origin mcp status --json\n"
    "  origin mcp uninstall codex\n";

constexpr std::string_view kServiceDetails =
    "Runs originsd as a user service that starts at login: a systemd user unit\n"
    "(~/.config/systemd/user/originsd.service) on Linux, a launchd agent\n"
    "(~/Library/LaunchAgents/dev.origin.originsd.plist) on macOS.  Without it,\n"
    "origin and origin-mcp start the daemon when they need it.  install asks the\n"
    "service manager first: without a user session (systemctl --user cannot reach\n"
    "the user bus) it changes nothing and says what to do (loginctl enable-linger);\n"
    "else a daemon started on demand steps aside for the service.  uninstall exits\n"
    "1 when the service manager fails.\n";

const Command kMcpCommand{
    .name = "mcp",
    .args = "[install|uninstall|status [claude-code|codex|cursor|all]]",
    .min_args = 1,
    .max_args = 2,
    .missing = "install, uninstall or status",
    .summary = "the MCP server on stdio, for agents; install, uninstall, status: set it up "
               "with them",
    .options = kMcpOptions,
    .details = kMcpDetails,
    .examples = kMcpExamples,
    .run = McpCommand,
    .arg_words = "install uninstall status;claude-code codex cursor all",
};

const Command kServiceCommand{
    .name = "service",
    .args = "install|uninstall|status",
    .min_args = 1,
    .max_args = 1,
    .summary = "originsd as a user service (systemd user unit, launchd agent)",
    .options = kServiceOptions,
    .details = kServiceDetails,
    .run = ServiceCommand,
    .arg_words = "install uninstall status",
};

constexpr const Command* kCommands[] = {
    &kStatusCommand,  &kSyncCommand,     &kSearchCommand,    &kTimelineCommand, &kProjectsCommand,
    &kEntriesCommand, &kRememberCommand, &kCorrectCommand,   &kShowCommand,     &kSourcesCommand,
    &kForgetCommand,  &kRestoreCommand,  &kForgottenCommand, &kExportCommand,   &kMcpCommand,
    &kServiceCommand, &kDoctorCommand,   &kEraseCommand,     &kBackupCommand,   &kVerifyCommand,
    &kUiCommand,      &kServeCommand,    &kTokenCommand,     &kHubCommand,      &kStopCommand};

}  // namespace

std::span<const Command* const> Commands() { return kCommands; }

}  // namespace origin::client
