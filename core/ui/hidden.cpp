// SPDX-License-Identifier: MIT
#include "core/ui/hidden.hpp"

#include "core/util/op_error.hpp"

namespace origin {

ForgetHides WhatForgetHides(Db& db, const std::string& forget, std::int64_t page) {
  ForgetHides out;
  out.page = page;
  auto entries = db.Prepare(
      "SELECT DISTINCT te.item, e.seq FROM tombstone_effect te JOIN entry e ON e.id = te.item "
      "WHERE te.tombstone = ? AND te.item_kind = 'entry' AND te.item IN (SELECT entry_id FROM "
      "forgotten_entry) ORDER BY e.seq");
  entries.Bind(1, forget);
  std::vector<std::string> ids;
  while (entries.Step()) ids.emplace_back(entries.Text(0));
  for (const std::string& id : ids)
    if (auto v = LoadVersion(db, id)) out.entries.push_back(std::move(*v));

  const std::string hidden =
      "SELECT x.seq FROM excluded_event x WHERE x.event_id IN (SELECT item FROM tombstone_effect "
      "WHERE tombstone = ?1 AND item_kind = 'event')";
  auto count = db.Prepare("SELECT count(*) FROM (" + hidden + ")");
  count.Bind(1, forget);
  out.events_total = count.Step() ? count.Int(0) : 0;
  out.pages = (out.events_total + kHiddenEventsPerPage - 1) / kHiddenEventsPerPage;
  if (page > 1 && page > out.pages)
    throw OpError(OpError::Code::kNotFound, "forget " + forget + " hides " +
                                                std::to_string(out.pages) +
                                                " pages of events; there is no page " +
                                                std::to_string(page));
  auto events = db.Prepare(std::string("SELECT ") + EventCols() + " FROM event WHERE seq IN (" +
                           hidden + ") ORDER BY session, ts, seq LIMIT ?2 OFFSET ?3");
  events.Bind(1, forget).Bind(2, kHiddenEventsPerPage).Bind(3, (page - 1) * kHiddenEventsPerPage);
  while (events.Step()) out.events.push_back(ReadEvent(events));
  return out;
}

}  // namespace origin
