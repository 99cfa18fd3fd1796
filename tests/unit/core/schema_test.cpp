// SPDX-License-Identifier: MIT
// Migrations through PRAGMA user_version (spec: Migrations).
#include "core/store/schema.hpp"

#include <doctest/doctest.h>

#include "core/c/fd.hpp"
#include "core/entries/entries.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {
std::string Fixture(const char* name) {
  return ReadAll(std::string(ORIGIN_SOURCE_DIR) + "/tests/fixtures/schema/" + name);
}
int Version(Db& db) { return static_cast<int>(db.QueryInt("PRAGMA user_version")); }
// A store made by an older Origin: `sql` run on a new file.
void MakeStore(const std::string& path, const std::string& sql) {
  Db old(path, Db::Mode::kReadWrite);
  RegisterFunctions(old);
  old.Exec(sql);
}
constexpr const char* kOneFile =
    "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
    "VALUES (1, 't', 'k', 1, '/x', 't/k', 0);";
}  // namespace

TEST_SUITE("schema") {
  TEST_CASE("schema: a new store gets the current schema and the latest version") {
    ScopedTempDir d;
    auto db = OpenWriteConnection(d / "origin.db");
    CHECK(Version(*db) == kSchemaVersion);
    Stmt st(db->get(), "PRAGMA journal_mode");
    REQUIRE(st.Step());
    CHECK(st.Text(0) == "wal");
    CHECK(db->QueryInt("PRAGMA busy_timeout") == 10000);
    CHECK(db->QueryInt("PRAGMA journal_size_limit") == 64 * 1024 * 1024);
  }

  TEST_CASE(
      "schema: a version 1 store built from its fixture upgrades to the schema of a new store") {
    ScopedTempDir d;
    {
      Db old(d / "old.db", Db::Mode::kReadWrite);
      RegisterFunctions(old);
      old.Exec(Fixture("v1.sql"));  // a store that records no version: version 1
      CHECK(Version(old) == 0);
    }
    auto upgraded = OpenWriteConnection(d / "old.db");
    auto fresh = OpenWriteConnection(d / "new.db");
    CHECK(Version(*upgraded) == kSchemaVersion);
    CHECK(DumpSchema(*upgraded) == DumpSchema(*fresh));
  }

  TEST_CASE(
      "schema: a store of version 3 as users have it (with what every open made) upgrades to the "
      "schema of a new store, its data kept") {
    ScopedTempDir d;
    MakeStore(d / "old.db", Fixture("v3.sql") + kOneFile +
                                "INSERT INTO event(id, source, ts, project, role, kind, text, "
                                "file_id, line) VALUES ('t:1', 't', 5, 'p', 'user', 'message', "
                                "'hello', 1, 1)");
    auto upgraded = OpenWriteConnection(d / "old.db");
    auto fresh = OpenWriteConnection(d / "new.db");
    CHECK(Version(*upgraded) == kSchemaVersion);
    CHECK(DumpSchema(*upgraded) == DumpSchema(*fresh));
    CHECK(upgraded->QueryInt("SELECT count(*) FROM event") == 1);
    CHECK(upgraded->QueryInt("SELECT count(*) FROM scope_block") == 2);  // project:p, source:t
    CHECK(upgraded->QueryInt("SELECT count(*) FROM request_key") == 0);
  }

  TEST_CASE("schema: a new store runs every migration after its base, and an open changes nothing") {
    ScopedTempDir d;
    std::string first;
    {
      auto db = OpenWriteConnection(d / "s.db");
      first = DumpSchema(*db);
    }
    MakeStore(d / "base.db", std::string(kSchemaSql) + "PRAGMA user_version = " +
                                 std::to_string(kBaseSchemaVersion));
    CHECK(DumpSchema(*OpenWriteConnection(d / "base.db")) == first);
    auto again = OpenWriteConnection(d / "s.db");
    CHECK(DumpSchema(*again) == first);
    CHECK(first.find("TABLE request_key") != std::string::npos);
    CHECK(first.find("entry_fts") != std::string::npos);
  }

  TEST_CASE(
      "schema: migration 5 fills scope_block from the events of a store older than it (in the "
      "blocks of 256 arrivals of migration 15)") {
    ScopedTempDir d;
    MakeStore(d / "old.db",
              Fixture("v1.sql") + kOneFile +
                  "INSERT INTO event(seq, id, source, ts, project, role, kind, text, file_id, "
                  "line) VALUES (1, 't:1', 't', 5, 'p', 'user', 'message', 'hello', 1, 1),"
                  "(5000, 't:2', 't', 6, NULL, 'user', 'message', 'again', 1, 2)");
    auto db = OpenWriteConnection(d / "old.db");
    CHECK(db->QueryInt("SELECT count(*) FROM scope_block") == 3);  // project:p 0, source:t 0 and 19
    CHECK(db->QueryInt(
              "SELECT count(*) FROM scope_block WHERE scope = 'source:t' AND block = 19") == 1);
  }

  TEST_CASE(
      "schema: migration 15 lists scope_block's blocks of 256 arrivals, by the events' sources, "
      "their cwds' projects and their sessions' projects, and its trigger keeps them") {
    ScopedTempDir d;
    const std::string path = d / "s.db";
    const char* insert =
        "INSERT INTO event(seq, id, source, session, ts, project, cwd, role, kind, text, file_id, "
        "line) VALUES (?, ?, 't', 's', 5, ?, ?, 'user', 'message', 'hi', 1, ?)";
    auto add = [&](Db& db, int seq, const char* project, const char* cwd) {
      db.Prepare(insert)
          .Bind(1, seq)
          .Bind(2, "t:" + std::to_string(seq))
          .Bind(3, project)
          .Bind(4, cwd)
          .Bind(5, seq)
          .Run();
    };
    {
      auto old = OpenWriteConnection(path, Migrations(), kScopeBlocksVersion - 1);
      old->Exec(kOneFile);
      add(*old, 1, "app", "/w/app");
      add(*old, 300, "src", "/w/app/src");  // the session's project there: app
      add(*old, 5000, "other", "/w/other");
      old->Exec(
          "INSERT INTO session_cwd(session, cwd, first_ts, project) VALUES "
          "('s', '/w/app', 5, 'app'), ('s', '/w/app/src', 5, 'app'), "
          "('s', '/w/other', 5, 'other')");
      CHECK(old->QueryInt("SELECT count(*) FROM scope_block WHERE block = 1") == 2);  // 4,096s
    }
    auto db = OpenWriteConnection(path);
    CHECK(Version(*db) == kSchemaVersion);
    auto blocks = [&](const char* scope) {
      std::vector<std::int64_t> out;
      auto st = db->Prepare("SELECT block FROM scope_block WHERE scope = ? ORDER BY block");
      st.Bind(1, scope);
      while (st.Step()) out.push_back(st.Int(0));
      return out;
    };
    CHECK(blocks("source:t") == std::vector<std::int64_t>{0, 1, 19});
    CHECK(blocks("project:app") == std::vector<std::int64_t>{0, 1});
    CHECK(blocks("project:src") == std::vector<std::int64_t>{1});
    CHECK(blocks("project:other") == std::vector<std::int64_t>{19});
    add(*db, 9000, "late", "/w/late");  // the trigger, at 256 arrivals a block
    CHECK(blocks("project:late") == std::vector<std::int64_t>{9000 >> kScopeBlockBits});
    CHECK(blocks("source:t") == std::vector<std::int64_t>{0, 1, 19, 35});
  }

  TEST_CASE(
      "schema: migration 16 gives the erasures made before this store's name as their "
      "origin, and logs those done, so that they replicate") {
    ScopedTempDir d;
    const std::string path = d / "origin.db";
    {
      auto old = OpenWriteConnection(path, Migrations(), kErasureOriginVersion - 1);
      old->Exec(
          "INSERT INTO setting(key, value) VALUES ('store.name', 'laptop');"
          "INSERT INTO erasure(id, forget, reason, author, created_at, done_at, lines, events, "
          "entries) VALUES ('ers_a', 'tmb_a', 'a key', 'user@laptop', 5, 6, 1, 1, 0), "
          "('ers_b', 'tmb_b', 'a key', 'user@laptop', 7, NULL, 1, 1, 0)");
    }
    auto db = OpenWriteConnection(path);
    CHECK(Version(*db) == kSchemaVersion);
    CHECK(db->QueryInt("SELECT count(*) FROM erasure WHERE origin = 'laptop' AND planned = 1") ==
          2);
    // Only the one done is logged: a pending one is logged when it is done.
    CHECK(db->QueryInt("SELECT count(*) FROM change_log WHERE kind = 'erasure' AND id = 'ers_a' "
                       "AND origin = 'laptop' AND at = 5") == 1);
    CHECK(db->QueryInt("SELECT count(*) FROM change_log WHERE kind = 'erasure'") == 1);
  }

  TEST_CASE(
      "schema: migration 3 takes the event indexes out of origin.db, so that a corrupt one no "
      "longer stops INSERT INTO event") {
    ScopedTempDir d;
    auto insert = [](Db& db, int i) {
      db.Prepare(
            "INSERT INTO event(id, source, ts, role, kind, text, file_id, line) "
            "VALUES (?, 't', 1, 'user', 'message', 'deploy the catalog', 1, ?)")
          .Bind(1, "t:" + std::to_string(i))
          .Bind(2, i)
          .Run();
    };
    {
      Db old(d / "old.db", Db::Mode::kReadWrite);
      RegisterFunctions(old);
      old.Exec(Fixture("v1.sql"));
      old.Exec("PRAGMA user_version = 2");
      old.Exec("INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
               "VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
      insert(old, 1);
      // What SQLite 3.40's negative 'merge' left behind in stores of version 2.
      old.Exec("UPDATE message_fts_data SET block = substr(block, 1, 6) WHERE id = 10");
      CHECK_THROWS_WITH(insert(old, 2), doctest::Contains("malformed"));
    }
    auto db = OpenWriteConnection(d / "old.db");
    CHECK(Version(*db) == kSchemaVersion);
    CHECK(db->QueryInt("SELECT count(*) FROM sqlite_master WHERE name IN ('message_fts', "
                       "'event_cjk', 'event_message')") == 0);
    insert(*db, 2);
    CHECK(db->QueryInt("SELECT count(*) FROM event") == 2);
    CHECK(db->QueryInt("SELECT max_ts FROM event_block WHERE block = 0") == 1);
  }

  TEST_CASE("schema: migrations run in order, each in its own transaction with its version") {
    ScopedTempDir d;
    {
      Db old(d / "s.db", Db::Mode::kReadWrite);
      RegisterFunctions(old);
      old.Exec(Fixture("v1.sql"));
      old.Exec("INSERT INTO setting(key, value) VALUES ('k', 'v')");
    }
    std::vector<Migration> ms = {
        {2, "add a column", [](Db& db) { db.Exec("ALTER TABLE setting ADD COLUMN note TEXT"); }},
        {3, "fill it", [](Db& db) { db.Exec("UPDATE setting SET note = 'filled'"); }},
        {4, "breaks", [](Db& db) {
           db.Exec("UPDATE setting SET note = 'half done'");
           db.Exec("SELECT * FROM no_such_table");
         }}};
    SUBCASE("up to a target") {
      auto db = OpenWriteConnection(d / "s.db", ms, 3);
      CHECK(Version(*db) == 3);
      Stmt st(db->get(), "SELECT note FROM setting");
      REQUIRE(st.Step());
      CHECK(st.Text(0) == "filled");
    }
    SUBCASE("a failing migration is rolled back with its version, and names itself") {
      CHECK_THROWS_WITH(OpenWriteConnection(d / "s.db", ms, 4),
                        doctest::Contains("migration 4 (breaks) failed"));
      Db db(d / "s.db", Db::Mode::kReadWrite);
      CHECK(Version(db) == 3);  // what came before it stays
      Stmt st(db.get(), "SELECT note FROM setting");
      REQUIRE(st.Step());
      CHECK(st.Text(0) == "filled");
    }
  }

  TEST_CASE("schema: a store of a newer Origin is refused before anything changes") {
    ScopedTempDir d;
    {
      auto db = OpenWriteConnection(d / "n.db");
      db->Exec("PRAGMA user_version = 99");
    }
    std::string before = ReadAll(d / "n.db");
    CHECK_THROWS_WITH(OpenWriteConnection(d / "n.db"), doctest::Contains("upgrade Origin"));
    Db db(d / "n.db", Db::Mode::kReadWrite);
    CHECK(Version(db) == 99);
  }

  TEST_CASE("schema: events are append-only (invariant 3)") {
    TestStore s;
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0);"
        "INSERT INTO event(id, source, ts, role, kind, text, file_id, line) "
        "VALUES ('t:1', 't', 5, 'user', 'message', 'hello world', 1, 1)");
    CHECK_THROWS_WITH(s.db->Exec("UPDATE event SET text = 'changed'"),
                      doctest::Contains("append-only"));
    CHECK_THROWS_WITH(s.db->Exec("DELETE FROM event"), doctest::Contains("append-only"));
  }

  TEST_CASE("schema: the trigger keeps event_block as events arrive") {
    TestStore s;
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    auto ins = [&](std::int64_t seq, const char* kind, std::int64_t ts, const char* text) {
      s.db->Prepare(
              "INSERT INTO event(seq, id, source, ts, role, kind, text, file_id, line) "
              "VALUES (?, ?, 't', ?, 'user', ?, ?, 1, 1)")
          .Bind(1, seq)
          .Bind(2, "t:" + std::to_string(seq))
          .Bind(3, ts)
          .Bind(4, kind)
          .Bind(5, text)
          .Run();
    };
    ins(1, "message", 100, "deploy the catalog service");
    ins(2, "tool_call", 300, "grep catalog");
    ins(3, "message", 200, "部署到生产");
    ins(4096, "message", 150, "later block");
    ins(4097, "message", 120, "same block");
    CHECK(s.db->QueryInt("SELECT max_ts FROM event_block WHERE block = 0") == 300);
    CHECK(s.db->QueryInt("SELECT max_ts FROM event_block WHERE block = 1") == 150);
    CHECK(s.db->QueryInt("SELECT max_ts_upto FROM event_block WHERE block = 1") == 300);
  }

  TEST_CASE(
      "schema: migration 9 lets through one update of events and entries, an erasure's "
      "(invariant 3's recorded exception), and nothing else") {
    ScopedTempDir d;
    const std::string path = d / "s.db";
    {
      auto old = OpenWriteConnection(path, Migrations(), kErasureVersion - 1);
      old->Exec(std::string(kOneFile) +
                "INSERT INTO event(id, source, ts, role, kind, text, file_id, line) "
                "VALUES ('t:1', 't', 5, 'user', 'message', 'key sk-1', 1, 1);"
                "INSERT INTO entry(id, kind, text, confidence, author, root, created_at, origin) "
                "VALUES ('ent_1', 'memory', 'key sk-1', 1, 'u@d', 'ent_1', 1, 'd');"
                "INSERT INTO entry_source(entry_id, event_id, quote) VALUES ('ent_1', 't:1', 'sk-1')");
      // Before: no update at all.
      CHECK_THROWS_WITH(old->Exec("UPDATE event SET text = ''"), doctest::Contains("append-only"));
    }
    auto db = OpenWriteConnection(path);
    CHECK(Version(*db) == kSchemaVersion);
    // Not listed by an erasure: refused, as before.
    CHECK_THROWS_WITH(db->Exec("UPDATE event SET text = ''"), doctest::Contains("append-only"));
    CHECK_THROWS_WITH(db->Exec("UPDATE entry SET text = ''"), doctest::Contains("supersession"));
    CHECK_THROWS_WITH(db->Exec("UPDATE entry_source SET quote = NULL"),
                      doctest::Contains("append-only"));
    db->Exec("INSERT INTO erasure(id, forget, reason, author, created_at, lines, events, entries) "
             "VALUES ('ers_1', 'tmb_1', 'leaked key', 'u@d', 1, 1, 1, 1);"
             "INSERT INTO erased_event(seq, erasure) SELECT seq, 1 FROM event;"
             "INSERT INTO erased_entry(seq, erasure) SELECT seq, 1 FROM entry");
    // Listed: only the text may go, and only to nothing.
    CHECK_THROWS_WITH(db->Exec("UPDATE event SET text = 'other'"), doctest::Contains("append-only"));
    CHECK_THROWS_WITH(db->Exec("UPDATE event SET ts = 6"), doctest::Contains("append-only"));
    CHECK_THROWS_WITH(db->Exec("UPDATE event SET text = '', line = 2"),
                      doctest::Contains("append-only"));
    CHECK_THROWS_WITH(db->Exec("UPDATE entry SET confidence = 0.5"),
                      doctest::Contains("supersession"));
    CHECK_THROWS_WITH(db->Exec("DELETE FROM event"), doctest::Contains("append-only"));
    db->Exec("UPDATE event SET text = ''");
    db->Exec("UPDATE entry SET text = ''");
    db->Exec("UPDATE entry_source SET quote = NULL");
    CHECK(db->QueryInt("SELECT count(*) FROM event WHERE text = '' AND id = 't:1' AND ts = 5") == 1);
    CHECK(db->QueryInt("SELECT count(*) FROM entry_source WHERE quote IS NULL") == 1);
    CHECK_THROWS_WITH(db->Exec("DELETE FROM erasure"), doctest::Contains("never deleted"));
  }

  TEST_CASE(
      "schema: migration 13 leaves entry_fts to the insert of an entry, and the entries indexed "
      "before it stay found") {
    ScopedTempDir d;
    const std::string path = d / "s.db";
    const char* insert =
        "INSERT INTO entry(id, kind, text, confidence, author, root, created_at, origin) "
        "VALUES (?, 'memory', ?, 1, 'u@d', ?, 1, 'd')";
    {
      auto old = OpenWriteConnection(path, Migrations(), kEntryFtsInsertVersion - 1);
      old->Prepare(insert)
          .Bind(1, "ent_1")
          .Bind(2, "indexed by the trigger")
          .Bind(3, "ent_1")
          .Run();
      CHECK(old->QueryInt("SELECT count(*) FROM entry_fts WHERE entry_fts MATCH 'trigger'") == 1);
    }
    auto db = OpenWriteConnection(path);
    CHECK(Version(*db) == kSchemaVersion);
    CHECK(db->QueryInt("SELECT count(*) FROM entry_fts WHERE entry_fts MATCH 'trigger'") == 1);
    // Compared with the entries themselves (rank 1): they agree.
    const char* check = "INSERT INTO entry_fts(entry_fts, rank) VALUES ('integrity-check', 1)";
    db->Exec(check);
    // The trigger now writes change_log alone (core/entries writes entry_fts).
    db->Prepare(insert).Bind(1, "ent_2").Bind(2, "inserted by hand").Bind(3, "ent_2").Run();
    CHECK(db->QueryInt("SELECT count(*) FROM change_log WHERE kind = 'entry'") == 2);
    CHECK(db->QueryInt("SELECT count(*) FROM entry_fts WHERE entry_fts MATCH 'hand'") == 0);
    CHECK_THROWS(db->Exec(check));
    IndexEntriesAfter(*db, 1);
    CHECK(db->QueryInt("SELECT count(*) FROM entry_fts WHERE entry_fts MATCH 'hand'") == 1);
    db->Exec(check);
  }
}
