// SPDX-License-Identifier: MIT
#pragma once
// The generated corpus and the brute-force reference of the event search
// tests (search_events_test.cpp, search_reads_test.cpp): Latin, CJK, code
// identifiers, one- and two-character terms, mixed case, events arriving
// out of time order, an index that lags.

#include <random>
#include <string>
#include <vector>

#include "core/query/search.hpp"
#include "core/query/terms.hpp"
#include "core/store/event_index.hpp"
#include "tests/support/support.hpp"

namespace origin::test {

inline const std::vector<std::string> kWords = {
    "Catalog",
    "catalogue",
    "deploy",
    "DEPLOYMENT",
    "parser",
    "AI",
    "C#",
    "部署",
    "生产环境",
    "库",
    "snake_case_name",
    "parse_line",
    "Über",
    "über",
    "x",
    "log",
    "5号",
    "ok",
    "Ok",
    "ダミー",
    "한국어",
    "\u212Aelvin",
    "kelvin",
    "\u017Fchema",
    "Schema"};  // a Kelvin sign and a long s fold into ASCII

struct Corpus {
  TestStore s;
  std::vector<std::string> kinds = {"message",   "message",     "message",
                                    "tool_call", "tool_result", "meta"};
  /// `ordered`: arrival mostly follows time, as on a device (a few events
  /// arrive late); otherwise timestamps are random.
  explicit Corpus(int n, std::uint32_t seed, int indexed, bool ordered = false) {
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    std::mt19937 rng(seed);
    Transaction tx(*s.db);
    for (int i = 1; i <= n; ++i) {
      std::string text;
      int len = 1 + static_cast<int>(rng() % 7);
      for (int k = 0; k < len; ++k) text += (k ? " " : "") + kWords[rng() % kWords.size()];
      // Arrival is not time order: timestamps jump around.
      std::int64_t ts = 1700000000000 + static_cast<std::int64_t>(rng() % 100000) * 1000;
      if (ordered) ts = 1700000000000 + i * 60000 - (rng() % 20 == 0 ? (rng() % 50) * 3600000 : 0);
      s.db->Prepare(
              "INSERT INTO event(id, source, session, ts, project, role, kind, text, file_id, "
              "line) "
              "VALUES (?, ?, 's', ?, ?, 'user', ?, ?, 1, ?)")
          .Bind(1, "t:" + std::to_string(i))
          .Bind(2, rng() % 3 == 0 ? "codex" : "claude-code")
          .Bind(3, rng() % 10 == 0 ? std::int64_t{1700000000000} : ts)  // ties too
          .Bind(4, rng() % 2 == 0 ? "app" : "lib")
          .Bind(5, kinds[rng() % kinds.size()])
          .Bind(6, text)
          .Bind(7, i)
          .Run();
    }
    tx.Commit();
    EventIndex index(s.dir / "index.db", s.db_path());
    index.CatchUp(4096, [&] { return index.Upto() >= indexed; });
    AttachIndex(*s.db, s.dir / "index.db");
  }
};

// The reference: every event in scope whose text holds every term, newest first.
// `window`: only the newest that many events in scope are looked in (what a
// search does for terms no index can find).
inline std::vector<std::int64_t> Reference(Db& db, const EventQuery& q, int window = -1) {
  auto terms = ParseTerms(q.query);
  Stmt st(db.get(),
          "SELECT seq, ts, text, kind, source, project FROM event "
          "WHERE seq NOT IN (SELECT seq FROM excluded_event) ORDER BY ts DESC, seq DESC");
  std::vector<std::int64_t> out;
  while (st.Step()) {
    const std::string_view kind = st.Text(3);
    if (q.kind) {
      if (kind != *q.kind) continue;
    } else {
      if (q.tools_only && kind != "tool_call" && kind != "tool_result") continue;
      if (!q.include_tools && !q.tools_only && kind != "message") continue;
    }
    if (q.source && st.Text(4) != *q.source) continue;
    if (q.project && st.Text(5) != *q.project) continue;
    if (q.from_ms && st.Int(1) < *q.from_ms) continue;
    if (q.to_ms && st.Int(1) > *q.to_ms) continue;
    if (window >= 0 && window-- == 0) break;
    if (MatchesAll(st.Text(2), terms)) out.push_back(st.Int(0));
  }
  return out;
}

}  // namespace origin::test
