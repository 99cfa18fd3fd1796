// SPDX-License-Identifier: MIT
#pragma once
// A real originsd on a temporary $ORIGIN_HOME with fake agent homes, and the
// real origin CLI, both from the build ($ORIGINSD, $ORIGIN).  Start() waits
// for the daemon to answer (at most 10 s) and fails early if it exits; Stop()
// sends SIGTERM and requires exit status 0; the log is printed on failure.

#include <rapidjson/document.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/support.hpp"

namespace origin::test {

struct RunResult {
  int status = -1;  // exit code, or 128 + signal
  std::string out, err;
};

/// A Unix stream socket connected to `path` (or bound to it, when `bind`);
/// -1 when that fails.
int UnixSocket(const std::string& path, bool bind = false);

/// Runs `argv` with `env` (added to a minimal environment), feeding no stdin;
/// killed (SIGKILL, status 137) when it runs longer than `timeout_s` (> 0).
RunResult Run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
              uid_t uid = 0, double timeout_s = 0);
/// Runs `argv` with `env` on a pseudo-terminal (forkpty: stdin, stdout and
/// stderr a terminal, as a person runs it); `out` holds all the terminal
/// received, stdout and stderr together, with the terminal's \r\n for \n.
/// The terminal is `columns` wide and 50 lines high.
RunResult RunInTerminal(const std::vector<std::string>& argv,
                        const std::map<std::string, std::string>& env,
                        unsigned short columns = 200);

/// A Claude Code user line of session `session` (2026-01-05T10:00Z), with its newline.
std::string ClaudeLine(const std::string& uuid, const std::string& text,
                       const std::string& session = "s1");
/// The store's mirrors at `home`, by mirror name, each as its database
/// records it, read through the mirror module of that store.
std::map<std::string, std::string> MirrorContents(const std::string& home);
/// `s` parsed; REQUIREs that it is JSON.
rapidjson::Document Json(const std::string& s);

/// A tmpfs of `size` (e.g. "16m") mounted on `dir` (created 0700) for the
/// life of the object: the store's own small filesystem, to fill up.
/// Mounting needs root (CAP_SYS_ADMIN): `mounted()` says whether it worked.
class ScopedTmpfs {
 public:
  ScopedTmpfs(const std::string& dir, const std::string& size);
  ~ScopedTmpfs();
  ScopedTmpfs(const ScopedTmpfs&) = delete;
  ScopedTmpfs& operator=(const ScopedTmpfs&) = delete;
  bool mounted() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

class DaemonFixture;
/// Checks that the daemon's store holds what an uninterrupted import of the
/// same logs gives (invariants 1 and 3): the same events (count and every
/// field, by id), no broken mirror, one generation per file, and every
/// mirror equal to its file's complete lines.  Returns the files checked.
int CheckAsUninterrupted(const DaemonFixture& f);

class DaemonFixture {
 public:
  /// `base`: see ScopedTempDir.
  explicit DaemonFixture(const std::string& base = "");
  ~DaemonFixture();
  std::string home() const { return dir_ / "home"; }
  std::string claude() const { return dir_ / "claude"; }
  std::string codex() const { return dir_ / "codex"; }
  std::string zcode() const { return dir_ / "zcode"; }          // not created
  std::string grok() const { return dir_ / "grok"; }            // not created
  std::string cursor() const { return dir_ / "user/.cursor"; }  // ~/.cursor, not created
  std::string log() const { return dir_ / "originsd.log"; }
  const ScopedTempDir& dir() const { return dir_; }
  std::map<std::string, std::string>& env() { return env_; }

  /// Starts originsd; REQUIREs that it answers within 10 s.
  void Start(const std::vector<std::string>& extra = {});
  /// Starts originsd and returns its result without waiting for readiness
  /// (killed after 30 s: a daemon that should have been refused runs on).
  RunResult StartExpectingFailure(const std::vector<std::string>& extra = {});
  /// SIGTERM, then requires exit status 0.
  void Stop();
  /// SIGKILL, no questions asked.
  void Kill();
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  /// Runs the origin CLI (ORIGIN_NO_AUTOSTART=1 unless env says otherwise).
  RunResult Cli(const std::vector<std::string>& args,
                const std::map<std::string, std::string>& extra_env = {});
  /// The same on a pseudo-terminal (RunInTerminal); PAGER=cat unless
  /// `extra_env` says otherwise.
  RunResult CliInTerminal(const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& extra_env = {},
                          unsigned short columns = 200);
  /// Waits at most `seconds` for the daemon to exit by itself; its exit
  /// status, or nothing when it still runs.
  std::optional<int> WaitForExit(double seconds);
  /// `origin status --json`, parsed: total events, and per source.
  std::int64_t Events(const std::string& source = "");
  /// Polls until `pred` is true, at most `seconds`.
  bool WaitFor(const std::function<bool()>& pred, double seconds = 10);
  void DumpLog();
  /// Run the daemon as this user (an ordinary user when the tests run as root).
  uid_t run_as = 0;

 private:
  ScopedTempDir dir_;
  std::map<std::string, std::string> env_;
  pid_t pid_ = -1;
};

}  // namespace origin::test
