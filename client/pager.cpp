// SPDX-License-Identifier: MIT
#include "client/pager.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "client/host.hpp"

namespace origin::client {

namespace {
pid_t pager_pid = -1;
}  // namespace

bool StartPager() {
  if (pager_pid > 0 || ::isatty(1) == 0) return false;
  // The first of these that is set, even to nothing (no pager then).
  const char* env = std::getenv("ORIGIN_PAGER");
  if (env == nullptr) env = std::getenv("PAGER");
  // The default only where less is installed (else the output would go
  // to a pager that cannot start).
  if (env == nullptr && OnPath("less").empty()) return false;
  const std::string pager = env == nullptr ? "less -FRX" : env;
  if (pager.find_first_not_of(" \t") == std::string::npos || pager == "cat") return false;
  int fds[2];
  if (::pipe(fds) != 0) return false;
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  if (pid == 0) {
    ::dup2(fds[0], 0);
    ::close(fds[0]);
    ::close(fds[1]);
    ::setenv("LESS", "FRX", 0);
    ::setenv("LV", "-c", 0);
    ::execl("/bin/sh", "sh", "-c", pager.c_str(), static_cast<char*>(nullptr));
    std::fprintf(stderr, "origin: cannot run the pager %s\n", pager.c_str());
    ::_exit(127);
  }
  ::dup2(fds[1], 1);
  ::close(fds[0]);
  ::close(fds[1]);
  // A pager quit before the end (q in less) closes the pipe: the rest of
  // the output is dropped instead of killing origin with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  pager_pid = pid;
  return true;
}

void FinishPager() {
  if (pager_pid <= 0) return;
  std::fflush(stdout);
  ::close(1);
  int status = 0;
  while (::waitpid(pager_pid, &status, 0) < 0 && errno == EINTR) {
  }
  pager_pid = -1;
}

}  // namespace origin::client
