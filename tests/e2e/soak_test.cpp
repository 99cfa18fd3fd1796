// SPDX-License-Identifier: MIT
// Soak: originsd under a trickle of single-line syncs (a user line every 10
// to 35 ms, each its own sync and its own transactions in both databases,
// as a busy agent writes) and SIGKILLs at random moments, for
// ORIGIN_SOAK_SECONDS (60 by default; docs/performance.md has a long run).
// This is the load under which SQLite 3.40's FTS5 corrupted the search
// indexes ('merge' with a negative count) and ingestion then stopped.
// Afterwards: every line is stored once, every FTS5 index passes its
// integrity-check, and search answers what a brute-force scan answers.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <set>
#include <thread>

#include "core/entries/entries.hpp"
#include "core/query/search.hpp"
#include "core/query/terms.hpp"
#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "tests/e2e/daemon_fixture.hpp"

using namespace origin;
using namespace origin::test;

namespace {

const char* const kWords[] = {"catalog", "deploy", "parser", "部署", "quokka", "ledger",
                              "snake_case_name", "AI", "bridge", "harbor"};

std::string Text(std::mt19937& rng, int n) {
  std::string t = "soak line " + std::to_string(n);
  for (int k = 0; k < 3; ++k) t += std::string(" ") + kWords[rng() % std::size(kWords)];
  return t;
}

}  // namespace

TEST_SUITE("soak") {
  TEST_CASE(
      "soak: thousands of single-line syncs and SIGKILLs leave every line stored once, every "
      "index sound, and search exact") {
    DaemonFixture f;
    double seconds = 60;
    if (const char* s = std::getenv("ORIGIN_SOAK_SECONDS")) seconds = std::atof(s);
    const std::string dir = f.claude() + "/projects/-home-dev-app";
    const int kFiles = 3;
    std::mt19937 rng(20261130);
    int lines = 0, kills = 0;
    f.Start({"--rescan-ms", "600000"});
    const auto start = std::chrono::steady_clock::now();
    auto next_kill = start + std::chrono::milliseconds(2000 + rng() % 6000);
    while (std::chrono::steady_clock::now() - start < std::chrono::duration<double>(seconds)) {
      const int file = static_cast<int>(rng() % kFiles);
      const std::string session = "soak-" + std::to_string(file);
      AppendFile(dir + "/" + session + ".jsonl",
                 ClaudeLine("u-" + std::to_string(lines), Text(rng, lines), session));
      ++lines;
      std::this_thread::sleep_for(std::chrono::milliseconds(10 + rng() % 26));
      if (std::chrono::steady_clock::now() >= next_kill) {
        f.Kill();
        ++kills;
        // Lines go on arriving while it is down, for a moment.
        for (int k = 0; k < 5; ++k, ++lines) {
          const std::string s = "soak-" + std::to_string(rng() % kFiles);
          AppendFile(dir + "/" + s + ".jsonl",
                     ClaudeLine("u-" + std::to_string(lines), Text(rng, lines), s));
        }
        f.Start({"--rescan-ms", "600000"});
        next_kill = std::chrono::steady_clock::now() + std::chrono::milliseconds(2000 + rng() % 6000);
      }
    }
    REQUIRE(f.Cli({"sync", "--json"}).status == 0);
    CHECK(f.WaitFor(
        [&] {
          RunResult st = f.Cli({"status", "--json"});
          rapidjson::Document d;
          d.Parse(st.out.c_str());
          return !d.HasParseError() && d.IsObject() &&
                 d["store"]["search_indexed_upto"].GetInt64() == d["store"]["max_seq"].GetInt64() &&
                 std::string(d["search_index"]["state"].GetString()) == "ok";
        },
        60));
    // The daemon's own search, through the CLI, on a word of the last line.
    RunResult found = f.Cli({"search", "soak line " + std::to_string(lines - 1), "--json"});
    REQUIRE(found.status == 0);
    CHECK(found.out.find("soak line " + std::to_string(lines - 1)) != std::string::npos);
    RunResult st = f.Cli({"status", "--json"});
    rapidjson::Document status = Json(st.out);
    CHECK(std::string(status["search_index"]["state"].GetString()) == "ok");
    CHECK(status["search_index"]["rebuilds"].GetInt64() == 0);
    f.Stop();
    MESSAGE("soak: " << lines << " lines, " << kills << " SIGKILLs in " << seconds << " s");

    // Every line once.
    auto db = OpenReadConnection(f.home() + "/origin.db");
    CHECK(db->QueryInt("SELECT count(*) FROM event") == lines);
    CHECK(db->QueryInt("SELECT count(DISTINCT id) FROM event") == lines);
    // Every FTS5 index sound.
    {
      EventIndex index(f.home() + "/index.db", f.home() + "/origin.db");
      CHECK(index.Check() == "");
      CHECK(index.Upto() == db->QueryInt("SELECT max(seq) FROM event"));
      auto writer = OpenWriteConnection(f.home() + "/origin.db");
      CHECK(RepairEntryIndex(*writer) == "");
    }
    // Search against the brute-force reference.
    AttachIndex(*db, f.home() + "/index.db");
    for (const char* q : {"catalog", "部署", "quokka ledger", "snake_case", "AI", "line 1"}) {
      for (bool tools : {false, true}) {
        EventQuery eq;
        eq.query = q;
        eq.recent = true;
        eq.include_tools = tools;
        eq.limit = 50;
        std::vector<std::int64_t> got;
        for (const EventHit& h : SearchEvents(*db, eq)) got.push_back(h.event.seq);
        std::vector<std::int64_t> want;
        Stmt all(db->get(), "SELECT seq, text FROM event ORDER BY ts DESC, seq DESC");
        const auto terms = ParseTerms(q);
        while (all.Step() && want.size() < 50)
          if (MatchesAll(all.Text(1), terms)) want.push_back(all.Int(0));
        INFO("query " << q);
        CHECK(got == want);
      }
    }
  }
}
