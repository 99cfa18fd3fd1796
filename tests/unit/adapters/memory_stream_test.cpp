// SPDX-License-Identifier: MIT
// Memory streams through the real ingester (spec: Ingestion, Generated
// sources; Native memories): a Claude Code project's memory/ directory
// written, rewritten, deleted and re-created gives a line per version and
// per deletion, with chained ids that are the same on every store, events in
// no session, and an unchanged directory is not read again.
#include "adapters/common/memory_stream.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "adapters/claude_code/claude_code.hpp"
#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/hub/tokens.hpp"
#include "core/ingest/ingester.hpp"
#include "core/ingest/memories.hpp"
#include "core/store/mirror.hpp"
#include "core/store/visible.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;
namespace fs = std::filesystem;

namespace {

// The real adapter, counting how often the ingester asks for lines.
class Counting final : public SourceAdapter {
 public:
  explicit Counting(const std::string& root) : real_(root) {}
  std::string_view id() const override { return real_.id(); }
  std::string_view display_name() const override { return real_.display_name(); }
  const std::string& root() const override { return real_.root(); }
  Discovery Discover() const override { return real_.Discover(); }
  std::unique_ptr<FileState> LoadState(std::string_view k, std::string_view s) const override {
    return real_.LoadState(k, s);
  }
  ParsedLine ParseLine(std::string_view line, ParseContext& ctx) const override {
    return real_.ParseLine(line, ctx);
  }
  std::string Generate(const SourceFile& f, std::string_view last, std::size_t max,
                       std::int64_t now) const override {
    ++calls;
    return real_.Generate(f, last, max, now);
  }
  mutable int calls = 0;

 private:
  adapters::ClaudeCodeAdapter real_;
};

void SetTime(const std::string& path, int minute) {
  using namespace std::chrono;
  fs::last_write_time(path, fs::file_time_type::clock::from_sys(
                                sys_seconds{sys_days{January / 5 / 2026}} + minutes(minute)));
}

struct Row {
  std::string id, op, file, text;
  std::int64_t ts;
  bool in_session;
};

std::vector<Row> MemoryEvents(Db& db) {
  Stmt st(db.get(),
          "SELECT id, call_id, tool_name, text, ts, session IS NOT NULL FROM event "
          "WHERE kind = 'memory' ORDER BY seq");
  std::vector<Row> out;
  while (st.Step())
    out.push_back({std::string(st.Text(0)), std::string(st.Text(1)), std::string(st.Text(2)),
                   std::string(st.Text(3)), st.Int(4), st.Int(5) != 0});
  return out;
}

// One store and one Claude Code root; `Step` changes the memory directory
// the same way in each, then syncs.
struct World {
  ScopedTempDir root;
  TestStore store;
  Counting adapter{root / "claude"};
  std::string mem = root / "claude/projects/-home-dev-app/memory";
  World() {
    WriteFile(
        root / "claude/projects/-home-dev-app/s1.jsonl",
        R"({"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/home/dev/app","message":{"role":"user","content":"hi"}})"
        "\n");
    fs::create_directories(mem);
    FixStoreName(*store.db, "testbox");  // the name its entries record
  }
  void Write(const std::string& name, const std::string& text, int minute) {
    WriteFile(mem + "/" + name, text);
    SetTime(mem + "/" + name, minute);
  }
  SyncReport Sync() {
    auto before = HashTree(root.path());
    Ingester ing(*store.db, *store.mirrors, store.clock);
    SyncReport r = ing.Sync({&adapter}, {});
    CHECK(HashTree(root.path()) == before);  // the agent's files are left as they were
    return r;
  }
  std::string Mirror() {
    return store.mirrors->ReadContent(
        *store.db, store.db->QueryInt("SELECT id FROM raw_file WHERE key LIKE 'memory/%'"));
  }
};

// The history every test world goes through.
void History(World& w) {
  w.Write("user_role.md", "---\ntype: user\n---\nThe user is a C++ developer.\n", 1);
  w.Write("MEMORY.md", "- [Role](user_role.md)\n", 2);
  CHECK(w.Sync().events == 3);  // two memories, and the session's line
  w.Write("user_role.md", "---\ntype: user\n---\nThe user is a senior C++ developer.\n", 3);
  w.Sync();
  fs::remove(w.mem + "/user_role.md");
  w.store.clock.Tick(60000);
  w.Sync();
  // It comes back, as it first was.
  w.Write("user_role.md", "---\ntype: user\n---\nThe user is a C++ developer.\n", 9);
  w.Sync();
}

}  // namespace

TEST_SUITE("adapters") {
  TEST_CASE("memory stream: a line per version and per deletion, ids chained, no session") {
    World w;
    History(w);
    auto ev = MemoryEvents(*w.store.db);
    REQUIRE(ev.size() == 5);
    // Oldest first: user_role.md (minute 1) before MEMORY.md (minute 2).
    CHECK(ev[0].file == "user_role.md");
    CHECK(ev[0].op == "write");
    CHECK(ev[0].ts == 1767571260000);  // its modification time
    CHECK(ev[1].file == "MEMORY.md");
    CHECK(ev[2].text.find("senior") != std::string::npos);
    CHECK(ev[3].op == "delete");
    CHECK(ev[3].text.empty());
    CHECK(ev[3].ts == w.store.clock.NowMs());  // when the deletion was noticed
    CHECK(ev[4].op == "write");
    CHECK(ev[4].text == ev[0].text);
    // The same content after a deletion is a new version with a new id.
    for (std::size_t i = 0; i < ev.size(); ++i) {
      CHECK(ev[i].id.rfind("claude-code:memory:", 0) == 0);
      CHECK_FALSE(ev[i].in_session);  // memory events count in no session
      for (std::size_t j = i + 1; j < ev.size(); ++j) CHECK(ev[i].id != ev[j].id);
    }
    CHECK(w.store.db->QueryInt("SELECT count(*) FROM session") == 1);
    CHECK(w.store.db->QueryInt("SELECT event_count FROM session") == 1);
    // The last line holds the directory's state: each file's latest id and hash.
    std::string mirror = w.Mirror();
    std::string last = mirror.substr(mirror.rfind('\n', mirror.size() - 2) + 1);
    rapidjson::Document d;
    d.Parse(last.c_str());
    REQUIRE(d.IsObject());
    CHECK(std::string(d["state"]["user_role.md"]["id"].GetString()) ==
          ev[4].id.substr(std::string("claude-code:").size()));
    CHECK(d["state"].MemberCount() == 2);
  }

  TEST_CASE("memory stream: the same history gives the same lines and ids on another store") {
    World a, b;
    History(a);
    History(b);
    CHECK(a.Mirror() == b.Mirror());
    auto ea = MemoryEvents(*a.store.db), eb = MemoryEvents(*b.store.db);
    REQUIRE(ea.size() == eb.size());
    for (std::size_t i = 0; i < ea.size(); ++i) CHECK(ea[i].id == eb[i].id);
    // Re-read from scratch (a new store, the same files): the same lines as
    // far as the files go.
    World c;
    c.Write("user_role.md", "---\ntype: user\n---\nThe user is a C++ developer.\n", 1);
    c.Write("MEMORY.md", "- [Role](user_role.md)\n", 2);
    c.Sync();
    CHECK(a.Mirror().rfind(c.Mirror(), 0) == 0);
  }

  TEST_CASE("memory stream: an unchanged directory is not read; what is left out") {
    World w;
    w.Write("a.md", "alpha\n", 1);
    w.Sync();
    const int calls = w.adapter.calls;
    CHECK(calls == 2);  // the line, then "nothing more"
    w.Sync();
    CHECK(w.adapter.calls == calls);  // the token did not change: not asked
    // Touched without a change: asked, and no line.
    SetTime(w.mem + "/a.md", 5);
    CHECK(w.Sync().events == 0);
    CHECK(w.adapter.calls == calls + 1);
    // Over 256 KiB, a symlink, a file that is not Markdown: no line.
    w.Write("big.md", std::string(adapters::kMaxMemoryFileBytes + 1, 'x'), 6);
    WriteFile(w.root / "secret.md", "outside the memory directory\n");
    fs::create_symlink(w.root / "secret.md", w.mem + "/link.md");
    w.Write("notes.txt", "not a memory\n", 7);
    CHECK(w.Sync().events == 0);
    CHECK(w.Mirror().find("outside the memory directory") == std::string::npos);
    // A file grown past the limit is left as it was, not deleted.
    w.Write("a.md", std::string(adapters::kMaxMemoryFileBytes + 1, 'y'), 8);
    CHECK(w.Sync().events == 0);
    auto ev = MemoryEvents(*w.store.db);
    REQUIRE(ev.size() == 1);
    CHECK(ev[0].text == "alpha\n");
  }

  TEST_CASE(
      "memory stream: a file written after discovery and deleted before the next look is seen "
      "deleted") {
    // The token a look records must be one the directory had when it was
    // read: else a file written between discovery and the look, then
    // deleted, would bring the directory back to the recorded token, and
    // its deletion would never be looked at.
    World w;
    Discovery d = w.adapter.Discover();  // the directory is empty here, never looked at
    w.Write("user_role.md", "---\ntype: user\n---\nA data engineer.\n", 1);
    Ingester ing(*w.store.db, *w.store.mirrors, w.store.clock);
    for (const SourceFile& f : d.files)
      if (f.generated) CHECK(ing.IngestFile(w.adapter, f, {}).error.empty());
    REQUIRE(MemoryEvents(*w.store.db).size() == 1);  // the look read the file
    fs::remove(w.mem + "/user_role.md");
    w.Sync();
    auto ev = MemoryEvents(*w.store.db);
    REQUIRE(ev.size() == 2);
    CHECK(ev[1].op == "delete");
  }

  TEST_CASE("memory entries: each is derived under the name the store has when its line arrives") {
    World w;
    Db& db = *w.store.db;
    // One ingester for both syncs, as the daemon keeps one: a rename between
    // them (origin hub connect --device) counts from the next batch on.
    Ingester ing(db, *w.store.mirrors, w.store.clock);
    w.Write("user_role.md", "---\ntype: user\n---\nThe user is a C++ developer.\n", 1);
    ing.Sync({&w.adapter}, {});
    // Entries derived from memory files fix no name (they are never sent).
    CHECK(RenameStore(db, "laptop", "", true) == "testbox");
    w.Write("user_role.md", "---\ntype: user\n---\nThe user is a senior C++ developer.\n", 3);
    ing.Sync({&w.adapter}, {});
    const std::int64_t now = w.store.clock.NowMs();
    auto ev = MemoryEvents(db);
    REQUIRE(ev.size() == 2);
    auto before = GetEntry(db, MemoryEntryId(ev[0].id), now);
    auto after = GetEntry(db, MemoryEntryId(ev[1].id), now);
    REQUIRE(before);
    REQUIRE(after);
    CHECK(before->author == "claude-code@testbox");
    CHECK(after->author == "claude-code@laptop");
    CHECK(after->supersedes == before->id);
  }

  TEST_CASE("memory entries: one per file, superseded as it changes, ended when deleted") {
    World w;
    History(w);
    Db& db = *w.store.db;
    const std::int64_t now = w.store.clock.NowMs();
    auto ev = MemoryEvents(db);
    REQUIRE(ev.size() == 5);
    // MEMORY.md is an index: no entry.  user_role.md: its four lines derive
    // four versions of one entry.
    CHECK(db.QueryInt("SELECT count(*) FROM imported_entry") == 4);
    CHECK_FALSE(LoadVersion(db, MemoryEntryId(ev[1].id)));
    auto first = GetEntry(db, MemoryEntryId(ev[0].id), now);
    REQUIRE(first);
    CHECK(first->imported);
    CHECK(first->root == first->id);
    CHECK(first->kind == "cognition");  // type: user
    CHECK(first->confidence == doctest::Approx(0.8));
    CHECK(first->author == "claude-code@testbox");
    CHECK(first->project == std::string("app"));
    CHECK(first->text == "The user is a C++ developer.");
    REQUIRE(first->sources.size() == 1);
    CHECK(*first->sources[0].event_id == ev[0].id);  // invariant 1
    auto history = EntryHistory(db, first->root, now);
    REQUIRE(history.size() == 4);
    CHECK(history[1].supersedes == history[0].id);
    CHECK(history[1].text == "The user is a senior C++ developer.");
    CHECK(history[1].created_at == ev[2].ts);  // the file's modification time
    // The deletion: the last version again, ended then.
    CHECK(history[2].supersedes == history[1].id);
    CHECK(history[2].text == history[1].text);
    CHECK(history[2].valid_to == ev[3].ts);
    // Back: current again, and not ended.
    CHECK(history[3].supersedes == history[2].id);
    CHECK(history[3].status == "active");
    CHECK_FALSE(history[3].ended);
    CHECK(history[3].text == "The user is a C++ developer.");
    EntryFilter current;
    auto listed = ListEntries(db, current, now);
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].id == history[3].id);
    // The same stream derives the same versions on another store.
    World other;
    History(other);
    auto again = EntryHistory(*other.store.db, first->root, now);
    REQUIRE(again.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) CHECK(again[i].id == history[i].id);
  }

  TEST_CASE(
      "memory entries: a forget survives the file's later versions; a restore brings the latest "
      "back") {
    World w;
    w.Write("project_db.md", "---\ntype: project\nconfidence: 0.6\n---\nThe store is SQLite.\n", 1);
    w.Sync();
    Db& db = *w.store.db;
    const std::int64_t now = w.store.clock.NowMs();
    auto listed = ListEntries(db, EntryFilter{}, now);
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].kind == "memory");  // type: project
    CHECK(listed[0].confidence == doctest::Approx(0.6));
    TombstoneInput in;
    in.target = listed[0].id;
    in.reason = "not to be shared";
    in.author = "user@testbox";
    ForgetOutcome f = Forget(db, w.store.clock, "testbox", in);
    REQUIRE(f.tombstone);
    // The agent rewrites its file twice: each version arrives hidden, with
    // its event (invariant 2).
    w.Write("project_db.md", "---\ntype: project\n---\nThe store is SQLite in WAL mode.\n", 2);
    w.Sync();
    w.Write("project_db.md", "---\ntype: project\n---\nThe store is SQLite, WAL, 10 s busy.\n", 3);
    w.Sync();
    auto ev = MemoryEvents(db);
    REQUIRE(ev.size() == 3);
    for (const Row& e : ev) {
      CHECK(EventHidden(db, e.id));
      CHECK(EntryHidden(db, MemoryEntryId(e.id)));
    }
    CHECK(ListEntries(db, EntryFilter{}, now).empty());
    CHECK(SearchEntries(db, "WAL", EntryFilter{}, now).empty());
    // Restored: back at its latest version.
    TombstoneInput r;
    r.target = *f.tombstone;
    r.reason = "fine after all";
    r.author = "user@testbox";
    Restore(db, w.store.clock, "testbox", r);
    listed = ListEntries(db, EntryFilter{}, now);
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].id == MemoryEntryId(ev[2].id));
    CHECK(listed[0].text == "The store is SQLite, WAL, 10 s busy.");
    CHECK_FALSE(EventHidden(db, ev[1].id));
  }

  TEST_CASE(
      "memory entries: an emptied file ends its entry; a deletion with nothing to end derives "
      "nothing") {
    World w;
    w.Write("a.md", "remember this\n", 1);
    w.Write("MEMORY.md", "- [a](a.md)\n", 2);
    w.Sync();
    w.Write("a.md", "", 3);
    fs::remove(w.mem + "/MEMORY.md");
    w.Sync();
    Db& db = *w.store.db;
    auto ev = MemoryEvents(db);
    REQUIRE(ev.size() == 4);
    CHECK(db.QueryInt("SELECT count(*) FROM imported_entry") == 2);
    auto ended = LoadVersion(db, MemoryEntryId(ev[2].id));
    REQUIRE(ended);
    CHECK(ended->text == "remember this");
    CHECK(ended->valid_to == ev[2].ts);
    CHECK(ListEntries(db, EntryFilter{}, ev[2].ts + 1).empty());  // ended by then
    // Written again after an ending: it supersedes the ended version.
    w.Write("a.md", "remember this again\n", 9);
    w.Sync();
    auto listed = ListEntries(db, EntryFilter{}, ev[2].ts + 1);
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].supersedes == ended->id);
  }
}
