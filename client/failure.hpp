// SPDX-License-Identifier: MIT
#pragma once
// How the setting-up commands (mcp, service, doctor, export) report a
// failure: "origin: MESSAGE" on stderr, or, under --json,
// {"error":{"code":CODE,"message":MESSAGE}} on stderr, with the exit code
// of CODE (proto::ExitCodeFor: invalid_argument 2, unavailable 3,
// not_found 4, anything else 1).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/command_table.hpp"

namespace origin::client {

int Failure(bool json, std::string_view code, const std::string& message);

/// Whether `--json` is among `args` before any `--`.
bool WantsJson(const std::vector<std::string>& args);

/// For the commands that run themselves (Command::run): parses `words` by
/// the table into `*inv`, then `check` (which may throw UsageError).  On
/// --help, prints the command's help and returns 0; on a usage error,
/// prints it (as JSON under --json, else with the usage line) and returns
/// 2; nothing when `*inv` is ready.
std::optional<int> ParseOwn(const Command& cmd, const std::vector<std::string>& words,
                            Invocation* inv,
                            const std::function<void(const Invocation&)>& check = {});

}  // namespace origin::client
