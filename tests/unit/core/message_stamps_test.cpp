// SPDX-License-Identifier: MIT
// MessageStamps (core/store/message_stamps.hpp): the messages' timestamps
// and lengths in memory, as the store holds them, and a search that reads
// them answering as one that reads the store, while the store grows.
#include "core/store/message_stamps.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/query/search.hpp"
#include "core/store/event_index.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

// Adds an event of `kind` (at `seq`, or the next one when 0) to `s`.
void AddEvent(TestStore& s, std::int64_t ts, const std::string& text, std::int64_t seq = 0,
              const char* kind = "message") {
  auto st = s.db->Prepare(
      "INSERT INTO event(seq, id, source, session, ts, project, role, kind, text, file_id, line) "
      "VALUES (?, ?, 'claude-code', 's', ?, 'app', 'user', ?5, ?4, 1, 1)");
  if (seq > 0)
    st.Bind(1, seq);
  else
    st.Bind(1, nullptr);
  st.Bind(2, "e:" + std::to_string(ts) + ":" + std::to_string(text.size())).Bind(3, ts);
  st.Bind(4, text).Bind(5, kind).Run();
}

std::int64_t LastSeq(Db& db) { return db.QueryInt("SELECT coalesce(max(seq), 0) FROM event"); }

struct Stamped {
  TestStore s;
  Stamped() {
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) VALUES (1, "
        "'claude-code', 'k', 1, '/x', 'c/k', 0)");
  }
};

}  // namespace

TEST_SUITE("search") {
  TEST_CASE("search: the stamps hold each message's timestamp and length as the store does") {
    Stamped t;
    AddEvent(t.s, 1700000000123, "a catalog of things");
    AddEvent(t.s, 1700000000456, "");
    // What does not fit a stamp: a timestamp before 1970, a text of more
    // than 2^22 - 3 characters, a timestamp past 2109.
    AddEvent(t.s, -86400000, "before 1970");
    AddEvent(t.s, 1700000000789, std::string((1 << 22) + 5, 'x'));
    AddEvent(t.s, std::int64_t{1} << 43, "far ahead");
    // A gap of more than a chunk of seqs (2^16) without events.
    AddEvent(t.s, 1700000001000, "after the gap", 200000);
    AddEvent(t.s, 1700000002000, "ü and 部署");                     // length in characters
    AddEvent(t.s, 1700000003000, "a tool's call", 0, "tool_call");  // no message
    MessageStamps stamps;
    CHECK(stamps.top() == 0);
    REQUIRE(stamps.Cover(*t.s.db, LastSeq(*t.s.db)));
    CHECK(stamps.top() == 200002);
    auto rows = t.s.db->Prepare(
        "SELECT seq, ts, length(text) FROM event WHERE kind = 'message' ORDER BY seq");
    int n = 0;
    while (rows.Step()) {
      std::int64_t ts = 0, length = 0;
      INFO("seq " << rows.Int(0));
      REQUIRE(stamps.Get(rows.Int(0), &ts, &length));
      CHECK(ts == rows.Int(1));
      CHECK(length == rows.Int(2));
      ++n;
    }
    CHECK(n == 7);
    std::int64_t ts = 0, length = 0;
    for (std::int64_t seq : {0, 6, 70000, 199999, 200002, 200003, -1})
      CHECK_FALSE(stamps.Get(seq, &ts, &length));
    // Covered already: nothing read.
    CHECK(stamps.Cover(*t.s.db, 100));
    // Beyond what the stamps can hold: the caller reads the store.
    CHECK_FALSE(stamps.Cover(*t.s.db, std::int64_t{1} << 40));
    // Through SQL, as a search reads them.
    auto st = t.s.db->Prepare("SELECT origin_ts(?1, 2), origin_len(?1, 4), origin_ts(?1, 9)");
    REQUIRE(sqlite3_bind_pointer(st.get(), 1, &stamps, MessageStamps::kPointerType, nullptr) ==
            SQLITE_OK);
    REQUIRE(st.Step());
    CHECK(st.Int(0) == 1700000000456);
    CHECK(st.Int(1) == (1 << 22) + 5);
    CHECK(st.IsNull(2));
  }

  TEST_CASE(
      "search: stamps whose extension failed midway answer as the store holds, once extended") {
    // An extension interrupted after it appended some messages takes them
    // back: extended again over a store that reads otherwise there (a kind
    // changed, as only a damaged index could make it), no seq keeps what
    // the failed one read.
    Stamped t;
    for (int i = 1; i <= 400; ++i)
      AddEvent(t.s, 1700000000000 + i, std::string(static_cast<std::size_t>(i % 7), 'x'), 0,
               i % 3 == 0 ? "tool_call" : "message");
    MessageStamps stamps;
    REQUIRE(stamps.Cover(*t.s.db, 100));
    t.s.db->Exec("DROP TRIGGER event_no_update");
    int failed = 0;
    // Interrupted after `steps` of SQLite's instructions, more each time.
    for (int steps = 50;; steps += 50) {
      REQUIRE(steps < 1000000);
      int left = steps;
      sqlite3_progress_handler(
          t.s.db->get(), 1, [](void* p) { return --*static_cast<int*>(p) < 0 ? 1 : 0; }, &left);
      const bool covered = stamps.Cover(*t.s.db, 400);
      sqlite3_progress_handler(t.s.db->get(), 0, nullptr, nullptr);
      if (covered) break;
      CHECK(stamps.top() == 100);
      ++failed;
      t.s.db->Exec(
          "UPDATE event SET kind = CASE kind WHEN 'message' THEN 'tool_call' "
          "ELSE 'message' END WHERE seq = " +
          std::to_string(100 + failed));
    }
    CHECK(failed > 20);
    CHECK(stamps.top() == 400);
    auto rows = t.s.db->Prepare("SELECT seq, kind = 'message', ts, length(text) FROM event");
    while (rows.Step()) {
      std::int64_t ts = 0, length = 0;
      INFO("seq " << rows.Int(0));
      REQUIRE(stamps.Get(rows.Int(0), &ts, &length) == (rows.Int(1) == 1));
      if (rows.Int(1) == 0) continue;
      CHECK(ts == rows.Int(2));
      CHECK(length == rows.Int(3));
    }
  }

  TEST_CASE("search: with stamps, a search finds what arrived after they were made, as without") {
    Stamped t;
    EventIndex index(t.s.dir / "index.db", t.s.db_path());
    AttachIndex(*t.s.db, t.s.dir / "index.db");
    const std::vector<std::string> texts = {"deploy the catalog", "catalog timeout", "other words",
                                            "catalog of parsers", "nothing here"};
    std::int64_t ts = 1700000000000;
    MessageStamps stamps;
    auto answer = [&](MessageStamps* with, SearchCost* cost) {
      EventQuery q;
      q.query = "catalog";
      q.limit = 2000;
      q.stamps = with;
      q.cost = cost;
      std::int64_t total = 0;
      std::vector<std::pair<std::int64_t, double>> out;
      for (const auto& h : SearchEvents(*t.s.db, q, &total))
        out.push_back({h.event.seq, h.score.value_or(-1)});
      out.push_back({total, 0});
      return out;
    };
    std::size_t found = 0;
    for (int round = 0; round < 4; ++round) {
      // Arrivals, some older than what came before (several chains).
      for (int i = 0; i < 300; ++i) {
        // Tool results among them, which the stamps leave out.
        AddEvent(t.s, round == 2 ? ts - 100000000 + i : ts,
                 texts[static_cast<std::size_t>(i) % texts.size()] + " " + std::to_string(i), 0,
                 i % 4 == 3 ? "tool_result" : "message");
        ts += 1000;
      }
      index.CatchUp(4096, [] { return false; });
      SearchCost with_cost, without_cost;
      const auto with = answer(&stamps, &with_cost);
      INFO("round " << round);
      CHECK(with == answer(nullptr, &without_cost));
      CHECK(with.size() > found);  // what arrived is found
      found = with.size();
      CHECK(with_cost.stamped == 1);
      CHECK(without_cost.stamped == 0);
      CHECK(stamps.top() == LastSeq(*t.s.db));
    }
  }

  TEST_CASE("search: with stamps, an index ahead of the store (origin.db put back) loses nothing") {
    // The index of a store of 10 messages, attached to the same store with
    // only its first 5 (as after origin.db is put back from a backup): the
    // stamps cover what the store holds, not what the index says, so the
    // messages that arrive at seqs 6 to 10 are found once indexed again.
    Stamped a;
    const std::string idx = a.s.dir / "index-of-a.db";
    for (int i = 0; i < 10; ++i) AddEvent(a.s, 1700000000000 + i, "catalog " + std::to_string(i));
    EventIndex(idx, a.s.db_path()).CatchUp(4096, [] { return false; });
    Stamped b;
    for (int i = 0; i < 5; ++i) AddEvent(b.s, 1700000000000 + i, "catalog " + std::to_string(i));
    AttachIndex(*b.s.db, idx);
    MessageStamps stamps;
    auto hits = [&](MessageStamps* with) {
      EventQuery q;
      q.query = "catalog";
      q.limit = 100;
      q.stamps = with;
      return SearchEvents(*b.s.db, q).size();
    };
    CHECK(hits(&stamps) == 5);
    CHECK(hits(nullptr) == 5);
    CHECK(stamps.top() == 5);
    {
      EventIndex index(idx, b.s.db_path());
      index.CatchUp(4096, [] { return false; });  // CheckStore: built again
      for (int i = 5; i < 10; ++i) AddEvent(b.s, 1700000000000 + i, "catalog " + std::to_string(i));
      index.CatchUp(4096, [] { return false; });
    }
    CHECK(hits(&stamps) == 10);
    CHECK(hits(nullptr) == 10);
  }
}
