// SPDX-License-Identifier: MIT
// Request keys (core/store/request_keys): a retried write gets its first
// answer for a day and is not done again.
#include "core/store/request_keys.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

#include "core/util/op_error.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

struct Fixture {
  TestStore s;
  int runs = 0;
  Fixture() { s.db->Exec("CREATE TABLE written(v TEXT)"); }
  // An operation that writes in its own transaction, as Remember does.
  std::string Op(const std::string& key, const std::string& op = "remember") {
    return AnswerOnce(*s.db, s.clock, key, op, [&] {
      Transaction tx(*s.db);
      std::string answer = "answer " + std::to_string(++runs);
      s.db->Prepare("INSERT INTO written(v) VALUES (?)").Bind(1, answer).Run();
      tx.Commit();
      return answer;
    });
  }
  std::int64_t Written() { return s.db->QueryInt("SELECT count(*) FROM written"); }
  std::int64_t Keys() { return s.db->QueryInt("SELECT count(*) FROM request_key"); }
};

}  // namespace

TEST_SUITE("request_keys") {
  TEST_CASE("request_keys: a key seen within a day gets the first answer, and nothing runs again") {
    Fixture f;
    CHECK(f.Op("k1") == "answer 1");
    f.s.clock.Tick(kRequestKeyTtlMs - 1);
    CHECK(f.Op("k1") == "answer 1");
    CHECK(f.runs == 1);
    CHECK(f.Written() == 1);
    CHECK(f.Op("k2") == "answer 2");  // another key is another request
    CHECK(f.Written() == 2);
    CHECK_FALSE(f.s.db->InTransaction());
  }

  TEST_CASE("request_keys: a key older than a day is forgotten and purged") {
    Fixture f;
    f.Op("old");
    f.s.clock.Tick(kRequestKeyTtlMs);
    CHECK(f.Op("new") == "answer 2");
    CHECK(f.s.db->QueryInt("SELECT count(*) FROM request_key WHERE key = 'old'") == 0);
    CHECK(f.Op("old") == "answer 3");  // runs again
    CHECK(f.Keys() == 2);
  }

  TEST_CASE("request_keys: the same key for another operation is a conflict") {
    Fixture f;
    f.Op("k");
    CHECK(OpErrorOf([&] { f.Op("k", "forget"); }) == OpError::Code::kConflict);
    CHECK(f.runs == 1);
    CHECK_FALSE(f.s.db->InTransaction());
  }

  TEST_CASE("request_keys: no key runs the operation every time; a long key is refused") {
    Fixture f;
    f.Op("");
    f.Op("");
    CHECK(f.runs == 2);
    CHECK(f.Keys() == 0);
    CHECK(f.Op(std::string(kRequestKeyMaxBytes, 'k')) == "answer 3");
    CHECK(OpErrorOf([&] { f.Op(std::string(kRequestKeyMaxBytes + 1, 'k')); }) ==
          OpError::Code::kInvalidArgument);
    CHECK(f.runs == 3);
  }

  TEST_CASE("request_keys: an operation that throws leaves no key and no write") {
    Fixture f;
    CHECK_THROWS_AS(AnswerOnce(*f.s.db, f.s.clock, "k", "remember",
                               [&]() -> std::string {
                                 Transaction tx(*f.s.db);
                                 f.s.db->Exec("INSERT INTO written(v) VALUES ('half')");
                                 tx.Commit();  // a savepoint, released into AnswerOnce's
                                 throw OpError(OpError::Code::kNotFound, "no event");
                               }),
                    OpError);
    CHECK_FALSE(f.s.db->InTransaction());
    CHECK(f.Written() == 0);
    CHECK(f.Keys() == 0);
    CHECK(f.Op("k") == "answer 1");  // the retry runs
  }
}
