// SPDX-License-Identifier: MIT
// Adapter fixtures: every record type of sources.md (sections 1, 2 and the
// appendix), written by us under tests/fixtures/<agent>/ laid out as the
// agent's own root.  Each log file has its expected events beside it
// (<file>.expected), and each root a sessions.expected.  The test ingests a
// copy of the root through the real ingester and compares.  It also checks
// that a sync leaves the agent's files byte-identical.
//
// After a deliberate change of mapping: ORIGIN_UPDATE_FIXTURES=1 rewrites
// the expected files; review the diff before committing it.
#include <doctest/doctest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/codex/codex.hpp"
#include "adapters/cursor/cursor.hpp"
#include "adapters/grok/grok.hpp"
#include "adapters/zcode/zcode.hpp"
#include "core/c/zstd.hpp"
#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/util/hash.hpp"
#include "core/util/text.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = std::string(ORIGIN_SOURCE_DIR) + "/tests/fixtures/";

std::string EventsOf(Db& db, std::int64_t file_id, std::int64_t lines, std::int64_t errors) {
  Stmt st(db.get(),
          "SELECT id, session, ts, kind, role, text, cwd, git_branch, tool_name, call_id, agent, "
          "model, is_error, line, project FROM event WHERE file_id = ? ORDER BY seq");
  st.Bind(1, file_id);
  std::string out;
  while (st.Step()) {
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    auto str = [&](const char* k, int col) {
      if (st.IsNull(col)) return;
      w.Key(k);
      auto t = st.Text(col);
      w.String(t.data(), static_cast<rapidjson::SizeType>(t.size()));
    };
    w.StartObject();
    str("id", 0);
    str("session", 1);
    w.Key("ts");
    std::string ts = FormatIsoUtc(st.Int(2));
    w.String(ts.c_str());
    w.Key("line");
    w.Int64(st.Int(13));
    str("kind", 3);
    str("role", 4);
    str("project", 14);
    str("cwd", 6);
    str("branch", 7);
    str("tool", 8);
    str("call", 9);
    str("agent", 10);
    str("model", 11);
    if (st.Int(12) != 0) {
      w.Key("error");
      w.Bool(true);
    }
    str("text", 5);
    w.EndObject();
    out += std::string(sb.GetString()) + "\n";
  }
  out +=
      "{\"lines\":" + std::to_string(lines) + ",\"parse_errors\":" + std::to_string(errors) + "}\n";
  return out;
}

std::string Sessions(Db& db) {
  Stmt st(db.get(),
          "SELECT id, coalesce(title, ''), title_manual, event_count, message_count, "
          "coalesce(project, ''), coalesce(first_ts, 0), coalesce(last_ts, 0), "
          "coalesce(agent_version, ''), coalesce(model, ''), parent FROM session ORDER BY id");
  std::string out;
  while (st.Step()) {
    out += std::string(st.Text(0)) + " title=\"" + std::string(st.Text(1)) +
           "\" manual=" + std::to_string(st.Int(2)) + " events=" + std::to_string(st.Int(3)) +
           " messages=" + std::to_string(st.Int(4)) + " project=" + std::string(st.Text(5)) +
           " first=" + (st.Int(6) ? FormatIsoUtc(st.Int(6)) : "-") +
           " last=" + (st.Int(7) ? FormatIsoUtc(st.Int(7)) : "-") +
           " version=" + std::string(st.Text(8)) + " model=" + std::string(st.Text(9)) +
           (st.IsNull(10) ? "" : " parent=" + std::string(st.Text(10))) + "\n";
  }
  return out;
}

void Compare(const std::string& expected_path, const std::string& actual) {
  const char* update = std::getenv("ORIGIN_UPDATE_FIXTURES");
  if (update != nullptr && std::string(update) == "1") {
    WriteFile(expected_path, actual);
    return;
  }
  INFO("expected file: " << expected_path);
  REQUIRE(Exists(expected_path));
  CHECK(ReadAll(expected_path) == actual);
}

// A memory's time is its file's: fixed in the copies, as in the expected
// events (one minute apart, by name, so that "oldest first" is fixed too).
void FixMemoryTimes(const std::string& root) {
  std::vector<fs::path> md;
  for (auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".md") md.push_back(e.path());
  std::sort(md.begin(), md.end());
  using namespace std::chrono;
  for (std::size_t i = 0; i < md.size(); ++i)
    fs::last_write_time(
        md[i], fs::file_time_type::clock::from_sys(sys_seconds{sys_days{January / 5 / 2026}} +
                                                   minutes(static_cast<int>(i))));
}

// A conversation of Cursor's IDE, as sources.md 3.1 shows one.
const std::vector<std::pair<std::string, std::string>> kIdeBubbles = {
    {"b1",
     R"({"_v":3,"bubbleId":"b1","type":1,"text":"Add a token-bucket limiter to router.ts","createdAt":"2026-01-05T08:00:00.000Z"})"},
    {"b2",
     R"({"_v":3,"bubbleId":"b2","type":2,"text":"","thinking":{"text":"SECRET-THOUGHT look at router first"},"toolFormerData":{"name":"read_file","rawArgs":"{\"target_file\":\"src/router.ts\"}","result":"{\"contents\":\"export const r = 1\"}","status":"completed"},"createdAt":"2026-01-05T08:00:02.000Z"})"},
    {"b3",
     R"({"_v":3,"bubbleId":"b3","type":2,"text":"Added the limiter in src/limit.ts.","createdAt":"2026-01-05T08:00:09.000Z"})"},
};

// Copies the fixture root, ingests it, and compares every file's events.
void CheckAgent(const std::string& agent, SourceAdapter& adapter, const std::string& copy,
                const std::function<void(const std::string&)>& prepare = {}) {
  fs::copy(kFixtures + agent, copy, fs::copy_options::recursive);
  for (auto& e : fs::recursive_directory_iterator(copy))
    if (e.path().extension() == ".expected") fs::remove(e.path());
  if (prepare) prepare(copy);
  auto before = HashTree(copy);
  TestStore s;
  Ingester ing(*s.db, *s.mirrors, s.clock);
  SyncReport r = ing.Sync({&adapter}, {});
  CHECK(r.sources.at(0).errors.empty());
  CHECK(HashTree(copy) == before);              // the agent's files are left as they were
  CHECK(ing.Sync({&adapter}, {}).events == 0);  // and a second sync adds nothing

  std::set<std::string> generated;  // streams the adapter writes: no file to compare with
  for (const SourceFile& f : adapter.Discover().files)
    if (f.generated) generated.insert(f.key);
  Stmt st(s.db->get(),
          "SELECT id, path, lines_ingested, parse_errors, key FROM raw_file ORDER BY key");
  int files = 0;
  while (st.Step()) {
    std::string path(st.Text(1));
    std::string rel = path.substr(copy.size() + 1);
    if (rel.size() > 4 && rel.substr(rel.size() - 4) == ".zst") rel.resize(rel.size() - 4);
    // A file's mirror is its content; a generated stream's events are
    // compared below.
    if (generated.count(std::string(st.Text(4))) == 0)
      CHECK(s.mirrors->ReadContent(*s.db, st.Int(0)) ==
            (path.substr(path.size() - 4) == ".zst"
                 ? DecompressFrame(ReadAll(path), ReadAll(kFixtures + agent + "/" + rel).size())
                 : ReadAll(path)));
    Compare(kFixtures + agent + "/" + rel + ".expected",
            EventsOf(*s.db, st.Int(0), st.Int(2), st.Int(3)));
    ++files;
  }
  CHECK(files > 0);
  // Thinking is kept in the mirror but never indexed.
  CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE text LIKE '%SECRET-THOUGHT%'") == 0);
  Compare(kFixtures + agent + "/sessions.expected", Sessions(*s.db));
}

}  // namespace

TEST_SUITE("adapters") {
  TEST_CASE("adapters: Claude Code fixtures give their expected events") {
    ScopedTempDir d;
    adapters::ClaudeCodeAdapter a(d / "claude");
    CheckAgent("claude-code", a, d / "claude", FixMemoryTimes);
    CHECK(ReadAll(d / "claude/projects/-home-dev-app/5b0c1a2e-0000-4000-8000-00000000e1e1.jsonl")
              .find("SECRET-THOUGHT") != std::string::npos);
    // tool-results/ holds no session log; memory/ is a memory stream.
    Discovery found = a.Discover();
    CHECK(found.files.size() == 10);  // -home-dev-rules (issue 14) adds three
    CHECK(std::count_if(found.files.begin(), found.files.end(),
                        [](const SourceFile& f) { return f.generated; }) == 1);
  }

  TEST_CASE("adapters: Codex fixtures give their expected events, compressed ones too") {
    ScopedTempDir d;
    adapters::CodexAdapter a(d / "codex");
    CheckAgent("codex", a, d / "codex", [](const std::string& root) {
      // Codex compresses idle archived rollouts: so does the fixture's copy.
      for (auto& e : fs::directory_iterator(root + "/archived_sessions")) {
        std::string p = e.path().string();
        WriteFile(p + ".zst", CompressFrame(ReadAll(p), 3));
        fs::remove(p);
      }
    });
  }

  TEST_CASE("adapters: ZCode's and Grok Build's memory directories give their expected events") {
    ScopedTempDir d;
    adapters::ZcodeAdapter z(d / "zcode");
    CheckAgent("zcode", z, d / "zcode", [](const std::string& root) {
      FixMemoryTimes(root);
      BuildZcodeDb(root + "/cli/db/db.sqlite");
    });
    adapters::GrokAdapter g(d / "grok");
    CheckAgent("grok", g, d / "grok", FixMemoryTimes);
    // What each derives: ZCode's MEMORY.md is an index; Grok's is the memory.
    TestStore s;
    FixStoreName(*s.db, "testbox");
    Ingester ing(*s.db, *s.mirrors, s.clock);
    ing.Sync({&z, &g}, {});
    Stmt st(s.db->get(),
            "SELECT e.author, e.kind, e.confidence, coalesce(e.project, ''), v.tool_name "
            "FROM imported_entry i JOIN entry e ON e.id = i.entry_id JOIN event v ON v.id = "
            "i.event_id ORDER BY v.tool_name");
    std::string got;
    while (st.Step())
      got += std::string(st.Text(0)) + " " + std::string(st.Text(1)) + " " +
             std::to_string(st.Double(2)).substr(0, 3) + " " + std::string(st.Text(3)) + " " +
             std::string(st.Text(4)) + "\n";
    CHECK(got ==
          "grok@testbox memory 0.8 app 2026-01-05-fix-timer-019f75d0.md\n"
          "grok@testbox knowledge 0.8  MEMORY.md\n"
          "grok@testbox knowledge 0.8 app MEMORY.md\n"
          "zcode@testbox cognition 0.8 app feedback_tests.md\n"
          "zcode@testbox memory 0.9 app project_layout.md\n");
  }

  TEST_CASE("adapters: a Grok Build message whose chunks straddle two reads is one event") {
    ScopedTempDir d;
    const std::string rel =
        "sessions/%2Fhome%2Fdev%2Fapp/019f75d0-ebe1-7db0-a59a-60af9ffa9e71/updates.jsonl";
    const std::string all = ReadAll(kFixtures + "grok/" + rel);
    // Up to the first of the two chunks of the agent's reply (line 12).
    std::size_t cut = 0;
    for (int i = 0; i < 12; ++i) cut = all.find('\n', cut) + 1;
    WriteFile(d / ("grok/" + rel), all.substr(0, cut));
    adapters::GrokAdapter g(d / "grok");
    TestStore s;
    Ingester ing(*s.db, *s.mirrors, s.clock);
    ing.Sync({&g}, {});
    const char* reply = "SELECT count(*) FROM event WHERE text LIKE 'Fixed:%'";
    CHECK(s.db->QueryInt(reply) == 0);  // the run goes on, as far as anyone can tell
    AppendFile(d / ("grok/" + rel), all.substr(cut));
    ing.Sync({&g}, {});
    Stmt st(s.db->get(), "SELECT text, line FROM event WHERE text LIKE 'Fixed:%'");
    REQUIRE(st.Step());
    CHECK(st.Text(0) == "Fixed: the test now waits on the event.");
    CHECK(st.Int(1) == 12);  // its first chunk's line (invariant 1)
    CHECK_FALSE(st.Step());
  }

  TEST_CASE("adapters: Grok Build titles come from summary.json as it is rewritten") {
    ScopedTempDir d;
    const std::string dir =
        d / "grok/sessions/%2Fhome%2Fdev%2Fapp/019f75d0-0000-7000-8000-0000000000aa";
    WriteFile(dir + "/updates.jsonl", "");
    adapters::GrokAdapter g(d / "grok");
    TestStore s;
    Ingester ing(*s.db, *s.mirrors, s.clock);
    auto title = [&](const std::string& summary, int second) {
      WriteFile(dir + "/summary.json", summary);
      fs::last_write_time(
          dir + "/summary.json",
          fs::file_time_type::clock::from_sys(
              std::chrono::sys_seconds{std::chrono::sys_days{std::chrono::January / 5 / 2026}} +
              std::chrono::seconds(second)));
      ing.Sync({&g}, {});
      Stmt st(s.db->get(), "SELECT coalesce(title, ''), title_manual FROM session");
      return st.Step() ? std::string(st.Text(0)) + (st.Int(1) ? " (manual)" : "") : "-";
    };
    // No session row yet: titles wait for the session's events, so a first
    // message is written too.
    AppendFile(
        dir + "/updates.jsonl",
        R"({"params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"ls"},"_meta":{"eventId":"e1","agentTimestampMs":1767600000000}}})"
        "\n");
    CHECK(title(R"({"generated_title":"  Fix the timer  ","session_summary":"x"})", 1) ==
          "Fix the timer");
    CHECK(title(R"({"generated_title":"","session_summary":"Timer work"})", 2) == "Timer work");
    CHECK(title(R"({"info":{"title":"Mine"},"title_is_manual":true,"generated_title":"G"})", 3) ==
          "Mine (manual)");
    // A generated title never replaces the name the user gave.
    CHECK(title(R"({"generated_title":"Later"})", 4) == "Mine (manual)");
    // One line per change of title, none for a rewrite that keeps it.
    title(R"({"generated_title":"Later","num_messages":9})", 5);
    const std::string mirror = s.mirrors->ReadContent(
        *s.db, s.db->QueryInt("SELECT id FROM raw_file WHERE key LIKE '%titles.jsonl'"));
    CHECK(std::count(mirror.begin(), mirror.end(), '\n') == 4);
  }

  TEST_CASE(
      "adapters: a cursor-agent chat gives its expected events, and a rewind adds none twice") {
    const std::vector<std::string> chat = {
        R"({"role":"user","content":"<user_info>OS: linux</user_info>"})",
        R"({"role":"user","content":"<user_info>OS: linux</user_info>\n<user_query>\nFix the flaky test\n</user_query>"})",
        R"({"id":"1","role":"assistant","content":[{"type":"reasoning","text":"SECRET-THOUGHT check the timer"},{"type":"text","text":"Reading it."},{"type":"tool-call","toolCallId":"toolu_9","toolName":"Read","args":{"path":"t/flaky.cpp"}}]})",
        R"({"role":"tool","id":"toolu_9","content":[{"type":"tool-result","toolCallId":"toolu_9","toolName":"Read","result":"int main() {}","isError":false}]})",
        R"({"id":"1","role":"assistant","content":"The timer races; fixed."})",
    };
    ScopedTempDir d;
    // The IDE's user directory, inside the copy here so that the check of
    // byte-identical files covers it too.
    adapters::CursorAdapter c(d / "cursor", d / "cursor/ide-user");
    const std::string db = "/chats/9f3b2c/ac43c6/store.db";
    CheckAgent("cursor", c, d / "cursor", [&](const std::string& root) {
      BuildCursorChat(root + db, chat);
      PutCursorConversation(root + "/ide-user/globalStorage/state.vscdb", "6f1e", "completed",
                            kIdeBubbles);
      // The workspace that lists conversation 6f1e: its project.  It also
      // holds the oldest chat panel's tabs (Cursor before 0.40).
      PutCursorWorkspace(
          root + "/ide-user/workspaceStorage/ab12", "file:///home/dev/app", {"6f1e"},
          R"({"tabs":[{"tabId":"tab-1","chatTitle":"Explain the router","lastSendTime":1704100000000,"bubbles":[{"id":"u1","type":"user","text":"What does router.ts export?"},{"id":"a1","type":"ai","text":"A single route table, `r`.","modelType":"gpt-4"},{"type":"user","text":"","rawText":"And who imports it?"}]},{"tabId":"tab-2","chatTitle":"Empty","bubbles":[]}]})");
      // A workspace opened over SSH: its folder is the remote path.
      PutCursorWorkspace(
          root + "/ide-user/workspaceStorage/cd34",
          "vscode-remote://ssh-remote%2Bbox/srv/my%20site", {},
          R"({"tabs":[{"tabId":"tab-3","createdAt":1704200000000,"bubbles":[{"id":"u9","type":"user","text":"Where is nginx.conf?"}]}]})");
      // Transcripts are dated by their mtime: fixed here as in the expected events.
      for (auto& e : fs::recursive_directory_iterator(root + "/projects"))
        if (e.is_regular_file())
          fs::last_write_time(e.path(),
                              fs::file_time_type::clock::from_sys(std::chrono::sys_seconds{
                                  std::chrono::sys_days{std::chrono::January / 6 / 2026}}));
    });
    // More messages, then a rewind to another branch after the second.
    TestStore s;
    Ingester ing(*s.db, *s.mirrors, s.clock);
    ing.Sync({&c}, {});
    // The transcript of conversation 6f1e repeats what the IDE's database
    // holds: it is not read (the IDE's bubbles are).
    CHECK(s.db->QueryInt(
              "SELECT count(*) FROM raw_file WHERE key LIKE 'transcripts/%/6f1e.jsonl'") == 0);
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE text LIKE '%DUPLICATE-OF-IDE%'") == 0);
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE session = 'cursor:6f1e' AND "
                         "project = 'app'") == 4);
    const std::int64_t before = s.db->QueryInt("SELECT count(*) FROM event");
    auto more = chat;
    more.push_back(R"({"role":"user","content":"<user_query>And the docs</user_query>"})");
    BuildCursorChat(d / ("cursor" + db), more);
    ing.Sync({&c}, {});
    CHECK(s.db->QueryInt("SELECT count(*) FROM event") == before + 1);
    std::vector<std::string> branch(chat.begin(), chat.begin() + 2);
    branch.push_back(R"({"role":"assistant","content":"Another answer."})");
    BuildCursorChat(d / ("cursor" + db), branch);
    ing.Sync({&c}, {});
    CHECK(s.db->QueryInt("SELECT count(*) FROM event") == before + 2);  // only the new one
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE text = 'Another answer.'") == 1);
  }

  TEST_CASE("adapters: Cursor's IDE bubbles go out once they no longer change") {
    ScopedTempDir d;
    adapters::CursorAdapter c(d / "cursor", d / "ide");
    const std::string db = d / "ide/globalStorage/state.vscdb";
    // Streaming: the last bubble is not out while the conversation generates.
    auto streaming = kIdeBubbles;
    streaming[2].second =
        R"({"_v":3,"bubbleId":"b3","type":2,"text":"Added the","createdAt":"2026-01-05T08:00:09.000Z"})";
    PutCursorConversation(db, "6f1e", "generating", streaming);
    TestStore s;
    Ingester ing(*s.db, *s.mirrors, s.clock);
    CHECK(ing.Sync({&c}, {}).sources.at(0).errors.empty());
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE id = 'cursor:b3'") == 0);
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE id = 'cursor:b1'") == 1);
    // Done: the bubble's final text, once.
    PutCursorConversation(db, "6f1e", "completed", kIdeBubbles);
    ing.Sync({&c}, {});
    Stmt st(s.db->get(), "SELECT text FROM event WHERE id = 'cursor:b3'");
    REQUIRE(st.Step());
    CHECK(st.Text(0) == "Added the limiter in src/limit.ts.");
    CHECK_FALSE(st.Step());
    // The older layout (before 0.40): a conversation's bubbles inline, some
    // through conversationMap.
    {
      Db w(db, Db::Mode::kReadWrite);
      w.Exec(
          R"sql(INSERT INTO cursorDiskKV VALUES ('composerData:old1', '{"composerId":"old1","name":"Old chat","createdAt":1717200000000,"conversation":[{"bubbleId":"o1","type":1,"text":"How do I rebase?"},{"bubbleId":"o2","type":2}],"conversationMap":{"o2":{"bubbleId":"o2","type":2,"text":"Use git rebase -i."}}}'))sql");
    }
    ing.Sync({&c}, {});
    // Its two bubbles, and its name as a title event.
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE session = 'cursor:old1'") == 3);
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE text = 'Use git rebase -i.'") == 1);
    // Credentials in the same table are never read.
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE text LIKE '%SECRET-TOKEN%'") == 0);
    const std::string mirror = s.mirrors->ReadContent(
        *s.db, s.db->QueryInt("SELECT id FROM raw_file WHERE key = 'ide/state.vscdb.jsonl'"));
    CHECK(mirror.find("SECRET-TOKEN") == std::string::npos);
    // A newer conversation names its workspace itself.
    {
      Db w(db, Db::Mode::kReadWrite);
      w.Exec(
          R"sql(INSERT INTO cursorDiskKV VALUES ('composerData:w1', '{"composerId":"w1","createdAt":1767600000000,"status":"completed","workspaceIdentifier":{"id":"9a8b","uri":{"$mid":1,"fsPath":"/home/me/tool","external":"file:///home/me/tool","path":"/home/me/tool","scheme":"file"}},"fullConversationHeadersOnly":[{"bubbleId":"x1","type":1},{"bubbleId":"x2","type":2}]}'), ('bubbleId:w1:x1', '{"bubbleId":"x1","type":1,"text":"where is the config?"}'), ('bubbleId:w1:x2', '{"bubbleId":"x2","type":2,"text":"","toolFormerData":{"tool":15,"params":"{\"glob\":\"*.toml\"}","result":"no match","status":"error"}}'))sql");
    }
    ing.Sync({&c}, {});
    CHECK(s.db->QueryInt(
              "SELECT count(*) FROM event WHERE session = 'cursor:w1' AND project = 'tool'") == 3);
    // Tool fields vary: a numeric `tool` and `params` for `name` and `rawArgs`.
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE id = 'cursor:x2#call' AND tool_name = "
                         "'15' AND text = '{\"glob\":\"*.toml\"}'") == 1);
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE id = 'cursor:x2#result' AND is_error = "
                         "1 AND text = 'no match'") == 1);
    // The oldest chat panel, rewritten as a whole as a tab grows: only the
    // new bubble adds an event.
    const std::string ws = d / "ide/workspaceStorage/ef56";
    auto panel = [](const std::string& more) {
      return R"({"tabs":[{"tabId":"t1","lastSendTime":1704100000000,"bubbles":[{"id":"u1","type":"user","text":"hello panel"},{"id":"a1","type":"ai","text":"hi"})" +
             more + "]}]}";
    };
    PutCursorWorkspace(ws, "file:///home/me/site", {}, panel(""));
    ing.Sync({&c}, {});
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE session = 'cursor:t1'") == 2);
    {
      Db w(ws + "/state.vscdb", Db::Mode::kReadWrite);
      w.Prepare(
           "UPDATE ItemTable SET value = ? WHERE key = "
           "'workbench.panel.aichat.view.aichat.chatdata'")
          .Bind(1, panel(R"(,{"id":"u2","type":"user","text":"and again"})"))
          .Run();
    }
    ing.Sync({&c}, {});
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE session = 'cursor:t1'") == 3);
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE session = 'cursor:t1' AND project = "
                         "'site'") == 3);
  }

  TEST_CASE(
      "adapters: a Grok Build history compacted keeps its events, and adds only what is new") {
    ScopedTempDir d;
    const std::string rel = "sessions/%2Fhome%2Fdev%2Fapp/019f75d0-0000-7000-8000-0000000000cc";
    fs::create_directories(d / ("grok/" + rel));
    for (const char* f : {"/chat_history.jsonl", "/summary.json"})
      fs::copy_file(kFixtures + "grok/" + rel + f, d / ("grok/" + rel + f));
    adapters::GrokAdapter g(d / "grok");
    TestStore s;
    Ingester ing(*s.db, *s.mirrors, s.clock);
    ing.Sync({&g}, {});
    const std::int64_t before = s.db->QueryInt("SELECT count(*) FROM event");
    CHECK(before == 7);  // six items', and the title summary.json gives
    // Compaction: a summary replaces the first items; the last ones stay.
    const std::string all = ReadAll(d / ("grok/" + rel + "/chat_history.jsonl"));
    std::size_t cut = 0;
    for (int i = 0; i < 7; ++i) cut = all.find('\n', cut) + 1;
    WriteFile(
        d / ("grok/" + rel + "/chat_history.jsonl"),
        std::string(
            R"({"type":"user","content":"<user_query>Summary: the build needed -luv.</user_query>"})") +
            "\n" + all.substr(cut));
    ing.Sync({&g}, {});
    CHECK(s.db->QueryInt("SELECT count(*) FROM event") == before + 1);
    CHECK(s.db->QueryInt("SELECT count(*) FROM event WHERE text = 'Link with -luv.'") == 1);
  }

  TEST_CASE(
      "adapters: Cursor's agent transcripts are read as they grow, once, and never for a "
      "conversation another stream holds") {
    ScopedTempDir d;
    adapters::CursorAdapter c(d / "cursor", d / "ide");
    const std::string ide = d / "ide/globalStorage/state.vscdb";
    const std::string t1 = d / "cursor/projects/home-me-app/agent-transcripts/c1/c1.jsonl";
    auto line = [](const std::string& role, const std::string& text) {
      return R"({"role":")" + role + R"(","message":{"content":[{"type":"text","text":")" + text +
             R"("}]}})";
    };
    TestStore s;
    Ingester ing(*s.db, *s.mirrors, s.clock);
    auto texts = [&](const std::string& session) {
      std::vector<std::string> out;
      // The conversation's messages; its name, when the IDE lists it, is a
      // title event of its own (checked below as the session's title).
      Stmt st(s.db->get(),
              "SELECT text FROM event WHERE session = ? AND tool_name IS NOT 'title' ORDER BY seq");
      st.Bind(1, session);
      while (st.Step()) out.emplace_back(st.Text(0));
      return out;
    };
    // Cursor leaves the last line without its newline.
    WriteFile(t1, line("user", "<user_query>first</user_query>"));
    CHECK(ing.Sync({&c}, {}).sources.at(0).errors.empty());
    CHECK(texts("cursor:c1") == std::vector<std::string>{"first"});
    // It appends the next after a newline; a line still being written waits.
    AppendFile(t1, "\n" + line("assistant", "second") + "\n" + R"({"role":"assistant","mess)");
    ing.Sync({&c}, {});
    CHECK(texts("cursor:c1") == std::vector<std::string>{"first", "second"});
    AppendFile(t1, R"(age":{"content":[{"type":"text","text":"third"}]}})");
    ing.Sync({&c}, {});
    CHECK(texts("cursor:c1") == std::vector<std::string>{"first", "second", "third"});
    // Rewritten from some point on (a rewind): what it kept adds no event.
    WriteFile(t1, line("user", "<user_query>first</user_query>") + "\n" +
                      line("assistant", "second") + "\n" + line("assistant", "fourth"));
    ing.Sync({&c}, {});
    CHECK(texts("cursor:c1") == std::vector<std::string>{"first", "second", "third", "fourth"});
    // Once read, a transcript goes on, even when the IDE comes to hold its
    // conversation too.
    PutCursorConversation(ide, "c1", "completed", {});
    AppendFile(t1, "\n" + line("user", "<user_query>fifth</user_query>"));
    ing.Sync({&c}, {});
    CHECK(texts("cursor:c1").back() == "fifth");

    // Conversation c2 is the IDE's: its transcript is not read.
    PutCursorConversation(ide, "c2", "completed", kIdeBubbles);
    const std::string t2 = d / "cursor/projects/home-me-app/agent-transcripts/c2/c2.jsonl";
    WriteFile(t2, line("user", "<user_query>Add a token-bucket limiter COPY-OF-C2</user_query>"));
    ing.Sync({&c}, {});
    CHECK(texts("cursor:c2").size() == 4);
    const std::string copies =
        "SELECT count(*) FROM event WHERE text LIKE '%COPY-OF-C2%' OR text LIKE '%C2-LATER%'";
    CHECK(s.db->QueryInt(copies) == 0);
    // Forgotten, then deleted in the IDE: its transcript does not bring it
    // back (invariant 2), nor do its sub-agents'.
    Stmt ids(s.db->get(), "SELECT id FROM event WHERE session = 'cursor:c2'");
    while (ids.Step()) {
      TombstoneInput in;
      in.target = std::string(ids.Text(0));
      in.reason = "private";
      in.author = "user@testbox";
      Forget(*s.db, s.clock, "testbox", in);
    }
    {
      Db w(ide, Db::Mode::kReadWrite);
      w.Exec(
          "DELETE FROM cursorDiskKV WHERE key LIKE 'composerData:c2' OR key LIKE 'bubbleId:c2:%'");
    }
    AppendFile(t2, "\n" + line("assistant", "C2-LATER"));
    WriteFile(d / "cursor/projects/home-me-app/agent-transcripts/c2/subagents/s1.jsonl",
              line("user", "C2-LATER from a sub-agent") + "\n");
    CHECK(ing.Sync({&c}, {}).sources.at(0).errors.empty());
    CHECK(s.db->QueryInt(copies) == 0);
    CHECK(s.db->QueryInt("SELECT count(*) FROM raw_file WHERE key LIKE 'transcripts/%/c2/%'") == 0);
    // A conversation no other stream holds: a sub-agent's transcript read
    // first does not keep its parent's out.
    const std::string t3 = d / "cursor/projects/home-me-app/agent-transcripts/c3";
    WriteFile(t3 + "/subagents/s1.jsonl", line("assistant", "sub-agent answer") + "\n");
    ing.Sync({&c}, {});
    WriteFile(t3 + "/c3.jsonl", line("user", "<user_query>parent prompt</user_query>") + "\n");
    ing.Sync({&c}, {});
    CHECK(texts("cursor:c3") == std::vector<std::string>{"sub-agent answer", "parent prompt"});
    // A conversation the IDE lists without bubbles keeps its messages
    // somewhere else (a newer layout): its transcript is read, once it has
    // been quiet for a while (c4); a new one's bubbles may be on their way (c5).
    PutCursorConversation(ide, "c4", "completed", {});
    {
      Db w(ide, Db::Mode::kReadWrite);
      const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
      w.Prepare("INSERT INTO cursorDiskKV(key, value) VALUES ('composerData:c5', ?)")
          .Bind(1, R"({"composerId":"c5","createdAt":)" + std::to_string(now) + "}")
          .Run();
    }
    for (const char* id : {"c4", "c5"})
      WriteFile(d / ("cursor/projects/home-me-app/agent-transcripts/" + std::string(id) + "/" + id +
                     ".jsonl"),
                line("user", std::string("<user_query>only here ") + id + "</user_query>") + "\n");
    ing.Sync({&c}, {});
    CHECK(texts("cursor:c4") == std::vector<std::string>{"only here c4"});
    {
      Stmt t(s.db->get(), "SELECT title FROM session WHERE id = 'cursor:c4'");
      REQUIRE(t.Step());
      CHECK(t.Text(0) == "Add rate limiter");  // the name the IDE lists it under
    }
    CHECK(texts("cursor:c5").empty());
  }

  TEST_CASE("adapters: roots come from CLAUDE_CONFIG_DIR and CODEX_HOME") {
    adapters::ClaudeCodeAdapter c("/nonexistent/claude");
    Discovery d = c.Discover();
    CHECK_FALSE(d.root_exists);
    CHECK(d.files.empty());
    CHECK(d.problems.empty());
  }
}
