// SPDX-License-Identifier: MIT
// A full disk and I/O errors, on a real originsd: the store's writes fail
// (injected by ORIGIN_FAULT through the real write path, or a real
// filesystem of the test's own that fills up during an import); the daemon
// goes on answering, says so in `origin status` (exit 5, --json) and its
// log while it lasts, retries by itself with a backoff, and once writes go
// through again ingests exactly what a fault-free import gives: nothing
// lost, nothing doubled (invariants 1 and 3), with no action of the user.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "core/store/schema.hpp"
#include "tests/e2e/daemon_fixture.hpp"
#include "tests/support/loggen.hpp"

using namespace origin;
using namespace origin::test;

namespace {

rapidjson::Document Status(DaemonFixture& f, int* code = nullptr) {
  RunResult r = f.Cli({"status", "--json"});
  REQUIRE((r.status == 0 || r.status == 5));
  if (code != nullptr) *code = r.status;
  return Json(r.out);
}

bool WriteErrorShown(DaemonFixture& f) {
  auto d = Status(f);
  return d["store"]["write_error"].IsString();
}

int Occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const std::string kLog = "/projects/-home-dev-app/s1.jsonl";

}  // namespace

TEST_SUITE("disk") {
  TEST_CASE(
      "disk: while every write of the store fails (ORIGIN_FAULT), originsd answers reads, shows "
      "the fault in status (exit 5, --json) and its log, and retries by itself; once writes go "
      "through it ingests exactly what a fault-free import gives") {
    DaemonFixture f;
    const std::string switch_file = f.dir() / "disk-full";
    f.env()["ORIGIN_FAULT"] = "full@1+:" + switch_file;
    std::string first;
    for (int i = 0; i < 10; ++i)
      first += ClaudeLine("a" + std::to_string(i), "catalog line " + std::to_string(i));
    WriteFile(f.claude() + kLog, first);
    f.Start({"--rescan-ms", "600000", "--retry-ms", "100"});
    REQUIRE(f.Cli({"sync"}).status == 0);
    REQUIRE(f.Events() == 10);

    // The disk fills: lines appended meanwhile cannot be stored.
    WriteFile(switch_file, "");
    std::string more;
    for (int i = 0; i < 30; ++i)
      more += ClaudeLine("b" + std::to_string(i),
                         "wombat line " + std::to_string(i) + " " + std::string(3000, 'x'));
    AppendFile(f.claude() + kLog, more);
    REQUIRE(f.WaitFor([&] { return WriteErrorShown(f); }));
    int code = 0;
    auto d = Status(f, &code);
    CHECK(code == 5);
    const std::string error = d["store"]["write_error"].GetString();
    CHECK(error.find("No space left on device") != std::string::npos);
    CHECK(d["store"]["write_error_since"].IsInt64());
    const auto& claude = d["sources"][0];
    CHECK(std::string(claude["source"].GetString()) == "claude-code");
    CHECK(claude["error"].IsString());
    bool listed = false;
    for (const auto& a : d["attention"].GetArray())
      listed = listed || std::string(a.GetString()).find("the store cannot be written") == 0;
    CHECK(listed);
    RunResult human = f.Cli({"status"}, {{"NO_COLOR", "1"}});
    CHECK(human.status == 5);
    CHECK(human.out.find("the store cannot be written") != std::string::npos);
    // Reads go on, from what was stored.
    RunResult search = f.Cli({"search", "catalog", "--scope", "events", "--json"});
    CHECK(search.status == 0);
    CHECK(Json(search.out)["events"].Size() == 10);
    CHECK(f.Events() == 10);
    // It retries by itself, backing off: no sync asked, no new line.
    CHECK(f.WaitFor([&] { return Occurrences(ReadAll(f.log()), "next try in") >= 3; }));
    const std::string log = ReadAll(f.log());
    CHECK(log.find("the store refused a write") != std::string::npos);
    CHECK(log.find("next try in 100 ms") != std::string::npos);
    CHECK(log.find("next try in 200 ms") != std::string::npos);
    // (null while a retry runs)
    CHECK(f.WaitFor([&] { return Status(f)["sources"][0]["retry_in_ms"].IsInt64(); }));

    // Space returns: the daemon alone takes the lines in, once.
    ::unlink(switch_file.c_str());
    CHECK(f.WaitFor([&] { return f.Events() == 40; }, 20));
    CHECK(f.WaitFor([&] { return f.Cli({"status"}).status == 0; }, 20));
    d = Status(f);
    CHECK(d["store"]["write_error"].IsNull());
    CHECK(d["sources"][0]["error"].IsNull());
    CHECK(d["sources"][0]["retry_in_ms"].IsNull());
    CHECK(d["sources"][0]["last_error"].IsString());  // history, not a problem
    CHECK(d["attention"].Size() == 0);
    CHECK(ReadAll(f.log()).find("the store takes writes again") != std::string::npos);
    search = f.Cli({"search", "wombat", "--scope", "events", "--json"});
    CHECK(Json(search.out)["events"].Size() > 0);
    f.Stop();
    CheckAsUninterrupted(f);
  }

  TEST_CASE(
      "disk: the store's own filesystem fills up during an import (a tmpfs of the test's); "
      "status says so while reads go on, and once space is freed the import finishes by "
      "itself with exactly the events of a fault-free import") {
    DaemonFixture f;
    const std::string home = f.home();
    ScopedTmpfs tmpfs(home, "128m");
    if (!tmpfs.mounted()) {
      MESSAGE(
          "skipped: mounting a small tmpfs needs root (CAP_SYS_ADMIN); the ORIGIN_FAULT "
          "test covers the same path");
      return;
    }
    // Room for a part of the import only: 120 of the 128 MiB are ballast.
    Sh("dd if=/dev/zero of='" + home + "/ballast' bs=1M count=120 2>/dev/null");
    CorpusOptions opts;
    opts.total_bytes = 16 << 20;
    opts.seed = 9;
    opts.mean_session_bytes = 1 << 20;
    GenerateCorpus(f.claude(), f.codex(), opts);
    f.Start({"--rescan-ms", "600000", "--retry-ms", "200", "--first-sync-wait-ms", "0"});
    REQUIRE(f.WaitFor([&] { return WriteErrorShown(f); }, 60));
    int code = 0;
    auto d = Status(f, &code);
    CHECK(code == 5);
    // SQLite's words or the mirror's, whichever met the full disk first.
    const std::string error = d["store"]["write_error"].GetString();
    CHECK((error.find("No space left on device") != std::string::npos ||
           error.find("database or disk is full") != std::string::npos));
    const std::int64_t stored = f.Events();
    MESSAGE("events stored when the disk was full: " << stored);
    CHECK(f.Cli({"timeline", "--json"}).status == 0);  // reads go on
    // Space returns; nothing else is done.
    ::unlink((home + "/ballast").c_str());
    CHECK(f.WaitFor([&] { return !WriteErrorShown(f); }, 60));
    CHECK(f.WaitFor(
        [&] {
          auto s = Status(f);
          return s["store"]["write_error"].IsNull() && s["sources"][0]["retry_in_ms"].IsNull() &&
                 s["sources"][1]["retry_in_ms"].IsNull();
        },
        60));
    f.Stop();
    CheckAsUninterrupted(f);
    auto db = OpenReadConnection(home + "/origin.db");
    CHECK(db->QueryInt("SELECT count(*) FROM event") > stored);
  }
}
