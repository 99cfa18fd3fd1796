// SPDX-License-Identifier: MIT
#pragma once
// When each source is synced (loop thread only).  A sync of one source runs
// on the writer; the scheduler decides when: the first sync of every source
// at the start, a sync `debounce_ms` after the watcher saw a change (many
// events in a burst make one sync), and a rescan of every source each
// `rescan_ms` that catches what the events missed.  A change seen while the
// source's sync runs makes one more sync after it, never two at once.  A
// sync the store refused (a full disk, an I/O error: its step was rolled
// back) is retried after `retry_ms`, then twice as long each time it fails
// again, at most `rescan_ms` apart, until one goes through: ingestion
// resumes by itself once space returns.  A change seen meanwhile syncs at
// once as ever; a retry due does not hold up WhenSynced.
//
// Requests wait on it: AfterFirstSync (queries answer from the logs as they
// are, for at most a bound after a start) and WhenSynced (what the watcher
// marked changed is in).  It knows nothing of libuv or SQLite: it takes
// timers (LoopTimers, or the tests' fake ones) and the function that runs a
// sync, so that its unit tests drive it with a fake clock.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "daemon/thread_check.hpp"
#include "daemon/timers.hpp"

namespace origin {

class SyncScheduler {
 public:
  /// `retry`: the store refused a write, the sync is to be taken again.
  using Done = std::function<void(bool retry)>;
  /// Runs one sync of `source` for `reason` ("start", "watch", "rescan",
  /// "retry"); `done` must be called once, on the loop thread, when it ended.
  using RunSync = std::function<void(std::size_t source, const std::string& reason, Done done)>;
  struct Options {
    int debounce_ms = 30;
    int rescan_ms = 60000;
    int retry_ms = 1000;  // the first retry of a sync the store refused
  };

  SyncScheduler(Timers& timers, const ThreadRole& loop_thread, std::size_t sources, Options opts,
                RunSync run);
  SyncScheduler(const SyncScheduler&) = delete;
  SyncScheduler& operator=(const SyncScheduler&) = delete;

  /// The first sync of every source, and the rescans from then on.
  void Start();
  /// No sync starts any more; whoever waits on the scheduler runs now.
  void Stop();
  /// Something of `source` changed: a sync after the debounce.
  void Changed(std::size_t source);
  /// The store refused a write in a sync of `source` that the scheduler did
  /// not run (a request's, a live file's): retried as its own would be.
  void RetryLater(std::size_t source);

  /// `fn` once every source's first sync ended, or after `wait_ms`,
  /// whichever comes first; at once when they ended already.
  void AfterFirstSync(int wait_ms, std::function<void()> fn);
  bool FirstSyncDone() const { return first_left_ == 0; }
  bool SyncedOnce(std::size_t source) const { return sources_[source].synced_once; }
  /// `fn` once no sync is due or running, or after `wait_ms` anyway.
  void WhenSynced(int wait_ms, std::function<void()> fn);
  /// No sync due, pending or running.
  bool Idle() const;
  /// A sync runs: the writer is busy with it.
  bool Running() const;
  /// The delay of the retry of `source` that is due, 0 when none is.
  int RetryDelayMs(std::size_t source) const;

 private:
  struct Source {
    Timers::Id timer = 0;
    bool running = false;
    bool pending = false;  // a change seen while it ran
    bool synced_once = false;
    std::string reason = "watch";  // of the sync due
    int backoff_ms = 0;            // the last retry's delay; 0: the last sync went through
    bool retry_due = false;        // `timer` is a retry
  };
  void Schedule(std::size_t source, int delay_ms, const char* reason);
  void Run(std::size_t source);
  void Ended(std::size_t source, bool retry);
  /// The next retry's delay: doubling from retry_ms, at most a rescan.
  int Backoff(Source& s) const;
  void Rescan();

  Timers& timers_;
  const ThreadRole& thread_;
  Options opts_;
  RunSync run_;
  std::vector<Source> sources_;
  std::size_t first_left_;
  bool stopped_ = false;
  Timers::Id rescan_ = 0;
  std::vector<std::function<void()>> after_first_sync_;
  std::vector<std::function<void()>> when_synced_;
};

}  // namespace origin
