// SPDX-License-Identifier: MIT
#pragma once
// Whether an MCP server registered with an agent answers: the command is
// run as the agent runs it (its arguments, its environment added to ours),
// sent an MCP initialize on stdin, and given `timeout_ms` to answer it on
// stdout.  Then its stdin is closed (an MCP server exits at the end of its
// input) and it is given 5 s to exit before it is killed.  Used by
// `origin mcp status` and `origin doctor`.

#include <map>
#include <string>
#include <vector>

namespace origin::client {

struct ProbeResult {
  bool answered = false;
  std::string server;  // serverInfo "name version", when it answered
  std::string protocol;
  std::string problem;  // why it did not answer (with the end of its stderr)
  long long ms = 0;     // until the answer, or the failure
};

ProbeResult ProbeMcpServer(const std::string& command, const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& env, int timeout_ms);

}  // namespace origin::client
