// SPDX-License-Identifier: MIT
#pragma once
// Where a store and its daemon live, computed the same way by originsd and
// every client: $ORIGIN_HOME (default ~/.origin), its run/ directory, the
// lock, and the socket.  A socket path must fit in sockaddr_un (about 100
// bytes): when $ORIGIN_HOME/run/originsd.sock would not, the socket goes to
// $XDG_RUNTIME_DIR (or /tmp/origin-<uid>) under a name derived from the home.

#include <string>

namespace origin::proto {

struct Paths {
  std::string home;    // $ORIGIN_HOME
  std::string run;     // home/run
  std::string lock;    // run/originsd.lock
  std::string socket;  // run/originsd.sock, or the short fallback
  std::string db;      // home/origin.db
  std::string index;   // home/index.db (event_fts, derived)
  std::string raw;     // home/raw
};

/// `home_override` wins over $ORIGIN_HOME; throws std::runtime_error when no
/// home can be found (neither $ORIGIN_HOME nor $HOME).
Paths ResolvePaths(const std::string& home_override = "");

/// $HOME (the agents' roots default to it).
std::string UserHome();

}  // namespace origin::proto
