// SPDX-License-Identifier: MIT
#pragma once
// Session rows (spec: Sessions): what the session table aggregates of its
// events (first and last time, event and message counts, cwd, branch,
// model, agent version) and the title derived from its title events.
// Ingestion adds each batch of new events to their sessions' aggregates
// (AddArrivals); forgetting and restoring recompute the sessions whose
// events they hide or bring back from the visible events (RecomputeSessions,
// invariant 2).  Both must agree: the incremental aggregates equal the
// recomputed ones.  A title event counts in no aggregate.
//
// In core/store, below ingestion and forgetting, because both write these
// rows.  Thread affinity: the writer's connection, in the caller's
// transaction.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

/// A session title's event (core/ingest/adapter.hpp, ParsedTitle), on the
/// event columns prefixed by `prefix` (e.g. "e."): it counts in none of its
/// session's aggregates, and the session's title is derived from the
/// visible ones alone (RecomputeSessions), so that a forgotten title leaves
/// every listing too.
inline std::string TitleEventSql(std::string_view prefix = "") {
  return "(" + std::string(prefix) + "kind = 'meta' AND " + std::string(prefix) +
         "tool_name IS 'title')";
}

/// A session's model, from its events' `model` (prefixed by `prefix`): the
/// model of its latest event (by time, then arrival) that names a real one
/// and is not a sub-agent's.  A name in angle brackets (Claude Code's
/// "<synthetic>", written on the harness's own lines) stands in for a model
/// and is none.  AddArrivals keeps it; migration 6 derived it again.
inline std::string RealModelSql(std::string_view prefix = "") {
  return "(" + std::string(prefix) + "model IS NOT NULL AND " + std::string(prefix) +
         "model NOT LIKE '<%>' AND " + std::string(prefix) + "agent IS NULL)";
}

/// The project of an event (`e` names the event table or its alias): the
/// project its session has where the event's cwd lies (session_cwd,
/// ProjectSessions), else the event's own column (the last segment of its
/// cwd as read; memory events, which have no session).  Every read and
/// filter of an event's project goes through this.
std::string EventProjectSql(std::string_view e);

/// Whether `cwd` is `root` or lies under it: '/' and '\\' both separate,
/// trailing separators do not count, and a Windows path (a drive letter)
/// compares without case, since a drive's letter flips case within a
/// session.
bool CwdInside(std::string_view cwd, std::string_view root);

/// Adds the events of `source` that arrived after `after_seq` (a batch just
/// inserted) to their sessions: new sessions are made, the aggregates of
/// existing ones grow (cwd, branch, model and agent version follow the
/// latest event by time, whatever order the logs are read in; the project
/// is the one the session has in that cwd, ProjectSessions),
/// and the sessions that gained title events are titled again
/// (RetitleSessions).  `agent_versions` gives the agent version the batch's
/// lines named, by session id.  Returns how many events arrived.
std::int64_t AddArrivals(Db& db, std::string_view source, std::int64_t after_seq,
                         const std::map<std::string, std::string>& agent_versions);

/// Recomputes the aggregates of the sessions `ids` (every session when
/// null) from their visible events (invariant 2), title events left out,
/// and their titles (RetitleSessions); the incremental ones kept by
/// AddArrivals must equal these.  A session left without a visible event
/// counts none.
void RecomputeSessions(Db& db, const std::vector<std::string>* ids = nullptr);

/// Derives where the sessions `ids` (every session when null) work, from
/// their visible events (spec: Sessions; issue 14): each distinct cwd of a
/// session with the time of its earliest event is a row of session_cwd.
/// In time order, a cwd inside an earlier root (the session's first working
/// directory, or a later cwd outside every root before it) takes that
/// root's project, the earliest such root's; any other cwd is a root of
/// its own, whose project is its last segment.  So a session that goes into
/// subfolders keeps its project, and only a move out of the tree changes
/// it.  The session's project is then the one of its latest cwd, and the
/// blocks of scope_block gain the projects its events have now.
void ProjectSessions(Db& db, const std::vector<std::string>* ids = nullptr);

/// Adds to scope_block the blocks of the projects their sessions give the
/// cwds of the events after seq `after_seq` (session_cwd).
void AddProjectBlocks(Db& db, std::int64_t after_seq);

/// A link event (kind meta, tool_name "parent"): its text is the id of
/// the session its session was forked from (a Codex sub-agent's parent).
inline std::string ParentEventSql(std::string_view prefix = "") {
  return "(" + std::string(prefix) + "kind = 'meta' AND " + std::string(prefix) +
         "tool_name IS 'parent')";
}

/// Derives the parent of the sessions `ids` (every session that has a link
/// event when null) from their latest visible link event; NULL when every
/// one is hidden (invariant 2).
void RelinkSessions(Db& db, const std::vector<std::string>* ids = nullptr);

/// Derives the title of the sessions `ids` (every session when null) from
/// their visible title events (spec: Session names; invariant 2): the
/// latest the user gave, else the latest generated one, by arrival; none
/// (NULL: a provisional name is shown instead) when every one is hidden.  A
/// session that has no title event at all keeps its title: a store made
/// before titles were events holds titles no event gives.
void RetitleSessions(Db& db, const std::vector<std::string>* ids = nullptr);

}  // namespace origin
