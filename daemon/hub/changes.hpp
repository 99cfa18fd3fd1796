// SPDX-License-Identifier: MIT
#pragma once
// What step 2 of a device's sync sends (daemon/hub/sync.cpp): this store's
// own changes after the push cursor, a batch of at most kMaxPushRecords at
// a time, in runs of one kind (entries to /v1/entries; tombstones,
// erasures and reports to /v1/tombstones), each run's request body made
// and encoded.  Read through the daemon's readers, on whichever thread
// calls it: the sync reads the next batch on a thread of its own while the
// hub takes the current one.

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/hub/replicate.hpp"
#include "daemon/hub/connection.hpp"

namespace origin {
class DbWorkers;
}

namespace origin::hub {

// A run of changes of one kind, its request body made: none when nothing
// of it is left to send (tombstones whose rows are gone), or when its
// entries' bodies were not asked for.
struct ChangeRun {
  bool entries = false;
  std::vector<OwnChange> changes;
  std::optional<Http::Encoded> body;
  std::int64_t records = 0;  // tombstones and erasures
  std::int64_t reports = 0;
};

// A batch: its runs in change_log's order (none when nothing is left),
// and how far change_log was looked through for them (OwnChangesAfter's
// `through`).
struct ChangeBatch {
  std::int64_t through = 0;
  std::vector<ChangeRun> runs;
};

// The batch of `store`'s changes after `after`, encoded by `http`; the
// entries' bodies only when `entries`.  Once `stop`, what it has read so
// far, which is not to be sent.  Throws Stopped when an entry to send
// cannot be read.
ChangeBatch ReadChanges(DbWorkers* readers, const Http& http, const std::string& store,
                        std::int64_t after, bool entries, const std::atomic<bool>& stop);

}  // namespace origin::hub
