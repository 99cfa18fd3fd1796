// SPDX-License-Identifier: MIT
#pragma once
// A child process spoken to over its stdin and stdout, one line at a time,
// as an agent speaks to an MCP server on stdio: the MCP tests and the MCP
// benchmark launch origin-mcp (and the Node.js reference) this way.

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace origin::test {

class StdioProcess {
 public:
  /// Starts argv[0] (a path) with exactly `env` (NAME=value); stderr goes
  /// to /dev/null unless `keep_stderr`.  Throws std::runtime_error.
  StdioProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
               bool keep_stderr = true);
  /// Kills it (SIGKILL) if it still runs.
  ~StdioProcess();
  StdioProcess(const StdioProcess&) = delete;
  StdioProcess& operator=(const StdioProcess&) = delete;

  /// Writes `line` and a newline to its stdin; false when it is gone.
  bool WriteLine(const std::string& line);
  /// The next line of its stdout, without the newline, waiting at most
  /// `timeout_ms`; nothing on timeout or when stdout closed.
  std::optional<std::string> ReadLine(int timeout_ms);
  /// Closes its stdin and waits for it; returns the exit status (128 +
  /// signal when killed).  What it wrote meanwhile stays readable.
  int CloseAndWait();
  /// The lines it wrote after the last ReadLine, up to its end of stdout.
  std::vector<std::string> RestOfOutput();
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string pending_;
};

}  // namespace origin::test
