// SPDX-License-Identifier: MIT
// Ingestion that never stops, and a status that tells the truth: a damaged
// search index is found and rebuilt by the daemon itself while searches go
// on; a full disk is shown while it lasts (and `origin sync` fails) and
// ingestion resumes by itself once space returns; a line appended to a live
// session is ingested while an import of other logs runs; a query during
// the first sync answers from what is stored and says so.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "tests/e2e/daemon_fixture.hpp"
#include "tests/support/loggen.hpp"

using namespace origin;
using namespace origin::test;

namespace {

// What a torn write or a bug of SQLite leaves: FTS5 structure records that
// cannot be read.
void DamageIndex(const std::string& path) {
  Db raw(path, Db::Mode::kReadWrite);
  raw.Exec("PRAGMA busy_timeout = 10000");
  for (const char* t : kEventIndexTables)
    raw.Exec(std::string("UPDATE ") + t + "_data SET block = substr(block, 1, 6) WHERE id = 10");
}

rapidjson::Document Status(DaemonFixture& f) {
  RunResult r = f.Cli({"status", "--json"});
  REQUIRE((r.status == 0 || r.status == 5));
  return Json(r.out);
}

bool IndexOk(DaemonFixture& f) {
  auto d = Status(f);
  return std::string(d["search_index"]["state"].GetString()) == "ok" &&
         d["store"]["search_indexed_upto"].GetInt64() == d["store"]["max_seq"].GetInt64();
}

std::size_t Hits(DaemonFixture& f, const std::string& word, bool all = false) {
  std::vector<std::string> args = {"search", word, "--scope", "events", "--json"};
  if (all) args.push_back("--all");
  RunResult r = f.Cli(args);
  REQUIRE(r.status == 0);
  return Json(r.out)["events"].Size();
}

const std::string kLog = "/projects/-home-dev-app/s1.jsonl";

// Two Claude Code lines, ingested and indexed by a daemon left running.
void StartIndexed(DaemonFixture& f) {
  WriteFile(f.claude() + kLog, ClaudeLine("u1", "Deploy the catalog service to 生产环境") +
                                   ClaudeLine("u2", "the parser reads catalog lines"));
  f.Start({"--rescan-ms", "600000"});
  REQUIRE(f.WaitFor([&] { return IndexOk(f); }));
}

}  // namespace

TEST_SUITE("health") {
  TEST_CASE("health: a search index damaged while the daemon was down is rebuilt at start") {
    DaemonFixture f;
    StartIndexed(f);
    f.Stop();
    DamageIndex(f.home() + "/index.db");
    f.Start({"--rescan-ms", "600000"});
    CHECK(f.WaitFor([&] {
      auto d = Status(f);
      return d["search_index"]["rebuilds"].GetInt64() == 1 && IndexOk(f);
    }));
    auto d = Status(f);
    CHECK(std::string(d["search_index"]["problem"].GetString()).find("damaged") !=
          std::string::npos);
    CHECK(Hits(f, "catalog") == 2);
    CHECK(Hits(f, "生产") == 1);
    f.Stop();
    CHECK(ReadAll(f.log()).find("search index damaged") != std::string::npos);
    EventIndex index(f.home() + "/index.db", f.home() + "/origin.db");
    CHECK(index.Check() == "");
  }

  TEST_CASE(
      "health: a search that meets a damaged index answers from the events, and the daemon "
      "rebuilds the index") {
    DaemonFixture f;
    StartIndexed(f);
    DamageIndex(f.home() + "/index.db");
    // Exact answers, at once: from the events.
    CHECK(Hits(f, "catalog") == 2);
    CHECK(Hits(f, "catalog", true) == 2);
    CHECK(Hits(f, "生产") == 1);
    CHECK(f.WaitFor([&] { return Status(f)["search_index"]["rebuilds"].GetInt64() >= 1; }));
    CHECK(f.WaitFor([&] { return IndexOk(f); }));
    // New lines are indexed again.
    AppendFile(f.claude() + kLog, ClaudeLine("u3", "a wombat in the catalog"));
    CHECK(f.WaitFor([&] { return Hits(f, "wombat") == 1; }));
    f.Stop();
    EventIndex index(f.home() + "/index.db", f.home() + "/origin.db");
    CHECK(index.Check() == "");
  }

  TEST_CASE(
      "health: a full disk is shown by status while it lasts (exit 5) and fails origin sync "
      "(exit 1); ingestion resumes by itself once space returns, losing and doubling nothing") {
    DaemonFixture f;
    // The store's own filesystem, small: $ORIGIN_HOME on a tmpfs of 16 MiB.
    const std::string home = f.home();
    ScopedTmpfs tmpfs(home, "16m");
    if (!tmpfs.mounted()) {
      MESSAGE("skipped: mounting a small tmpfs needs root (CAP_SYS_ADMIN)");
      return;
    }
    const std::string mnt = home;
    std::string first;
    for (int i = 0; i < 20; ++i) first += ClaudeLine("a" + std::to_string(i), "first line " + std::to_string(i));
    WriteFile(f.claude() + kLog, first);
    f.Start({"--rescan-ms", "600000"});
    REQUIRE(f.Cli({"sync", "--json"}).status == 0);
    REQUIRE(f.Events() == 20);
    CHECK(f.Cli({"status"}).status == 0);
    // Fill the disk.
    Sh("dd if=/dev/zero of='" + mnt + "/filler' bs=64k 2>/dev/null; sync");
    int lines = 20;
    auto append = [&](int n) {
      std::string more;
      for (int i = 0; i < n; ++i, ++lines)
        more += ClaudeLine("b" + std::to_string(lines),
                           "more text " + std::string(2000, 'x') + std::to_string(lines));
      AppendFile(f.claude() + kLog, more);
    };
    append(400);
    RunResult sync = f.Cli({"sync"});
    MESSAGE("sync on a full disk: " << sync.out << sync.err);
    CHECK(sync.status == 1);
    CHECK(sync.err.find("claude-code") != std::string::npos);
    RunResult st = f.Cli({"status"}, {{"NO_COLOR", "1"}});
    MESSAGE("status on a full disk: " << st.out);
    CHECK(st.status == 5);
    CHECK(st.out.find("Claude Code") != std::string::npos);
    auto d = Status(f);
    const auto& claude = d["sources"][0];
    REQUIRE(claude["error"].IsString());
    CHECK(claude["error_since"].IsInt64());
    CHECK(d["attention"].Size() >= 1);
    CHECK(claude["last_ingest_at"].IsInt64());  // not "never"
    // Reads go on.
    CHECK(Hits(f, "first") == 20);
    // Space returns: the next look takes everything in, once.
    std::remove((mnt + "/filler").c_str());
    append(1);
    CHECK(f.WaitFor([&] { return f.Events() == lines; }, 30));
    CHECK(f.Cli({"sync"}).status == 0);
    // The search index retries on its own within seconds.
    CHECK(f.WaitFor([&] { return f.Cli({"status"}).status == 0; }, 30));
    d = Status(f);
    CHECK(d["sources"][0]["error"].IsNull());
    CHECK(d["sources"][0]["last_error"].IsString());  // history, not a problem
    CHECK(d["attention"].Size() == 0);
    f.Stop();
    auto db = OpenReadConnection(home + "/origin.db");
    CHECK(db->QueryInt("SELECT count(*) FROM event") == lines);
    CHECK(db->QueryInt("SELECT count(DISTINCT id) FROM event") == lines);
  }

  TEST_CASE(
      "health: a line appended to a live session is ingested within seconds while an import "
      "runs, and queries during the first sync answer from what is stored, saying so") {
    DaemonFixture f;
    CorpusOptions opts;
    opts.total_bytes = 64 << 20;
    opts.seed = 77;
    opts.mean_session_bytes = 1 << 20;
    GenerateCorpus(f.claude(), f.codex(), opts);
    // A session going on: the newest file, so the import reads it last.
    const std::string live = f.claude() + "/projects/-home-dev-live/live.jsonl";
    WriteFile(live, ClaudeLine("l0", "starting the live session", "live"));
    f.Start({"--rescan-ms", "600000", "--first-sync-wait-ms", "200"});
    auto stored = [&] {
      auto db = OpenReadConnection(f.home() + "/origin.db");
      return db->QueryInt("SELECT count(*) FROM event");
    };
    // Once the import is under way, a line appended to the live session.
    REQUIRE(f.WaitFor([&] { return Exists(f.home() + "/origin.db") && stored() > 0; }, 30));
    AppendFile(live, ClaudeLine("l1", "the zebrafish42 line of the live session", "live"));
    auto t0 = std::chrono::steady_clock::now();
    std::int64_t stored_then = 0, claude_then = 0;
    REQUIRE(f.WaitFor(
        [&] {
          auto db = OpenReadConnection(f.home() + "/origin.db");
          if (db->QueryInt("SELECT count(*) FROM event WHERE id = 'claude-code:l1'") == 0)
            return false;
          stored_then = db->QueryInt("SELECT count(*) FROM event");
          claude_then = db->QueryInt("SELECT count(*) FROM event WHERE source = 'claude-code'");
          return true;
        },
        60));
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // A query during the import answers within its wait, from what is
    // stored, and says so.
    t0 = std::chrono::steady_clock::now();
    RunResult r = f.Cli({"search", "zebrafish42", "--scope", "events", "--json"});
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::int64_t after_search = stored();
    CHECK(r.status == 0);
    CHECK(Json(r.out)["events"].Size() == 1);
    MESSAGE("search answered in " << waited << " s; " << r.err);
    REQUIRE(f.Cli({"sync", "--json"}).status == 0);
    const std::int64_t all = stored();
    f.Stop();
    MESSAGE("live line stored after " << took << " s, with " << stored_then << " of " << all
                                      << " events stored");
    CHECK(took < 5);
    CHECK(waited < 5);
    // Events still arriving after the search answered: the import was under
    // way then (nothing else adds any here), and the answer said so.
    if (all > after_search)
      CHECK(r.err.find("an import of the agents' logs is under way") != std::string::npos);
    // It came in while the import of its own agent's logs, which reads the
    // live file last (the newest), still had events to store.
    auto db = OpenReadConnection(f.home() + "/origin.db");
    const std::int64_t claude_all =
        db->QueryInt("SELECT count(*) FROM event WHERE source = 'claude-code'");
    MESSAGE("Claude Code events stored then: " << claude_then << " of " << claude_all);
    CHECK(claude_then < claude_all - 1000);
    CHECK(stored_then < all);
  }
}
