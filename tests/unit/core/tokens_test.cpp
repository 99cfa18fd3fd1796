// SPDX-License-Identifier: MIT
// A hub's access tokens (core/hub/tokens.hpp): made once, kept as their
// SHA-256 only, bound to a name, revocable, one active per name.
#include "core/hub/tokens.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>

#include "core/c/sqlite.hpp"
#include "core/util/hash.hpp"
#include "core/util/op_error.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

std::string FileBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// The code of the OpError `fn` throws (none: a failure of the test).
OpError::Code CodeOf(const std::function<void()>& fn) {
  std::optional<OpError::Code> code = OpErrorOf(fn);
  REQUIRE_MESSAGE(code.has_value(), "no OpError");
  return *code;
}

}  // namespace

TEST_SUITE("tokens") {
  TEST_CASE("tokens: a token is shown once, kept as its SHA-256, and names its device") {
    TestStore s;
    const std::string token = CreateToken(*s.db, s.clock.NowMs(), "laptop", "cli", "cli");
    CHECK(token.starts_with("ogn_"));
    CHECK(LooksLikeToken(token));
    CHECK(TokenOwner(*s.db, token) == std::optional<std::string>("laptop"));
    CHECK(s.db->QueryInt("SELECT count(*) FROM api_token WHERE hash = '" + Sha256Hex(token) +
                         "'") == 1);
    // Its text is nowhere in the store: only the digest was written.
    s.db->Exec("PRAGMA wal_checkpoint(TRUNCATE)");
    CHECK(FileBytes(s.db_path()).find(token.substr(4)) == std::string::npos);
    CHECK(FileBytes(s.db_path() + "-wal").find(token.substr(4)) == std::string::npos);
    // Another token is another secret.
    const std::string ci = CreateToken(*s.db, s.clock.NowMs(), "ci", "cli", "cli");
    CHECK(ci != token);
    CHECK(TokenOwner(*s.db, ci) == std::optional<std::string>("ci"));
    // Made and recorded by name in the audit log, never by text.
    CHECK(s.db->QueryInt("SELECT count(*) FROM audit_log WHERE action = 'token_create' AND "
                         "actor = 'cli' AND details = '{\"name\":\"laptop\"}'") == 1);
  }

  TEST_CASE("tokens: a wrong, malformed or revoked token names no one") {
    TestStore s;
    const std::string token = CreateToken(*s.db, s.clock.NowMs(), "laptop", "cli", "cli");
    std::string wrong = token;
    wrong.back() = wrong.back() == '0' ? '1' : '0';
    CHECK_FALSE(TokenOwner(*s.db, wrong));
    CHECK_FALSE(TokenOwner(*s.db, ""));
    CHECK_FALSE(TokenOwner(*s.db, token + "0"));
    CHECK_FALSE(TokenOwner(*s.db, "OGN_" + token.substr(4)));
    // The digest itself is not a token.
    CHECK_FALSE(TokenOwner(*s.db, Sha256Hex(token)));
    s.clock.Tick(1000);
    RevokeToken(*s.db, s.clock.NowMs(), "laptop", "cli", "cli");
    CHECK_FALSE(TokenOwner(*s.db, token));
    CHECK(CodeOf([&] { RevokeToken(*s.db, s.clock.NowMs(), "laptop", "cli", "cli"); }) ==
          OpError::Code::kNotFound);
    std::vector<TokenRow> rows = ListTokens(*s.db);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].name == "laptop");
    CHECK(rows[0].revoked_at == std::optional<std::int64_t>(s.clock.NowMs()));
  }

  TEST_CASE("tokens: one active token a name; a revoked one's name takes a new token") {
    TestStore s;
    const std::string first = CreateToken(*s.db, s.clock.NowMs(), "laptop", "cli", "cli");
    CHECK(CodeOf([&] { CreateToken(*s.db, s.clock.NowMs(), "laptop", "cli", "cli"); }) ==
          OpError::Code::kConflict);
    RevokeToken(*s.db, s.clock.NowMs(), "laptop", "cli", "cli");
    s.clock.Tick(1000);
    const std::string second = CreateToken(*s.db, s.clock.NowMs(), "laptop", "cli", "cli");
    CHECK_FALSE(TokenOwner(*s.db, first));
    CHECK(TokenOwner(*s.db, second) == std::optional<std::string>("laptop"));
    std::vector<TokenRow> rows = ListTokens(*s.db);
    REQUIRE(rows.size() == 2);
    CHECK_FALSE(rows[0].revoked_at);  // newest first
    CHECK(rows[1].revoked_at);
  }

  TEST_CASE("tokens: a token is named as a device is, and never deleted or changed back") {
    TestStore s;
    for (const char* bad : {"", "Laptop", "-x", ".x", "a b", "a/b", "../x", "é",
                            "0123456789012345678901234567890123456789012345678901234567890123"})
      CHECK_MESSAGE(CodeOf([&] { CreateToken(*s.db, s.clock.NowMs(), bad, "cli", "cli"); }) ==
                        OpError::Code::kInvalidArgument,
                    bad);
    for (const char* good : {"a", "ci", "my-laptop.home_1",
                             "012345678901234567890123456789012345678901234567890123456789012"})
      CHECK_MESSAGE(ValidDeviceName(good), good);
    CHECK_FALSE(s.db->InTransaction());
    CreateToken(*s.db, s.clock.NowMs(), "laptop", "cli", "cli");
    CHECK_THROWS_AS(s.db->Exec("DELETE FROM api_token"), SqliteError);
    CHECK_THROWS_AS(s.db->Exec("UPDATE api_token SET name = 'other'"), SqliteError);
    RevokeToken(*s.db, s.clock.NowMs(), "laptop", "cli", "cli");
    CHECK_THROWS_AS(s.db->Exec("UPDATE api_token SET revoked_at = NULL"), SqliteError);
  }
}
