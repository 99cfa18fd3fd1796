// SPDX-License-Identifier: MIT
// A hub's access tokens (core/hub/tokens.hpp): made once, kept as their
// SHA-256 only, bound to a name, revocable, one active per name.
#include "core/hub/tokens.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>

#include "core/c/sqlite.hpp"
#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/store/schema.hpp"
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

// A store holding one event (t:1) to cite or forget.
void OneEvent(TestStore& s) {
  s.db->Exec(
      "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
      "VALUES (1, 't', 'k', 1, '/x', 't/k', 0);"
      "INSERT INTO event(id, source, session, ts, role, kind, text, file_id, line) VALUES "
      "('t:1', 't', 't:s', 100, 'user', 'message', 'a line to cite', 1, 1)");
}

RememberInput Citing(const std::string& event) {
  RememberInput in;
  in.kind = "knowledge";
  in.text = "what the line says";
  in.confidence = 0.9;
  in.author = "user@x";
  in.sources = {{event, std::nullopt}};
  return in;
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

  TEST_CASE("tokens: --device renames a store until it writes an entry or a tombstone, or syncs") {
    auto name_as = [](TestStore& t, const char* name, const char* connected = "") {
      return RenameStore(*t.db, name, connected, true);
    };
    TestStore s;
    OneEvent(s);
    for (const char* bad : {"", "Laptop", "a b", "../x"})
      CHECK_MESSAGE(CodeOf([&] { name_as(s, bad); }) == OpError::Code::kInvalidArgument, bad);
    const std::string before = StoreNameOf(*s.db);  // ORIGIN_DEVICE or the host name
    CHECK_FALSE(GetSetting(*s.db, "store.name"));
    // A check only (before the hub is asked) writes nothing.
    CHECK(RenameStore(*s.db, "desk", "", false) == before);
    CHECK(StoreNameOf(*s.db) == before);
    CHECK_FALSE(GetSetting(*s.db, "store.name"));
    // Its own name is fixed: ORIGIN_DEVICE or the host name count no more.
    CHECK(name_as(s, before.c_str()) == before);
    CHECK(GetSetting(*s.db, "store.name") == before);
    CHECK(name_as(s, "desk") == before);
    CHECK(StoreNameOf(*s.db) == "desk");
    CHECK(name_as(s, "laptop") == "desk");  // nothing written yet: again
    CHECK(name_as(s, "laptop") == "laptop");
    CHECK_FALSE(s.db->InTransaction());

    // An entry derived from a memory file is never sent: it fixes no name.
    const std::string imported = Remember(*s.db, s.clock, "laptop", Citing("t:1")).id;
    s.db->Prepare("INSERT INTO imported_entry(entry_id, event_id) VALUES (?, 't:1')")
        .Bind(1, imported)
        .Run();
    CHECK(name_as(s, "box") == "laptop");
    CHECK(StoreNameOf(*s.db) == "box");

    // An entry of its own does; its own name is still taken.
    RememberInput own = Citing("t:1");
    own.text = "what the line says, in the store's own words";
    REQUIRE_FALSE(Remember(*s.db, s.clock, "box", own).duplicate);
    CHECK(CodeOf([&] { name_as(s, "laptop"); }) == OpError::Code::kConflict);
    CHECK(CodeOf([&] { RenameStore(*s.db, "laptop", "", false); }) == OpError::Code::kConflict);
    CHECK(StoreNameOf(*s.db) == "box");
    CHECK(name_as(s, "box") == "box");

    // So does a tombstone.
    TestStore t;
    OneEvent(t);
    name_as(t, "desk");
    TombstoneInput forget;
    forget.target = "t:1";
    forget.reason = "not for the hub";
    forget.author = "user@desk";
    REQUIRE(Forget(*t.db, t.clock, "desk", forget).tombstone);
    CHECK(CodeOf([&] { name_as(t, "laptop"); }) == OpError::Code::kConflict);
    CHECK(StoreNameOf(*t.db) == "desk");
    CHECK_FALSE(t.db->InTransaction());

    // A store connected to a hub keeps its name, and so does one that has
    // synced, or tried to, with one (its mirrors may be there).
    TestStore u;
    name_as(u, "desk");
    CHECK(CodeOf([&] { name_as(u, "laptop", "https://hub.example.net"); }) ==
          OpError::Code::kConflict);
    CHECK(name_as(u, "desk", "https://hub.example.net") == "desk");
    for (const char* key : {"hub.last_sync", "hub.last_error", "hub.push https://hub.example.net",
                            "hub.pull https://hub.example.net", "relay.file claude-code a.jsonl"}) {
      TestStore v;
      name_as(v, "desk");
      PutSetting(*v.db, key, "1");
      CHECK_MESSAGE(CodeOf([&] { name_as(v, "laptop"); }) == OpError::Code::kConflict, key);
      CHECK(StoreNameOf(*v.db) == "desk");
    }
  }
}
