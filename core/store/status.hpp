// SPDX-License-Identifier: MIT
#pragma once
// What `origin status` shows of the store: per-source totals (read from
// session, raw_file and sync_log) and the sizes of the database and the
// mirrors.  Read-only; runs on a reader connection.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

struct SourceStatus {
  std::string source;
  std::int64_t files = 0;  // mirrored files (latest generations)
  std::int64_t sessions = 0;
  std::int64_t events = 0;
  std::int64_t parse_errors_7d = 0;
  std::int64_t broken_mirrors = 0;  // mirrors that refuse appends
  std::optional<std::int64_t> last_ingest_ms;
  std::optional<std::string> agent_version;
  /// The latest error sync_log recorded, and when: whether it lasts is
  /// for the daemon to say (it keeps the current state in memory).
  std::optional<std::string> last_error;
  std::int64_t last_error_ms = 0;
};

struct StoreStatus {
  std::vector<SourceStatus> sources;      // those the store has data for
  std::int64_t db_bytes = 0;              // origin.db and its -wal
  std::int64_t mirror_disk_bytes = 0;     // sealed frames plus open tails
  std::int64_t mirror_content_bytes = 0;  // the mirrors' content, uncompressed
  std::int64_t events = 0;
  std::int64_t sessions = 0;
  std::int64_t max_seq = 0;  // the latest arrival
};

/// What `origin status` and the web UI's overview both show of a source's
/// ingestion, read by one function so that they agree.
struct SourceIngestion {
  std::int64_t files = 0;  // mirrored files (latest generations)
  /// When it last took something in: the latest sync that took events or
  /// changed files in (not one that only sealed idle mirrors or failed), or
  /// when a mirror of it last grew: what a hub took in from its devices'
  /// pushes (core/ingest/remote.cpp), which no sync of its own records.
  std::optional<std::int64_t> last_ingest_ms;
  std::int64_t parse_errors = 0;  // in the syncs finished since `since_ms`
};

/// Per source with a mirror or a sync recorded.
std::map<std::string, SourceIngestion> ReadIngestion(Db& db, std::int64_t since_ms);

/// `db_path` is origin.db (its size and the WAL's are stat'ed).
StoreStatus ReadStatus(Db& db, const std::string& db_path, std::int64_t now_ms);

}  // namespace origin
