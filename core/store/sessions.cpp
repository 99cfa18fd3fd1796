// SPDX-License-Identifier: MIT
#include "core/store/sessions.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <optional>
#include <set>

#include "core/store/schema.hpp"
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

// A cwd as CwdInside compares it: '\\' as '/', no trailing separator,
// folded to lower case when `fold`.
std::string NormalCwd(std::string_view p, bool fold) {
  std::string out;
  out.reserve(p.size());
  for (char c : p) {
    char d = c == '\\' ? '/' : c;
    if (fold && d >= 'A' && d <= 'Z') d = static_cast<char>(d - 'A' + 'a');
    out += d;
  }
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out;
}

bool IsWindowsPath(std::string_view p) {
  return p.size() >= 2 && std::isalpha(static_cast<unsigned char>(p[0])) != 0 && p[1] == ':';
}

// The session's project is the one it has in its latest cwd.
void SetSessionProject(Db& db, const std::string& session) {
  db.Prepare(
        "UPDATE session SET project = (SELECT project FROM session_cwd WHERE session = ?1 AND "
        "cwd = session.cwd) WHERE id = ?1 AND EXISTS (SELECT 1 FROM session_cwd WHERE "
        "session = ?1 AND cwd = session.cwd)")
      .Bind(1, session)
      .Run();
}

// Gives each cwd of `session` (its rows of session_cwd) its project by the
// rule of ProjectSessions; the events of a cwd whose project changed are
// added to that project's blocks of scope_block.
void AssignProjects(Db& db, const std::string& session) {
  struct Row {
    std::string cwd, project;
  };
  std::vector<Row> rows;
  {
    auto st =
        db.Prepare("SELECT cwd, project FROM session_cwd WHERE session = ? ORDER BY first_ts, cwd");
    st.Bind(1, session);
    while (st.Step()) rows.push_back({std::string(st.Text(0)), std::string(st.Text(1))});
  }
  std::vector<const Row*> roots;
  for (Row& r : rows) {
    std::string project;
    const Row* root = nullptr;
    for (const Row* x : roots)
      if (CwdInside(r.cwd, x->cwd)) {
        root = x;
        break;
      }
    if (root == nullptr) {
      roots.push_back(&r);
      project = LastPathSegment(r.cwd);
    } else {
      project = root->project;
    }
    if (project == r.project) continue;
    r.project = project;
    db.Prepare("UPDATE session_cwd SET project = ? WHERE session = ? AND cwd = ?")
        .Bind(1, project)
        .Bind(2, session)
        .Bind(3, r.cwd)
        .Run();
    db.Prepare(
          "INSERT OR IGNORE INTO scope_block(scope, block) SELECT DISTINCT 'project:' || ?1, " +
          ScopeBlockSql("seq") + " FROM event WHERE session = ?2 AND cwd = ?3")
        .Bind(1, project)
        .Bind(2, session)
        .Bind(3, r.cwd)
        .Run();
  }
  SetSessionProject(db, session);
}

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
  // Each session's cwds among the new events, with the earliest time of each.
  std::map<std::string, std::map<std::string, std::int64_t>> cwds;
  std::int64_t arrived = 0;
  std::set<std::string> relinked;
  auto added = db.Prepare("SELECT session, ts, kind, cwd, git_branch, model, " + RealModelSql() +
                          ", " + TitleEventSql() + ", " + ParentEventSql() +
                          " FROM event WHERE seq > ? ORDER BY seq");
  added.Bind(1, after_seq);
  while (added.Step()) {
    ++arrived;
    if (added.IsNull(0)) continue;
    if (added.Int(7) != 0) {  // a title: counts in no aggregate
      retitled.insert(std::string(added.Text(0)));
      continue;
    }
    if (added.Int(8) != 0) relinked.insert(std::string(added.Text(0)));
    SessionAgg& a = aggs[std::string(added.Text(0))];
    std::int64_t ts = added.Int(1);
    a.first_ts = std::min(a.first_ts, ts);
    a.last_ts = std::max(a.last_ts, ts);
    ++a.events;
    if (added.Text(2) == "message") ++a.messages;
    if (!added.IsNull(3)) {
      auto [it, fresh] = cwds[std::string(added.Text(0))].emplace(std::string(added.Text(3)), ts);
      if (!fresh) it->second = std::min(it->second, ts);
    }
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
  // Where the sessions work: a cwd new to its session, or seen earlier than
  // before, may change the projects of its session's cwds.
  auto up = db.Prepare(
      "INSERT INTO session_cwd(session, cwd, first_ts, project) VALUES (?, ?, ?, '') "
      "ON CONFLICT(session, cwd) DO UPDATE SET first_ts = excluded.first_ts "
      "WHERE excluded.first_ts < session_cwd.first_ts");
  for (const auto& [sess, seen] : cwds) {
    bool changed = false;
    for (const auto& [cwd, ts] : seen) {
      up.Reset();
      up.Bind(1, sess).Bind(2, cwd).Bind(3, ts).Run();
      changed = changed || db.Changes() > 0;
    }
    if (changed)
      AssignProjects(db, sess);
    else
      SetSessionProject(db, sess);
  }
  if (!relinked.empty()) {
    std::vector<std::string> ids(relinked.begin(), relinked.end());
    RelinkSessions(db, &ids);
  }
  // The new events in the blocks of the projects they have.
  if (!cwds.empty()) AddProjectBlocks(db, after_seq);
  return arrived;
}

void AddProjectBlocks(Db& db, std::int64_t after_seq) {
  db.Prepare(
        "INSERT OR IGNORE INTO scope_block(scope, block) SELECT DISTINCT 'project:' || "
        "sc.project, " +
        ScopeBlockSql("e.seq") +
        " FROM event e JOIN session_cwd sc ON sc.session = e.session AND sc.cwd = e.cwd "
        "WHERE e.seq > ?")
      .Bind(1, after_seq)
      .Run();
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
  ProjectSessions(db, ids);
  RelinkSessions(db, ids);
  RetitleSessions(db, ids);
}

void RelinkSessions(Db& db, const std::vector<std::string>* ids) {
  const std::string one =
      "UPDATE session SET parent = (SELECT text FROM event INDEXED BY event_parent WHERE "
      "session = session.id AND " +
      ParentEventSql() + " AND " + VisibleEventSql("seq") + " ORDER BY seq DESC LIMIT 1)";
  if (ids == nullptr) {
    db.Exec(one +
            " WHERE parent IS NOT NULL OR id IN (SELECT session FROM event INDEXED BY "
            "event_parent WHERE " +
            ParentEventSql() + ")");
    return;
  }
  auto st = db.Prepare(one + " WHERE id = ?");
  for (const std::string& id : *ids) {
    st.Reset();
    st.Bind(1, id).Run();
  }
}

std::string EventProjectSql(std::string_view e) {
  const std::string t(e);
  return "coalesce((SELECT sc.project FROM session_cwd sc WHERE sc.session = " + t +
         ".session AND sc.cwd = " + t + ".cwd), " + t + ".project)";
}

bool CwdInside(std::string_view cwd, std::string_view root) {
  const bool fold = IsWindowsPath(cwd) || IsWindowsPath(root);
  const std::string c = NormalCwd(cwd, fold), r = NormalCwd(root, fold);
  if (c == r) return true;
  return c.size() > r.size() && c.compare(0, r.size(), r) == 0 && c[r.size()] == '/';
}

void ProjectSessions(Db& db, const std::vector<std::string>* ids) {
  // Each session's cwds from its visible events (invariant 2), keeping the
  // project a cwd had so that only a change adds blocks to scope_block.
  std::map<std::string, std::map<std::string, std::pair<std::int64_t, std::string>>> now;
  const std::string cols = "SELECT session, cwd, min(ts) FROM event WHERE cwd IS NOT NULL AND " +
                           VisibleEventSql("seq") + " AND NOT " + TitleEventSql();
  if (ids == nullptr) {
    auto st = db.Prepare(cols + " AND session IS NOT NULL GROUP BY session, cwd");
    while (st.Step()) now[std::string(st.Text(0))][std::string(st.Text(1))] = {st.Int(2), ""};
  } else {
    auto st = db.Prepare(cols + " AND session = ? GROUP BY cwd");
    for (const std::string& id : *ids) {
      st.Reset();
      st.Bind(1, id);
      now[id];  // a session left without a cwd loses its rows
      while (st.Step()) now[id][std::string(st.Text(1))] = {st.Int(2), ""};
    }
  }
  {
    auto old = db.Prepare(ids == nullptr ? "SELECT session, cwd, project FROM session_cwd"
                                         : "SELECT session, cwd, project FROM session_cwd "
                                           "WHERE session = ?");
    auto keep = [&] {
      while (old.Step()) {
        auto s = now.find(std::string(old.Text(0)));
        if (s == now.end()) continue;
        auto c = s->second.find(std::string(old.Text(1)));
        if (c != s->second.end()) c->second.second = std::string(old.Text(2));
      }
    };
    if (ids == nullptr) {
      keep();
    } else {
      for (const std::string& id : *ids) {
        old.Reset();
        old.Bind(1, id);
        keep();
      }
    }
  }
  if (ids == nullptr) {
    db.Exec("DELETE FROM session_cwd");
  } else {
    auto del = db.Prepare("DELETE FROM session_cwd WHERE session = ?");
    for (const std::string& id : *ids) {
      del.Reset();
      del.Bind(1, id).Run();
    }
  }
  auto ins =
      db.Prepare("INSERT INTO session_cwd(session, cwd, first_ts, project) VALUES (?, ?, ?, ?)");
  for (const auto& [sess, rows] : now) {
    for (const auto& [cwd, v] : rows) {
      ins.Reset();
      ins.Bind(1, sess).Bind(2, cwd).Bind(3, v.first).Bind(4, v.second).Run();
    }
    AssignProjects(db, sess);
  }
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
