// SPDX-License-Identifier: MIT
#pragma once
// The thread that keeps the search indexes of index.db (core/store/
// event_index.hpp) up with the store and healthy.  The writer calls Notify()
// after each transaction that added events, and the indexer catches up in
// transactions of its own, on the second core; once no event has come for
// a second it merges the indexes' segments a step at a time.
//
// Health: at start (a minute after it when the index is large:
// StartCheckDelay), every kCheckEvery after, and whenever a search reports
// a damaged index (Suspect), it runs FTS5's integrity-check of every table;
// a failed check, or a "malformed" met while indexing, makes it empty the
// indexes and build them again from the events, in the background, while
// searches read the events directly (core/query/search.hpp).  Health() says
// where it is, for `origin status`; every finding is logged.
//
// Stop() interrupts a check in progress and lets an indexing transaction
// finish.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/store/event_index.hpp"

namespace origin {

class Indexer {
 public:
  /// Pages of work per merge step (FTS5 'merge', always positive).
  static constexpr int kMergePages = 64;
  /// Segments are merged once no event has come for this long.
  static constexpr std::chrono::seconds kQuietBeforeMerge{1};
  static constexpr std::chrono::hours kCheckEvery{6};
  /// A rebuild is not started again sooner than this after the last one,
  /// and a search's report of damage is not checked again sooner than this
  /// after a check that passed.
  static constexpr std::chrono::minutes kRebuildAgainAfter{10};
  /// An index.db of at least this many bytes is checked kLargeCheckDelay
  /// after the start rather than at once: the check reads all of it (4.6 s
  /// of a core at 2M events, docs/performance.md), and the first searches
  /// after a start, when a person or an agent is waiting, took three times
  /// as long beside it.  A search that meets damage meanwhile still has it
  /// checked at once (Suspect).
  static constexpr std::int64_t kLargeIndexBytes = std::int64_t{64} << 20;
  static constexpr std::chrono::seconds kLargeCheckDelay{60};
  /// When the check at start runs, after the start, for an index.db of
  /// `index_bytes` bytes.
  static std::chrono::milliseconds StartCheckDelay(std::int64_t index_bytes) {
    return index_bytes >= kLargeIndexBytes ? kLargeCheckDelay : std::chrono::milliseconds{0};
  }

  struct Health {
    /// "checking" (until the first catch-up, before any finding), "ok",
    /// "rebuilding" (from the events, after damage was found), "failing"
    /// (the index cannot be written: see problem; retried).
    std::string state = "checking";
    std::string problem;           // the last damage or failure found, "" if none yet
    std::int64_t problem_at_ms = 0;  // when (ms UTC)
    std::int64_t rebuilds = 0;     // since the daemon started
    std::int64_t checked_at_ms = 0;  // the last integrity-check that completed
    /// Caught up, and nothing left to merge: the indexer writes nothing
    /// until events arrive.
    bool merged = false;
  };

  /// Takes an opened index; starts the thread, which catches up at once and
  /// checks the index `check_after` from now.  `now_ms`: the wall clock,
  /// for Health's times.
  Indexer(std::unique_ptr<EventIndex> index, std::function<std::int64_t()> now_ms,
          std::chrono::milliseconds check_after = {});
  ~Indexer() { Stop(); }
  Indexer(const Indexer&) = delete;
  Indexer& operator=(const Indexer&) = delete;
  /// Thread-safe: new events were committed.
  void Notify();
  /// Thread-safe: a search met damage (`what`): check the index now.
  void Suspect(const std::string& what);
  /// Thread-safe, blocking: erases the events `seqs` from the indexes
  /// (EventIndex::EraseEvents) on the indexer's thread, between two of its
  /// transactions, so that no batch read before the erasure writes their
  /// text after it.  Rethrows what it threw; throws when the indexer stops
  /// first.
  void EraseEvents(const std::vector<std::int64_t>& seqs);
  /// Thread-safe.
  Health GetHealth() const;
  void Stop();

 private:
  void Run();
  void RunJobs();  // indexer thread
  /// Something for the thread to do or to stop for (mu_ held).
  bool WorkWaiting() const { return pending_ || check_ || stopping_ || !jobs_.empty(); }
  using Clock = std::chrono::steady_clock;
  /// Runs the check and rebuilds on damage (indexer thread); whether it
  /// rebuilt.
  bool CheckNow(const std::string& why);
  /// Rebuilds, unless the last rebuild was less than kRebuildAgainAfter
  /// ago (then "failing", and a check then); whether it rebuilt.
  bool Damaged(const std::string& what);
  void SetState(const char* state);
  void Problem(const std::string& what);

  std::unique_ptr<EventIndex> index_;
  std::function<std::int64_t()> now_ms_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool pending_ = true;
  bool check_ = true;  // a check is due
  std::chrono::milliseconds check_after_;  // the check at start, after the start
  std::string suspicion_;
  std::atomic<bool> stopping_{false};
  Health health_;
  std::deque<std::packaged_task<void()>> jobs_;  // EraseEvents, run by the thread
  std::atomic<bool> jobs_waiting_{false};
  // Indexer thread only:
  Clock::time_point next_check_;
  std::optional<Clock::time_point> last_rebuild_, last_check_passed_;
  std::thread thread_;
};

}  // namespace origin
