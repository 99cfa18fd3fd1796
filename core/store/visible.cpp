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

}  // namespace origin
