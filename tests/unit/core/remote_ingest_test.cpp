// SPDX-License-Identifier: MIT
// A device's mirrors on a hub (core/ingest/remote.cpp; spec: Personal hub,
// Replication step 1): chunks land only at the hub's cursor, as mirrors of
// the device's own directory, and give the events the device has, under the
// same ids, whatever order and how many times they are sent.
#include <doctest/doctest.h>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/codex/codex.hpp"
#include "core/hub/replicate.hpp"
#include "core/ingest/raw_file.hpp"
#include "core/ingest/verify_events.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

std::string Text(Db& db, const std::string& sql) {
  Stmt st(db.get(), sql);
  return st.Step() ? std::string(st.Text(0)) : "";
}

std::string Line(const std::string& uuid, const std::string& text) {
  return R"({"type":"user","uuid":")" + uuid +
         R"(","sessionId":"s1","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/home/dev/app","message":{"role":"user","content":")" +
         text + "\"}}\n";
}

RemoteChunk Chunk(std::string device, std::int64_t offset, std::string data,
                  std::int64_t generation = 1) {
  RemoteChunk c;
  c.device = std::move(device);
  c.path = "/home/u/.claude/projects/-home-dev-app/s1.jsonl";
  c.rel_path = "projects/-home-dev-app/s1.jsonl";
  c.generation = generation;
  c.offset = offset;
  c.data = std::move(data);
  return c;
}

}  // namespace

TEST_SUITE("ingest") {
  TEST_CASE("ingest: a device's chunk lands at the hub's cursor only, under the device's ids") {
    TestStore s;
    adapters::ClaudeCodeAdapter adapter{s.dir / "claude"};
    const std::string a = Line("u1", "first") + Line("u2", "second");
    const std::string b = Line("u3", "third");
    RemoteOutcome o = s.ingester->IngestRemote(adapter, Chunk("laptop", 0, a));
    CHECK(o.appended);
    CHECK(o.bytes == static_cast<std::int64_t>(a.size()));
    CHECK(o.events == 2);
    // Again, or past the cursor: refused, nothing written.
    for (std::int64_t at : {std::int64_t{0}, static_cast<std::int64_t>(a.size()) + 1}) {
      RemoteOutcome r = s.ingester->IngestRemote(adapter, Chunk("laptop", at, b));
      CHECK_FALSE(r.appended);
      CHECK(r.bytes == static_cast<std::int64_t>(a.size()));
    }
    CHECK(s.db->QueryInt("SELECT count(*) FROM event") == 2);
    CHECK(s.ingester->IngestRemote(adapter, Chunk("laptop", static_cast<std::int64_t>(a.size()), b))
              .events == 1);
    // Another device's file of the same name is a file of its own; the ids
    // are the device's, so the same line from two devices is one event.
    RemoteOutcome other = s.ingester->IngestRemote(adapter, Chunk("desktop", 0, Line("u1", "first")));
    CHECK(other.appended);
    CHECK(other.events == 0);
    CHECK(s.db->QueryInt("SELECT count(*) FROM event") == 3);
    CHECK(Text(*s.db, "SELECT group_concat(id, ' ') FROM (SELECT id FROM event ORDER BY id)") ==
          "claude-code:u1 claude-code:u2 claude-code:u3");
    CHECK(Text(*s.db, "SELECT group_concat(mirror, ' ') FROM (SELECT mirror FROM raw_file "
                          "ORDER BY mirror)") ==
          "devices/desktop/claude-code/projects/-home-dev-app/s1.jsonl "
          "devices/laptop/claude-code/projects/-home-dev-app/s1.jsonl");
    const std::vector<RemoteCursor> cursors = DeviceCursors(*s.db, "laptop");
    REQUIRE(cursors.size() == 1);
    CHECK(cursors[0].rel_path == "projects/-home-dev-app/s1.jsonl");
    CHECK(cursors[0].bytes == static_cast<std::int64_t>(a.size() + b.size()));
    CHECK(cursors[0].lines == 3);
    CHECK(DeviceCursors(*s.db, "lap").empty());  // a prefix of a name is not the name
  }

  TEST_CASE("ingest: a device's files verify on the hub as the device's, keys and all") {
    // Codex's session index gives title events by its key (session_index.jsonl),
    // and verify parses the hub's mirror by the device's key too, as ingestion
    // did (not the hub's "@<device>:" one).
    TestStore s;
    std::vector<std::unique_ptr<SourceAdapter>> adapters;
    adapters.push_back(std::make_unique<adapters::CodexAdapter>(s.dir / "codex"));
    adapters.push_back(std::make_unique<adapters::ClaudeCodeAdapter>(s.dir / "claude"));
    RemoteChunk index;
    index.device = "laptop";
    index.path = "/home/u/.codex/session_index.jsonl";
    index.rel_path = "session_index.jsonl";
    index.data =
        R"({"id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","thread_name":"build.sh failure","updated_at":"2026-02-01T09:01:00Z"})"
        "\n";
    REQUIRE(s.ingester->IngestRemote(*adapters[0], index).events == 1);
    REQUIRE(
        s.ingester->IngestRemote(*adapters[1], Chunk("laptop", 0, Line("u1", "first"))).events ==
        1);
    CHECK(AdapterKey("@laptop:session_index.jsonl") == "session_index.jsonl");
    CHECK(AdapterKey("projects/a:b.jsonl") == "projects/a:b.jsonl");
    for (bool all : {false, true}) {
      const VerifyCheck v = VerifyEvents(*s.db, *s.mirrors, adapters, all, 2);
      CHECK(v.checked == 2);
      CHECK_MESSAGE(v.ok(), (v.problems.empty() ? std::string() : v.problems.front()));
    }
  }

  TEST_CASE("ingest: a device's names and paths cannot leave its directory under raw/") {
    TestStore s;
    adapters::ClaudeCodeAdapter adapter{s.dir / "claude"};
    const std::string line = Line("u1", "x");
    for (const char* device : {"", "..", "a/b", "a:b", "@x"})
      CHECK_THROWS_AS(s.ingester->IngestRemote(adapter, Chunk(device, 0, line)),
                      std::invalid_argument);
    for (const char* rel : {"../x", "/etc/passwd", "a/../../x", "a//b", "@laptop:x", ""}) {
      RemoteChunk c = Chunk("laptop", 0, line);
      c.rel_path = rel;
      CHECK_THROWS_AS(s.ingester->IngestRemote(adapter, c), std::invalid_argument);
    }
    CHECK_THROWS_AS(s.ingester->IngestRemote(adapter, Chunk("laptop", 0, "no line break")),
                    std::invalid_argument);
    CHECK(s.db->QueryInt("SELECT count(*) FROM raw_file") == 0);
    // A local file whose name starts with '@' would look like a device's.
    CHECK_FALSE(SafeKey("@laptop:projects/x.jsonl"));
    CHECK(SafeKey("projects/@x.jsonl"));
  }
}
