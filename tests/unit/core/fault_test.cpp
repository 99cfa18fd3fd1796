// SPDX-License-Identifier: MIT
// A full disk and I/O errors (core/c/faults.hpp): every write step of an
// import is made to fail in turn, in the real code (the mirrors' writes,
// syncs and truncations; SQLite's through the fault VFS), and the import is
// taken up again once the fault clears.  Whatever the step, the store ends
// as a fault-free import leaves it: the same events and entries, the same
// mirror bytes (invariants 1 and 3: nothing lost, nothing doubled), and
// while the fault lasts the mirrors agree with the database and reads go on.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <system_error>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/codex/codex.hpp"
#include "core/c/faults.hpp"
#include "core/store/schema.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

constexpr std::int64_t kDay0Ns = 1767225600000LL * 1000000;  // 2026-01-01, the clock's start

std::string ClaudeUser(const std::string& uuid, const std::string& session,
                       const std::string& content_json) {
  return R"({"type":"user","uuid":")" + uuid + R"(","sessionId":")" + session +
         R"(","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/home/dev/app","version":"2.1.12",)"
         R"("message":{"role":"user","content":)" +
         content_json + "}}\n";
}
std::string ClaudeText(const std::string& uuid, const std::string& session,
                       const std::string& text) {
  return ClaudeUser(uuid, session, "\"" + text + "\"");
}

// The agents' files of one run, in the run's own directory: a session with
// a torn line, a session ending in a partial line, a memory file, a Codex
// rollout; then more lines (phase 2); then an hour idle, which seals every
// open tail into frames (the sealing an append past 1 MiB does too, through
// the same MirrorStore::Append; a megabyte in each of the hundreds of
// imports below would double the test's time for no other step).
struct Agents {
  explicit Agents(const std::string& dir)
      : claude(dir + "/claude"),
        codex(dir + "/codex"),
        big(claude + "/projects/-home-dev-app/big.jsonl"),
        small(claude + "/projects/-home-dev-app/small.jsonl"),
        memory(claude + "/projects/-home-dev-app/memory/build.md"),
        rollout(codex +
                "/sessions/2026/01/05/"
                "rollout-2026-01-05T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl") {}
  std::string claude, codex, big, small, memory, rollout;
  adapters::ClaudeCodeAdapter claude_adapter{claude};
  adapters::CodexAdapter codex_adapter{codex};
  std::vector<const SourceAdapter*> all() const { return {&claude_adapter, &codex_adapter}; }

  void Phase1() {
    std::string lines;
    for (int i = 0; i < 6; ++i)
      lines += ClaudeText("b" + std::to_string(i), "big",
                          "line " + std::to_string(i) + " of the catalog service");
    lines += "{\"type\":\"user\",\"uuid\":\"torn\", a torn line\n";  // a parse error, counted
    for (int i = 6; i < 11; ++i)
      lines +=
          ClaudeText("b" + std::to_string(i), "big", "after the screenshot " + std::to_string(i));
    WriteFile(big, lines);
    WriteFile(small, ClaudeText("s0", "small", "a small session") +
                         ClaudeText("s1", "small", "its second line") +
                         R"({"type":"user","uuid":"s2","sessionId":"small","timest)");
    WriteFile(memory,
              "---\nname: build\ndescription: how to build\ntype: project\n---\nRun meson, "
              "then ninja.\n");
    WriteFile(
        rollout,
        R"({"timestamp":"2026-01-05T10:00:00.000Z","type":"session_meta","payload":{"id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","cwd":"/home/dev/app","cli_version":"0.128.0"}})"
        "\n"
        R"({"timestamp":"2026-01-05T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"deploy it"}]}})"
        "\n");
    Stamp(1);
  }
  void Phase2() {
    AppendFile(big, ClaudeText("b11", "big", "a line after the import"));
    AppendFile(
        small,
        R"(amp":"2026-01-05T10:00:00.000Z","cwd":"/home/dev/app","message":{"role":"user","content":"the partial line, completed"}})"
        "\n");
    WriteFile(memory,
              "---\nname: build\ndescription: how to build\ntype: project\n---\nRun meson, "
              "then ninja, then the tests.\n");
    AppendFile(
        rollout,
        R"({"timestamp":"2026-01-05T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"deployed"}]}})"
        "\n");
    Stamp(2);
  }
  // Fixed modification times: the same order and the same memory times in
  // every run.
  void Stamp(int phase) {
    const std::int64_t base = kDay0Ns + phase * 60'000'000'000LL;
    SetMtime(rollout, base + 1);
    SetMtime(small, base + 2);
    SetMtime(memory, base + 3);
    SetMtime(big, base + 4);
  }
};

// Hundreds of imports, each with its syncs: on a memory filesystem when
// there is one (/dev/shm), where a sync costs nothing; the steps are the same.
std::string FastBase() { return ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : ""; }

// A store and the agents' files in one temporary directory.
struct Run {
  TestStore s{FastBase()};
  Agents agents{s.dir.path()};
  SyncOptions options;
  // The daemon's settings (OpenWriteConnection): no checkpoint happens in
  // an import this small; the transaction test above fails checkpoints.
  SyncReport Phase(int phase) {
    if (phase == 3) s.clock.Tick(2 * 3600 * 1000);  // idle: the tails are sealed
    s.clock.Tick(1000);
    return s.ingester->Sync(agents.all(), options);
  }
};

// The same import with its transactions in groups (Sync), as an import
// past bulk_bytes has them, from its first transaction on; the big
// session's tail is sealed inside the first group, which ends it.
SyncOptions Grouped() {
  SyncOptions so;
  so.bulk_bytes = 0;
  so.group_tail_limit = 1000;
  return so;
}

std::string Dump(Db& db, const std::string& sql, int columns) {
  Stmt st(db.get(), sql);
  std::string out;
  while (st.Step()) {
    for (int c = 0; c < columns; ++c) {
      out += st.IsNull(c) ? std::string("NULL") : std::string(st.Text(c));
      out += '\x1f';
    }
    out += '\n';
  }
  return out;
}

// What an import leaves in the store, compared whole between two runs.
struct Snapshot {
  std::string events, sessions, entries, files, chunks;
  std::string cursors;                         // files, less where their tails were sealed
  std::map<std::string, std::string> mirrors;  // by source and key: the content
  std::map<std::string, std::string> zst;      // the sealed frames' file, as on disk

  static Snapshot Of(Run& run) {
    Db& db = *run.s.db;
    Snapshot x;
    x.events = DumpEvents(db);
    x.sessions = Dump(db,
                      "SELECT id, first_ts, last_ts, event_count, message_count, title, "
                      "project FROM session ORDER BY id",
                      7);
    x.entries = Dump(db, "SELECT id, kind, text, supersedes, valid_to FROM entry ORDER BY id", 5);
    x.files = Dump(db,
                   "SELECT source, key, generation, bytes_ingested, lines_ingested, "
                   "tail_offset, tail_line, zst_bytes, hex(tail_hash), broken "
                   "FROM raw_file ORDER BY source, key",
                   10);
    x.cursors = Dump(db,
                     "SELECT source, key, generation, bytes_ingested, lines_ingested, "
                     "hex(tail_hash), broken FROM raw_file ORDER BY source, key",
                     7);
    x.chunks = Dump(db,
                    "SELECT r.key, c.first_line, c.line_count, c.content_offset, "
                    "c.content_length, c.file_offset, c.file_length FROM raw_chunk c "
                    "JOIN raw_file r ON r.id = c.file_id ORDER BY r.key, c.content_offset",
                    7);
    Stmt st(db.get(), "SELECT id, source, key, mirror, zst_bytes FROM raw_file");
    while (st.Step()) {
      const std::string name = std::string(st.Text(1)) + "/" + std::string(st.Text(2));
      x.mirrors[name] = run.s.mirrors->ReadContent(db, st.Int(0));
      const std::string zst = run.s.mirrors->PathOf(std::string(st.Text(3)), ".zst");
      x.zst[name] = Exists(zst) ? ReadAll(zst) : "";
    }
    return x;
  }
};

// While the fault lasts: the writer's connection is out of its transaction
// (rolled back, by us or by SQLite), a reader's connection answers, and
// every mirror holds exactly what the database records of it: its content
// is the beginning of its file's complete lines.
void CheckDuringFault(Run& run, const std::string& what) {
  INFO(what);
  CHECK_FALSE(run.s.db->InTransaction());
  auto reader = OpenReadConnection(run.s.db_path());
  const std::int64_t events = reader->QueryInt("SELECT count(*) FROM event");
  CHECK(events == run.s.db->QueryInt("SELECT count(*) FROM event"));
  CHECK(reader->QueryInt("SELECT count(*) FROM raw_file WHERE broken IS NOT NULL") == 0);
  Stmt st(reader->get(), "SELECT id, path FROM raw_file");
  while (st.Step()) {
    const std::string path(st.Text(1));
    const std::string content = run.s.mirrors->ReadContent(*reader, st.Int(0));
    if (path.find("/memory") != std::string::npos) continue;  // a generated stream
    std::string source = ReadAll(path);
    CHECK_MESSAGE(source.compare(0, content.size(), content) == 0, path);
  }
}

struct Totals {
  int steps = 0, refused = 0;
  int groups_lost = 0;  // phases whose group of transactions was rolled back
};

// A group rolled back holds files of both sources: each is a store fault,
// so that the daemon syncs each again (RetryRefused).
void CheckGroupLoss(const SyncReport& r, Totals& totals) {
  bool group = false;
  for (const SourceSummary& s : r.sources)
    group |= s.store_fault.find("the import's last transactions") != std::string::npos;
  if (!group) return;
  ++totals.groups_lost;
  for (const SourceSummary& s : r.sources) CHECK_MESSAGE(!s.store_fault.empty(), s.source);
}

// One import (three phases) with the Nth write step failing as `plan` says;
// each phase the store refused is taken again once the fault clears.
Snapshot ImportWithFault(const FaultPlan& plan, Totals& totals, const SyncOptions& options = {}) {
  Run run;
  run.options = options;
  ArmFaults(plan);
  for (int phase = 1; phase <= 3; ++phase) {
    if (phase == 1) run.agents.Phase1();
    if (phase == 2) run.agents.Phase2();
    SyncReport r = run.Phase(phase);
    if (!r.store_fault) continue;
    ++totals.refused;
    CheckGroupLoss(r, totals);
    CheckDuringFault(run, "after step " + std::to_string(plan.at) + " failed");
    if (plan.lasting) {
      // Still failing: a retry breaks nothing (it may find nothing left to
      // write, when only the sync's record was refused).
      run.Phase(phase);
      CheckDuringFault(run, "a retry while it lasts");
    }
    DisarmFaults();  // space returns
    for (int retry = 0; retry < 3 && r.store_fault; ++retry) r = run.Phase(phase);
    CHECK_FALSE(r.store_fault);
  }
  DisarmFaults();
  return Snapshot::Of(run);
}

}  // namespace

TEST_SUITE("faults") {
  TEST_CASE("faults: ORIGIN_FAULT is read as documented, and a bad value is refused by name") {
    auto arm = [](const char* v) {
      ::setenv("ORIGIN_FAULT", v, 1);
      std::string armed = ArmFaultsFromEnv();
      DisarmFaults();
      ::unsetenv("ORIGIN_FAULT");
      return armed;
    };
    CHECK(arm("full@3") == "full@3");
    CHECK(arm("io@1+") == "io@1+");
    CHECK(arm("full@2+:/tmp/x") == "full@2+:/tmp/x");
    for (const char* bad : {"full", "disk@3", "full@0", "full@", "full@3:/tmp/x", "io@2+:"})
      CHECK_THROWS_WITH_AS(arm(bad), doctest::Contains("ORIGIN_FAULT="), std::invalid_argument);
    ::unsetenv("ORIGIN_FAULT");
    CHECK(ArmFaultsFromEnv().empty());
  }

  TEST_CASE("faults: the Nth write step fails with ENOSPC or EIO, once or from then on") {
    ScopedTempDir d;
    UniqueFd fd = OpenFile(d / "f", O_RDWR | O_CREAT);
    ArmFaults({.at = 2, .lasting = false, .kind = FaultKind::kFull, .while_exists = ""});
    StorePwrite(fd.get(), "abcd", 0, d / "f");
    try {
      StorePwrite(fd.get(), "efgh", 4, d / "f");
      FAIL("the second step did not fail");
    } catch (const StoreWriteError& e) {
      CHECK(e.code() == std::errc::no_space_on_device);
      CHECK(IsStoreWriteFailure(e));
      CHECK(std::string(e.what()).find("No space left on device") != std::string::npos);
    }
    CHECK(ReadAll(d / "f") == "abcdef");  // half of a failed write got there
    StoreFdatasync(fd.get(), d / "f");    // once: the third goes through
    CHECK(FaultSteps() == 3);
    ArmFaults({.at = 1, .lasting = true, .kind = FaultKind::kIo, .while_exists = d / "on"});
    StoreFtruncate(fd.get(), 4, d / "f");  // "on" does not exist: no failure
    WriteFile(d / "on", "");
    CHECK_THROWS_AS(StoreFdatasync(fd.get(), d / "f"), StoreWriteError);
    CHECK_THROWS_AS(StoreFtruncate(fd.get(), 0, d / "f"), StoreWriteError);
    ::unlink((d / "on").c_str());
    StoreFtruncate(fd.get(), 0, d / "f");
    DisarmFaults();
    CHECK(IsStoreWriteFailure(SqliteError(SQLITE_FULL, "x")));
    CHECK(IsStoreWriteFailure(SqliteError(SQLITE_IOERR_FSYNC, "x")));
    CHECK_FALSE(IsStoreWriteFailure(SqliteError(SQLITE_CONSTRAINT, "x")));
    CHECK(IsStoreWriteFailure(std::system_error(ENOSPC, std::generic_category(), "x")));
    CHECK_FALSE(IsStoreWriteFailure(std::system_error(ENOENT, std::generic_category(), "x")));
  }

  TEST_CASE(
      "faults: SQLITE_FULL or SQLITE_IOERR at any write step of a transaction rolls it back "
      "whole, and the same connection writes it after") {
    InstallFaultVfs();
    ScopedTempDir d(FastBase());
    auto db = OpenWriteConnection(d / "origin.db");
    db->Exec("PRAGMA wal_autocheckpoint = 4");
    db->Exec("CREATE TABLE t (n INTEGER PRIMARY KEY, text TEXT)");
    auto write = [&](int n) {
      Transaction tx(*db);
      for (int i = 0; i < 20; ++i)
        db->Prepare("INSERT INTO t(n, text) VALUES (?, ?)")
            .Bind(1, n * 100 + i)
            .Bind(2, std::string(3000, static_cast<char>('a' + i % 26)))
            .Run();
      tx.Commit();
    };
    ArmFaults({});
    write(0);
    const std::int64_t steps = FaultSteps();
    REQUIRE(steps > 20);
    int refused = 0;
    for (FaultKind kind : {FaultKind::kFull, FaultKind::kIo}) {
      for (std::int64_t at = 1; at <= steps; ++at) {
        INFO("step " << at);
        const std::int64_t before = db->QueryInt("SELECT count(*) FROM t");
        ArmFaults({.at = at, .lasting = false, .kind = kind, .while_exists = ""});
        const int n = static_cast<int>(at + (kind == FaultKind::kIo ? 1000 : 0));
        bool failed = false;
        try {
          write(n);
        } catch (const SqliteError& e) {
          failed = true;
          CHECK(IsStoreWriteFailure(e));
        }
        DisarmFaults();
        CHECK_FALSE(db->InTransaction());
        const std::int64_t after = db->QueryInt("SELECT count(*) FROM t");
        // All or nothing (a failing checkpoint after the commit fails nothing).
        CHECK(after == before + (failed ? 0 : 20));
        if (!failed) continue;
        ++refused;
        write(n);  // the same transaction, taken again
        CHECK(db->QueryInt("SELECT count(*) FROM t") == before + 20);
      }
    }
    MESSAGE(steps << " write steps a transaction; " << refused << " failures made it roll back");
    CHECK(refused > steps);
    CHECK(Dump(*db, "PRAGMA integrity_check", 1) == "ok\x1f\n");
  }

  TEST_CASE(
      "faults: a full disk or an I/O error at each write step of an import, then the fault "
      "clears and the import is taken up again: the same events, entries and mirror bytes as "
      "without it (invariants 1 and 3), mirrors agreeing with the database and reads going on "
      "meanwhile; with the import's transactions in groups too") {
    InstallFaultVfs();
    SyncOptions options;
    bool grouped = false;
    SUBCASE("each transaction on its own") {}
    SUBCASE("in groups, a tail sealed inside one") {
      options = Grouped();
      grouped = true;
    }
    Totals totals;
    // The reference, counting the steps.
    Snapshot reference = ImportWithFault({}, totals, options);
    const std::int64_t steps = FaultSteps();
    REQUIRE(steps > 50);
    REQUIRE(reference.mirrors.size() == 4);
    for (const auto& mirror : reference.mirrors) {  // each sealed by phase 3
      const std::string& name = mirror.first;  // (clang 14: no structured binding in a message)
      CHECK_MESSAGE(reference.chunks.find(name.substr(name.find('/') + 1)) != std::string::npos,
                    name);
    }
    // Each step fails in turn, alone, with ENOSPC or EIO (odd and even
    // steps); and a disk that stays full from the step on, at every 8th step
    // (at every step with ORIGIN_FAULT_EVERY_STEP=1: about twice as long).
    const bool every = std::getenv("ORIGIN_FAULT_EVERY_STEP") != nullptr;
    for (std::int64_t at = 1; at <= steps; ++at) {
      for (bool lasting : {false, true}) {
        if (lasting && !every && at % 8 != 1) continue;
        INFO("step " << at << (lasting ? " and every one after" : " alone"));
        FaultPlan plan{.at = at,
                       .lasting = lasting,
                       .kind = at % 2 == 0 ? FaultKind::kIo : FaultKind::kFull,
                       .while_exists = ""};
        Snapshot x = ImportWithFault(plan, totals, options);
        CHECK(x.events == reference.events);
        CHECK(x.sessions == reference.sessions);
        CHECK(x.entries == reference.entries);
        CHECK(x.mirrors == reference.mirrors);
        CHECK(x.cursors == reference.cursors);
        // In groups, where a tail is sealed depends on the transaction a
        // retry starts with (a sync's first is in no group): the same
        // content, its frames possibly cut elsewhere.
        if (grouped) continue;
        CHECK(x.files == reference.files);
        CHECK(x.chunks == reference.chunks);
        CHECK(x.zst == reference.zst);
      }
    }
    MESSAGE(steps << " write steps in the import; " << totals.refused
                  << " phases refused by the store and taken again");
    CHECK(totals.refused > 0);
    if (grouped) CHECK(totals.groups_lost > 0);
  }
}
