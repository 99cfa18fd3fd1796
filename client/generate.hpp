// SPDX-License-Identifier: MIT
#pragma once
// Shell completion (bash, zsh, fish) and the manual page origin(1), made
// from the CLI's command table (command_table.hpp) so that they list
// exactly the commands and options the parser takes.  The build runs the
// hidden `origin __generate completion bash|zsh|fish` and
// `origin __generate man` (client/generated/meson.build) and installs what
// they print.

#include <string>
#include <vector>

namespace origin::client {

std::string BashCompletion();
std::string ZshCompletion();
std::string FishCompletion();
std::string ManPage();

/// `origin __generate completion bash|zsh|fish`, `origin __generate man` or
/// `origin __generate systemd-unit DAEMON` (service_units.hpp): prints it; 2
/// on any other arguments.
int GenerateCommand(const std::vector<std::string>& args);

}  // namespace origin::client
