// SPDX-License-Identifier: MIT
// Issue 14 through the real daemon and CLI: Claude Code sessions as a person
// reads them (tests/fixtures/claude-code/projects/-home-dev-rules): the
// summary in the next session's file titles the earlier session, the
// session started by a slash command is named by it, the sub-agent's rows
// say so in the human timeline, and status shows the newest version.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/e2e/daemon_fixture.hpp"

using namespace origin;
using namespace origin::test;
namespace fs = std::filesystem;

TEST_SUITE("e2e") {
  TEST_CASE("e2e: Claude Code sessions read as a person reads them (issue 14)") {
    DaemonFixture f;
    fs::create_directories(f.claude() + "/projects");
    fs::copy(std::string(ORIGIN_SOURCE_DIR) + "/tests/fixtures/claude-code/projects/-home-dev-rules",
             f.claude() + "/projects/-home-dev-rules", fs::copy_options::recursive);
    f.Start({"--rescan-ms", "600000"});
    RunResult r = f.Cli({"timeline", "--days", "100000", "--json"});
    REQUIRE(r.status == 0);
    auto d = Json(r.out);
    std::map<std::string, std::string> names;
    for (const auto& s : d["sessions"].GetArray())
      names[s["id"].GetString()] = s.HasMember("title") && s["title"].IsString()
                                       ? std::string("title:") + s["title"].GetString()
                                       : std::string("prompt:") + s["prompt"].GetString();
    CHECK(names["claude-code:aa000000-0000-4000-8000-0000000000a1"] ==
          "title:Deploy script gains a dry-run flag");
    CHECK(names["claude-code:bb000000-0000-4000-8000-0000000000b2"] ==
          "prompt:/review the deploy script changes");

    // The sub-agent's rows are marked as its own in the human timeline.
    r = f.Cli({"timeline", "claude-code:bb000000-0000-4000-8000-0000000000b2", "--all"},
              {{"NO_COLOR", "1"}});
    REQUIRE(r.status == 0);
    CHECK(r.out.find("sub-agent user") != std::string::npos);
    CHECK(r.out.find("sub-agent assistant") != std::string::npos);
    CHECK(r.out.find("Review deploy.sh for mistakes") != std::string::npos);
    // The session's own prompt is not marked, and reads as typed.
    const std::size_t at = r.out.find("/review the deploy script changes");
    REQUIRE(at != std::string::npos);
    const std::size_t bol = r.out.rfind('\n', at);
    CHECK(r.out.substr(bol + 1, at - bol - 1).find("sub-agent") == std::string::npos);
    CHECK(r.out.find("result Task") != std::string::npos);

    // A tool result carries its call's tool.
    r = f.Cli({"show", "claude-code:ra-4#0", "--json"});
    REQUIRE(r.status == 0);
    d = Json(r.out);
    const auto& ev = d.HasMember("event") ? d["event"] : d;
    REQUIRE(ev.HasMember("tool"));
    CHECK(std::string(ev["tool"].GetString()) == "Bash");

    // Status: the newest version by event time.
    r = f.Cli({"status", "--json"});
    d = Json(r.out);
    bool seen = false;
    for (const auto& s : d["sources"].GetArray())
      if (std::string(s["source"].GetString()) == "claude-code") {
        seen = true;
        CHECK(std::string(s["agent_version"].GetString()) == "2.1.12");
      }
    CHECK(seen);
  }
}
