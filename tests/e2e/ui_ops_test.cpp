// SPDX-License-Identifier: MIT
// The web UI's operations through the socket of a running daemon (issue
// 16): overview, turns, forget's preview digest and its conflict, and
// tombstone, the one answer with hidden text, also as `origin forgotten
// TMB_ID`; a forgotten event's text is in no other answer (invariant 2).
#include <doctest/doctest.h>

#include "tests/e2e/daemon_fixture.hpp"
#include "tests/e2e/socket_client.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {
constexpr const char* kSecret = "sk-live-Zq81Tr4Lm2";
}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("ui operations: overview, turns, a forget made only as previewed, and tombstone "
            "showing what it hides and what a restore brings back") {
    DaemonFixture f;
    WriteFile(f.claude() + "/projects/-home-dev-app/s1.jsonl",
              ClaudeLine("u1", "deploy the catalog") +
                  ClaudeLine("u2", std::string("my key is ") + kSecret) +
                  ClaudeLine("u3", "thanks"));
    f.Start({"--rescan-ms", "600000"});
    REQUIRE(f.WaitFor([&] { return f.Events() == 3; }));
    Client c(f);

    rapidjson::Document o = c.Call("overview", "{}");
    REQUIRE_MESSAGE(ErrorCode(o).empty(), proto::ToJson(o));
    CHECK(o["result"]["counts"]["events"].GetInt64() == 3);
    CHECK(o["result"]["days"].Size() == 30);
    CHECK(o["result"]["sources"][0]["source"].GetString() == std::string("claude-code"));
    CHECK(o["result"]["sources"][0]["agent_version"].GetString() == std::string("2.1.12"));

    rapidjson::Document t = c.Call("turns", R"({"session":"claude-code:s1"})");
    REQUIRE_MESSAGE(ErrorCode(t).empty(), proto::ToJson(t));
    CHECK(t["result"]["turns"].Size() == 3);
    CHECK(t["result"]["pages"].GetInt64() == 1);
    t = c.Call("turns", R"({"session":"claude-code:s1","at":"claude-code:u2"})");
    CHECK(t["result"]["at"].GetString() == std::string("claude-code:u2"));
    CHECK(ErrorCode(c.Call("turns", R"({"session":"claude-code:s1","page":2})")) == "not_found");
    CHECK(ErrorCode(c.Call("turns", R"({"session":"claude-code:nope"})")) == "not_found");

    // The preview's digest; a forget with another digest writes nothing.
    rapidjson::Document plan =
        c.Call("forget", R"({"target":"claude-code:u2","reason":"a key","dry_run":true})");
    REQUIRE_MESSAGE(ErrorCode(plan).empty(), proto::ToJson(plan));
    const std::string digest = plan["result"]["digest"].GetString();
    CHECK(digest.size() == 64);
    CHECK(ErrorCode(c.Call("forget", R"({"target":"claude-code:u2","reason":"a key","digest":")" +
                                         std::string(64, '0') + "\"}")) == "conflict");
    CHECK(f.Cli({"forgotten", "--json"}).out.find("tmb_") == std::string::npos);
    rapidjson::Document forgot = c.Call(
        "forget", R"({"target":"claude-code:u2","reason":"a key","digest":")" + digest + "\"}");
    REQUIRE_MESSAGE(ErrorCode(forgot).empty(), proto::ToJson(forgot));
    const std::string tmb = forgot["result"]["tombstone"].GetString();

    // Hidden everywhere but the forget's own record.
    CHECK(proto::ToJson(c.Call("overview", "{}")).find(kSecret) == std::string::npos);
    t = c.Call("turns", R"({"session":"claude-code:s1"})");
    CHECK(proto::ToJson(t).find(kSecret) == std::string::npos);
    CHECK(t["result"]["turns"].Size() == 2);
    CHECK(ErrorCode(c.Call("turns", R"({"session":"claude-code:s1","at":"claude-code:u2"})")) ==
          "forgotten");
    rapidjson::Document v = c.Call("tombstone", "{\"id\":\"" + tmb + "\"}");
    REQUIRE_MESSAGE(ErrorCode(v).empty(), proto::ToJson(v));
    const auto& r = v["result"];
    CHECK(r["tombstone"]["in_effect"].GetBool());
    REQUIRE(r["hidden"].IsObject());
    CHECK(r["hidden"]["events"][0]["text"].GetString() == std::string("my key is ") + kSecret);
    CHECK(r["restore_preview"]["events_count"].GetInt64() == 1);
    CHECK(r["restore_preview"]["recorded"].GetBool() == false);

    RunResult cli = f.Cli({"forgotten", tmb});
    CHECK(cli.status == 0);
    CHECK(cli.out.find(kSecret) != std::string::npos);
    CHECK(cli.out.find("Restoring it would bring back 0 entry versions and 1 event in 1 session") !=
          std::string::npos);
    CHECK(f.Cli({"forgotten"}).out.find(kSecret) == std::string::npos);
    CHECK(f.Cli({"forgotten", tmb, "--page", "2"}).status != 0);

    // The restore preview was a dry run: still hidden; then restored.
    CHECK(ErrorCode(c.Call("show", R"({"id":"claude-code:u2"})")) == "forgotten");
    REQUIRE(f.Cli({"restore", tmb, "--reason", "not a key", "--yes"}).status == 0);
    v = c.Call("tombstone", "{\"id\":\"" + tmb + "\"}");
    CHECK(!v["result"]["tombstone"]["in_effect"].GetBool());
    CHECK(v["result"]["hidden"].IsNull());
    CHECK(v["result"]["restore_preview"].IsNull());
    CHECK(v["result"]["restore"]["kind"].GetString() == std::string("restore"));
    CHECK(c.Call("turns", R"({"session":"claude-code:s1"})")["result"]["turns"].Size() == 3);
  }
}
