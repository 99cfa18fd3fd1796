// SPDX-License-Identifier: MIT
#pragma once

#include <rapidjson/document.h>
// What the benchmark programs share: wall time, running a command, a real
// originsd on a home of its own, its memory, and the store's size by table.

#include <sys/types.h>

#include <charconv>
#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/support/loggen.hpp"

namespace origin::bench {

/// A benchmark's command line: each option with where its value goes.
/// Parse refuses an option it does not know, one without its value and a
/// number that is not one, saying which and printing the usage made from
/// the options (a benchmark that ignored a mistyped option would measure
/// something else than asked, and say nothing).
class Options {
 public:
  explicit Options(std::string program) : program_(std::move(program)) {}
  /// `--name VALUE` into `*value`, shown as `--name <meta>` in the usage.
  Options& Add(const std::string& name, std::string* value, const std::string& meta = "S");
  template <std::integral T>
  Options& Add(const std::string& name, T* value, const std::string& meta = "N") {
    return Value(name, meta, [value](const std::string& v) {
      const char* end = v.data() + v.size();
      auto [p, ec] = std::from_chars(v.data(), end, *value);
      return ec == std::errc() && p == end;
    });
  }
  /// `--name` alone sets `*value`.
  Options& Flag(const std::string& name, bool* value);
  /// Parses argv; false when the program should exit with status 2 (what
  /// was wrong and the usage printed on stderr).  --help prints the usage
  /// and exits.
  bool Parse(int argc, char** argv) const;
  std::string Usage() const;

 private:
  struct Option {
    std::string name, meta;
    std::function<bool(const std::string&)> set;  // nullptr for a flag
    bool* flag = nullptr;
  };
  Options& Value(const std::string& name, const std::string& meta,
                 std::function<bool(const std::string&)> set);
  std::string program_;
  std::vector<Option> options_;
};

/// Seconds on the monotonic clock.
double Now();
/// Runs a shell command; returns its standard output.
std::string Capture(const std::string& cmd);
/// Runs argv (no shell) with this environment plus `env` (NAME=value), stdout
/// into `out` (when not null) and stderr to /dev/null; returns the wall time
/// in ms from the spawn to the exit.
double TimeProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
                   std::string* out = nullptr);
/// `json` parsed, or exits saying what it was: a benchmark of wrong answers
/// is no benchmark.
rapidjson::Document ParseObject(const std::string& json);
class Daemon;
/// The port the hub logs at `log` once it listens (polled until it does);
/// exits saying so when the hub exits first.
int WaitHubPort(const std::string& log, Daemon& hub);
/// Peak and current resident memory of a process, in KiB (VmHWM, VmRSS).
std::int64_t PeakRssKb(pid_t pid);
std::int64_t RssKb(pid_t pid);
/// The CPU time `pid` has used (user and system, all its threads), -1 when
/// it cannot be read.
double CpuSeconds(pid_t pid);
/// The p-th percentile (0..100, nearest rank) and the median.
double Percentile(std::vector<double> v, double p);
inline double Median(std::vector<double> v) { return Percentile(std::move(v), 50); }

/// A real originsd in the foreground on `home`, reading the given agent
/// roots, with its socket up.  Stopped with SIGTERM on destruction.  `env`
/// (NAME=value) is added for the daemon and the CLI, `args` for the daemon.
class Daemon {
 public:
  Daemon(const std::string& originsd, const std::string& origin, const std::string& home,
         const std::string& claude, const std::string& codex, const std::string& log,
         const std::vector<std::string>& env = {}, const std::vector<std::string>& args = {});
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;
  pid_t pid() const { return pid_; }
  /// "ORIGIN_HOME=... CLAUDE_CONFIG_DIR=... origin ", for Capture.
  const std::string& cli() const { return cli_; }
  /// Environment assignments for the CLI, for TimeProcess.
  const std::vector<std::string>& env() const { return env_; }
  /// Waits until `origin sync` returned and the search index caught up;
  /// returns the last `origin status --json`.
  std::string SyncAndIndex();
  /// Waits until the search index caught up with every event stored;
  /// returns the last `origin status --json`.
  std::string WaitIndexed();
  /// Waits until the daemon has used no CPU for a second (the background
  /// merges of the search indexes after an import are done); returns the
  /// seconds waited.
  double WaitIdle();
  /// Exits the benchmark (status 1, every daemon stopped) when this daemon
  /// has exited, saying so with `when`.
  void ExitIfGone(const char* when);

 private:
  pid_t pid_ = -1;
  std::string log_;
  std::string cli_;
  std::vector<std::string> env_;
};

/// The logs under `dir` (claude/ and codex/): generated there first, `mb`
/// MiB of the corpus `kind` (tests/support/loggen, seed 7), when claude/
/// is not there yet.  Exits with status 2 for an unknown kind.
std::vector<test::CorpusFile> CorpusIn(const std::string& dir, std::int64_t mb,
                                       const std::string& kind);

/// The same with about `events` events (seed 11), whose sessions start an
/// hour apart and end now (search_bench, hub_mcp_bench).
std::vector<test::CorpusFile> EventCorpusIn(const std::string& dir, std::int64_t events,
                                            const std::string& kind);
/// The size of origin.db and index.db under `home`, and dbstat's bytes by
/// table (FTS5 shadow tables folded into their table).
std::int64_t StoreBytes(const std::string& home, std::map<std::string, std::int64_t>* tables);

}  // namespace origin::bench
