// SPDX-License-Identifier: MIT
#pragma once
// What every read leaves out (spec: Forgetting; invariant 2).  Hidden events
// are listed in excluded_event and hidden entry versions in forgotten_entry;
// core/forget keeps both, and each query of core/query and core/entries adds
// one of these conditions, so that hiding costs a query one lookup per row.

#include <string>
#include <string_view>

#include "core/c/sqlite.hpp"

namespace origin {

/// A condition on an event's seq column (`seq_col`, e.g. "e.seq").
inline std::string VisibleEventSql(std::string_view seq_col) {
  return std::string(seq_col) + " NOT IN (SELECT seq FROM excluded_event)";
}
/// A condition on an entry's id column.
inline std::string VisibleEntrySql(std::string_view id_col) {
  return std::string(id_col) + " NOT IN (SELECT entry_id FROM forgotten_entry)";
}

/// A session title's event (core/ingest/adapter.hpp, ParsedTitle), on the
/// event columns prefixed by `prefix` (e.g. "e."): it counts in none of its
/// session's aggregates, and the session's title is derived from the
/// visible ones alone (RecomputeSessions), so that a forgotten title leaves
/// every listing too.
inline std::string TitleEventSql(std::string_view prefix = "") {
  return "(" + std::string(prefix) + "kind = 'meta' AND " + std::string(prefix) +
         "tool_name IS 'title')";
}

/// Whether a forget in effect hides this event or entry version.
bool EventHidden(Db& db, std::string_view event_id);
bool EntryHidden(Db& db, std::string_view entry_id);

}  // namespace origin
