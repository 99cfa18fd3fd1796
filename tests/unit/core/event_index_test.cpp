// SPDX-License-Identifier: MIT
// The search indexes in index.db: caught up by CatchUp, exact about what
// they hold (upto), built again when they do not describe their store, and
// when they are found damaged.
#include "core/store/event_index.hpp"

#include <doctest/doctest.h>

#include "core/store/schema.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

void AddEvents(Db& db, int from, int to, const std::string& word) {
  if (db.QueryInt("SELECT count(*) FROM raw_file") == 0)
    db.Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
  Transaction tx(db);
  for (int i = from; i < to; ++i)
    db.Prepare(
          "INSERT INTO event(id, source, ts, role, kind, text, file_id, line) "
          "VALUES (?, 't', ?, 'user', 'tool_result', ?, 1, ?)")
        .Bind(1, "t:" + std::to_string(i))
        .Bind(2, i)
        .Bind(3, word + " number " + std::to_string(i))
        .Bind(4, i)
        .Run();
  tx.Commit();
}

std::int64_t Matches(const std::string& index_path, const std::string& query) {
  Db idx(index_path, Db::Mode::kReadOnly);
  Stmt st(idx.get(), "SELECT count(*) FROM event_fts WHERE event_fts MATCH ?");
  st.Bind(1, query);
  REQUIRE(st.Step());
  return st.Int(0);
}

}  // namespace

TEST_SUITE("event_index") {
  TEST_CASE("event_index: catches up with the store in batches, and says how far it is") {
    TestStore s;
    const std::string idx = s.dir / "index.db";
    AddEvents(*s.db, 0, 3000, "catalog");
    EventIndex index(idx, s.db_path());
    CHECK(index.Upto() == 0);
    CHECK(index.CatchUp(16 << 10) == 3000);  // many small transactions
    CHECK(index.Upto() == 3000);
    CHECK(Matches(idx, "\"cat\" AND \"ata\" AND \"log\"") == 3000);
    AddEvents(*s.db, 3000, 3100, "deploy");
    CHECK(Matches(idx, "\"plo\"") == 0);  // not yet: upto says so
    CHECK(index.CatchUp() == 100);
    CHECK(index.Upto() == 3100);
    CHECK(Matches(idx, "\"plo\"") == 100);
    CHECK(index.CatchUp() == 0);

    SUBCASE("a stop between transactions leaves a consistent upto, and it goes on later") {
      AddEvents(*s.db, 3100, 5000, "zebra");
      int calls = 0;
      std::int64_t n = index.CatchUp(8 << 10, [&] { return ++calls > 2; });
      CHECK(n > 0);
      CHECK(n < 1900);
      CHECK(index.Upto() == 3100 + n);
      CHECK(Matches(idx, "\"ebr\"") == n);
      EventIndex reopened(idx, s.db_path());
      CHECK(reopened.CatchUp() == 1900 - n);
      CHECK(Matches(idx, "\"ebr\"") == 1900);
    }
    SUBCASE("an index of another store is emptied and built again") {
      TestStore other;
      AddEvents(*other.db, 0, 10, "other");
      EventIndex wrong(idx, other.db_path());
      CHECK(wrong.CatchUp() == 10);
      CHECK(wrong.Upto() == 10);
      CHECK(Matches(idx, "\"cat\"") == 0);
      CHECK(Matches(idx, "\"oth\"") == 10);
    }
    SUBCASE("an index of another format, older or newer, is emptied and built again") {
      for (int version : {kIndexVersion - 1, kIndexVersion + 1}) {
        CAPTURE(version);
        {
          Db raw(idx, Db::Mode::kReadWrite);
          raw.Exec("PRAGMA user_version = " + std::to_string(version));
        }
        EventIndex reopened(idx, s.db_path());
        CHECK(reopened.Upto() == 0);
        CHECK(Matches(idx, "\"cat\"") == 0);
        CHECK(reopened.CatchUp() == 3100);
        CHECK(Matches(idx, "\"cat\"") == 3000);
        Db raw(idx, Db::Mode::kReadOnly);
        CHECK(raw.QueryInt("PRAGMA user_version") == kIndexVersion);
      }
    }
  }

  TEST_CASE("event_index: readers attach it and read how far it is") {
    TestStore s;
    AddEvents(*s.db, 0, 5, "hello");
    EventIndex index(s.dir / "index.db", s.db_path());
    auto reader = OpenReadConnection(s.db_path());
    AttachIndex(*reader, s.dir / "index.db");
    CHECK(IndexedUpto(*reader) == 0);
    index.CatchUp();
    CHECK(IndexedUpto(*reader) == 5);
    CHECK(reader->QueryInt("SELECT count(*) FROM idx.event_fts WHERE event_fts MATCH '\"ell\"' ") ==
          5);
  }

  TEST_CASE("event_index: message_fts holds the messages, event_fts the others, event_cjk every CJK letter and pair") {
    TestStore s;
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    auto ins = [&](std::int64_t seq, const char* kind, const char* text) {
      s.db->Prepare(
              "INSERT INTO event(seq, id, source, ts, role, kind, text, file_id, line) "
              "VALUES (?, ?, 't', 1, 'user', ?, ?, 1, 1)")
          .Bind(1, seq)
          .Bind(2, "t:" + std::to_string(seq))
          .Bind(3, kind)
          .Bind(4, text)
          .Run();
    };
    ins(1, "message", "deploy the catalog service");
    ins(2, "tool_call", "grep catalog");
    ins(3, "message", "部署到生产");
    ins(4, "tool_result", "catalog.json");
    ins(5, "meta", "catalog reloaded");
    EventIndex index(s.dir / "index.db", s.db_path());
    CHECK(index.CatchUp() == 5);
    Db idx(s.dir / "index.db", Db::Mode::kReadOnly);
    CHECK(idx.QueryInt("SELECT rowid FROM message_fts WHERE message_fts MATCH '\"atalo\"'") == 1);
    // Each event in one of the two (format 3): a search of tool events reads
    // no message in event_fts.
    CHECK(idx.QueryInt("SELECT count(*) FROM event_fts WHERE event_fts MATCH '\"ata\"'") == 3);
    CHECK(idx.QueryInt("SELECT count(*) FROM event_fts") == 3);
    CHECK(idx.QueryInt("SELECT sum(rowid) FROM event_fts") == 2 + 4 + 5);
    CHECK(idx.QueryInt("SELECT sum(rowid) FROM message_fts") == 1 + 3);
    CHECK(idx.QueryInt("SELECT rowid FROM event_cjk WHERE event_cjk MATCH '\"署到\"'") == 3);
    CHECK(idx.QueryInt("SELECT rowid FROM event_cjk WHERE event_cjk MATCH '产'") == 3);
    CHECK(index.Check() == "");
  }

  TEST_CASE("event_index: a damaged index is found by Check and built again from the events") {
    TestStore s;
    AddEvents(*s.db, 0, 2000, "catalog");
    const std::string path = s.dir / "index.db";
    EventIndex index(path, s.db_path());
    index.CatchUp(16 << 10);
    REQUIRE(index.Check() == "");
    {
      // What a torn write or a bug of SQLite leaves: a damaged leaf.
      Db raw(path, Db::Mode::kReadWrite);
      raw.Exec("UPDATE event_fts_data SET block = zeroblob(length(block)) WHERE id > 10");
    }
    std::string problem = index.Check();
    CHECK(problem.find("event_fts") != std::string::npos);
    index.Rebuild();
    CHECK(index.Upto() == 0);
    CHECK(index.CatchUp() == 2000);
    CHECK(index.Check() == "");
    CHECK(Matches(path, "\"cat\" AND \"ata\" AND \"log\"") == 2000);
  }

  TEST_CASE("event_index: a damaged table is met by CatchUp as corruption (IsCorruption)") {
    TestStore s;
    AddEvents(*s.db, 0, 100, "catalog");
    const std::string path = s.dir / "index.db";
    EventIndex index(path, s.db_path());
    index.CatchUp();
    {
      Db raw(path, Db::Mode::kReadWrite);
      raw.Exec("UPDATE message_fts_data SET block = substr(block, 1, 6) WHERE id = 10");  // structure
      raw.Exec("UPDATE event_fts_data SET block = substr(block, 1, 6) WHERE id = 10");
    }
    AddEvents(*s.db, 100, 200, "deploy");
    bool corrupt = false;
    try {
      index.CatchUp();
    } catch (const SqliteError& e) {
      corrupt = IsCorruption(e);
    }
    CHECK(corrupt);
    index.Rebuild();
    CHECK(index.CatchUp() == 200);
    CHECK(index.Check() == "");
  }

  TEST_CASE("event_index: a file that is no database is put aside and made anew") {
    TestStore s;
    AddEvents(*s.db, 0, 10, "catalog");
    const std::string path = s.dir / "index.db";
    WriteFile(path, std::string(8192, 'x'));
    EventIndex index(path, s.db_path());
    CHECK(index.CatchUp() == 10);
    CHECK(index.Check() == "");
    CHECK(Exists(path + ".broken"));
  }
}
