// SPDX-License-Identifier: MIT
#include "core/ui/overview.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <mutex>

#include "core/forget/forget.hpp"
#include "core/store/status.hpp"
#include "core/store/visible.hpp"

namespace origin {

std::vector<std::int64_t> LocalDayStarts(std::int64_t now_ms, int days) {
  const std::time_t now = static_cast<std::time_t>(now_ms / 1000);
  std::tm today{};
  ::localtime_r(&now, &today);
  std::vector<std::int64_t> out;
  for (int i = days - 1; i >= -1; --i) {
    std::tm tm = today;
    tm.tm_hour = 0;
    tm.tm_min = 0;
    tm.tm_sec = 0;
    tm.tm_mday -= i;  // mktime carries into the months before and after
    tm.tm_isdst = -1;
    out.push_back(static_cast<std::int64_t>(std::mktime(&tm)) * 1000);
  }
  return out;
}

namespace {

std::string DayName(std::int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

// The chart and the projects: what the (session, ts) index says of the
// sessions active over the days, kept while its key stays the same.
struct Activity {
  std::vector<OverviewDay> days;
  std::vector<std::string> sources;
  std::vector<OverviewProject> projects;
};

// The latest forget or restore (0: none).
std::int64_t LastTombstone(Db& db) {
  auto st = db.Prepare("SELECT coalesce(max(seq), 0) FROM tombstone");
  return st.Step() ? st.Int(0) : 0;
}

// The key: the store, the first day, the latest forget or restore, and
// every source's session and event totals (which every new event
// changes).  The totals alone are not enough: a forget and a restore in
// one session can leave them as they were with other events visible.
std::string ActivityKey(Db& db, const std::string& store, std::int64_t first_day) {
  std::string key =
      store + "\n" + std::to_string(first_day) + "\n" + std::to_string(LastTombstone(db));
  auto st = db.Prepare(
      "SELECT source, count(*), sum(event_count), max(last_ts) FROM session GROUP BY source");
  while (st.Step())
    key += "\n" + std::string(st.Text(0)) + " " + std::to_string(st.Int(1)) + " " +
           std::to_string(st.Int(2)) + " " + std::to_string(st.Int(3));
  return key;
}

// What one session adds to the chart and the projects: its visible events
// per day of the window, from the (session, ts) index, with the row they
// were counted at.
struct SessionDays {
  std::int64_t event_count = 0, last_ts = 0;  // the session's row when counted
  std::vector<std::int64_t> per_day;          // visible events per day of the window
  std::int64_t n = 0, last = 0;               // in the window, and the latest of them
};

// The kept results of one store.  `activity` answers while `key` holds; a
// session's counts are used again, when the key changed, while its row
// (visible events, last activity), the window and the tombstones are the
// same: during an import only the sessions that grew are counted again.
// Any forget or restore counts every session again (in one session, a
// forget and a restore can leave the count as it was with other events
// visible).
struct Kept {
  std::string key;
  Activity activity;
  std::int64_t first_day = 0, tombstones = -1;
  std::map<std::string, SessionDays> sessions;
};

// The day of the window holding `ts` (starts.front() <= ts < starts.back()).
std::size_t DayOf(const std::vector<std::int64_t>& starts, std::int64_t ts) {
  return static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), ts) -
                                  starts.begin() - 1);
}

Activity ReadActivity(Db& db, const std::vector<std::int64_t>& starts, Kept& kept) {
  const std::int64_t from = starts.front(), to = starts.back();
  const std::int64_t tombstones = LastTombstone(db);
  std::map<std::string, SessionDays> was;
  if (kept.first_day == from && kept.tombstones == tombstones) was = std::move(kept.sessions);
  kept.sessions.clear();
  kept.first_day = from;
  kept.tombstones = tombstones;

  Activity a;
  for (std::size_t i = 0; i + 1 < starts.size(); ++i)
    a.days.push_back({DayName(starts[i]), starts[i], 0, {}});
  auto sessions = db.Prepare(
      "SELECT id, source, project, event_count, last_ts, first_ts FROM session WHERE last_ts >= ? "
      "AND first_ts < ? AND event_count > 0");
  sessions.Bind(1, from).Bind(2, to);
  // A session's visible events, without its title events, which count in
  // no aggregate (its row's event_count among them: core/store/sessions.cpp)
  // and are found by their own index.
  auto events = db.Prepare(
      "SELECT ts FROM event INDEXED BY event_session_ts WHERE session = ?1 AND ts >= ?2 AND "
      "ts < ?3 AND seq NOT IN (SELECT seq FROM event INDEXED BY event_title WHERE session = ?1 "
      "AND kind = 'meta' AND tool_name IS 'title') AND " +
      VisibleEventSql("seq"));
  std::map<std::string, OverviewProject> projects;
  std::map<std::string, bool> sources;
  while (sessions.Step()) {
    std::string id(sessions.Text(0));
    const std::string source(sessions.Text(1));
    const std::optional<std::string> project = sessions.OptText(2);
    const std::int64_t event_count = sessions.Int(3), last_ts = sessions.Int(4);
    const std::int64_t first_ts = sessions.Int(5);
    SessionDays d;
    if (auto it = was.find(id);
        it != was.end() && it->second.event_count == event_count && it->second.last_ts == last_ts) {
      d = std::move(it->second);
    } else {
      d.event_count = event_count;
      d.last_ts = last_ts;
      d.per_day.assign(a.days.size(), 0);
      if (first_ts >= from && last_ts < to && DayOf(starts, first_ts) == DayOf(starts, last_ts)) {
        // Within one day of the window: its row's count is that day's.  The
        // row spans its visible events and counts them, title events aside,
        // as the events below would be counted (invariant 2: the row is what
        // recomputing from the visible events gives).
        d.per_day[DayOf(starts, first_ts)] = event_count;
        d.n = event_count;
        d.last = last_ts;
      } else {
        events.Reset();
        events.Bind(1, id).Bind(2, from).Bind(3, to);
        while (events.Step()) {
          const std::int64_t ts = events.Int(0);
          ++d.per_day[DayOf(starts, ts)];
          ++d.n;
          d.last = std::max(d.last, ts);
        }
      }
    }
    for (std::size_t i = 0; i < a.days.size(); ++i) {
      if (d.per_day[i] == 0) continue;
      a.days[i].total += d.per_day[i];
      a.days[i].by_source[source] += d.per_day[i];
    }
    const std::int64_t n = d.n, last = d.last;
    kept.sessions.emplace(std::move(id), std::move(d));
    if (n == 0) continue;
    sources[source] = true;
    if (!project) continue;
    OverviewProject& p = projects[*project];
    p.project = *project;
    p.events += n;
    p.sessions += 1;
    p.last_ts = std::max(p.last_ts, last);
  }
  for (const auto& [s, _] : sources) a.sources.push_back(s);
  for (auto& [_, p] : projects) a.projects.push_back(std::move(p));
  std::sort(a.projects.begin(), a.projects.end(), [](const auto& x, const auto& y) {
    return x.events != y.events ? x.events > y.events : x.project < y.project;
  });
  if (a.projects.size() > static_cast<std::size_t>(kOverviewRows)) a.projects.resize(kOverviewRows);
  return a;
}

// The kept results, per store.  One overview is worked out at a time (it is
// the owner's page; the others wait for its result).
std::mutex cache_mu;
std::map<std::string, Kept> cache;

Activity CachedActivity(Db& db, const std::string& store, const std::vector<std::int64_t>& starts) {
  std::lock_guard<std::mutex> lock(cache_mu);
  // One read transaction: the key, the tombstone and the counts of one
  // state of the store (a forget and a restore between them could
  // otherwise pair a session's old counts with its new row).
  ReadSnapshot snapshot(db);
  const std::string key = ActivityKey(db, store, starts.front());
  Kept& kept = cache[store];
  if (kept.key != key) {
    kept.key.clear();  // until the counts below are whole
    kept.activity = ReadActivity(db, starts, kept);
    kept.key = key;
  }
  return kept.activity;
}

std::int64_t FileBytes(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return 0;
  return static_cast<std::int64_t>(st.st_size);
}

std::int64_t One(Db& db, const char* sql) {
  auto st = db.Prepare(sql);
  return st.Step() ? st.Int(0) : 0;
}

std::vector<OverviewSource> Sources(Db& db, std::int64_t now_ms) {
  // The agent's latest version: from its five latest sessions, each of
  // which keeps the version of its latest events.
  auto version = db.Prepare(
      "SELECT agent_version FROM (SELECT agent_version, last_ts FROM session INDEXED BY "
      "session_source WHERE source = ? AND event_count > 0 ORDER BY last_ts DESC LIMIT 5) "
      "WHERE agent_version IS NOT NULL ORDER BY last_ts DESC LIMIT 1");
  auto sessions = db.Prepare(
      "SELECT count(*) FROM session INDEXED BY session_source WHERE source = ? AND "
      "event_count > 0");
  std::vector<OverviewSource> out;
  // As `origin status` reads them (core/store/status.hpp).
  for (const auto& [name, in] : ReadIngestion(db, now_ms - std::int64_t{7} * 86400 * 1000)) {
    OverviewSource s;
    s.source = name;
    s.files = in.files;
    s.last_ingestion = in.last_ingest_ms;
    s.parse_errors_7d = in.parse_errors;
    version.Reset();
    version.Bind(1, name);
    if (version.Step()) s.agent_version = version.OptText(0);
    sessions.Reset();
    sessions.Bind(1, name);
    if (sessions.Step()) s.sessions = sessions.Int(0);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

void DropOverviewCache() {
  std::lock_guard<std::mutex> lock(cache_mu);
  cache.clear();
}

Overview BuildOverview(Db& db, std::int64_t now_ms, const OverviewPaths& paths) {
  Overview o;
  o.now_ts = now_ms;
  const std::vector<std::int64_t> starts = LocalDayStarts(now_ms, kOverviewDays);
  Activity a = CachedActivity(db, paths.db, starts);
  o.days = std::move(a.days);
  o.sources_in_days = std::move(a.sources);
  o.projects = std::move(a.projects);

  o.counts.sessions = One(db, "SELECT count(*) FROM session WHERE event_count > 0");
  o.counts.events = One(db, "SELECT coalesce(sum(event_count), 0) FROM session");
  o.counts.tombstones = One(db, "SELECT count(*) FROM tombstone");
  o.counts.forgets_in_effect =
      One(db, (std::string("SELECT count(*) FROM tombstone t WHERE ") + kForgetInEffect).c_str());

  SessionFilter recent;
  recent.limit = kOverviewRows;
  o.recent_sessions = ListSessions(db, recent);
  o.sources = Sources(db, now_ms);
  o.counts.sources = static_cast<std::int64_t>(o.sources.size());

  // Entries are few (a person's and agents' notes): the active ones are
  // listed to count them.
  EntryFilter entries;
  entries.limit = 1 << 30;
  o.entries = ListEntries(db, entries, now_ms);
  o.counts.entries = static_cast<std::int64_t>(o.entries.size());
  if (o.entries.size() > static_cast<std::size_t>(kOverviewRows)) o.entries.resize(kOverviewRows);
  o.tombstones = ListTombstones(db, kOverviewRows);

  o.storage.database_bytes = FileBytes(paths.db) + FileBytes(paths.db + "-wal");
  o.storage.index_bytes = FileBytes(paths.index) + FileBytes(paths.index + "-wal");
  // The mirrors' sealed frames and open tails, as raw_file records them.
  auto st = db.Prepare(
      "SELECT count(*), coalesce(sum(zst_bytes + bytes_ingested - tail_offset), 0) FROM raw_file");
  if (st.Step()) {
    o.storage.mirror_files = st.Int(0);
    o.storage.mirror_bytes = st.Int(1);
  }
  return o;
}

}  // namespace origin
