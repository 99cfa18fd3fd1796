// SPDX-License-Identifier: MIT
#pragma once
// How every command reports a failure: "origin: MESSAGE" on stderr, or,
// under --json, {"error":{"code":CODE,"message":MESSAGE}} on stderr.  CODE
// is the daemon's, or "usage" for a command line origin refused.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/command_table.hpp"

namespace origin::client {

/// Prints the failure; `multiline` keeps the message's line breaks.
void PrintFailure(bool json, std::string_view code, const std::string& message,
                  bool multiline = false);

/// Prints it and returns the exit code of `code` (proto::ExitCodeFor:
/// invalid_argument 2, unavailable 3, not_found 4, anything else 1).
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
