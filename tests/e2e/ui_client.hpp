// SPDX-License-Identifier: MIT
#pragma once
// What the web UI's end-to-end tests drive: a real `origin ui` on a
// pseudo-terminal (forkpty: its standard input is a terminal, so Enter asks
// for a new link), and raw HTTP/1.1 over real TCP to 127.0.0.1, so that
// each refusal is sent exactly as a hostile or broken client would.

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/http_client.hpp"

namespace origin::test {

class DaemonFixture;

/// `origin ui ARGS` on a pseudo-terminal, with the fixture's environment.
class UiProcess {
 public:
  UiProcess(DaemonFixture& f, const std::vector<std::string>& args);
  ~UiProcess();
  UiProcess(const UiProcess&) = delete;
  UiProcess& operator=(const UiProcess&) = delete;
  /// Waits (at most 10 s) for the next sign-in link it prints; "" when none came.
  std::string NextLink();
  /// Presses Enter and returns the new link.
  std::string NewLink();
  /// SIGINT, and its exit status (128 + signal when killed by one).
  int Stop();
  /// Waits at most 10 s for it to exit by itself; its status, or -1.
  int Wait();
  const std::string& out() const { return out_; }
  int port() const { return port_; }

 private:
  bool Read(int timeout_ms);
  pid_t pid_ = -1;
  int term_ = -1;
  std::string out_;
  std::size_t seen_ = 0;  // where the next link is looked for
  int port_ = 0;
};

}  // namespace origin::test
