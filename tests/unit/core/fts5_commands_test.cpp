// SPDX-License-Identifier: MIT
// Every FTS5 command Origin issues, against the SQLite it links, under the
// load that broke SQLite 3.40.1's 'merge' with a negative count: thousands
// of small transactions, each followed by the commands the daemon runs
// between them, and then FTS5's integrity-check of every table.  A command
// added to the code gets its line here.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/entries/entries.hpp"
#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

void AddEvent(Db& db, int i) {
  Transaction tx(db);
  db.Prepare(
        "INSERT INTO event(id, source, ts, role, kind, text, file_id, line) "
        "VALUES (?, 't', ?, 'user', ?, ?, 1, ?)")
      .Bind(1, "t:" + std::to_string(i))
      .Bind(2, i)
      .Bind(3, i % 3 == 0 ? "tool_result" : "message")
      .Bind(4, "hello world " + std::to_string(i) + " catalog 部署到生产 " + std::to_string(i * 7))
      .Bind(5, i)
      .Run();
  tx.Commit();
}

// An entry of knowledge citing the event t:1 (AddEvent).
RememberInput Knowledge(const std::string& text) {
  RememberInput in;
  in.kind = "knowledge";
  in.text = text;
  in.confidence = 0.9;
  in.author = "user@test";
  in.sources = {{std::string("t:1"), std::nullopt}};
  return in;
}

}  // namespace

TEST_SUITE("fts5_commands") {
  TEST_CASE(
      "fts5_commands: index.db's tables hold after 3,000 one-event transactions, each caught up "
      "and merged (positive 'merge', 'usermerge'), then integrity-check") {
    TestStore s;
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    EventIndex index(s.dir / "index.db", s.db_path());
    constexpr int kEvents = 3000;
    for (int i = 1; i <= kEvents; ++i) {
      AddEvent(*s.db, i);
      REQUIRE(index.CatchUp() == 1);  // one small transaction of index.db
      index.MergeStep(64);
      if (i % 500 == 0) REQUIRE(index.Check() == "");
    }
    CHECK(index.Check() == "");
    // Merged down to a few segments, and every event is found (a tool
    // result in event_fts, a message in message_fts).
    Db idx(s.dir / "index.db", Db::Mode::kReadOnly);
    CHECK(idx.QueryInt("SELECT count(*) FROM event_fts WHERE event_fts MATCH '\"cat\" AND "
                       "\"log\"'") == kEvents / 3);
    CHECK(idx.QueryInt("SELECT count(*) FROM message_fts WHERE message_fts MATCH '\"catalog\"'") ==
          kEvents - kEvents / 3);
    CHECK(idx.QueryInt("SELECT count(*) FROM event_cjk WHERE event_cjk MATCH '\"部署\"'") ==
          kEvents);
    SUBCASE("'delete-all' of a rebuild, then the same again; then an erasure") {
      index.Rebuild();
      CHECK(index.Upto() == 0);
      CHECK(index.CatchUp(64 << 10) == kEvents);
      while (index.MergeStep(64)) {
      }
      CHECK(index.Check() == "");
      // Then an erasure's 'delete' with the indexed values, and 'optimize'
      // (EraseEvents), in this subcase so as not to build the index again.
      std::vector<std::int64_t> seqs;
      for (std::int64_t seq = 1; seq <= kEvents; seq += 7) seqs.push_back(seq);
      index.EraseEvents(seqs);
      index.EraseEvents(seqs);  // taken up again: nothing deleted twice
      CHECK(index.Check() == "");
      const auto erased = static_cast<std::int64_t>(seqs.size());
      const std::int64_t erased_tools = (kEvents / 7 + 2) / 3;  // seq 1 + 7k with seq % 3 == 0
      CHECK(idx.QueryInt("SELECT count(*) FROM event_cjk WHERE event_cjk MATCH '\"部署\"'") ==
            kEvents - erased);
      CHECK(idx.QueryInt("SELECT count(*) FROM event_fts WHERE event_fts MATCH '\"cat\" AND "
                         "\"log\"'") == kEvents / 3 - erased_tools);
      for (int i = 0; i < 50; ++i) {  // and it goes on indexing and merging
        AddEvent(*s.db, kEvents + 1 + i);
        REQUIRE(index.CatchUp() == 1);
        index.MergeStep(64);
      }
      CHECK(index.Check() == "");
    }
  }

  TEST_CASE(
      "fts5_commands: entry_fts (origin.db, written with each entry) holds after 3,000 one-entry "
      "transactions, and its 'rebuild' too") {
    TestStore s;
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    AddEvent(*s.db, 1);
    for (int i = 0; i < 3000; ++i)
      Remember(*s.db, s.clock, "test", Knowledge("The build uses meson " + std::to_string(i)));
    CHECK(RepairEntryIndex(*s.db) == "");
    s.db->Exec("INSERT INTO entry_fts(entry_fts) VALUES ('rebuild')");
    CHECK(RepairEntryIndex(*s.db) == "");
    CHECK(s.db->QueryInt("SELECT count(*) FROM entry_fts WHERE entry_fts MATCH '\"meson\"'") ==
          3000);
  }

  TEST_CASE(
      "fts5_commands: an entry missing from entry_fts, or held with other words, is found by "
      "RepairEntryIndex (checked against the entries) and indexed again") {
    TestStore s;
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    AddEvent(*s.db, 1);
    for (const char* text : {"The build uses meson", "The tests use doctest", "Logs go to disk"})
      Remember(*s.db, s.clock, "test", Knowledge(text));
    CHECK(RepairEntryIndex(*s.db) == "");
    auto found = [&](const char* word) {
      return s.db->QueryInt(
          std::string("SELECT count(*) FROM entry_fts WHERE entry_fts MATCH '\"") + word + "\"'");
    };
    // The index loses the second entry (its words and its row) ...
    s.db->Exec(
        "INSERT INTO entry_fts(entry_fts, rowid, text) SELECT 'delete', seq, text FROM entry "
        "WHERE text = 'The tests use doctest'");
    REQUIRE(found("doctest") == 0);
    SUBCASE("missing") {}
    SUBCASE("other words") {  // ... and holds it again with other words
      s.db->Exec(
          "INSERT INTO entry_fts(rowid, text) SELECT seq, 'nothing of it' FROM entry WHERE text = "
          "'The tests use doctest'");
      REQUIRE(found("nothing") == 1);
    }
    CHECK(RepairEntryIndex(*s.db) != "");
    CHECK(RepairEntryIndex(*s.db) == "");
    CHECK(found("doctest") == 1);
    CHECK(found("meson") == 1);
    CHECK(found("nothing") == 0);
  }

  TEST_CASE(
      "fts5_commands: an entry_fts too damaged to be opened is dropped and built again from the "
      "entries (RepairEntryIndex), and remember works again") {
    TestStore s;
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    AddEvent(*s.db, 1);
    Remember(*s.db, s.clock, "test", Knowledge("The build uses meson"));
    s.db->Exec("UPDATE entry_fts_data SET block = substr(block, 1, 6) WHERE id = 10");
    const RememberInput in = Knowledge("The tests use doctest");
    CHECK_THROWS(Remember(*s.db, s.clock, "test", in));  // the trigger meets the damage
    CHECK(RepairEntryIndex(*s.db) != "");
    CHECK(RepairEntryIndex(*s.db) == "");
    Remember(*s.db, s.clock, "test", in);
    CHECK(s.db->QueryInt("SELECT count(*) FROM entry_fts WHERE entry_fts MATCH '\"meson\"'") == 1);
    CHECK(s.db->QueryInt("SELECT count(*) FROM entry_fts WHERE entry_fts MATCH '\"doctest\"'") == 1);
  }
}
