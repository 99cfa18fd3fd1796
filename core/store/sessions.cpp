// SPDX-License-Identifier: MIT
#include "core/store/sessions.hpp"

#include <algorithm>
#include <climits>
#include <optional>
#include <set>

#include "core/store/visible.hpp"
#include "core/util/text.hpp"

namespace origin {

namespace {

struct SessionAgg {
  std::int64_t first_ts = INT64_MAX, last_ts = INT64_MIN;
  std::int64_t events = 0, messages = 0;
  std::optional<std::string> cwd, git_branch, agent_version, model;
  std::int64_t cwd_ts = INT64_MIN, model_ts = INT64_MIN;
};

void FlushSessions(Db& db, std::string_view source, const std::map<std::string, SessionAgg>& aggs,
                   const std::set<std::string>& retitled) {
  auto up = db.Prepare(R"sql(
    INSERT INTO session(id, source, project, cwd, git_branch, first_ts, last_ts, event_count,
                        message_count, agent_version, model)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
    ON CONFLICT(id) DO UPDATE SET
      project = CASE WHEN session.last_ts IS NULL OR excluded.last_ts >= session.last_ts
                     THEN coalesce(excluded.project, session.project)
                     ELSE coalesce(session.project, excluded.project) END,
      cwd = CASE WHEN session.last_ts IS NULL OR excluded.last_ts >= session.last_ts
                 THEN coalesce(excluded.cwd, session.cwd)
                 ELSE coalesce(session.cwd, excluded.cwd) END,
      git_branch = CASE WHEN session.last_ts IS NULL OR excluded.last_ts >= session.last_ts
                 THEN coalesce(excluded.git_branch, session.git_branch)
                 ELSE coalesce(session.git_branch, excluded.git_branch) END,
      first_ts = min(coalesce(session.first_ts, excluded.first_ts), excluded.first_ts),
      last_ts = max(coalesce(session.last_ts, excluded.last_ts), excluded.last_ts),
      event_count = session.event_count + excluded.event_count,
      message_count = session.message_count + excluded.message_count,
      agent_version = CASE WHEN session.last_ts IS NULL OR excluded.last_ts >= session.last_ts
                 THEN coalesce(excluded.agent_version, session.agent_version)
                 ELSE coalesce(session.agent_version, excluded.agent_version) END,
      model = CASE WHEN session.last_ts IS NULL OR excluded.last_ts >= session.last_ts
                 THEN coalesce(excluded.model, session.model)
                 ELSE coalesce(session.model, excluded.model) END
  )sql");
  for (const auto& [id, a] : aggs) {
    if (a.events == 0) continue;
    up.Reset();
    up.Bind(1, id).Bind(2, source);
    if (a.cwd) {
      up.Bind(3, LastPathSegment(*a.cwd)).Bind(4, *a.cwd);
    } else {
      up.Bind(3, nullptr).Bind(4, nullptr);
    }
    up.Bind(5, a.git_branch).Bind(6, a.first_ts).Bind(7, a.last_ts).Bind(8, a.events);
    up.Bind(9, a.messages).Bind(10, a.agent_version).Bind(11, a.model);
    up.Run();
  }
  // Sessions that gained title events: their title, derived again from
  // them (a session may have no other event yet).
  if (retitled.empty()) return;
  auto row = db.Prepare("INSERT OR IGNORE INTO session(id, source) VALUES (?, ?)");
  for (const std::string& id : retitled) {
    row.Reset();
    row.Bind(1, id).Bind(2, source).Run();
  }
  std::vector<std::string> ids(retitled.begin(), retitled.end());
  RetitleSessions(db, &ids);
}

}  // namespace

std::int64_t AddArrivals(Db& db, std::string_view source, std::int64_t after_seq,
                         const std::map<std::string, std::string>& agent_versions) {
  std::map<std::string, SessionAgg> aggs;
  std::set<std::string> retitled;
  std::int64_t arrived = 0;
  auto added = db.Prepare("SELECT session, ts, kind, cwd, git_branch, model, " + RealModelSql() +
                           ", " + TitleEventSql() + " FROM event WHERE seq > ? ORDER BY seq");
  added.Bind(1, after_seq);
  while (added.Step()) {
    ++arrived;
    if (added.IsNull(0)) continue;
    if (added.Int(7) != 0) {  // a title: counts in no aggregate
      retitled.insert(std::string(added.Text(0)));
      continue;
    }
    SessionAgg& a = aggs[std::string(added.Text(0))];
    std::int64_t ts = added.Int(1);
    a.first_ts = std::min(a.first_ts, ts);
    a.last_ts = std::max(a.last_ts, ts);
    ++a.events;
    if (added.Text(2) == "message") ++a.messages;
    if (!added.IsNull(3) && ts >= a.cwd_ts) {
      a.cwd = std::string(added.Text(3));
      a.cwd_ts = ts;
      if (!added.IsNull(4)) a.git_branch = std::string(added.Text(4));
    }
    // The latest real model (RealModelSql: not a sub-agent's, not a stand-in).
    if (added.Int(6) != 0 && ts >= a.model_ts) {
      a.model = std::string(added.Text(5));
      a.model_ts = ts;
    }
  }
  for (const auto& [sess, v] : agent_versions)
    if (auto it = aggs.find(sess); it != aggs.end()) it->second.agent_version = v;
  FlushSessions(db, source, aggs, retitled);
  return arrived;
}

void RecomputeSessions(Db& db, const std::vector<std::string>* ids) {
  const std::string one =
      "UPDATE session SET (first_ts, last_ts, event_count, message_count) = ("
      "SELECT min(ts), max(ts), count(*), coalesce(sum(kind = 'message'), 0) FROM event "
      "WHERE session = session.id AND " +
      VisibleEventSql("seq") + " AND NOT " + TitleEventSql() + ")";
  if (ids == nullptr) {
    db.Exec(one);
  } else {
    auto st = db.Prepare(one + " WHERE id = ?");
    for (const std::string& id : *ids) {
      st.Reset();
      st.Bind(1, id).Run();
    }
  }
  RetitleSessions(db, ids);
}

void RetitleSessions(Db& db, const std::vector<std::string>* ids) {
  // The latest visible title the user gave, else the latest visible one
  // (by arrival); none when every one is hidden.  A session without any
  // title event keeps the title it has: one read before titles were events.
  const std::string latest = "FROM event WHERE session = session.id AND " + TitleEventSql() +
                             " AND " + VisibleEventSql("seq") +
                             " ORDER BY role = 'user' DESC, seq DESC LIMIT 1";
  const std::string one = "UPDATE session SET title = (SELECT text " + latest +
                          "), title_manual = coalesce((SELECT role = 'user' " + latest +
                          "), 0) WHERE EXISTS (SELECT 1 FROM event WHERE session = session.id "
                          "AND " +
                          TitleEventSql() + ")";
  if (ids == nullptr) {
    db.Exec(one);
    return;
  }
  auto st = db.Prepare(one + " AND id = ?");
  for (const std::string& id : *ids) {
    st.Reset();
    st.Bind(1, id).Run();
  }
}

}  // namespace origin
