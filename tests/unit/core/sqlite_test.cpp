// SPDX-License-Identifier: MIT
// The RAII layer over SQLite (core/c/sqlite): transactions that nest as
// savepoints.
#include "core/c/sqlite.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {
std::int64_t Rows(Db& db) { return db.QueryInt("SELECT count(*) FROM t"); }
void Add(Db& db, int v) { db.Prepare("INSERT INTO t(v) VALUES (?)").Bind(1, v).Run(); }
}  // namespace

TEST_SUITE("sqlite") {
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
}
