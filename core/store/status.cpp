// SPDX-License-Identifier: MIT
#include "core/store/status.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <map>

namespace origin {

namespace {
std::int64_t SizeOf(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : 0;
}
}  // namespace

std::map<std::string, SourceIngestion> ReadIngestion(Db& db, std::int64_t since_ms) {
  std::map<std::string, SourceIngestion> by;
  auto files =
      db.Prepare("SELECT source, count(DISTINCT key), max(grown_at) FROM raw_file GROUP BY source");
  while (files.Step()) {
    SourceIngestion& r = by[std::string(files.Text(0))];
    r.files = files.Int(1);
    if (!files.IsNull(2)) r.last_ingest_ms = files.Int(2);
  }
  auto runs = db.Prepare(
      "SELECT source, max(finished_at) FILTER (WHERE events > 0 OR files > 0), "
      "total(parse_errors) FILTER (WHERE finished_at >= ?) FROM sync_log GROUP BY source");
  runs.Bind(1, since_ms);
  while (runs.Step()) {
    SourceIngestion& r = by[std::string(runs.Text(0))];
    if (!runs.IsNull(1)) r.last_ingest_ms = std::max(r.last_ingest_ms.value_or(0), runs.Int(1));
    r.parse_errors = static_cast<std::int64_t>(runs.Double(2));
  }
  return by;
}

StoreStatus ReadStatus(Db& db, const std::string& db_path, std::int64_t now_ms) {
  StoreStatus s;
  std::map<std::string, SourceStatus> by;
  auto get = [&](std::string_view src) -> SourceStatus& {
    auto& r = by[std::string(src)];
    r.source = std::string(src);
    return r;
  };
  // One read transaction, so that the figures agree with each other.
  {
    ReadSnapshot snapshot(db);
    {
      auto st = db.Prepare(
          "SELECT source, sum(broken IS NOT NULL), sum(zst_bytes), "
          "sum(bytes_ingested - tail_offset), sum(bytes_ingested) FROM raw_file GROUP BY source");
      while (st.Step()) {
        get(st.Text(0)).broken_mirrors = st.Int(1);
        s.mirror_disk_bytes += st.Int(2) + st.Int(3);
        s.mirror_content_bytes += st.Int(4);
      }
    }
    for (const auto& [source, in] :
         ReadIngestion(db, now_ms - std::int64_t{7} * 24 * 3600 * 1000)) {
      auto& r = get(source);
      r.files = in.files;
      r.last_ingest_ms = in.last_ingest_ms;
      r.parse_errors_7d = in.parse_errors;
    }
    {
      auto st = db.Prepare(
          "SELECT source, count(*), sum(event_count) FROM session WHERE event_count > 0 GROUP BY "
          "source");
      while (st.Step()) {
        auto& r = get(st.Text(0));
        r.sessions = st.Int(1);
        r.events = st.Int(2);
        s.sessions += r.sessions;
        s.events += r.events;
      }
    }
    {
      auto st = db.Prepare(
          "SELECT l.source, l.error, l.finished_at FROM sync_log l WHERE l.error IS NOT NULL "
          "AND l.id = (SELECT max(id) FROM sync_log m "
          "WHERE m.source = l.source AND m.error IS NOT NULL)");
      while (st.Step()) {
        auto& r = get(st.Text(0));
        r.last_error = std::string(st.Text(1));
        r.last_error_ms = st.Int(2);
      }
    }
    {
      // The newest agent version seen, by event time: that of the session
      // active last (SQLite takes a bare column from the row of max()), not
      // of the file read last (an old session imported now).  The setting,
      // the version of the last line read, only for a source whose sessions
      // name none.
      auto st = db.Prepare("SELECT key, value FROM setting WHERE key LIKE 'agent_version.%'");
      while (st.Step()) {
        std::string_view key = st.Text(0);
        get(key.substr(14)).agent_version = std::string(st.Text(1));
      }
      auto by_time = db.Prepare(
          "SELECT source, agent_version, max(last_ts) FROM session "
          "WHERE agent_version IS NOT NULL AND event_count > 0 GROUP BY source");
      while (by_time.Step()) get(by_time.Text(0)).agent_version = std::string(by_time.Text(1));
    }
    s.max_seq = db.QueryInt("SELECT max(seq) FROM event");
  }
  s.db_bytes = SizeOf(db_path) + SizeOf(db_path + "-wal");
  for (auto& [k, v] : by) s.sources.push_back(std::move(v));
  return s;
}

}  // namespace origin
