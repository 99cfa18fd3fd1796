// SPDX-License-Identifier: MIT
#pragma once
// A device's sync with its hub (spec: Personal hub, Replication), on a
// thread of its own (the hub thread): libcurl waits there, never on the
// loop, and the store is read and written through the daemon's readers and
// writer, as every operation does.  A sync has three steps, in order:
//   1. raw mirrors up: the hub's cursors (GET /v1/cursors), then each of
//      this store's own mirrors from there, in chunks of whole lines of at
//      most 1 MiB (or one longer line), zstd-encoded (gzip for a hub that
//      takes no zstd); a 409 resumes from the cursor it names;
//   2. entries and tombstones up: this store's own, in change_log's order
//      after the push cursor; an entry whose events the hub lacks stops
//      the cursor before it (later entries wait) while tombstones still go;
//   3. tombstones down: the hub's feed after the pull cursor, applied with
//      what each covers on the hub (core/forget/replica.hpp).
// Cursors are kept in `setting` per hub URL and saved after every request
// that moves them, so an interrupted sync resumes and a second one sends
// nothing.  How the last sync ended is kept there too (`origin status`,
// `origin hub status`).

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/c/sqlite.hpp"
#include "daemon/hub/backoff.hpp"
#include "daemon/hub/connection.hpp"

namespace origin {
struct Context;
}

namespace origin::hub {

struct SyncReport {
  bool connected = false;
  std::string url;
  std::int64_t chunks = 0, bytes = 0;  // step 1
  std::int64_t entries = 0, tombstones_up = 0;  // step 2 (tombstones and erasures)
  std::int64_t reports = 0;  // step 2: of forgets made elsewhere (core/forget/replica.hpp)
  std::optional<std::string> pending;  // the entry that waits for its events on the hub
  std::int64_t tombstones_down = 0;    // step 3
  std::vector<std::string> refused;    // a relay's files the hub refused, each with why
  bool diverged = false;               // `error` is only that some mirrors were not sent (Diverges)
  std::string error;                   // why it stopped; empty when it finished
  std::int64_t finished_ms = 0;
};

/// What the hub says of a connection (GET /v1/device), checked against
/// this store's name.
struct CheckReport {
  std::string url;
  std::string device, hub;  // as the hub names them
  std::string store;        // this store's name
  std::string error;        // unreachable, refused, or a name that differs
  bool from_env = false;    // ORIGIN_HUB_URL / ORIGIN_HUB_TOKEN
  // How the last sync ended (CheckStored): when it finished, and the time
  // and error of a later one that failed.
  std::int64_t last_sync_ms = 0, last_error_ms = 0;
  std::string last_error;
};

/// How the last syncs ended, from `setting`: when the last one finished,
/// and the time and error of a later one that failed.
struct LastSync {
  std::int64_t last_sync_ms = 0, last_error_ms = 0;
  std::string last_error;  // empty unless it came after the last success
};
LastSync ReadLastSync(Db& db);

class Syncer {
 public:
  explicit Syncer(Context& ctx);
  ~Syncer();
  Syncer(const Syncer&) = delete;
  Syncer& operator=(const Syncer&) = delete;

  /// A sync as soon as the one under way (if any) ends; requests made
  /// meanwhile share it.  `done` runs on the loop.  An `automatic` one (the
  /// daemon's own: after a write, after ingests, every minute) is skipped
  /// while the last syncs failed, for 5 s after the first failure, doubling
  /// with each failure after it up to 5 minutes; a person's (origin sync,
  /// origin hub connect) always runs.
  void Request(std::function<void(SyncReport)> done, bool automatic = false);
  /// Asks the hub at `c` whose token it is, and checks the name against
  /// `as` (origin hub connect --device), or this store's when `as` is "".
  /// Nothing is saved: origin hub connect writes hub.json once it agrees.
  void Check(Connection c, std::string as, std::function<void(CheckReport)> done);
  /// The stored (or environment's) connection checked, or nullopt in
  /// `done` when there is none.
  void CheckStored(std::function<void(std::optional<CheckReport>)> done);
  /// Removes hub.json; `done(removed, from_env, error)`: removed false
  /// when there was none, from_env when the environment still names a hub.
  void Disconnect(std::function<void(bool, bool, std::string)> done);
  /// Ends the requests under way and the threads.
  void Stop();

 private:
  // A thread and its jobs, run in order: the syncs go on one, and the
  // checks and disconnects on another, so that origin hub status and
  // disconnect do not wait for a sync that waits for a hub.
  struct Lane {
    std::deque<std::function<void()>> jobs;
    std::vector<Http*> current;  // the clients under way, to abort
    std::thread thread;
  };
  // Marks a request as its lane's under way while it lives (Stop aborts it).
  struct UnderWay;
  void Post(Lane& lane, std::function<void()> job);
  void Run(Lane& lane);
  void SyncJob();
  CheckReport CheckOn(const Connection& c, std::string as);

  Context& ctx_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::function<void(SyncReport)>> waiting_;  // for the next sync
  bool sync_queued_ = false;
  Backoff backoff_;  // the automatic syncs', on the steady clock
  bool stopping_ = false;
  // A disconnect aborted the sync under way: a client it makes later is
  // aborted too (until the next sync starts).
  bool syncs_aborted_ = false;
  std::string last_error_;  // logged once until it changes (sync thread)
  Lane syncs_, checks_;
};

}  // namespace origin::hub
