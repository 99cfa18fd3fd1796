// SPDX-License-Identifier: MIT
#include "core/ingest/leaf_titles.hpp"

#include <optional>
#include <string>

#include "core/util/text.hpp"

namespace origin {

std::optional<std::string> LeafSession(Db& db, std::string_view source, std::string_view leaf,
                                       bool staged) {
  // Through the unique index on event.id; the stage, a batch at most, is
  // read whole (summaries are few).
  const std::string id = std::string(source) + ":" + std::string(leaf);
  auto st = db.Prepare(std::string("SELECT session FROM (SELECT session FROM event WHERE id = ?1 "
                                   "UNION ALL SELECT session FROM event WHERE id >= ?1 || '#' "
                                   "AND id < ?1 || '$'") +
                       (staged ? " UNION ALL SELECT session FROM temp.event_stage WHERE id = ?1 "
                                 "OR (id >= ?1 || '#' AND id < ?1 || '$')"
                               : "") +
                       ") WHERE session IS NOT NULL LIMIT 1");
  st.Bind(1, id);
  if (!st.Step()) return std::nullopt;
  return std::string(st.Text(0));
}

namespace {

struct Title {
  std::string id, leaf, text;
  bool manual = false;
  std::int64_t ts = 0, file_id = 0, line = 0;
};

void InsertTitle(Db& db, std::string_view source, const Title& t, const std::string& session) {
  // A title event (core/ingest/adapter.hpp, ParsedTitle), as InsertLines
  // stages every other: meta, tool_name "title", no cwd.
  db.Prepare(
        "INSERT OR IGNORE INTO event(id, source, session, ts, role, kind, text, tool_name, "
        "is_error, file_id, line) VALUES (?, ?, ?, ?, ?, 'meta', ?, 'title', 0, ?, ?)")
      .Bind(1, t.id)
      .Bind(2, source)
      .Bind(3, session)
      .Bind(4, t.ts)
      .Bind(5, t.manual ? "user" : "assistant")
      .Bind(6, t.text)
      .Bind(7, t.file_id)
      .Bind(8, t.line)
      .Run();
}

}  // namespace

void PlaceLeafTitles(Db& db, std::string_view source, const std::vector<ParsedTitle>& titles,
                     std::int64_t file_id, std::int64_t line_no) {
  for (const ParsedTitle& p : titles) {
    if (!p.leaf || p.leaf->empty() || p.text.empty()) continue;
    Title t{std::string(source) + ":" + p.native_id, *p.leaf, SanitizeUtf8(p.text), p.manual,
            p.ts, file_id, p.line.value_or(line_no)};
    if (auto session = LeafSession(db, source, t.leaf)) {
      InsertTitle(db, source, t, *session);
      continue;
    }
    // Read before (a store of an earlier version put it on its log's
    // session): it stays what it is (invariant 3), nothing waits.
    auto known = db.Prepare("SELECT 1 FROM event WHERE id = ?");
    known.Bind(1, t.id);
    if (known.Step()) continue;
    db.Prepare(
          "INSERT OR IGNORE INTO title_wait(id, source, leaf, text, manual, ts, file_id, line) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .Bind(1, t.id)
        .Bind(2, source)
        .Bind(3, t.leaf)
        .Bind(4, t.text)
        .Bind(5, t.manual ? 1 : 0)
        .Bind(6, t.ts)
        .Bind(7, t.file_id)
        .Bind(8, t.line)
        .Run();
  }
}

void ApplyArrivedLeafTitles(Db& db, std::string_view source) {
  std::vector<Title> waiting;
  {
    auto st = db.Prepare(
        "SELECT id, leaf, text, manual, ts, file_id, line FROM title_wait WHERE source = ?");
    st.Bind(1, source);
    while (st.Step())
      waiting.push_back({std::string(st.Text(0)), std::string(st.Text(1)),
                         std::string(st.Text(2)), st.Int(3) != 0, st.Int(4), st.Int(5),
                         st.Int(6)});
  }
  for (const Title& t : waiting) {
    auto session = LeafSession(db, source, t.leaf);
    if (!session) continue;
    InsertTitle(db, source, t, *session);
    db.Prepare("DELETE FROM title_wait WHERE id = ?").Bind(1, t.id).Run();
  }
}

}  // namespace origin
