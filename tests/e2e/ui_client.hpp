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
  struct Options {
    std::map<std::string, std::string> env;  // set on top of the fixture's
    bool sigint_pending = false;  // started with SIGINT blocked, and sent one at once
  };
  UiProcess(DaemonFixture& f, const std::vector<std::string>& args, const Options& o);
  UiProcess(DaemonFixture& f, const std::vector<std::string>& args) : UiProcess(f, args, Options{}) {}
  ~UiProcess();
  UiProcess(const UiProcess&) = delete;
  UiProcess& operator=(const UiProcess&) = delete;
  /// Waits (at most 10 s) for the next sign-in link it prints, and the line
  /// after it (the redirect file); "" when none came.
  std::string NextLink();
  /// Presses Enter and returns the new link.
  std::string NewLink();
  /// SIGINT, and its exit status (128 + signal when killed by one).
  int Stop();
  /// Waits at most 10 s for it to exit by itself; its status, or -1.
  int Wait();
  const std::string& out() const { return out_; }
  pid_t pid() const { return pid_; }
  int port() const { return port_; }

 private:
  bool Read(int timeout_ms);
  pid_t pid_ = -1;
  int term_ = -1;
  std::string out_;
  std::size_t seen_ = 0;  // where the next link is looked for
  int port_ = 0;
};

/// A signed-in browser: its cookie and the CSRF token its pages carry.
struct UiSession {
  std::string link;  // the link it signed in with
  int port = 0;
  std::string cookie;  // "origin-ui=..."
  std::string csrf;
  /// The headers of a JSON API call with this session and `csrf_token`.
  std::map<std::string, std::string> Post(const std::string& csrf_token) const;
  /// The headers of a form's POST with this session.
  std::map<std::string, std::string> Form() const;
};
/// Signs in with the printed `link` (checking the cookie's attributes).
UiSession UiSignIn(const std::string& link, int port);
/// Signs in with the next link `ui` prints.
UiSession UiSignIn(UiProcess& ui);
/// The link's path and query (/admin/signin?secret=...).
std::string LinkPath(const std::string& link);

}  // namespace origin::test
