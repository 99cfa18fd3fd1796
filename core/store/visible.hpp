// SPDX-License-Identifier: MIT
#pragma once
// What every read leaves out (spec: Forgetting; invariant 2).  Hidden events
// are listed in excluded_event and hidden entry versions in forgotten_entry;
// core/forget keeps both, and each query of core/query, core/entries and
// core/store/sessions adds one of these conditions, so that hiding costs a
// query one lookup per row.  Here in core/store, beside the tables, so that
// what reads needs nothing of what forgets.

#include <cstdint>
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

/// Whether a forget in effect hides this event or entry version.
bool EventHidden(Db& db, std::string_view event_id);
bool EntryHidden(Db& db, std::string_view entry_id);
/// Whether `session` is a session here that is visible: while one of its
/// events is.
bool SessionVisible(Db& db, std::string_view session);

/// The events of one mirror line (a line may give several: an assistant's
/// text and its tool calls) are inserted together, so their seqs lie within
/// this of each other.
inline constexpr std::int64_t kLineSeqWindow = 4096;

/// Whether the mirror line (`file_id`, `line`) of the event `seq` also gives
/// another event that is hidden: the line's bytes hold that event's text, so
/// they are not shown for `seq` either (spec: Forgetting; invariant 2).
bool LineHoldsHidden(Db& db, std::int64_t seq, std::int64_t file_id, std::int64_t line);

}  // namespace origin
