// SPDX-License-Identifier: MIT
#pragma once
// What the setting-up commands ask of this machine: an environment variable,
// a program on PATH, running a program (no shell) and collecting what it
// printed, and a command line quoted for people to copy into a shell.

#include <string>
#include <vector>

namespace origin::client {

/// Whether process `pid` runs: it exists and is not a zombie (a child that
/// exited and that its parent has not reaped yet).
bool ProcessRuns(int pid);

/// $name when it is set and not empty, else `dflt`.
std::string EnvOr(const char* name, const std::string& dflt);

/// The program `name` on PATH, or "".
std::string OnPath(const std::string& name);

struct RunOutput {
  int status = -1;     // exit code, or -1 when it could not run or was killed
  std::string output;  // stdout and stderr
};

/// Runs argv (no shell; stdin is /dev/null) and collects what it printed.
RunOutput RunProgram(const std::vector<std::string>& argv);

/// argv as a shell would need it: words quoted only when they must be.
std::string Quoted(const std::vector<std::string>& argv);

}  // namespace origin::client
