// SPDX-License-Identifier: MIT
// origin erase through a running daemon (issue 18): the preview changes
// nothing and names the agent's file that still holds the text; --yes
// erases it from the mirror, origin.db and index.db (the indexer's thread
// included), and it can be neither restored nor erased twice.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/e2e/daemon_fixture.hpp"
#include "tests/support/support.hpp"

using namespace origin::test;

namespace {

constexpr const char* kSecret = "sk-live-Hq3Vt8Wn5Ks2Pd7Jm4Xc";

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("erase: origin erase previews, erases a forgotten secret from the whole store, and "
            "records it; the forget can no longer be restored") {
    DaemonFixture f;
    const std::string log = f.claude() + "/projects/-home-dev-app/s1.jsonl";
    WriteFile(log, ClaudeLine("u1", "deploy the catalog") +
                       ClaudeLine("u2", std::string("my key is ") + kSecret) +
                       ClaudeLine("u3", "thanks"));
    f.Start({"--rescan-ms", "600000"});
    REQUIRE(f.WaitFor([&] { return f.Events() == 3; }));
    // Searchable first (through the index once it caught up).
    REQUIRE(f.WaitFor([&] {
      return f.Cli({"search", kSecret, "--json"}).out.find("claude-code:u2") != std::string::npos;
    }));
    RunResult r = f.Cli({"forget", "claude-code:u2", "--reason", "a key", "--yes", "--json"});
    REQUIRE(r.status == 0);
    const std::string forget = Json(r.out)["tombstone"].GetString();
    REQUIRE(!FilesHolding(f.home(), kSecret).empty());  // forgetting only hides

    r = f.Cli({"erase", forget, "--reason", "leaked API key"});
    CHECK(r.status == 0);
    CHECK(r.out.find("will erase, for good, 1 mirror line, 1 event and 0 entry versions") !=
          std::string::npos);
    CHECK(r.out.find(log) != std::string::npos);  // the agent's file still holds it
    CHECK(r.out.find("backups of the store are not touched") != std::string::npos);
    CHECK(r.out.find("Nothing has changed yet") != std::string::npos);
    CHECK(f.Cli({"erase", forget}).status == 2);  // a reason is required

    r = f.Cli({"erase", forget, "--reason", "leaked API key", "--yes", "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    auto d = Json(r.out);
    const std::string erasure = d["erasure"].GetString();
    CHECK(erasure.rfind("ers_", 0) == 0);
    CHECK(d["wal_truncated"].GetBool());
    CHECK(FilesHolding(f.home(), kSecret).empty());
    // origin verify --all finds the store whole after the erasure.
    r = f.Cli({"verify", "--all"});
    const std::string said = r.out + r.err;
    CHECK_MESSAGE(r.status == 0, said);
    CHECK(f.Cli({"search", kSecret, "--all", "--json"}).out.find("claude-code:u2") ==
          std::string::npos);
    // The other lines and events as they were.
    CHECK(f.Cli({"show", "claude-code:u3"}).out.find("thanks") != std::string::npos);
    CHECK(f.Cli({"search", "catalog", "--json"}).out.find("claude-code:u1") != std::string::npos);

    r = f.Cli({"restore", forget, "--reason", "oops", "--yes"});
    CHECK(r.status == 1);
    CHECK(r.err.find("erased (" + erasure + ")") != std::string::npos);
    CHECK(f.Cli({"erase", forget, "--reason", "again", "--yes"}).status == 1);
    r = f.Cli({"forgotten"});
    CHECK(r.out.find("erased by " + erasure) != std::string::npos);
    f.Stop();
  }
}
