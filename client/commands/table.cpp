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
    {"print", "", "install: show what it would write, write nothing"}};
constexpr Option kServiceOptions[] = {
    {"print", "", "install: show the unit it would write, write nothing"}};

const Command kMcpCommand{
    .name = "mcp",
    .args = "[install [claude-code|codex|cursor|all]]",
    .max_args = 2,
    .summary = "the MCP server on stdio, for agents; install: register it with them",
    .options = kMcpOptions,
    .run = McpCommand,
};

const Command kServiceCommand{
    .name = "service",
    .args = "install|uninstall|status",
    .min_args = 1,
    .max_args = 1,
    .summary = "originsd as a user service (systemd user unit, launchd agent)",
    .options = kServiceOptions,
    .run = ServiceCommand,
};

constexpr const Command* kCommands[] = {
    &kStatusCommand,  &kSyncCommand,     &kSearchCommand,    &kTimelineCommand, &kProjectsCommand,
    &kEntriesCommand, &kRememberCommand, &kCorrectCommand,   &kShowCommand,     &kSourcesCommand,
    &kForgetCommand,  &kRestoreCommand,  &kForgottenCommand, &kMcpCommand,      &kServiceCommand};

}  // namespace

std::span<const Command* const> Commands() { return kCommands; }

}  // namespace origin::client
