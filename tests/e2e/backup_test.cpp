// SPDX-License-Identifier: MIT
// origin backup and origin verify (issue 18) against a real daemon: a backup
// made while the daemon ingests a log that keeps growing is a store of its
// own (a daemon started on it shows the snapshot's counts, verify passes on
// it, and its mirrors hold the same lines as the live ones: invariants 1 and
// 3); a second backup copies only what is new; verify names each damage one
// can inflict on a store (a flipped byte in a frame, a truncated tail, a
// missing mirror, a line that no longer parses to its event's id, an index
// row removed) and exits 1, and changes nothing.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <thread>

#include "core/store/mirror.hpp"
#include "core/store/schema.hpp"
#include "core/util/hash.hpp"
#include "tests/e2e/daemon_fixture.hpp"
#include "tests/support/loggen.hpp"

using namespace origin;
using namespace origin::test;

namespace {

namespace fs = std::filesystem;

// Every file of a store but its run/ directory, with a hash of its bytes.
std::map<std::string, std::string> Files(const std::string& home) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(home)) {
    const std::string rel = e.path().string().substr(home.size());
    // run/ is the daemon's; -shm is SQLite's shared memory, which readers
    // write their read marks to.
    if (rel.rfind("/run", 0) == 0 || !e.is_regular_file() ||
        (rel.size() > 4 && rel.compare(rel.size() - 4, 4, "-shm") == 0))
      continue;
    out[rel] = Sha256Hex(ReadAll(e.path().string()));
  }
  return out;
}

// A daemon on `home` (a backup) whose agents' roots are empty: it ingests
// nothing of its own.
void StartOn(DaemonFixture& g, const std::string& home) {
  g.env()["ORIGIN_HOME"] = home;
  g.Start({"--rescan-ms", "600000"});
}

std::string Problems(const rapidjson::Document& v) {
  std::string out;
  for (const auto& c : v["checks"].GetArray())
    for (const auto& p : c["problems"].GetArray()) out += std::string(p.GetString()) + "\n";
  return out;
}

// verify's answer, requiring the exit code `want`.
rapidjson::Document Verify(DaemonFixture& f, int want, bool all = true) {
  std::vector<std::string> args = {"verify", "--json"};
  if (all) args.push_back("--all");
  RunResult r = f.Cli(args);
  INFO(r.out << r.err);
  REQUIRE(r.status == want);
  return Json(r.out);
}

}  // namespace

TEST_SUITE("backup") {
  TEST_CASE(
      "backup: while the daemon ingests, the backup is a store of its own with the snapshot's "
      "lines, and a second copies only new frames") {
    DaemonFixture f;
    CorpusOptions opts;
    opts.total_bytes = 6 << 20;  // sessions of about 1 MiB: sealed frames and open tails
    opts.mean_session_bytes = 1 << 20;
    opts.seed = 18;
    std::vector<CorpusFile> files = GenerateCorpus(f.claude(), f.codex(), opts);
    std::string growing;
    for (const auto& c : files)
      if (c.path.find("/projects/") != std::string::npos) growing = c.path;
    REQUIRE(!growing.empty());
    f.Start();
    REQUIRE(f.Cli({"sync"}).status == 0);
    const std::int64_t before = f.Events();
    REQUIRE(before > 1000);

    // A writer appends to a live session for the whole backup.
    std::atomic<bool> stop{false};
    std::atomic<int> appended{0};
    std::thread writer([&] {
      while (!stop) {
        AppendClaudeLines(growing, 200000 + appended, 5,
                          static_cast<std::uint32_t>(appended.load()));
        appended += 5;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
    DaemonFixture g;  // its home is the backup's directory
    const std::string dir = g.home();
    RunResult b = f.Cli({"backup", dir, "--json"});
    stop = true;
    writer.join();
    INFO(b.out << b.err);
    REQUIRE(b.status == 0);
    rapidjson::Document rep = Json(b.out);
    CHECK_FALSE(rep["incremental"].GetBool());
    CHECK(rep["events"].GetInt64() >= before);
    CHECK(rep["frames_copied"].GetInt64() > 0);
    CHECK(rep["files_written"].GetInt64() > 2);
    struct stat st;
    REQUIRE(::stat(dir.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    CHECK(appended > 0);

    // The live store, meanwhile, goes on.
    Verify(f, 0);

    // The backup is a store: a daemon on it shows the snapshot's counts,
    // and verify passes on it.
    const std::map<std::string, std::string> backed = MirrorContents(dir);
    StartOn(g, dir);
    CHECK(g.Events() == rep["events"].GetInt64());
    rapidjson::Document v = Verify(g, 0);
    CHECK(v["ok"].GetBool());
    g.Stop();

    // Every mirror of the backup holds the live mirror's lines, as far as
    // the snapshot recorded them (the live one may have grown since).
    REQUIRE(f.Cli({"sync"}).status == 0);
    const std::map<std::string, std::string> live = MirrorContents(f.home());
    REQUIRE(backed.size() == live.size());
    for (const auto& mirror : backed) {
      const std::string& name = mirror.first;  // (clang 14: no structured binding in INFO)
      const std::string& content = mirror.second;
      INFO(name);
      REQUIRE(live.count(name) == 1);
      CHECK(live.at(name).compare(0, content.size(), content) == 0);
      CHECK(content.size() <= live.at(name).size());
    }

    // Enough new lines to seal new frames: the second backup copies those,
    // and of the rest of the mirrors nothing.
    AppendClaudeLines(growing, 300000, 3000, 99);
    REQUIRE(f.Cli({"sync"}).status == 0);
    RunResult b2 = f.Cli({"backup", dir, "--json"});
    INFO(b2.out << b2.err);
    REQUIRE(b2.status == 0);
    rapidjson::Document rep2 = Json(b2.out);
    CHECK(rep2["incremental"].GetBool());
    std::int64_t frames_now = 0;
    {
      auto live_db = OpenReadConnection(f.home() + "/origin.db");
      frames_now = live_db->QueryInt("SELECT count(*) FROM raw_chunk");
    }
    // Exactly the frames sealed since, and the bytes of those frames and of
    // the one tail that grew: nothing else of the mirrors.
    CHECK(rep2["frames_copied"].GetInt64() == frames_now - rep["frames_copied"].GetInt64());
    CHECK(rep2["frames_copied"].GetInt64() > 0);
    CHECK(rep2["mirrors_changed"].GetInt64() == 1);
    CHECK(rep2["mirrors"].GetInt64() == rep["mirrors"].GetInt64());
    // (and the marker, which lists the tails written again)
    const std::int64_t other = rep2["bytes_written"].GetInt64() - rep2["db_bytes"].GetInt64() -
                               rep2["frame_bytes"].GetInt64() - rep2["tail_bytes"].GetInt64();
    CHECK(other >= 0);
    CHECK(other < 1000);
    // The databases, the grown mirror's two files and the marker.
    CHECK(rep2["files_written"].GetInt64() == 2 + 2 + 1);
    // The answer in words says it too.
    const std::map<std::string, std::string> backed2 = MirrorContents(dir);
    const std::map<std::string, std::string> live2 = MirrorContents(f.home());
    for (const auto& [name, content] : backed2)
      CHECK(live2.at(name).compare(0, content.size(), content) == 0);
    const std::string grown = "claude-code/" + growing.substr(f.claude().size() + 1);
    REQUIRE(backed.count(grown) == 1);
    CHECK(backed2.at(grown).size() > backed.at(grown).size());
    RunResult words = f.Cli({"backup", dir});
    INFO(words.out << words.err);
    CHECK(words.status == 0);
    CHECK(words.out.find("updated the backup of") != std::string::npos);
    CHECK(words.out.find("0 new frames") != std::string::npos);

    const std::int64_t now = f.Events();
    StartOn(g, dir);
    CHECK(g.Events() == now);
    Verify(g, 0);
    g.Stop();
    f.Stop();
  }

  TEST_CASE(
      "backup: refuses a directory inside the store, one that is not a store, another store's "
      "backup, and one a daemon runs on") {
    DaemonFixture f;
    WriteFile(f.claude() + "/projects/p/11111111-1111-1111-1111-111111111111.jsonl",
              ClaudeLine("u1", "hello", "11111111-1111-1111-1111-111111111111"));
    f.Start();
    REQUIRE(f.Cli({"sync"}).status == 0);

    RunResult inside = f.Cli({"backup", f.home() + "/raw/b"});
    CHECK(inside.status == 2);
    CHECK(inside.err.find("inside the store") != std::string::npos);

    DaemonFixture other;
    WriteFile(other.home() + "/notes.txt", "mine");
    RunResult not_store = f.Cli({"backup", other.home()});
    CHECK(not_store.status == 2);
    CHECK(not_store.err.find("holds no Origin store") != std::string::npos);
    CHECK(ReadAll(other.home() + "/notes.txt") == "mine");

    // Another store's backup.
    DaemonFixture g;
    WriteFile(g.claude() + "/projects/p/22222222-2222-2222-2222-222222222222.jsonl",
              ClaudeLine("u2", "other", "22222222-2222-2222-2222-222222222222"));
    g.Start();
    REQUIRE(g.Cli({"sync"}).status == 0);
    const std::string dir = f.dir() / "b";
    REQUIRE(g.Cli({"backup", dir}).status == 0);
    RunResult different = f.Cli({"backup", dir});
    CHECK(different.status == 2);
    CHECK(different.err.find("different store") != std::string::npos);
    g.Stop();

    // A daemon running on the backup.
    DaemonFixture h;
    const std::string mine = h.home();
    REQUIRE(f.Cli({"backup", mine}).status == 0);
    StartOn(h, mine);
    RunResult running = f.Cli({"backup", mine});
    CHECK(running.status == 2);
    CHECK(running.err.find("in use") != std::string::npos);
    h.Stop();
    CHECK(f.Cli({"backup", mine}).status == 0);
    f.Stop();
  }

  TEST_CASE("verify: names each damage, exits 1, and changes nothing") {
    DaemonFixture f;
    CorpusOptions opts;
    opts.total_bytes = 4 << 20;
    opts.mean_session_bytes = 2 << 20;
    opts.seed = 7;
    std::vector<CorpusFile> files = GenerateCorpus(f.claude(), f.codex(), opts);
    f.Start();
    REQUIRE(f.Cli({"sync"}).status == 0);
    // A session sealed on import (it is old) gets an open tail.
    std::string session;
    for (const auto& c : files)
      if (c.path.find("/projects/") != std::string::npos) session = c.path;
    REQUIRE(!session.empty());
    AppendClaudeLines(session, 500000, 30, 3);
    REQUIRE(f.Cli({"sync"}).status == 0);
    // The store to damage: a backup, on which a daemon with no logs of its
    // own runs (it writes nothing to the mirrors).
    DaemonFixture g;
    const std::string dir = g.home();
    REQUIRE(f.Cli({"backup", dir}).status == 0);
    f.Stop();

    // A sealed frame, an open tail and a message event of the store.
    std::string zst, tail, mirror, tail_mirror, last_uuid, message_id, message_text;
    std::int64_t message_seq = 0, frame_offset = 0;
    {
      auto db = OpenReadConnection(dir + "/origin.db");
      Stmt m(db->get(),
             "SELECT r.mirror, c.file_offset FROM raw_file r JOIN raw_chunk c ON c.file_id = r.id "
             "ORDER BY c.file_length DESC LIMIT 1");
      REQUIRE(m.Step());
      mirror = std::string(m.Text(0));
      frame_offset = m.Int(1);
      zst = dir + "/raw/" + mirror + ".zst";
      Stmt t(db->get(),
             "SELECT mirror FROM raw_file WHERE source = 'claude-code' AND key = ? "
             "AND bytes_ingested > tail_offset");
      t.Bind(1, session.substr(f.claude().size() + 1));
      REQUIRE(t.Step());
      tail_mirror = std::string(t.Text(0));
      tail = dir + "/raw/" + tail_mirror + ".tail";
      // The last event of that mirror: its line is in the tail.
      Stmt last(db->get(),
                "SELECT e.id FROM event e JOIN raw_file r ON r.id = e.file_id WHERE r.mirror = ? "
                "ORDER BY e.line DESC LIMIT 1");
      last.Bind(1, tail_mirror);
      REQUIRE(last.Step());
      last_uuid = std::string(last.Text(0));
      last_uuid = last_uuid.substr(last_uuid.find(':') + 1);
      last_uuid = last_uuid.substr(0, last_uuid.find('#'));
      Stmt e(db->get(),
             "SELECT seq, id, text FROM event WHERE kind = 'message' ORDER BY seq LIMIT 1");
      REQUIRE(e.Step());
      message_seq = e.Int(0);
      message_id = std::string(e.Text(1));
      message_text = std::string(e.Text(2));
    }
    const std::string zst_bytes = ReadAll(zst), tail_bytes = ReadAll(tail);
    REQUIRE(tail_bytes.size() > 100);

    StartOn(g, dir);
    REQUIRE(g.WaitFor([&] {
      rapidjson::Document s = Json(g.Cli({"status", "--json"}).out);
      // Merged too: the indexer's merges (a second after the last event)
      // write index.db, and verify must be seen to write nothing.
      return s["search_index"]["state"] == "ok" && s["search_index"]["merged"].GetBool() &&
             s["store"]["search_indexed_upto"].GetInt64() == s["store"]["max_seq"].GetInt64();
    }));
    const std::map<std::string, std::string> before = Files(dir);
    rapidjson::Document sound = Verify(g, 0);
    CHECK(Verify(g, 0, /*all=*/false)["ok"].GetBool());
    CHECK(Files(dir) == before);  // verify changes nothing
    for (const auto& c : sound["checks"].GetArray()) CHECK(c["checked"].GetInt64() > 0);

    // Each damage in turn, each undone before the next.
    {
      INFO("a flipped byte in a frame");
      std::string bad = zst_bytes;
      bad[static_cast<std::size_t>(frame_offset) + 100] ^= 0x20;
      WriteFile(zst, bad);
      rapidjson::Document v = Verify(g, 1, false);
      CHECK(Problems(v).find("mirror " + mirror + ": frame at content offset") !=
            std::string::npos);
      WriteFile(zst, zst_bytes);
    }
    {
      INFO("a truncated tail");
      WriteFile(tail, tail_bytes.substr(0, tail_bytes.size() - 10));
      rapidjson::Document v = Verify(g, 1, false);
      CHECK(Problems(v).find(tail_mirror + ".tail is truncated") != std::string::npos);
      WriteFile(tail, tail_bytes);
    }
    {
      INFO("a missing mirror");
      fs::remove(zst);
      rapidjson::Document v = Verify(g, 1, false);
      CHECK(Problems(v).find(mirror + ".zst is missing") != std::string::npos);
      WriteFile(zst, zst_bytes);
      fs::remove(tail);
      v = Verify(g, 1, false);
      CHECK(Problems(v).find(tail_mirror + ".tail is missing") != std::string::npos);
      WriteFile(tail, tail_bytes);
    }
    {
      INFO("a line that no longer parses to its event's id");
      // One character of the uuid of the mirror's last event, another: the
      // same length and lines, another id.
      std::string bad = tail_bytes;
      const std::size_t at = bad.rfind("\"uuid\":\"" + last_uuid + "\"");
      REQUIRE(at != std::string::npos);
      char& c = bad[at + 8];
      c = c == 'a' ? 'b' : 'a';
      WriteFile(tail, bad);
      rapidjson::Document v = Verify(g, 1);
      CHECK(Problems(v).find("(mirror " + tail_mirror + ", line ") != std::string::npos);
      CHECK(Problems(v).find("do not parse to this id") != std::string::npos);
      WriteFile(tail, tail_bytes);
    }
    CHECK(Files(dir) == before);  // every damage undone: the store is whole again
    Verify(g, 0);
    {
      INFO("an index row removed");
      g.Stop();
      {
        Db idx(dir + "/index.db", Db::Mode::kReadWrite);
        idx.Prepare("INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', ?, ?)")
            .Bind(1, message_seq)
            .Bind(2, message_text)
            .Run();
      }
      StartOn(g, dir);
      rapidjson::Document v = Verify(g, 1);
      CHECK(Problems(v).find("message_fts lacks event " + message_id) != std::string::npos);
      // The sample's quick verify does not compare the indexes.
      Verify(g, 0, false);
    }
    g.Stop();
  }
}
