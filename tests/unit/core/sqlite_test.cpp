// SPDX-License-Identifier: MIT
// The RAII layer over SQLite (core/c/sqlite): transactions that nest as
// savepoints, cached statements lent out as leases.
#include "core/c/sqlite.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <set>
#include <stdexcept>
#include <vector>

#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {
std::int64_t Rows(Db& db) { return db.QueryInt("SELECT count(*) FROM t"); }
void Add(Db& db, int v) { db.Prepare("INSERT INTO t(v) VALUES (?)").Bind(1, v).Run(); }
}  // namespace

TEST_SUITE("sqlite") {
  TEST_CASE("sqlite: QuickCheck leaves out SQLite 3.40's false NULL reports") {
    ScopedTempDir d;
    auto db = std::make_unique<Db>(d / "o.db", Db::Mode::kReadWrite);
    // A NOT NULL column of a WITHOUT ROWID table, outside its primary key
    // (as tombstone_effect.item_kind): 3.40's quick_check reports it NULL.
    db->Exec(
        "CREATE TABLE t (a TEXT NOT NULL, k TEXT NOT NULL, b TEXT NOT NULL, PRIMARY KEY (a, b)) "
        "WITHOUT ROWID; INSERT INTO t VALUES ('1', 'x', 'd');");
    CHECK(QuickCheck(*db, "main", 20).empty());
    // What SQLite itself says (3.40: the false report; a fixed SQLite: ok).
    StmtLease st = db->Prepare("PRAGMA quick_check");
    REQUIRE(st.Step());
    const std::string raw(st.Text(0));
    CHECK((raw == "ok" || raw == "NULL value in t.k"));
  }

  TEST_CASE("sqlite: a transaction inside another is a savepoint of it") {
    ScopedTempDir d;
    Db db(d / "t.db", Db::Mode::kReadWrite);
    db.Exec("CREATE TABLE t(v INTEGER)");
    Transaction outer(db);
    CHECK_FALSE(outer.nested());
    Add(db, 1);
    SUBCASE("a committed inner transaction stands or falls with the outer one") {
      {
        Transaction inner(db);
        CHECK(inner.nested());
        Add(db, 2);
        inner.Commit();
      }
      CHECK(db.InTransaction());  // the release left the outer one open
      CHECK(Rows(db) == 2);
      outer.Commit();
      CHECK_FALSE(db.InTransaction());
      CHECK(Rows(db) == 2);
    }
    SUBCASE("an inner transaction not committed undoes only its own writes") {
      {
        Transaction inner(db);
        Add(db, 2);
        {
          Transaction innermost(db);
          Add(db, 3);
          innermost.Commit();
        }
        CHECK(Rows(db) == 3);
      }
      CHECK(db.InTransaction());
      CHECK(Rows(db) == 1);
      Add(db, 4);
      outer.Commit();
      CHECK(Rows(db) == 2);
    }
    SUBCASE("an exception unwinds through both") {
      CHECK_THROWS_AS(
          [&] {
            Transaction inner(db);
            Add(db, 2);
            throw std::runtime_error("fails");
          }(),
          std::runtime_error);
      CHECK(Rows(db) == 1);
    }
  }

  TEST_CASE("sqlite: an outer transaction that rolls back undoes what an inner one committed") {
    ScopedTempDir d;
    Db db(d / "t.db", Db::Mode::kReadWrite);
    db.Exec("CREATE TABLE t(v INTEGER)");
    {
      Transaction outer(db);
      Add(db, 1);
      Transaction inner(db);
      Add(db, 2);
      inner.Commit();
    }
    CHECK_FALSE(db.InTransaction());
    CHECK(Rows(db) == 0);
  }

  TEST_CASE("sqlite: a statement lease ends its read snapshot when it goes out of scope") {
    ScopedTempDir d;
    Db writer(d / "t.db", Db::Mode::kReadWrite);
    writer.Exec("PRAGMA journal_mode = WAL; CREATE TABLE t(v INTEGER)");
    Add(writer, 1);
    Add(writer, 2);
    Db reader(d / "t.db", Db::Mode::kReadOnly);
    const char* kAll = "SELECT v FROM t";
    {
      auto st = reader.Prepare(kAll);
      REQUIRE(st.Step());  // one row read of two: its read transaction stays open
      CHECK(sqlite3_stmt_busy(st.get()) != 0);
      Add(writer, 3);
      // The same connection still reads the snapshot the statement holds.
      CHECK(Rows(reader) == 2);
    }
    // The lease reset it: the next read sees what the writer committed.
    CHECK(Rows(reader) == 3);
    auto again = reader.Prepare(kAll);
    CHECK(sqlite3_stmt_busy(again.get()) == 0);
    CHECK(sqlite3_stmt_busy(reader.Prepare(kAll).get()) == 0);  // a second lease: its own
  }

  TEST_CASE("sqlite: a read snapshot shows one state of the store while it lives, and only its own") {
    ScopedTempDir d;
    Db writer(d / "t.db", Db::Mode::kReadWrite);
    writer.Exec("PRAGMA journal_mode = WAL; CREATE TABLE t(v INTEGER)");
    Add(writer, 1);
    Db reader(d / "t.db", Db::Mode::kReadOnly);
    {
      ReadSnapshot snapshot(reader);
      CHECK(reader.InTransaction());
      CHECK(Rows(reader) == 1);
      Add(writer, 2);
      CHECK(Rows(reader) == 1);  // statement after statement, the same state
      {
        ReadSnapshot inner(reader);  // within one already: that one's
        CHECK(Rows(reader) == 1);
      }
      CHECK(reader.InTransaction());
      CHECK(Rows(reader) == 1);
    }
    CHECK(!reader.InTransaction());
    CHECK(Rows(reader) == 2);
    {
      ReadSnapshot none(reader, /*wanted=*/false);
      CHECK(!reader.InTransaction());
    }
    // Ended however the read ends.
    try {
      ReadSnapshot snapshot(reader);
      Rows(reader);
      throw std::runtime_error("the read failed");
    } catch (const std::runtime_error&) {
    }
    CHECK(!reader.InTransaction());
  }

  TEST_CASE("sqlite: two leases of one SQL at once do not reset each other") {
    ScopedTempDir d;
    Db db(d / "t.db", Db::Mode::kReadWrite);
    db.Exec("CREATE TABLE t(v INTEGER)");
    for (int v : {1, 2, 3}) Add(db, v);
    const char* kAfter = "SELECT v FROM t WHERE v > ? ORDER BY v";
    std::vector<std::int64_t> pairs;
    auto outer = db.Prepare(kAfter);
    outer.Bind(1, 0);
    while (outer.Step()) {
      auto inner = db.Prepare(kAfter);  // leased already: a statement of its own
      inner.Bind(1, outer.Int(0));
      while (inner.Step()) pairs.push_back(outer.Int(0) * 10 + inner.Int(0));
    }
    CHECK(pairs == std::vector<std::int64_t>{12, 13, 23});
  }

  TEST_CASE("sqlite: statements of one SQL leased at once are kept for the next leases at once") {
    // A search reads each chain of the store with a statement of its own
    // (core/query/gather.cpp): the second and later are kept too, not
    // prepared again for every search.
    ScopedTempDir d;
    Db db(d / "t.db", Db::Mode::kReadWrite);
    db.Exec("CREATE TABLE t(v INTEGER)");
    const char* kAll = "SELECT v FROM t";
    std::set<sqlite3_stmt*> first, again;
    {
      std::vector<StmtLease> leases;
      for (int i = 0; i < 3; ++i) leases.push_back(db.Prepare(kAll));
      for (const StmtLease& l : leases) first.insert(l.get());
    }
    {
      std::vector<StmtLease> leases;
      for (int i = 0; i < 3; ++i) leases.push_back(db.Prepare(kAll));
      for (const StmtLease& l : leases) again.insert(l.get());
    }
    CHECK(first.size() == 3);
    CHECK(again == first);
  }
}
