// SPDX-License-Identifier: MIT
#pragma once
// The web UI's overview (spec: Admin UI, "What it can do" and "Overview
// queries"): counts, visible events per day over the last 30 days by
// source, recent sessions, the busiest projects, per source its agent's
// latest version, last ingestion and parse errors over 7 days, the latest
// entries and tombstones, and storage.
//
// Everything comes from derived tables (session, sync_log, raw_file,
// entry, tombstone) and indexes, never a scan of event: the chart and the
// projects read one (session, ts) index entry per event of the sessions
// active in the 30 days, minus the hidden ones (excluded_event).  That
// result is kept (per store) while the day, the latest tombstone and every
// source's totals in session stay the same; when they change, each
// session's counts are kept while its row (visible events, last activity),
// the day and the latest tombstone stay the same, so that during an import
// only the sessions that grew are read again.  Days are those of the
// server's time zone.
//
// Read-only; a reader's connection.  Hidden text never appears: sessions,
// entries and counts are the visible ones, tombstones are ids, reasons and
// counts.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/query/events.hpp"

namespace origin {

struct OverviewDay {
  std::string day;  // YYYY-MM-DD, local
  std::int64_t start_ts = 0;
  std::int64_t total = 0;
  std::map<std::string, std::int64_t> by_source;
};

struct OverviewProject {
  std::string project;
  std::int64_t events = 0, sessions = 0, last_ts = 0;  // over the 30 days
};

struct OverviewSource {
  std::string source;
  std::optional<std::string> agent_version;
  std::int64_t sessions = 0, files = 0;
  std::optional<std::int64_t> last_ingestion;  // SourceIngestion::last_ingest_ms
  std::int64_t parse_errors_7d = 0;
};

struct Overview {
  std::int64_t now_ts = 0;
  struct Counts {
    std::int64_t sessions = 0, events = 0, entries = 0, forgets_in_effect = 0, tombstones = 0,
                 sources = 0;
  } counts;
  std::vector<OverviewDay> days;  // 30, oldest first, today last
  std::vector<std::string> sources_in_days;
  std::vector<SessionRow> recent_sessions;
  std::vector<OverviewProject> projects;
  std::vector<OverviewSource> sources;
  std::vector<EntryRow> entries;
  std::vector<TombstoneRow> tombstones;
  struct Storage {
    std::int64_t database_bytes = 0, index_bytes = 0, mirror_bytes = 0, mirror_files = 0;
  } storage;
};

struct OverviewPaths {
  std::string db, index;  // origin.db and index.db, for their sizes
};

inline constexpr int kOverviewDays = 30;
inline constexpr int kOverviewRows = 10;

Overview BuildOverview(Db& db, std::int64_t now_ms, const OverviewPaths& paths);
/// Drops every kept chart (tests/bench/ui_bench: the cold figure).
void DropOverviewCache();

/// The local midnights of the `days` days ending with today's, oldest
/// first, and the one after today (days + 1 values).
std::vector<std::int64_t> LocalDayStarts(std::int64_t now_ms, int days);

}  // namespace origin
