// SPDX-License-Identifier: MIT
// Issue 14: Claude Code's logs read as a person reads the session.  Each rule
// on the shapes of tests/fixtures/claude-code/projects/-home-dev-rules (an old
// CLI's session A, the next session B whose file holds the summary of A, and
// B's compaction worker): summaries title the session holding their leaf,
// first prompts, harness text, empty text, models, versions, tool names of
// results, attachments.  Invariants named: 1 (provenance), 2 (forgetting),
// 3 (append-only: events stored before a change stay as they were).
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/common/harness.hpp"
#include "core/query/events.hpp"
#include "core/store/schema.hpp"
#include "core/store/status.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;
namespace fs = std::filesystem;

namespace {

const std::string kRules =
    std::string(ORIGIN_SOURCE_DIR) + "/tests/fixtures/claude-code/projects/-home-dev-rules";
const std::string kA = "aa000000-0000-4000-8000-0000000000a1";
const std::string kB = "bb000000-0000-4000-8000-0000000000b2";

struct Rules {
  TestStore s;
  std::string root = s.dir / "claude";
  std::string dir = root + "/projects/-home-dev-rules";
  adapters::ClaudeCodeAdapter adapter{root};

  // Copies the fixture's file `rel` in, with a modification time `minute`
  // minutes into 2026 (files are read oldest first).
  void Put(const std::string& rel, int minute) {
    fs::create_directories(fs::path(dir + "/" + rel).parent_path());
    fs::copy_file(kRules + "/" + rel, dir + "/" + rel, fs::copy_options::overwrite_existing);
    using namespace std::chrono;
    fs::last_write_time(dir + "/" + rel,
                        fs::file_time_type::clock::from_sys(
                            sys_seconds{sys_days{January / 1 / 2026}} + minutes(minute)));
  }
  void PutAll() {
    Put(kA + ".jsonl", 1);
    Put(kB + ".jsonl", 2);
    Put(kB + "/subagents/agent-acompact-1f2e3d.jsonl", 3);
  }
  void Sync() {
    s.clock.Tick(1000);
    SyncReport r = s.ingester->Sync({&adapter}, {});
    for (const SourceSummary& src : r.sources) REQUIRE(src.parse_errors == 0);
  }
  std::string Q(const std::string& sql) {
    Stmt st(s.db->get(), sql);
    if (!st.Step() || st.IsNull(0)) return "NULL";
    return std::string(st.Text(0));
  }
  std::string Title(const std::string& session) {
    return Q("SELECT title FROM session WHERE id = 'claude-code:" + session + "'");
  }
  EventRow Event(const std::string& native) {
    auto e = GetEvent(*s.db, "claude-code:" + native);
    REQUIRE_MESSAGE(e.has_value(), "no event claude-code:" << native);
    return *e;
  }
  bool Has(const std::string& native) {
    return GetEvent(*s.db, "claude-code:" + native).has_value();
  }
};

}  // namespace

TEST_SUITE("claude code rules") {
  TEST_CASE("claude code: a summary titles the session that holds its leaf, not its own log's") {
    Rules r;
    SUBCASE("the leaf's log is read first") {
      r.PutAll();
      r.Sync();
    }
    SUBCASE("the summary's log is read first: the title waits, and the leaf arrives later") {
      r.Put(kB + ".jsonl", 1);
      r.Sync();
      CHECK(r.Title(kB) == "NULL");
      CHECK(r.s.db->QueryInt("SELECT count(*) FROM title_wait") == 2);
      CHECK(r.s.db->QueryInt("SELECT count(*) FROM event WHERE tool_name = 'title'") == 0);
      r.Put(kA + ".jsonl", 2);
      r.Sync();
    }
    SUBCASE("the summary waits for a time in its file's state, then for its leaf") {
      const std::string whole = ReadAll(kRules + "/" + kB + ".jsonl");
      const std::size_t two = whole.find('\n', whole.find('\n') + 1) + 1;
      WriteFile(r.dir + "/" + kB + ".jsonl", whole.substr(0, two));
      r.Sync();
      CHECK(r.s.db->QueryInt("SELECT count(*) FROM event") == 0);  // no time yet
      AppendFile(r.dir + "/" + kB + ".jsonl", whole.substr(two));
      r.Sync();
      CHECK(r.Title(kB) == "NULL");
      r.Put(kA + ".jsonl", 100000);
      r.Sync();
    }
    CHECK(r.Title(kA) == "Deploy script gains a dry-run flag");
    CHECK(r.Title(kB) == "NULL");  // the summaries in B's file name other sessions
    // The title event is A's, and comes from B's file, line 1 (invariant 1).
    Stmt st(r.s.db->get(),
            "SELECT e.session, e.line, f.key, e.role FROM event e JOIN raw_file f ON f.id = "
            "e.file_id WHERE e.tool_name = 'title'");
    REQUIRE(st.Step());
    CHECK(st.Text(0) == "claude-code:" + kA);
    CHECK(st.Int(1) == 1);
    CHECK(st.Text(2) == "projects/-home-dev-rules/" + kB + ".jsonl");
    CHECK(st.Text(3) == "assistant");  // generated, not the user's
    CHECK_FALSE(st.Step());
    // The summary whose conversation is not here waits, on no session: it is
    // not lost (its line is mirrored, its title kept) and names nothing.
    CHECK(r.Q("SELECT text || '@' || line FROM title_wait") == "A conversation whose log is gone@2");
    // Read again (a sync, a restart), nothing doubles.
    const std::int64_t events = r.s.db->QueryInt("SELECT count(*) FROM event");
    r.Put(kB + ".jsonl", 5);
    r.Sync();
    CHECK(r.s.db->QueryInt("SELECT count(*) FROM event") == events);
    CHECK(r.s.db->QueryInt("SELECT count(*) FROM title_wait") == 1);
  }

  TEST_CASE("claude code: a slash command with arguments names the session; sidechains never do") {
    CHECK(PromptName("<command-message>review is running…</command-message>\n"
                     "<command-name>/review</command-name>\n"
                     "<command-args>the deploy   script</command-args>") == "/review the deploy script");
    CHECK(PromptName("<command-name>review</command-name><command-args>x</command-args>") ==
          "/review x");
    // Without arguments a command is passed over, as before.
    CHECK_FALSE(PromptName("<command-name>/clear</command-name>\n<command-message>clear"
                           "</command-message>\n<command-args></command-args>")
                    .has_value());
    CHECK(PromptName("<command-name>/model</command-name><command-args> </command-args>\nnext") ==
          "next");
    Rules r;
    r.PutAll();
    r.Sync();
    CHECK(FirstPrompt(*r.s.db, "claude-code:" + kB) == "/review the deploy script changes");
    CHECK(FirstPrompt(*r.s.db, "claude-code:" + kA) == "Add a --dry-run flag to deploy.sh");
    // A session whose only prompt is a sub-agent's task has no provisional name.
    Rules side;
    WriteFile(side.dir + "/s9.jsonl",
              R"({"type":"user","uuid":"c1","sessionId":"s9","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/x","message":{"role":"user","content":"<command-name>/clear</command-name><command-args></command-args>"}})"
              "\n"
              R"({"type":"user","uuid":"c2","sessionId":"s9","isSidechain":true,"agentId":"a1","timestamp":"2026-01-05T10:00:01.000Z","cwd":"/x","message":{"role":"user","content":"Search the repo for callers"}})"
              "\n");
    side.Sync();
    CHECK(side.Event("c2").agent == "a1");
    CHECK_FALSE(FirstPrompt(*side.s.db, "claude-code:s9").has_value());
  }

  TEST_CASE("claude code: harness text is meta, by the rule ZCode shares") {
    CHECK(adapters::IsHarnessText("<local-command-stdout>ok</local-command-stdout>"));
    CHECK(adapters::IsHarnessText("  <task-notification>\n<task-id>1</task-id>\n"
                                  "</task-notification>\nRead the output file"));
    CHECK(adapters::IsHarnessText("<system-reminder>x</system-reminder>"));
    CHECK(adapters::IsHarnessText("Unknown skill: deploy"));
    CHECK(adapters::IsHarnessText("[Request interrupted by user for tool use]"));
    CHECK_FALSE(adapters::IsHarnessText("<command-name>/review</command-name>"));
    CHECK_FALSE(adapters::IsHarnessText("<system-reminders-are-mine> is a tag I invented"));
    CHECK_FALSE(adapters::IsHarnessText("Why do I get Unknown skill: deploy?"));
    Rules r;
    r.PutAll();
    r.Sync();
    for (const char* id : {"ra-8", "ra-9", "ra-12", "ra-13"}) {
      INFO(id);
      EventRow e = r.Event(id);
      CHECK(e.kind == "meta");
      CHECK(e.role == "system");
    }
    // A reminder block beside the person's words: their message, and the
    // reminder as meta beside it.
    CHECK(r.Event("ra-10").kind == "message");
    CHECK(r.Event("ra-10").text == "now run it against staging");
    CHECK(r.Event("ra-10#context").kind == "meta");
    CHECK(r.Event("ra-10#context").text.find("TodoWrite") != std::string::npos);
    // The compaction worker's instruction and summary are meta: no message
    // of the session is the worker's.
    CHECK(r.Event("ac-1").kind == "meta");
    CHECK(r.Event("ac-2").kind == "meta");
    CHECK(r.s.db->QueryInt("SELECT count(*) FROM event WHERE kind = 'message' AND agent LIKE "
                           "'acompact-%'") == 0);
    // None of them names the session or counts as a message.
    CHECK(r.s.db->QueryInt("SELECT message_count FROM session WHERE id = 'claude-code:" + kA +
                           "'") == 5);
  }

  TEST_CASE("claude code: white space alone is no event, and stays in the mirror") {
    Rules r;
    r.PutAll();
    r.Sync();
    CHECK_FALSE(r.Has("ra-2"));
    CHECK(r.Has("ra-3#0"));
    const std::int64_t file = r.Event("ra-1").file_id;
    CHECK(r.s.mirrors->ReadContent(*r.s.db, file).find(R"("uuid":"ra-2")") != std::string::npos);
  }

  TEST_CASE("claude code: <synthetic> is no model; a session's model is its latest real one") {
    Rules r;
    r.PutAll();
    r.Sync();
    EventRow err = r.Event("ra-11");
    CHECK(err.is_error);
    CHECK_FALSE(err.model.has_value());
    CHECK(r.Q("SELECT model FROM session WHERE id = 'claude-code:" + kA + "'") ==
          "claude-opus-4-20250514");
    // B's sub-agent answered last with another model: not the session's.
    CHECK(r.Q("SELECT model FROM session WHERE id = 'claude-code:" + kB + "'") ==
          "claude-sonnet-4-20250514");
  }

  TEST_CASE("claude code: status shows the newest agent version by event time, not the last read") {
    Rules r;
    r.Put(kB + ".jsonl", 1);  // 1.0.99, August 3rd
    r.Put(kA + ".jsonl", 2);  // 1.0.98, August 2nd, read last
    r.Sync();
    StoreStatus st = ReadStatus(*r.s.db, r.s.db_path(), r.s.clock.NowMs());
    REQUIRE(st.sources.size() == 1);
    CHECK(st.sources[0].agent_version == "1.0.99");
  }

  TEST_CASE("claude code: a tool result names its call's tool; attachments leave a marker") {
    Rules r;
    r.PutAll();
    r.Sync();
    CHECK(r.Event("ra-4#0").kind == "tool_result");
    CHECK(r.Event("ra-4#0").tool_name == "Bash");
    CHECK(r.Event("rb-3#0").tool_name == "Task");
    bool found = false;
    for (const EventRow& e : SessionEvents(*r.s.db, "claude-code:" + kA, true, 100))
      if (e.kind == "tool_result") found = e.tool_name == std::optional<std::string>("Bash");
    CHECK(found);
    // A hidden call names nothing (invariant 2).
    r.s.db->Exec("INSERT INTO excluded_event(seq, event_id, tombstone) SELECT seq, id, 'tmb_x' FROM event "
                 "WHERE id = 'claude-code:ra-3#0'");
    CHECK_FALSE(r.Event("ra-4#0").tool_name.has_value());
    CHECK(r.Event("ra-5").text ==
          "This is the error I get, see the screenshot and the log\n\n"
          "[image: image/png, 3 KB]\n\n[document: application/pdf, 6 KB]");
    CHECK(adapters::AttachmentMarker("image", "image/png", 604160) == "[image: image/png, 590 KB]");
    CHECK(adapters::AttachmentMarker("image", "image/jpeg", 3 << 20) ==
          "[image: image/jpeg, 3.0 MB]");
    CHECK(adapters::AttachmentMarker("document", "", 100) == "[document: 100 B]");
    CHECK(adapters::AttachmentMarker("document", "", std::nullopt) == "[document]");
    CHECK(adapters::Base64DecodedSize("iVBORw==") == 4);
    CHECK(adapters::Base64DecodedSize("iVBO\nRw0K") == 6);
    // Codex gives an image as a URL.
    CHECK(adapters::UrlAttachmentMarker("image", "data:image/png;base64,iVBORw0KGgo=") ==
          "[image: image/png, 8 B]");
    CHECK(adapters::UrlAttachmentMarker("image", "data:text/plain;charset=utf-8,hello") ==
          "[image: text/plain, 5 B]");
    CHECK(adapters::UrlAttachmentMarker("image", "https://example.com/a.png") ==
          "[image: https://example.com/a.png]");
    CHECK(adapters::UrlAttachmentMarker("image", "") == "[image]");
    CHECK(adapters::UrlAttachmentMarker("image", "data:broken") == "[image]");
  }

  TEST_CASE("claude code: migration 6 derives sessions' models again and keeps every event") {
    ScopedTempDir d;
    const std::string path = d / "origin.db";
    {
      auto db = OpenWriteConnection(path, Migrations(), kLeafTitlesVersion - 1);
      db->Exec(
          "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
          "VALUES (1, 'claude-code', 'projects/p/s.jsonl', 1, '/p/s.jsonl', 'm', 0);"
          "INSERT INTO event(id, source, session, ts, role, kind, text, model, agent, file_id, "
          "line) VALUES "
          "('claude-code:a1', 'claude-code', 'claude-code:s', 1, 'assistant', 'message', 'hi', "
          "'claude-opus-4', NULL, 1, 1),"
          "('claude-code:a2', 'claude-code', 'claude-code:s', 2, 'assistant', 'message', 'x', "
          "'claude-haiku', 'side', 1, 2),"
          "('claude-code:a3', 'claude-code', 'claude-code:s', 3, 'assistant', 'meta', 'API "
          "Error', '<synthetic>', NULL, 1, 3);"
          "INSERT INTO session(id, source, model, event_count) VALUES ('claude-code:s', "
          "'claude-code', '<synthetic>', 3);");
    }
    auto db = OpenWriteConnection(path);
    CHECK(db->QueryInt("PRAGMA user_version") == kSchemaVersion);
    Stmt st(db->get(), "SELECT model FROM session");
    REQUIRE(st.Step());
    CHECK(st.Text(0) == "claude-opus-4");
    // Events are never rewritten (invariant 3): the old event keeps its model.
    CHECK(db->QueryInt("SELECT count(*) FROM event WHERE model = '<synthetic>'") == 1);
    CHECK(db->QueryInt("SELECT count(*) FROM title_wait") == 0);
  }
}
