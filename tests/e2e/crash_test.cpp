// SPDX-License-Identifier: MIT
// Crash safety: originsd is killed with SIGKILL at 50 random moments of a
// large ingest (while some files keep growing) and restarted each time.
// Afterwards every mirror's content equals the complete lines of its source
// file, and the events equal those of an uninterrupted ingest of the same
// files (invariants 1 and 3).
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/codex/codex.hpp"
#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "core/util/hash.hpp"
#include "tests/e2e/daemon_fixture.hpp"
#include "tests/support/loggen.hpp"

using namespace origin;
using namespace origin::test;

namespace {

std::string DumpSessions(Db& db) {
  Stmt st(db.get(),
          "SELECT id, first_ts, last_ts, event_count, message_count, coalesce(title, '') "
          "FROM session ORDER BY id");
  std::string out;
  while (st.Step())
    out += std::string(st.Text(0)) + " " + std::to_string(st.Int(1)) + " " +
           std::to_string(st.Int(2)) + " " + std::to_string(st.Int(3)) + " " +
           std::to_string(st.Int(4)) + " " + std::string(st.Text(5)) + "\n";
  return out;
}

}  // namespace

TEST_SUITE("crash") {
  TEST_CASE("crash: SIGKILL at 50 random moments of a large ingest loses and doubles nothing") {
    DaemonFixture f;
    CorpusOptions opts;
    opts.total_bytes = 128 << 20;
    if (const char* mb = std::getenv("ORIGIN_CRASH_TEST_MB"))
      opts.total_bytes = std::atoll(mb) << 20;
    opts.seed = 42;
    opts.mean_session_bytes = 1 << 20;
    std::vector<CorpusFile> files = GenerateCorpus(f.claude(), f.codex(), opts);
    std::vector<std::string> growing;
    for (const auto& c : files)
      if (c.path.find("/projects/") != std::string::npos && growing.size() < 3)
        growing.push_back(c.path);
    REQUIRE(growing.size() == 3);

    std::mt19937 rng(1234);
    int appended = 0;
    std::int64_t events_seen_between = 0;
    std::vector<std::int64_t> counts;  // events in the store after each kill
    for (int k = 0; k < 50; ++k) {
      f.Start({"--rescan-ms", "600000"});
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 80));
      f.Kill();
      if (Exists(f.home() + "/origin.db")) {
        auto peek = OpenReadConnection(f.home() + "/origin.db");
        counts.push_back(peek->QueryInt("SELECT count(*) FROM event"));
      } else {
        counts.push_back(0);
      }
      if (k % 5 == 4) {
        const std::string& g = growing[static_cast<std::size_t>(k / 5) % growing.size()];
        AppendClaudeLines(g, 100000 + appended, 20, static_cast<std::uint32_t>(k));
        appended += 20;
      }
    }
    f.Start({"--rescan-ms", "600000"});
    // A sync queued behind the start-up sync returns once everything is in.
    RunResult r = f.Cli({"sync", "--json"});
    REQUIRE(r.status == 0);
    events_seen_between = f.Events();
    // The search index catches up on its own thread.
    CHECK(f.WaitFor(
        [&] {
          RunResult st = f.Cli({"status", "--json"});
          rapidjson::Document d;
          d.Parse(st.out.c_str());
          return !d.HasParseError() &&
                 d["store"]["search_indexed_upto"].GetInt64() == d["store"]["max_seq"].GetInt64();
        },
        60));
    f.Stop();
    // The kills landed during the ingest, not after it.
    int during = 0;
    // (at most 200 events come from the lines appended between kills)
    for (std::int64_t c : counts) during += c < events_seen_between - 200;
    MESSAGE("kills during the ingest: " << during << " of 50; events " << events_seen_between);
    CHECK(during >= 40);

    // The reference: the same files ingested without interruption.
    CHECK(CheckAsUninterrupted(f) == static_cast<int>(files.size()));
    TestStore ref;
    adapters::ClaudeCodeAdapter claude(f.claude());
    adapters::CodexAdapter codex(f.codex());
    ref.ingester->Sync({&claude, &codex}, {});
    auto db = OpenReadConnection(f.home() + "/origin.db");
    CHECK(DumpSessions(*db) == DumpSessions(*ref.db));
    CHECK(db->QueryInt("SELECT count(*) FROM raw_chunk") > 0);

    // Every message is in message_fts once, every other event in event_fts
    // once, and a trigram query finds what a scan finds.
    AttachIndex(*db, f.home() + "/index.db");
    CHECK(db->QueryInt("SELECT count(*) FROM idx.event_fts") ==
          db->QueryInt("SELECT count(*) FROM event WHERE kind <> 'message'"));
    CHECK(db->QueryInt("SELECT sum(rowid) FROM idx.event_fts") ==
          db->QueryInt("SELECT coalesce(sum(seq), 0) FROM event WHERE kind <> 'message'"));
    CHECK(db->QueryInt("SELECT count(*) FROM idx.message_fts") ==
          db->QueryInt("SELECT count(*) FROM event WHERE kind = 'message'"));
    CHECK(db->QueryInt("SELECT sum(rowid) FROM idx.message_fts") ==
          db->QueryInt("SELECT coalesce(sum(seq), 0) FROM event WHERE kind = 'message'"));
    CHECK(db->QueryInt("SELECT count(*) FROM event WHERE text LIKE '%catalog%' AND seq NOT IN "
                       "(SELECT rowid FROM idx.event_fts WHERE event_fts MATCH "
                       "'\"cat\" AND \"ata\" AND \"tal\" AND \"alo\" AND \"log\"' "
                       "UNION ALL SELECT rowid FROM idx.message_fts WHERE message_fts MATCH "
                       "'\"catalog\"')") == 0);
    CHECK(db->QueryInt("SELECT count(*) FROM event WHERE text LIKE '%catalog%'") > 0);
  }

  TEST_CASE("crash: SIGTERM during a large ingest ends the transaction in progress and exits 0") {
    DaemonFixture f;
    CorpusOptions opts;
    opts.total_bytes = 48 << 20;
    opts.seed = 5;
    GenerateCorpus(f.claude(), f.codex(), opts);
    f.Start({"--rescan-ms", "600000"});
    // Stop it once it is ingesting.
    CHECK(f.WaitFor([&] {
      if (!Exists(f.home() + "/origin.db")) return false;
      auto peek = OpenReadConnection(f.home() + "/origin.db");
      return peek->QueryInt("SELECT count(*) FROM event") > 0;
    }));
    auto t0 = std::chrono::steady_clock::now();
    f.Stop();  // requires exit status 0
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
    auto db = OpenReadConnection(f.home() + "/origin.db");
    std::int64_t partial = db->QueryInt("SELECT count(*) FROM event");
    db.reset();
    // The next start takes up where it stopped.
    f.Start({"--rescan-ms", "600000"});
    REQUIRE(f.Cli({"sync", "--json"}).status == 0);
    std::int64_t all = f.Events();
    f.Stop();
    MESSAGE("events at SIGTERM: " << partial << " of " << all);
    TestStore ref;
    adapters::ClaudeCodeAdapter claude(f.claude());
    adapters::CodexAdapter codex(f.codex());
    ref.ingester->Sync({&claude, &codex}, {});
    auto after = OpenReadConnection(f.home() + "/origin.db");
    CHECK(Sha256Hex(DumpEvents(*after)) == Sha256Hex(DumpEvents(*ref.db)));
  }
}
