// SPDX-License-Identifier: MIT
// Core queries over events and sessions: get, sources (invariant 1),
// timeline, and session names.
#include <doctest/doctest.h>

#include <map>
#include <random>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/codex/codex.hpp"
#include "core/query/events.hpp"
#include "core/store/status.hpp"
#include "core/util/text.hpp"
#include "tests/support/loggen.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

std::string NthLine(const std::string& content, std::int64_t n) {
  std::size_t pos = 0;
  for (std::int64_t i = 1; i < n; ++i) pos = content.find('\n', pos) + 1;
  return content.substr(pos, content.find('\n', pos) - pos);
}

std::string User(const std::string& uuid, const std::string& text, const std::string& ts,
                 const std::string& session = "s1") {
  return R"({"type":"user","uuid":")" + uuid + R"(","sessionId":")" + session +
         R"(","timestamp":")" + ts +
         R"(","cwd":"/home/dev/app","message":{"role":"user","content":)" + text + "}}\n";
}

}  // namespace

TEST_SUITE("query") {
  TEST_CASE("query: a session's provisional name is its first typed prompt") {
    CHECK(PromptName("  Fix   the\n test ") == "Fix the test");
    CHECK(
        PromptName("<command-name>/model</command-name>\n<command-message>model</command-message>\n"
                   "<command-args></command-args>") == std::nullopt);
    CHECK(PromptName("<local-command-caveat>Caveat</local-command-caveat>Deploy it") ==
          "Deploy it");
    CHECK(PromptName("<environment_context>\n<cwd>/x</cwd>\n</environment_context>\nWhy?") ==
          "Why?");
    CHECK(PromptName("[Request interrupted by user]") == std::nullopt);
    CHECK(PromptName("[Request interrupted by user for tool use]") == std::nullopt);
    CHECK(PromptName("[draft] fix the parser") == "[draft] fix the parser");
    CHECK(PromptName("") == std::nullopt);
    CHECK(PromptName("a < b and <notatag") == "a < b and <notatag");
    CHECK(PromptName(std::string(100, 'x'))->size() == 80);
    CHECK(PromptName("部署" + std::string(100, 'x')) == "部署" + std::string(78, 'x'));
  }

  TEST_CASE(
      "query: timeline lists sessions by activity, with their names, and a session's events") {
    TestStore s;
    adapters::ClaudeCodeAdapter a(s.dir / "claude");
    WriteFile(
        s.dir / "claude/projects/p/s1.jsonl",
        User("m1", "\"[Request interrupted by user]\"", "2026-01-05T10:00:00.000Z") +
            User("m2", "\"<command-name>/clear</command-name>\"", "2026-01-05T10:00:01.000Z") +
            User("m3", "\"  Make the   build green \"", "2026-01-05T10:00:02.000Z") +
            R"({"type":"assistant","uuid":"a1","sessionId":"s1","timestamp":"2026-01-05T10:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}})"
            "\n");
    WriteFile(s.dir / "claude/projects/q/s2.jsonl",
              User("n1", "\"second session\"", "2026-01-07T09:00:00.000Z", "s2") +
                  R"({"type":"custom-title","customTitle":"named","sessionId":"s2"})"
                  "\n");
    s.ingester->Sync({&a}, {});

    SessionFilter all;
    auto sessions = ListSessions(*s.db, all);
    REQUIRE(sessions.size() == 2);
    CHECK(sessions[0].id == "claude-code:s2");  // latest activity first
    CHECK(sessions[0].title == "named");
    CHECK_FALSE(sessions[0].prompt);
    CHECK(sessions[1].prompt == "Make the build green");
    CHECK_FALSE(sessions[1].title);

    SessionFilter range;
    range.from_ms = *ParseIsoMs("2026-01-06T00:00:00Z");
    CHECK(ListSessions(*s.db, range).size() == 1);
    range.to_ms = *ParseIsoMs("2026-01-06T12:00:00Z");
    CHECK(ListSessions(*s.db, range).empty());
    SessionFilter proj;
    proj.project = "app";
    CHECK(ListSessions(*s.db, proj).size() == 2);
    proj.project = "nope";
    CHECK(ListSessions(*s.db, proj).empty());

    // Words in the name: the title, else the first prompt; every word, in any
    // case; filtered before the limit, so that an older session is found
    // beyond the newest `limit` ones, and counted.
    SessionFilter named;
    named.name = "BUILD green";
    named.limit = 1;
    sessions = ListSessions(*s.db, named);
    REQUIRE(sessions.size() == 1);
    CHECK(sessions[0].id == "claude-code:s1");  // the older one, by its prompt
    CHECK(CountSessions(*s.db, named) == 1);
    named.name = "e";  // in both names: one listed, both counted in the same pass
    std::int64_t named_total = 0;
    CHECK(ListSessions(*s.db, named, &named_total).size() == 1);
    CHECK(named_total == 2);
    CHECK(CountSessions(*s.db, named) == 2);
    named.name = "nam";
    CHECK(ListSessions(*s.db, named).at(0).id == "claude-code:s2");  // by its title
    named.name = "build named";  // one word in each name: neither holds both
    CHECK(ListSessions(*s.db, named).empty());
    CHECK(CountSessions(*s.db, named) == 0);
    named.name = " ";
    named.limit = 50;
    CHECK(CountSessions(*s.db, named) == 2);  // no word: every session

    auto projects = ListProjects(*s.db);
    REQUIRE(projects.size() == 1);
    CHECK(projects[0].project == "app");
    CHECK(projects[0].sessions == 2);
    CHECK(projects[0].events == 6);
    CHECK(projects[0].sources == "claude-code");

    auto events = SessionEvents(*s.db, "claude-code:s1", false, 100);
    REQUIRE(events.size() == 4);  // the tool call is left out
    CHECK(events[0].id == "claude-code:m1");
    CHECK(events[3].id == "claude-code:a1");
    CHECK(SessionEvents(*s.db, "claude-code:s1", true, 100).size() == 5);
    CHECK(SessionEvents(*s.db, "claude-code:s1", true, 2, 3).size() == 2);
    CHECK_FALSE(GetSession(*s.db, "claude-code:none"));
    CHECK(GetSession(*s.db, "claude-code:s1")->prompt == "Make the build green");
    CHECK_FALSE(GetEvent(*s.db, "claude-code:none"));
    CHECK(GetEvent(*s.db, "claude-code:a1#1")->tool_name == "Bash");
  }

  TEST_CASE(
      "query: for random events, sources returns the original line of the agent's file (invariant "
      "1)") {
    TestStore s;
    CorpusOptions o;
    o.total_bytes = 12 << 20;  // several frames per file, and open tails
    o.seed = 11;
    o.mean_session_bytes = 3 << 20;
    GenerateCorpus(s.dir / "claude", s.dir / "codex", o);
    adapters::ClaudeCodeAdapter a(s.dir / "claude");
    adapters::CodexAdapter x(s.dir / "codex");
    s.ingester->Sync({&a, &x}, {});
    REQUIRE(s.db->QueryInt("SELECT count(*) FROM raw_chunk") > 3);
    std::int64_t n = s.db->QueryInt("SELECT max(seq) FROM event");
    std::mt19937 rng(99);
    std::map<std::string, std::string> files;
    for (int k = 0; k < 300; ++k) {
      std::int64_t seq = 1 + static_cast<std::int64_t>(rng() % static_cast<unsigned>(n));
      Stmt st(s.db->get(), "SELECT id FROM event WHERE seq = ?");
      st.Bind(1, seq);
      REQUIRE(st.Step());
      std::string id(st.Text(0));
      auto src = EventSource(*s.db, *s.mirrors, id);
      REQUIRE(src);
      if (!files.count(src->path)) files[src->path] = ReadAll(src->path);
      CHECK(src->raw == NthLine(files[src->path], src->line));
    }
    CHECK_FALSE(EventSource(*s.db, *s.mirrors, "claude-code:none"));
  }

  TEST_CASE("query: a title for a session with no events yet counts no session in status") {
    TestStore s;
    adapters::CodexAdapter x(s.dir / "codex");
    WriteFile(
        s.dir / "codex/session_index.jsonl",
        R"({"id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","thread_name":"named early","updated_at":"2026-02-01T09:01:00Z"})"
        "\n");
    s.ingester->Sync({&x}, {});
    StoreStatus st = ReadStatus(*s.db, s.db_path(), s.clock.NowMs());
    CHECK(st.sessions == 0);
    CHECK(ListSessions(*s.db, {}).empty());
    CHECK(GetSession(*s.db, "codex:0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")->title == "named early");
  }
}
