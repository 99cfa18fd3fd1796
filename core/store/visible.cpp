// SPDX-License-Identifier: MIT
#include "core/store/visible.hpp"

namespace origin {

namespace {

bool Any(Db& db, const char* sql, std::string_view id) {
  auto st = db.Prepare(sql);
  st.Bind(1, id);
  bool found = st.Step();
  return found;
}

}  // namespace

bool EventHidden(Db& db, std::string_view event_id) {
  return Any(db, "SELECT 1 FROM excluded_event WHERE event_id = ?", event_id);
}

bool EntryHidden(Db& db, std::string_view entry_id) {
  return Any(db, "SELECT 1 FROM forgotten_entry WHERE entry_id = ?", entry_id);
}

bool SessionVisible(Db& db, std::string_view session) {
  const std::string sql =
      "SELECT 1 FROM event WHERE session = ? AND " + VisibleEventSql("seq") + " LIMIT 1";
  return Any(db, sql.c_str(), session);
}

bool LineHoldsHidden(Db& db, std::int64_t seq, std::int64_t file_id, std::int64_t line) {
  // The hidden events near it (a range of excluded_event's key), then
  // whether one of them was read from the same line.
  auto st = db.Prepare(
      "SELECT 1 FROM excluded_event x JOIN event o ON o.seq = x.seq "
      "WHERE x.seq BETWEEN ?1 - ?4 AND ?1 + ?4 AND x.seq <> ?1 AND o.file_id = ?2 AND o.line = ?3 "
      "LIMIT 1");
  st.Bind(1, seq).Bind(2, file_id).Bind(3, line).Bind(4, kLineSeqWindow);
  return st.Step();
}

}  // namespace origin
