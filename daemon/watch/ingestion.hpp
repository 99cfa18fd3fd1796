// SPDX-License-Identifier: MIT
#pragma once
// The syncs themselves: what runs on the writer thread when the scheduler,
// a request or a live file asks for one, and what they found.
//
// A sync reads a source's changed files oldest first, one source after
// another; while one runs (an import of many logs), a line appended to a
// session still going on would wait for all of it.  So the files the
// watcher names while a sync keeps the writer busy are read by an urgent
// job (live files), between the sync's transactions, at most
// kLiveTransactions of them; the sync itself still follows.  Only files the
// last discovery found and that changed within kLiveFileAgeMs: a new file,
// or a stream generated from a database, waits for the sync.
//
// Threads: members marked "loop" run on the loop thread, "writer" on the
// writer; the totals, the import's progress and the health book are read
// from any thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/ingest/adapter.hpp"
#include "core/ingest/ingester.hpp"
#include "core/store/mirror.hpp"
#include "core/util/clock.hpp"
#include "daemon/indexer.hpp"
#include "daemon/source_health.hpp"
#include "daemon/thread_check.hpp"
#include "daemon/timers.hpp"
#include "daemon/uv.hpp"
#include "daemon/workers.hpp"

namespace origin {

/// How a sync asked for by a request ended: done (with what it read), cut
/// short by a shutdown, or refused by the store.
struct SyncOutcome {
  enum class End { kDone, kCancelled, kFailed } end = End::kDone;
  SyncReport report;
  std::string failure;
};

/// What the last discovery of a source found (for status).
struct SourceFound {
  bool looked = false;  // a discovery of it ran since the start
  bool root_exists = false;
  std::vector<DiscoveryProblem> problems;
};

/// Everything ingested since the start, added up.
struct IngestTotals {
  std::int64_t files = 0, lines = 0, bytes = 0, events = 0;
};

class Ingestion {
 public:
  /// `discovered(source, dirs)`: a discovery walked `dirs` (loop thread).
  using Discovered = std::function<void(std::size_t source, const std::vector<std::string>& dirs)>;
  Ingestion(const std::vector<std::unique_ptr<SourceAdapter>>& adapters, MirrorStore& mirrors,
            const Clock& clock, const ThreadRole& loop_thread, int live_delay_ms,
            Discovered discovered);
  Ingestion(const Ingestion&) = delete;
  Ingestion& operator=(const Ingestion&) = delete;

  /// The threads it posts to, once they run (Daemon::Start).
  void Attach(DbWorkers* writer, Indexer* indexer, LoopPoster* poster, Timers* timers);
  /// `retry(source)` on the loop when the store refused a write in a sync
  /// that SyncSource did not run (a request's, a live file's).
  void OnStoreFault(std::function<void(std::size_t source)> retry) { retry_ = std::move(retry); }
  /// `grew()` on the loop after each sync that mirrored new lines (a
  /// connected device sends them to its hub).  Set before Attach.
  void OnGrew(std::function<void()> grew) { grew_ = std::move(grew); }
  /// `*relay` true: this store is a relay (core/hub/relay.hpp), which
  /// ingests nothing.  Its syncs only discover the files, so that the
  /// watcher watches their directories, and call `grew` on the loop (the
  /// hub gets the new lines, daemon/hub/relay.hpp).  Set before Attach.
  void SetRelay(const std::atomic<bool>* relay) { relay_ = relay; }

  /// loop: one sync of `source` (the scheduler's); `done` on the loop,
  /// true when the store refused a write (the sync is to be retried).
  void SyncSource(std::size_t source, const std::string& reason, std::function<void(bool)> done);
  /// loop: a sync of `which` (indexes into the adapters; empty: all) for a
  /// request; `progress` (files_done, files_total, bytes_done, bytes_total
  /// as JSON members) runs on the writer; `done` on the loop.
  void SyncNow(std::vector<std::size_t> which,
               std::function<void(const SyncProgress&)> progress,
               std::function<void(SyncOutcome)> done);
  /// loop: ingests what changed in every source, then `then` on the loop;
  /// after at most `wait_ms`, `then` runs anyway and the sync goes on.
  void Freshen(int wait_ms, std::function<void()> then);
  /// loop: the watcher named `path` of `source`; read at once when a sync
  /// keeps the writer busy (`busy`) and it is a live file.
  void Live(std::size_t source, std::string path, bool busy);
  /// Syncs end at their next transaction, and none starts (shutdown).
  void Cancel() { cancelled_ = true; }

  /// loop: what the last discovery of each source found.
  const std::vector<SourceFound>& found() const { return found_; }
  /// any thread.
  IngestTotals Totals() const;
  const SourceHealthBook& health() const { return health_; }
  /// "" once the first sync of every source is done; else how far the
  /// import is (any thread), for the notice beside an answer.
  std::string ImportNote() const;

  static constexpr int kLiveTransactions = 4;
  static constexpr std::int64_t kLiveFileAgeMs = 7LL * 24 * 3600 * 1000;
  static constexpr std::size_t kMaxLivePaths = 1000;

 private:
  SyncOptions WriterSync(Db& db, const std::string& reason);               // writer
  void PostDiscovery(std::size_t source, const Discovery& d);              // writer
  void KnowFiles(std::size_t source, const Discovery& d);                  // writer
  void LiveSync(Db& db, const std::vector<std::set<std::string>>& paths);  // writer
  void Note(const SyncReport& r, bool partial = false);                    // writer
  void RetryRefused(const SyncReport& r);                                  // writer
  void Failed(const std::vector<const SourceAdapter*>& which, const std::exception& e);
  std::size_t IndexOf(const SourceAdapter& a) const;
  bool Relay() const { return relay_ != nullptr && relay_->load(); }

  const std::vector<std::unique_ptr<SourceAdapter>>& adapters_;
  MirrorStore& mirrors_;
  const Clock& clock_;
  const ThreadRole& loop_thread_;
  int live_delay_ms_;  // the watcher's debounce: a burst of events, one live job
  Discovered discovered_;
  std::function<void(std::size_t)> retry_;  // loop
  std::function<void()> grew_;              // loop
  const std::atomic<bool>* relay_ = nullptr;
  DbWorkers* writer_ = nullptr;
  Indexer* indexer_ = nullptr;
  LoopPoster* poster_ = nullptr;
  Timers* timers_ = nullptr;
  std::atomic<bool> cancelled_{false};

  std::vector<SourceFound> found_;                          // loop
  std::vector<std::set<std::string>> live_paths_;           // loop, by source
  bool live_armed_ = false;                                 // loop
  std::vector<std::map<std::string, SourceFile>> known_;    // writer, by source
  std::vector<bool> refused_;  // writer, by source: its last sync met a store fault

  struct ImportProgress {
    std::atomic<std::int64_t> files_done{0}, files_total{0}, bytes_done{0}, bytes_total{0};
    std::atomic<bool> done{false};
  };
  std::unique_ptr<ImportProgress[]> import_;  // by source
  struct {
    std::atomic<std::int64_t> files{0}, lines{0}, bytes{0}, events{0};
  } totals_;
  SourceHealthBook health_;
};

}  // namespace origin
