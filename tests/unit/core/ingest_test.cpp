// SPDX-License-Identifier: MIT
// Ingestion (spec: Ingestion) and its bad-input cases: nothing lost or
// doubled in any of them.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/codex/codex.hpp"
#include "core/c/zstd.hpp"
#include "core/ingest/walk.hpp"
#include "core/store/sessions.hpp"
#include "core/util/text.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

std::string UserLine(const std::string& uuid, const std::string& text,
                     const std::string& ts = "2026-01-05T10:00:00.000Z",
                     const std::string& session = "s1") {
  return R"({"type":"user","uuid":")" + uuid + R"(","sessionId":")" + session +
         R"(","timestamp":")" + ts +
         R"(","cwd":"/home/dev/app","gitBranch":"main","version":"2.1.12","message":{"role":"user","content":")" +
         text + "\"}}\n";
}

struct Claude {
  explicit Claude(const std::string& base = "") : s(base) {}
  TestStore s;
  std::string root = s.dir / "claude";
  adapters::ClaudeCodeAdapter adapter{root};
  std::string file = root + "/projects/-home-dev-app/s1.jsonl";
  SyncReport Sync() {
    s.clock.Tick(1000);
    return s.ingester->Sync({&adapter}, {});
  }
  std::int64_t Events() { return s.db->QueryInt("SELECT count(*) FROM event"); }
  std::int64_t Generations() { return s.db->QueryInt("SELECT count(*) FROM raw_file"); }
  std::string Content(std::int64_t file_id) { return s.mirrors->ReadContent(*s.db, file_id); }
};

}  // namespace

TEST_SUITE("ingest") {
  TEST_CASE("ingest: a sync told to stop between transactions stops there, as a value; the next goes on") {
    Claude c;
    WriteFile(c.file, UserLine("u1", "first"));
    WriteFile(c.root + "/projects/-home-dev-app/s2.jsonl", UserLine("u2", "second", "2026-01-05T10:00:00.000Z", "s2"));
    SyncOptions so;
    int asked = 0;
    so.between = [&] {
      ++asked;
      return false;  // a shutdown: stop after this transaction
    };
    c.s.clock.Tick(1000);
    SyncReport r = c.s.ingester->Sync({&c.adapter}, so);
    CHECK(r.stopped);
    CHECK(asked == 1);
    CHECK(r.events == 1);  // what was committed stands
    CHECK(c.Events() == 1);
    CHECK(c.s.db->QueryInt("SELECT count(*) FROM sync_log") == 0);  // recorded by the next sync
    SyncReport next = c.Sync();
    CHECK_FALSE(next.stopped);
    CHECK(next.events == 1);
    CHECK(c.Events() == 2);
  }

  TEST_CASE("ingest: lines become events with provenance, and a second sync adds nothing") {
    Claude c;
    WriteFile(c.file, UserLine("u1", "hello") + UserLine("u2", "world"));
    auto r = c.Sync();
    CHECK(r.events == 2);
    CHECK(c.Events() == 2);
    Stmt st(c.s.db->get(), "SELECT id, session, project, file_id, line FROM event ORDER BY seq");
    REQUIRE(st.Step());
    CHECK(st.Text(0) == "claude-code:u1");
    CHECK(st.Text(1) == "claude-code:s1");
    CHECK(st.Text(2) == "app");
    CHECK(c.s.mirrors->ReadLine(*c.s.db, st.Int(3), st.Int(4)) ==
          UserLine("u1", "hello").substr(0, UserLine("u1", "hello").size() - 1));
    CHECK(c.Sync().events == 0);
    // Unchanged since the last look: skipped without reading.
    CHECK(c.s.ingester->IngestFile(c.adapter, c.adapter.Discover().files.at(0)).changed == false);
  }

  TEST_CASE("ingest: a line that is not JSON is counted and the others go on") {
    Claude c;
    WriteFile(c.file, UserLine("u1", "a") + "this is not json\n" + "{\"truncated\": \n" +
                          UserLine("u2", "b"));
    auto r = c.Sync();
    CHECK(r.events == 2);
    CHECK(r.sources[0].parse_errors == 2);
    CHECK(c.s.db->QueryInt("SELECT parse_errors FROM raw_file") == 2);
    CHECK(c.s.db->QueryInt("SELECT sum(parse_errors) FROM sync_log") == 2);
    CHECK(c.s.db->QueryInt("SELECT lines_ingested FROM raw_file") == 4);  // mirrored all the same
  }

  TEST_CASE("ingest: a line nested a million deep is a parse error, not a crash") {
    Claude c;
    std::string deep_input =
        R"({"type":"assistant","uuid":"d1","sessionId":"s1","timestamp":"2026-01-05T10:00:00.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"X","input":)" +
        std::string(5000, '[') + std::string(5000, ']') + "}]}}\n";
    WriteFile(c.file, UserLine("u1", "a") + std::string(1000000, '[') + "\n" + deep_input +
                          UserLine("u2", "b"));
    auto r = c.Sync();
    CHECK(r.events == 2);
    CHECK(r.sources[0].parse_errors == 2);
    CHECK(c.Content(1) == ReadAll(c.file));
  }

  TEST_CASE("ingest: a mirror shorter than the store records refuses appends, and says so") {
    Claude c;
    WriteFile(c.file, UserLine("u1", "a"));
    c.Sync();
    // Something truncated the open tail behind Origin's back.
    ::truncate((c.s.raw_dir() + "/claude-code/projects/-home-dev-app/s1.jsonl.tail").c_str(), 5);
    AppendFile(c.file, UserLine("u2", "b"));
    auto r = c.Sync();
    CHECK(r.events == 0);
    REQUIRE(r.sources[0].errors.size() == 1);
    CHECK(r.sources[0].errors[0].find("refusing to append") != std::string::npos);
    CHECK(c.s.db->QueryInt("SELECT count(*) FROM raw_file WHERE broken IS NOT NULL") == 1);
    AppendFile(c.file, UserLine("u3", "c"));
    CHECK(c.Sync().events == 0);  // and keeps refusing
    CHECK(c.Events() == 1);
    CHECK(c.s.db->QueryInt("SELECT count(*) FROM sync_log WHERE error LIKE '%refusing%'") >= 1);
  }

  TEST_CASE("ingest: a last line without its newline waits for it") {
    Claude c;
    std::string l2 = UserLine("u2", "second");
    WriteFile(c.file, UserLine("u1", "first") + l2.substr(0, 30));
    CHECK(c.Sync().events == 1);
    CHECK(c.s.db->QueryInt("SELECT lines_ingested FROM raw_file") == 1);
    AppendFile(c.file, l2.substr(30));
    CHECK(c.Sync().events == 1);
    CHECK(c.Events() == 2);
    CHECK(c.Content(1) == ReadAll(c.file));
  }

  TEST_CASE("ingest: a file that shrinks opens a new generation and keeps the old mirror") {
    Claude c;
    WriteFile(c.file, UserLine("u1", "one") + UserLine("u2", "two") + UserLine("u3", "three"));
    c.Sync();
    std::string old_content = c.Content(1);
    WriteFile(c.file, UserLine("u1", "one") + UserLine("u4", "four"));
    auto r = c.Sync();
    CHECK(c.Generations() == 2);
    CHECK(r.events == 1);  // u1 was already there: not doubled
    CHECK(c.Events() == 4);
    CHECK(c.Content(1) == old_content);  // invariant 3
    CHECK(c.Content(2) == ReadAll(c.file));
    CHECK(c.s.db->QueryInt("SELECT file_id FROM event WHERE id = 'claude-code:u4'") == 2);
  }

  TEST_CASE("ingest: a file rewritten with the same size but another tail is a new generation") {
    Claude c;
    WriteFile(c.file, UserLine("u1", "aaaa") + UserLine("u2", "bbbb"));
    c.Sync();
    std::int64_t mtime = 1767000000LL * 1000000000;
    SetMtime(c.file, mtime);
    c.Sync();
    WriteFile(c.file, UserLine("u1", "aaaa") + UserLine("u3", "cccc"));
    SetMtime(c.file, mtime + 1000000000);
    auto r = c.Sync();
    CHECK(c.Generations() == 2);
    CHECK(r.events == 1);
    CHECK(c.Events() == 3);
    CHECK(c.s.db->QueryInt(
              "SELECT count(*) FROM raw_file WHERE generation = 2 AND mirror LIKE '%~g2'") == 1);
  }

  TEST_CASE("ingest: a single 50 MiB line takes a transaction of its own") {
    Claude c;
    std::string big =
        R"({"type":"user","uuid":"big","sessionId":"s1","timestamp":"2026-01-05T10:00:01.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":")" +
        std::string(50u << 20, 'x') + "\"}]}}\n";
    WriteFile(c.file, UserLine("u1", "before") + big + UserLine("u2", "after"));
    auto r = c.Sync();
    CHECK(r.events == 3);
    CHECK(c.s.db->QueryInt("SELECT length(text) FROM event WHERE id = 'claude-code:big#0'") ==
          4000);
    CHECK(c.s.db->QueryInt("SELECT lines_ingested FROM raw_file") == 3);
    CHECK(c.s.mirrors->ReadLine(*c.s.db, 1, 2)->size() == big.size() - 1);
    CHECK(c.Content(1) == ReadAll(c.file));
  }

  TEST_CASE("ingest: a line longer than the limit stops its file there, reported, memory bounded") {
    Claude c;
    c.s.ingester->set_max_line(4u << 20);
    WriteFile(c.file, UserLine("u1", "before") + std::string(6u << 20, 'x') + "\n" +
                          UserLine("u2", "after"));
    auto r = c.Sync();
    CHECK(r.events == 1);
    REQUIRE(r.sources[0].errors.size() == 1);
    CHECK(r.sources[0].errors[0].find("a line of more than 4 MiB") != std::string::npos);
    CHECK(c.s.db->QueryInt("SELECT lines_ingested FROM raw_file") == 1);
  }

  TEST_CASE("ingest: invalid UTF-8 is indexed as replacement characters and mirrored as it was") {
    Claude c;
    std::string line = UserLine("u1", "caf\xe9 \xff ok");
    WriteFile(c.file, line);
    CHECK(c.Sync().events == 1);
    Stmt st(c.s.db->get(), "SELECT text FROM event");
    REQUIRE(st.Step());
    CHECK(st.Text(0) == "caf\xEF\xBF\xBD \xEF\xBF\xBD ok");
    CHECK(c.Content(1) == line);
  }

  TEST_CASE("ingest: a file deleted while it is read is finished from the open file") {
    Claude c;
    std::string data;
    for (int i = 0; i < 3000; ++i) data += UserLine("u" + std::to_string(i), std::string(500, 'y'));
    WriteFile(c.file, data);
    SourceFile f = c.adapter.Discover().files.at(0);
    int transactions = 0;
    FileOutcome o = c.s.ingester->IngestFile(c.adapter, f, [&] {
      if (++transactions == 1) ::unlink(c.file.c_str());
      return true;
    });
    CHECK(transactions >= 2);
    CHECK(o.error.empty());
    CHECK(c.Events() == 3000);
    CHECK(c.Content(1) == data);
    SUBCASE("and a file gone before it is opened is no error") {
      WriteFile(c.file + ".x", "");
      SourceFile g = f;
      g.abs_path = c.root + "/projects/-home-dev-app/gone.jsonl";
      g.key = "projects/-home-dev-app/gone.jsonl";
      FileOutcome o2 = c.s.ingester->IngestFile(c.adapter, g);
      CHECK(o2.error.empty());
      CHECK_FALSE(o2.changed);
    }
  }

  TEST_CASE("ingest: a symlink loop is reported and the rest goes on") {
    Claude c;
    WriteFile(c.file, UserLine("u1", "x"));
    REQUIRE(::symlink("..", (c.root + "/projects/-home-dev-app/loop").c_str()) == 0);
    REQUIRE(::symlink("self", (c.root + "/projects/self").c_str()) == 0);
    Discovery d = c.adapter.Discover();
    CHECK(d.files.size() == 1);
    CHECK_FALSE(d.problems.empty());
    CHECK(c.Sync().events == 1);
  }

  TEST_CASE("ingest: a directory that cannot be read is reported and the rest goes on") {
    Claude c("/tmp");  // reachable by the ordinary user the check runs as
    WriteFile(c.file, UserLine("u1", "x"));
    WriteFile(c.root + "/projects/-secret/s2.jsonl",
              UserLine("u2", "y", "2026-01-05T10:00:00.000Z", "s2"));
    ::chmod((c.root + "/projects/-secret").c_str(), 0);
    if (::geteuid() == 0) {
      // Root reads every directory: check as an ordinary user, in a child.
      ::chmod(c.s.dir.path().c_str(), 0755);
      pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
        Discovery d = c.adapter.Discover();
        bool ok = d.files.size() == 1 && d.problems.size() == 1 &&
                  d.problems[0].path.find("-secret") != std::string::npos;
        ::_exit(ok ? 0 : 1);
      }
      int status = 0;
      ::waitpid(pid, &status, 0);
      CHECK(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 0);
    } else {
      Discovery d = c.adapter.Discover();
      CHECK(d.files.size() == 1);
      REQUIRE(d.problems.size() == 1);
      CHECK(d.problems[0].path.find("-secret") != std::string::npos);
      CHECK(c.Sync().events == 1);
    }
    ::chmod((c.root + "/projects/-secret").c_str(), 0755);
  }

  TEST_CASE("ingest: titles: the latest wins, but a generated one never replaces the user's") {
    Claude c;
    WriteFile(c.file, UserLine("u1", "x") +
                          R"({"type":"summary","summary":"Old summary","leafUuid":"u1"})"
                          "\n"
                          R"({"type":"ai-title","aiTitle":"Generated","sessionId":"s1"})"
                          "\n");
    c.Sync();
    auto title = [&] {
      Stmt st(c.s.db->get(), "SELECT title, title_manual FROM session WHERE id = 'claude-code:s1'");
      REQUIRE(st.Step());
      return std::string(st.Text(0)) + "|" + std::to_string(st.Int(1));
    };
    CHECK(title() == "Generated|0");
    AppendFile(c.file, R"({"type":"custom-title","customTitle":"mine","sessionId":"s1"})"
                       "\n");
    c.Sync();
    CHECK(title() == "mine|1");
    AppendFile(c.file, R"({"type":"ai-title","aiTitle":"Generated again","sessionId":"s1"})"
                       "\n");
    c.Sync();
    CHECK(title() == "mine|1");
    AppendFile(c.file, R"({"type":"custom-title","customTitle":"renamed","sessionId":"s1"})"
                       "\n");
    c.Sync();
    CHECK(title() == "renamed|1");
  }

  TEST_CASE(
      "ingest: each title line is an event: a repeat of the current title is none, a title back "
      "after another is one, and none counts in the session") {
    Claude c;
    auto line = [](const char* type, const char* field, const std::string& text) {
      return std::string(R"({"type":")") + type + R"(",")" + field + R"(":")" + text +
             R"(","sessionId":"s1"})" + "\n";
    };
    WriteFile(c.file, UserLine("u1", "x") + line("ai-title", "aiTitle", "A") +
                          line("ai-title", "aiTitle", "A") + line("ai-title", "aiTitle", "B") +
                          line("ai-title", "aiTitle", "A"));
    c.Sync();
    auto titles = [&] {
      std::string out;
      Stmt st(c.s.db->get(),
              "SELECT text, line, role, ts FROM event WHERE kind = 'meta' AND tool_name = 'title' "
              "AND session = 'claude-code:s1' ORDER BY seq");
      while (st.Step())
        out += std::string(st.Text(0)) + "@" + std::to_string(st.Int(1)) + ":" +
               std::string(st.Text(2)) + " " + FormatIsoUtc(st.Int(3)) + "\n";
      return out;
    };
    // Dated by the line before them, the user's line.
    CHECK(titles() ==
          "A@2:assistant 2026-01-05T10:00:00.000Z\n"
          "B@4:assistant 2026-01-05T10:00:00.000Z\n"
          "A@5:assistant 2026-01-05T10:00:00.000Z\n");
    CHECK(c.s.db->QueryInt("SELECT count(DISTINCT id) FROM event WHERE tool_name = 'title'") == 3);
    CHECK(c.s.db->QueryInt("SELECT title = 'A' FROM session WHERE id = 'claude-code:s1'") == 1);
    CHECK(c.s.db->QueryInt("SELECT event_count FROM session WHERE id = 'claude-code:s1'") == 1);
    // The same title lines read again (a rewritten file, a replay) add nothing.
    const std::int64_t events = c.Events();
    WriteFile(c.file, " " + UserLine("u1", "x") + line("ai-title", "aiTitle", "A") +
                          line("ai-title", "aiTitle", "B") + line("ai-title", "aiTitle", "A"));
    c.Sync();
    CHECK(c.Generations() == 2);
    CHECK(c.Events() == events);
    // The user's title, repeated many times as Claude Code does, is one event.
    AppendFile(c.file, line("custom-title", "customTitle", "mine") +
                           line("custom-title", "customTitle", "mine"));
    c.Sync();
    CHECK(c.Events() == events + 1);
    CHECK(c.s.db->QueryInt("SELECT title = 'mine' AND title_manual FROM session") == 1);
  }

  TEST_CASE("ingest: a title line before any time waits for the next line that has one") {
    Claude c;
    WriteFile(c.file, R"({"type":"summary","summary":"Old summary","leafUuid":"u1"})"
                      "\n");
    c.Sync();
    CHECK(c.Events() == 0);  // no time yet: it waits, in the file's state
    AppendFile(c.file, UserLine("u1", "x", "2026-01-05T10:00:00.000Z"));
    c.Sync();
    // The summary's leaf, u1, arrived with that line: the title is placed
    // once u1's event is in (core/ingest/leaf_titles.hpp).
    Stmt st(c.s.db->get(), "SELECT id, ts, line FROM event ORDER BY seq");
    REQUIRE(st.Step());
    CHECK(st.Text(0) == "claude-code:u1");
    REQUIRE(st.Step());
    CHECK(std::string(st.Text(0)).find("claude-code:s1:title:") == 0);
    CHECK(FormatIsoUtc(st.Int(1)) == "2026-01-05T10:00:00.000Z");
    CHECK(st.Int(2) == 1);  // its own line (invariant 1)
    CHECK(c.s.db->QueryInt("SELECT title = 'Old summary' FROM session") == 1);
  }

  TEST_CASE("ingest: sessions kept incrementally equal sessions rebuilt from events") {
    Claude c;
    for (int f = 0; f < 3; ++f) {
      std::string data;
      for (int i = 0; i < 50; ++i) {
        data += UserLine("f" + std::to_string(f) + "u" + std::to_string(i), "t",
                         "2026-01-0" + std::to_string(1 + (i * 7 + f) % 9) + "T10:00:00.000Z",
                         "s" + std::to_string(i % 4));
        if (i % 9 == 0)  // titles, the user's and generated ones, in every session
          data += std::string(R"({"type":")") + (i % 2 ? "custom-title" : "ai-title") + R"(",")" +
                  (i % 2 ? "customTitle" : "aiTitle") + R"(":"t)" + std::to_string(f * 100 + i) +
                  R"(","sessionId":"s)" + std::to_string(i % 4) + "\"}\n";
      }
      WriteFile(c.root + "/projects/p" + std::to_string(f) + "/x.jsonl", data);
      c.Sync();
    }
    auto dump = [&] {
      std::string out;
      Stmt st(c.s.db->get(),
              "SELECT id, first_ts, last_ts, event_count, message_count, coalesce(title, '-'), "
              "title_manual FROM session ORDER BY id");
      while (st.Step())
        out += std::string(st.Text(0)) + " " + std::to_string(st.Int(1)) + " " +
               std::to_string(st.Int(2)) + " " + std::to_string(st.Int(3)) + " " +
               std::to_string(st.Int(4)) + " " + std::string(st.Text(5)) + " " +
               std::to_string(st.Int(6)) + "\n";
      return out;
    };
    std::string incremental = dump();
    RecomputeSessions(*c.s.db);
    CHECK(dump() == incremental);
    CHECK(c.s.db->QueryInt("SELECT sum(event_count) FROM session") == 150);
    CHECK(c.s.db->QueryInt("SELECT count(*) FROM session WHERE title IS NOT NULL") == 4);
    CHECK(c.s.db->QueryInt("SELECT count(*) FROM session WHERE title_manual") == 2);
  }

  TEST_CASE("ingest: files are ingested oldest first by modification time") {
    Claude c;
    WriteFile(c.root + "/projects/p/new.jsonl", UserLine("n", "new"));
    WriteFile(c.root + "/projects/p/old.jsonl", UserLine("o", "old"));
    SetMtime(c.root + "/projects/p/new.jsonl", 2000LL * 1000000000);
    SetMtime(c.root + "/projects/p/old.jsonl", 1000LL * 1000000000);
    c.Sync();
    CHECK(c.s.db->QueryInt("SELECT seq FROM event WHERE id = 'claude-code:o'") == 1);
    CHECK(c.s.db->QueryInt("SELECT seq FROM event WHERE id = 'claude-code:n'") == 2);
  }

  TEST_CASE("ingest: transactions hold at most 1 MiB of lines") {
    Claude c;
    std::string data;
    for (int i = 0; i < 6000; ++i) data += UserLine("u" + std::to_string(i), std::string(600, 'z'));
    WriteFile(c.file, data);
    int transactions = 0;
    c.s.ingester->IngestFile(c.adapter, c.adapter.Discover().files.at(0), [&] { return ++transactions > 0; });
    CHECK(transactions ==
          static_cast<int>((data.size() + kMaxTransactionBytes - 1) / kMaxTransactionBytes));
    CHECK(c.Events() == 6000);
  }

  TEST_CASE("ingest: an idle tail is sealed after an hour by the next sync") {
    Claude c;
    WriteFile(c.file, UserLine("u1", "x"));
    SetMtime(c.file, (c.s.clock.NowMs() + 500) * 1000000);  // written just now
    c.Sync();
    CHECK(c.s.db->QueryInt("SELECT count(*) FROM raw_chunk") == 0);
    c.s.clock.Tick(kIdleSealMs);
    auto r = c.Sync();
    CHECK(r.sources[0].sealed == 1);
    CHECK(c.s.db->QueryInt("SELECT count(*) FROM raw_chunk") == 1);
    CHECK(c.Content(1) == ReadAll(c.file));
    AppendFile(c.file, UserLine("u2", "y"));
    c.Sync();
    CHECK(c.Content(1) == ReadAll(c.file));
    CHECK(c.Events() == 2);
  }

  TEST_CASE(
      "ingest: a sync that has read bulk_bytes (an import) gives the writer's connection a "
      "larger page cache for the rest of it, from the transaction that reached it, and the "
      "default back at its end") {
    Claude c;
    const auto file = [&](int i) {
      return c.root + "/projects/-home-dev-app/s" + std::to_string(i) + ".jsonl";
    };
    for (int i = 0; i < 3; ++i)
      WriteFile(file(i), UserLine("u" + std::to_string(i), "text " + std::to_string(i),
                                  "2026-01-05T10:00:00.000Z", "s" + std::to_string(i)));
    const std::int64_t before = c.s.db->QueryInt("PRAGMA cache_size");
    REQUIRE(before != -kBulkCacheKib);
    // The cache after each transaction, as the sync's `between` sees it.
    std::vector<std::int64_t> during;
    SyncOptions so;
    so.between = [&] {
      during.push_back(c.s.db->QueryInt("PRAGMA cache_size"));
      return true;
    };
    // Less read than bulk_bytes: the cache stays as it is.
    so.bulk_bytes = std::int64_t{1} << 30;
    c.s.clock.Tick(1000);
    c.s.ingester->Sync({&c.adapter}, so);
    CHECK(during == std::vector<std::int64_t>(3, before));
    // One file of three transactions (1 MiB each at most): the cache is
    // larger from the first one on, and given back after.
    std::string lines;
    for (int i = 0; lines.size() < (std::size_t{5} << 19); ++i)
      lines += UserLine("v" + std::to_string(i), std::string(2000, 'a' + i % 26),
                        "2026-01-05T10:01:00.000Z", "s0");
    AppendFile(file(0), lines);
    during.clear();
    so.bulk_bytes = 1;
    so.group_bytes = 0;  // `between` after every transaction (ingest_group_test.cpp)
    c.s.clock.Tick(1000);
    SyncReport r = c.s.ingester->Sync({&c.adapter}, so);
    CHECK(r.bytes == static_cast<std::int64_t>(lines.size()));
    CHECK(during == std::vector<std::int64_t>(3, -kBulkCacheKib));
    CHECK(c.s.db->QueryInt("PRAGMA cache_size") == before);
  }

  TEST_CASE("ingest: a file that stopped growing an hour before its import is sealed at once") {
    Claude c;
    WriteFile(c.file, UserLine("u1", "x"));
    SetMtime(c.file, (c.s.clock.NowMs() - kIdleSealMs - 1000) * 1000000);
    auto r = c.Sync();
    CHECK(r.sources[0].sealed == 1);
    CHECK(c.s.db->QueryInt("SELECT bytes_ingested - tail_offset FROM raw_file") == 0);
    CHECK(c.Content(1) == ReadAll(c.file));
  }

  TEST_CASE(
      "ingest: a Codex rollout moving between .jsonl and .jsonl.zst is neither doubled nor "
      "re-read") {
    TestStore s;
    std::string root = s.dir / "codex";
    adapters::CodexAdapter adapter(root);
    const std::string name =
        "rollout-2026-02-01T09-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl";
    const std::string plain = root + "/sessions/2026/02/01/" + name;
    std::string lines =
        R"({"timestamp":"2026-02-01T09:00:00.000Z","type":"session_meta","payload":{"id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","cwd":"/home/dev/app","cli_version":"0.128.0"}})"
        "\n"
        R"({"timestamp":"2026-02-01T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"first"}]}})"
        "\n";
    WriteFile(plain, lines);
    CHECK(s.ingester->Sync({&adapter}, {}).events == 1);
    // Codex compresses the idle rollout and removes the plain file.
    WriteFile(plain + ".zst", CompressFrame(lines, 3));
    ::unlink(plain.c_str());
    auto r = s.ingester->Sync({&adapter}, {});
    CHECK(r.events == 0);
    CHECK(r.lines == 0);
    CHECK(s.db->QueryInt("SELECT count(*) FROM raw_file") == 1);
    CHECK(s.db->QueryInt("SELECT path LIKE '%.zst' FROM raw_file") == 1);
    // On resume it decompresses back and appends.
    std::string more =
        R"({"timestamp":"2026-02-01T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"second"}]}})"
        "\n";
    WriteFile(plain, lines + more);
    ::unlink((plain + ".zst").c_str());
    r = s.ingester->Sync({&adapter}, {});
    CHECK(r.events == 1);
    CHECK(r.lines == 1);
    CHECK(s.db->QueryInt("SELECT count(*) FROM raw_file") == 1);
    CHECK(s.mirrors->ReadContent(*s.db, 1) == lines + more);
    // The cwd carried from session_meta reached the later event.
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE project = 'app'") == 2);
    SUBCASE("when both forms exist the plain file wins") {
      WriteFile(plain + ".zst", CompressFrame(lines, 3));
      Discovery d = adapter.Discover();
      REQUIRE(d.files.size() == 1);
      CHECK_FALSE(d.files[0].zstd);
    }
  }

  TEST_CASE("ingest: a compressed rollout first seen compressed is read whole") {
    TestStore s;
    std::string root = s.dir / "codex";
    adapters::CodexAdapter adapter(root);
    std::string lines;
    for (int i = 0; i < 5000; ++i)
      lines +=
          R"({"timestamp":"2026-02-01T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"message )" +
          std::to_string(i) + " " + std::string(300, 'q') + "\"}]}}\n";
    WriteFile(root +
                  "/archived_sessions/"
                  "rollout-2026-01-01T00-00-00-11111111-2222-3333-4444-555555555555.jsonl.zst",
              CompressFrame(lines, 3));
    auto r = s.ingester->Sync({&adapter}, {});
    CHECK(r.events == 5000);
    CHECK(s.mirrors->ReadContent(*s.db, 1) == lines);
    CHECK(s.ingester->Sync({&adapter}, {}).lines == 0);
  }
}
