// SPDX-License-Identifier: MIT
// Erasure in generated streams (issue 18; core/erase/erase.hpp): a stream
// an adapter generates (native memories, Grok's chat history) reads where
// to go on from its last mirrored line.  When that line is erased, what
// Generate read from it is kept without its text (SourceAdapter::CursorOf,
// the generated_cursor table), so the stream goes on where it was; and a
// stream generated again from its start mirrors an erased line as its
// filler, as a rewritten file's new generation does.
#include <doctest/doctest.h>

#include <filesystem>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/grok/grok.hpp"
#include "core/erase/erase.hpp"
#include "core/forget/forget.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

constexpr const char* kSecret = "sk-live-3Hd8Wq1Kz6Pf0Jm5Xc2Vn";

struct World {
  TestStore s;
  std::unique_ptr<SourceAdapter> adapter;

  void Sync() {
    s.clock.Tick(1000);
    const SyncReport r = s.ingester->Sync({adapter.get()}, {});
    for (const SourceSummary& src : r.sources)
      for (const std::string& e : src.errors) FAIL_CHECK("sync error: " << e);
  }
  std::string EventWith(const std::string& needle) {
    auto st = s.db->Prepare("SELECT id FROM event WHERE instr(text, ?) > 0");
    st.Bind(1, needle);
    REQUIRE(st.Step());
    return std::string(st.Text(0));
  }
  // The erase a daemon runs: with the adapter's cursors.
  EraseOutcome Erase(const std::string& target) {
    auto f = origin::Forget(*s.db, s.clock, "box", {target, "a leaked key", "user@box"});
    REQUIRE(f.tombstone);
    EraseInput in{*f.tombstone, "leaked API key", "user@box", "cli", false, {}};
    in.cursor_of = [this](const std::string&, const std::string& key, std::string_view line) {
      return adapter->CursorOf(key, line);
    };
    return origin::Erase(*s.db, *s.mirrors, s.clock, in, nullptr);
  }
  std::int64_t FileId(const std::string& key_like) {
    auto st = s.db->Prepare("SELECT id FROM raw_file WHERE key LIKE ? ORDER BY generation DESC");
    st.Bind(1, key_like);
    REQUIRE(st.Step());
    return st.Int(0);
  }
  std::vector<std::string> Lines(std::int64_t file_id) {
    std::vector<std::string> out;
    const std::string content = s.mirrors->ReadContent(*s.db, file_id);
    for (std::size_t pos = 0; pos < content.size();) {
      const std::size_t nl = content.find('\n', pos);
      out.push_back(content.substr(pos, nl - pos));
      pos = nl + 1;
    }
    return out;
  }
  bool MirrorsHold(std::string_view needle) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(s.raw_dir()))
      if (e.is_regular_file() && ReadAll(e.path().string()).find(needle) != std::string::npos)
        return true;
    return false;
  }
};

bool IsFiller(const std::string& line) {
  return line.rfind("{\"origin_erased\":\"ers_", 0) == 0 ||
         line.find_first_not_of(' ') == std::string::npos;
}

}  // namespace

TEST_SUITE("erase") {
  TEST_CASE(
      "erase: a memory stream whose last line is erased goes on from its kept cursor when the "
      "memory changes: no error, the new version follows, the erased line stays a filler") {
    World w;
    const std::string root = w.s.dir / "claude";
    const std::string memory = root + "/projects/-home-dev-app/memory";
    w.adapter = std::make_unique<adapters::ClaudeCodeAdapter>(root);
    WriteFile(memory + "/keys.md", std::string("# Keys\n\nThe deploy key is ") + kSecret + "\n");
    w.Sync();
    const std::int64_t file = w.FileId("memory/%");
    REQUIRE(w.Lines(file).size() == 1);

    const EraseOutcome o = w.Erase(w.EventWith(kSecret));
    CHECK(o.lines == 1);
    // The cursor kept holds none of the text.
    auto st = w.s.db->Prepare("SELECT line, cursor FROM generated_cursor WHERE file_id = ?");
    st.Bind(1, file);
    REQUIRE(st.Step());
    CHECK(st.Int(0) == 1);
    CHECK(std::string(st.Text(1)).find("\"state\"") != std::string::npos);
    CHECK(std::string(st.Text(1)).find(kSecret) == std::string::npos);

    // The memory changes: the stream goes on (before, reading the filler
    // as where to go on from failed, and the source reported an error).
    WriteFile(memory + "/keys.md", "# Keys\n\nThe deploy key was rotated.\n");
    w.Sync();
    const std::vector<std::string> lines = w.Lines(file);
    REQUIRE(lines.size() == 2);
    CHECK(IsFiller(lines[0]));
    CHECK(lines[1].find("rotated") != std::string::npos);
    CHECK(lines[1].find(kSecret) == std::string::npos);
    CHECK_FALSE(w.MirrorsHold(kSecret));
  }

  TEST_CASE(
      "erase: a generated stream written again from its start mirrors an erased line as its "
      "filler, and goes on from the filler's kept cursor without writing its lines twice") {
    World w;
    const std::string root = w.s.dir / "grok";
    const std::string dir = root + "/sessions/%2Fhome%2Fdev%2Fapp/019f75d0-0000-7000-8000-0000000000ee";
    const std::string history = dir + "/chat_history.jsonl";
    w.adapter = std::make_unique<adapters::GrokAdapter>(root);
    auto item = [](const std::string& type, const std::string& text) {
      return "{\"type\":\"" + type + "\",\"content\":\"" + text + "\"" +
             (type == "user" ? ",\"prompt_index\":0" : "") + "}\n";
    };
    const std::string a = item("user", "what is the key?");
    const std::string b = item("assistant", std::string("the key is ") + kSecret);
    const std::string c = item("assistant", "anything else?");
    WriteFile(history, a + b + c);
    w.Sync();
    const std::int64_t file = w.FileId("%.items.jsonl");
    REQUIRE(w.Lines(file).size() == 3);
    w.Erase(w.EventWith(kSecret));
    CHECK_FALSE(w.MirrorsHold(kSecret));

    // A compaction: the history rewritten, its first item replaced, so the
    // sequence is written again from its start; the secret's item is last.
    const std::string x = item("user", "summary of the conversation so far");
    WriteFile(history, x + b);
    w.Sync();
    std::vector<std::string> lines = w.Lines(file);
    REQUIRE(lines.size() == 5);
    CHECK(lines[3].find("summary of the conversation") != std::string::npos);
    CHECK(IsFiller(lines[4]));  // before: the secret, mirrored again
    CHECK_FALSE(w.MirrorsHold(kSecret));

    // One more item: only it follows (without the filler's cursor the
    // sequence was written again from its start).
    WriteFile(history, x + b + item("assistant", "done"));
    w.Sync();
    lines = w.Lines(file);
    REQUIRE(lines.size() == 6);
    CHECK(lines[5].find("done") != std::string::npos);
    CHECK_FALSE(w.MirrorsHold(kSecret));
  }

  TEST_CASE(
      "erase: an erased Grok title stays erased when the session's summary is written again "
      "with it: no line and no event bring it back") {
    World w;
    const std::string root = w.s.dir / "grok";
    const std::string summary =
        root + "/sessions/%2Fhome%2Fdev%2Fapp/019f75d0-0000-7000-8000-0000000000ef/summary.json";
    w.adapter = std::make_unique<adapters::GrokAdapter>(root);
    const std::string json = std::string("{\"generated_title\":\"rotate ") + kSecret +
                             "\",\"created_at\":\"2026-01-05T10:00:00Z\","
                             "\"updated_at\":\"2026-01-05T11:00:00Z\"}";
    WriteFile(summary, json);
    w.Sync();
    const std::int64_t file = w.FileId("%.titles.jsonl");
    REQUIRE(w.Lines(file).size() == 1);
    w.Erase(w.EventWith(kSecret));
    CHECK_FALSE(w.MirrorsHold(kSecret));

    // Grok writes the summary again every turn: the same title, a new mtime.
    w.s.clock.Tick(60000);
    WriteFile(summary, json + " ");
    w.Sync();
    CHECK(w.Lines(file).size() == 1);
    CHECK_FALSE(w.MirrorsHold(kSecret));
    CHECK(w.s.db->QueryInt("SELECT count(*) FROM event WHERE instr(text, 'sk-live-') > 0") == 0);
  }
}
