// SPDX-License-Identifier: MIT
#pragma once
// Each source's health as the syncs found it, kept in memory as well as in
// sync_log: a store that cannot be written (a full disk) cannot record its
// own failure, and `origin status` must still show it.  A problem lasts
// until a whole sync of its source goes well; it then stays as history
// (last_error).
//
// Thread affinity: any; one mutex.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/ingest/ingester.hpp"

namespace origin {

struct SourceHealth {
  std::string error;                // the problem of the latest sync, "" when it went well
  std::int64_t error_since_ms = 0;  // since when the problem lasts
  bool store_fault = false;         // `error` is the store refusing a write (retried)
  std::string last_error;           // the latest problem, fixed or not
  std::int64_t last_error_ms = 0;
  std::int64_t last_ingest_ms = 0;  // the latest sync that took something in
};

class SourceHealthBook {
 public:
  /// What a sync met, per source of `r`, at `now_ms`.  `partial`: a live
  /// sync of a few files, which adds problems and ingestion times but
  /// clears no problem of its source.
  void Note(const SyncReport& r, std::int64_t now_ms, bool partial = false);
  /// A sync of `sources` that failed as a whole (`store_fault`: the store
  /// refused a write).
  void Failed(const std::vector<std::string>& sources, const std::string& what, bool store_fault,
              std::int64_t now_ms);
  /// `source` took something in at `now_ms` (an import still under way).
  void Ingested(const std::string& source, std::int64_t now_ms);
  /// Every source's health, by source id.
  std::map<std::string, SourceHealth> Snapshot() const;

 private:
  /// Records `what` as the source's current and last problem.
  static void Problem(SourceHealth& h, const std::string& what, bool store_fault,
                      std::int64_t now_ms);
  mutable std::mutex mu_;
  std::map<std::string, SourceHealth> by_source_;
};

}  // namespace origin
