// SPDX-License-Identifier: MIT
// What a person reading the sessions expects of them (issue 14, points 5,
// 8 and 9), on fixtures written for it under tests/fixtures/ (codex/ and
// cursor/, see their READMEs) and ingested by the real ingester:
//   a session keeps its project while it works inside its first working
//   directory, and filters find its sessions and events by that rule
//   (migration kSessionProjectsVersion derives it for an older store,
//   whose events stay as they are: invariant 3);
//   a Codex sub-agent forked with its parent's history is linked to its
//   parent and holds only its own events (the copy stays in the mirror,
//   invariant 1);
//   a Cursor agent transcript with no IDE database gets its workspace, its
//   title, its times and its wrapped context from what the files hold, and
//   `sources` gives the transcript's own line (invariant 1).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "adapters/codex/codex.hpp"
#include "adapters/cursor/cursor.hpp"
#include "core/forget/forget.hpp"
#include "core/query/events.hpp"
#include "core/query/search.hpp"
#include "core/store/schema.hpp"
#include "core/store/sessions.hpp"
#include "core/util/text.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = std::string(ORIGIN_SOURCE_DIR) + "/tests/fixtures/";
const std::string kShop = "codex:0799a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a62";
const std::string kWindows = "codex:0899a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a63";
const std::string kParent = "codex:0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const std::string kSpawned = "codex:0599a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a60";
const std::string kForked = "codex:0699a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a61";

// The Codex fixtures, ingested.
struct CodexStore {
  ScopedTempDir d;
  TestStore s;
  adapters::CodexAdapter a{d / "codex"};
  CodexStore() {
    fs::copy(kFixtures + "codex", d / "codex", fs::copy_options::recursive);
    for (auto& e : fs::recursive_directory_iterator(d / "codex"))
      if (e.path().extension() == ".expected") fs::remove(e.path());
    s.ingester->Sync({&a}, {});
  }
};

// Each event's text and project, in the session's order.
// A session's events, its title events left out.
std::vector<EventRow> Events(Db& db, const std::string& session) {
  std::vector<EventRow> out;
  for (EventRow& e : SessionEvents(db, session, true, 100))
    if (e.tool_name != "title") out.push_back(std::move(e));
  return out;
}

std::vector<std::pair<std::string, std::string>> Projects(Db& db, const std::string& session) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const EventRow& e : SessionEvents(db, session, true, 100))
    out.emplace_back(e.text, e.project.value_or(""));
  return out;
}

bool Listed(Db& db, const std::string& project, const std::string& session) {
  SessionFilter f;
  f.project = project;
  f.limit = 100;
  for (const SessionRow& r : ListSessions(db, f))
    if (r.id == session) return true;
  return false;
}

std::vector<std::string> Found(Db& db, const std::string& query, const std::string& project) {
  EventQuery q;
  q.query = query;
  q.project = project;
  q.limit = 50;
  std::vector<std::string> out;
  for (const EventHit& h : SearchEvents(db, q)) out.push_back(h.event.text);
  std::sort(out.begin(), out.end());
  return out;
}

std::string Text(Db& db, const std::string& sql) {
  Stmt st(db.get(), sql.c_str());
  return st.Step() && !st.IsNull(0) ? std::string(st.Text(0)) : std::string();
}

void SetTimes(const std::string& path, std::int64_t ms) {
  struct timeval tv[2];
  tv[0].tv_sec = tv[1].tv_sec = ms / 1000;
  tv[0].tv_usec = tv[1].tv_usec = (ms % 1000) * 1000;
  REQUIRE(::utimes(path.c_str(), tv) == 0);
}

}  // namespace

TEST_SUITE("adapters") {
  TEST_CASE("sessions: a cwd inside the first working directory keeps the session's project") {
    CHECK(CwdInside("/home/dev/shop/web/src", "/home/dev/shop"));
    CHECK(CwdInside("/home/dev/shop/", "/home/dev/shop"));
    CHECK_FALSE(CwdInside("/home/dev/shopping", "/home/dev/shop"));
    CHECK_FALSE(CwdInside("/home/dev", "/home/dev/shop"));
    CHECK(CwdInside("c:\\Users\\me\\shop\\web", "C:\\Users\\me\\shop"));
    CHECK_FALSE(CwdInside("/Home/dev/shop/web", "/home/dev/shop"));  // case matters off Windows

    CodexStore c;
    Db& db = *c.s.db;
    // Subfolders keep "shop"; a move out (shopping, a sibling whose name
    // starts alike) changes it, and its own subfolder keeps that; back in
    // the first tree, "shop" again.
    const std::vector<std::pair<std::string, std::string>> want = {
        {"Fix the cart total", "shop"},
        {"The total skips discounts; fixed in cart.ts.", "shop"},
        {"And the API side?", "shop"},
        {"Now the shopping list app", "shopping"},
        {"Its list model lives in lib/.", "shopping"},
        {"Back to the cart page", "shop"},
    };
    CHECK(Projects(db, kShop) == want);
    // The session's project is the one of its latest cwd.
    CHECK(GetSession(db, kShop)->project == "shop");
    // The drive letter's case flips within a Windows session: one project.
    CHECK(Projects(db, kWindows) == std::vector<std::pair<std::string, std::string>>{
                                        {"Why is the build slow on Windows?", "shop"},
                                        {"Defender scans node_modules.", "shop"}});
    // Filters find sessions and their events by the same rule.
    CHECK(Listed(db, "shop", kShop));
    CHECK(Listed(db, "shopping", kShop));
    CHECK(Listed(db, "shop", kWindows));
    CHECK_FALSE(Listed(db, "src", kShop));
    CHECK_FALSE(Listed(db, "web", kWindows));
    CHECK(Found(db, "the", "shop") ==
          std::vector<std::string>{
              "And the API side?", "Back to the cart page", "Fix the cart total",
              "The total skips discounts; fixed in cart.ts.", "Why is the build slow on Windows?"});
    CHECK(Found(db, "list", "shopping") ==
          std::vector<std::string>{"Its list model lives in lib/.", "Now the shopping list app"});
    CHECK(Found(db, "the", "src").empty());
    // The events themselves are as they were read: their own column is the
    // last segment of their cwd (invariant 3: nothing rewritten).
    CHECK(db.QueryInt("SELECT count(*) FROM event WHERE project = 'src'") == 1);
    // The incremental projects equal those derived from every event.
    std::vector<std::pair<std::string, std::string>> inc = Projects(db, kShop);
    RecomputeSessions(db);
    CHECK(Projects(db, kShop) == inc);
    CHECK(GetSession(db, kShop)->project == "shop");
  }

  TEST_CASE("sessions: migration kSessionProjectsVersion derives the projects of an older store") {
    ScopedTempDir d;
    const std::string path = d / "origin.db";
    {
      // A store as Origin before it left it: every event's project the last
      // segment of its cwd, the session's that of its latest cwd.
      auto db = OpenWriteConnection(path, Migrations(), kSessionProjectsVersion - 1);
      db->Exec(
          "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
          "VALUES (1, 'codex', 'rollouts/x.jsonl', 1, '/x', 'codex/x', 0)");
      const char* rows[][3] = {{"1", "/home/dev/shop", "Fix the cart total"},
                               {"2", "/home/dev/shop/web/src", "Fixed in cart.ts"},
                               {"3", "/home/dev/shop/api", "And the API side?"}};
      for (auto& r : rows)
        db->Prepare(
              "INSERT INTO event(id, source, session, ts, project, cwd, role, kind, text, file_id, "
              "line) VALUES ('codex:s:' || ?1, 'codex', 'codex:s', 1000 * ?1, ?2, ?3, 'user', "
              "'message', ?4, 1, ?1)")
            .Bind(1, static_cast<std::int64_t>(std::stoll(r[0])))
            .Bind(2, LastPathSegment(r[1]))
            .Bind(3, r[1])
            .Bind(4, r[2])
            .Run();
      db->Exec(
          "INSERT INTO session(id, source, project, cwd, first_ts, last_ts, event_count, "
          "message_count) VALUES ('codex:s', 'codex', 'api', '/home/dev/shop/api', 1000, 3000, 3, "
          "3)");
    }
    auto db = OpenWriteConnection(path);
    CHECK(db->QueryInt("PRAGMA user_version") == kSchemaVersion);
    CHECK(GetSession(*db, "codex:s")->project == "shop");
    CHECK(Listed(*db, "shop", "codex:s"));
    CHECK(Found(*db, "the", "shop") ==
          std::vector<std::string>{"And the API side?", "Fix the cart total"});
    CHECK(Found(*db, "cart", "shop").size() == 2);
    // Invariant 3: the events are those the older store held, unchanged.
    CHECK(db->QueryInt("SELECT count(*) FROM event") == 3);
    CHECK(db->QueryInt("SELECT count(*) FROM event WHERE project = 'src' AND cwd LIKE '%/src'") ==
          1);
    CHECK(GetSession(*db, "codex:s")->parent == std::nullopt);
  }

  TEST_CASE("codex: a forked sub-agent is linked to its parent and holds only its own events") {
    CodexStore c;
    Db& db = *c.s.db;
    // Neither fork stores the parent's copied history again (its words,
    // its name, its cwd)...
    CHECK(db.QueryInt("SELECT count(*) FROM event WHERE text LIKE '%COPIED-PARENT%'") == 0);
    CHECK(db.QueryInt("SELECT count(*) FROM event WHERE cwd LIKE '%parent-cwd%'") == 0);
    // ...which stays in their mirrors (invariant 1).
    for (const std::string& s : {kSpawned, kForked}) {
      const std::string native = s.substr(6);
      const std::int64_t file =
          db.QueryInt("SELECT id FROM raw_file WHERE key LIKE '%" + native + ".jsonl'");
      CHECK(c.s.mirrors->ReadContent(db, file).find("COPIED-PARENT-PROMPT") != std::string::npos);
    }
    // Each is linked to its parent and named by its own task.
    auto spawned = GetSession(db, kSpawned);
    REQUIRE(spawned);
    CHECK(spawned->parent == kParent);
    CHECK(!spawned->title);
    CHECK(spawned->prompt == "Check whether CI runs build.sh");
    CHECK(Text(db, "SELECT model FROM session WHERE id = '" + kSpawned + "'") ==
          "gpt-5-codex-mini");
    auto forked = GetSession(db, kForked);
    CHECK(forked->parent == kParent);
    CHECK(forked->prompt == "Try it with ninja instead");
    CHECK(forked->messages == 2);
    // A sub-agent spawned without the parent's history is linked too, and
    // keeps its events.
    auto fresh = GetSession(db, "codex:0299a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c");
    CHECK(fresh->parent == kParent);
    CHECK(fresh->messages == 2);
    CHECK(GetSession(db, kParent)->parent == std::nullopt);
    // The link is an event (the fork's session_meta line): `sources` gives
    // that line, and forgetting it takes the link away (invariant 2).
    const std::string link = Text(
        db, "SELECT id FROM event WHERE session = '" + kSpawned + "' AND tool_name = 'parent'");
    auto src = EventSource(db, *c.s.mirrors, link);
    REQUIRE(src);
    CHECK(src->line == 1);
    CHECK(src->raw.find("\"forked_from_id\"") != std::string::npos);
    Forget(db, c.s.clock, "test", {link, "wrong parent", "user@test"});
    CHECK(GetSession(db, kSpawned)->parent == std::nullopt);
  }

  TEST_CASE("cursor: a transcript alone is placed, titled and dated by what its files hold") {
    ScopedTempDir d;
    fs::create_directories(d / "cursor");
    fs::copy(kFixtures + "cursor/projects", d / "cursor/projects", fs::copy_options::recursive);
    for (auto& e : fs::recursive_directory_iterator(d / "cursor"))
      if (e.path().extension() == ".expected") fs::remove(e.path());
    const std::string id = "3d1f5b2a-6c7d-4e8f-9a0b-1c2d3e4f5a6b";
    const std::string session = "cursor:" + id;
    const std::string dir =
        d / ("cursor/projects/c-Users-name-Documents-shop-site/agent-transcripts/" + id);
    const std::string file = dir + "/" + id + ".jsonl";
    // Begun (its directory made) at 10:00, last written at 11:00.
    const std::int64_t t0 = 1748772000000, t1 = t0 + 3600000;  // 2025-06-01T10:00Z
    SetTimes(file, t1);
    SetTimes(dir, t0);
    adapters::CursorAdapter c(d / "cursor", d / "no-ide");  // no IDE database at all
    TestStore s;
    s.ingester->Sync({&c}, {});
    Db& db = *s.db;

    std::vector<EventRow> evs = Events(db, session);
    REQUIRE(evs.size() == 7);
    // The workspace folder, read back from the paths the transcript names:
    // the slug alone would not tell shop-site from shop/site.
    for (const EventRow& e : evs) {
      CHECK(e.cwd == "c:\\Users\\name\\Documents\\shop-site");
      CHECK(e.project == "shop-site");
    }
    // The first query titles the session; what Cursor wrapped around it is
    // a meta event, not the user's words, and not dropped.
    CHECK(GetSession(db, session)->title == "Why is the cart total wrong after the tax change?");
    CHECK(evs[0].kind == "message");
    CHECK(evs[0].text == "Why is the cart total wrong after the tax change?");
    CHECK(evs[1].kind == "meta");
    CHECK(evs[1].role == "system");
    for (const char* tag : {"<user_info>", "<git_diff_from_branch_to_main>", "<cursor_commands>"})
      CHECK(evs[1].text.find(tag) != std::string::npos);
    CHECK(evs[1].text.find("Why is the cart") == std::string::npos);
    // Times: the first turn when the transcript began, the last when it was
    // last written; the items of a turn 1 ms apart.
    CHECK(evs[0].ts == t0);
    CHECK(evs[1].ts == t0);
    const std::vector<std::pair<std::string, std::int64_t>> when = {
        {"Let me read the cart.", t0 + 1},
        {"The tax is applied twice; I removed the second one.", t0 + 2},
        {"Add a test for it", t1},
        {"Added cart.test.ts.", t1 + 1}};
    for (const auto& [text, ts] : when) {
      auto it = std::find_if(evs.begin(), evs.end(), [&t = text](const EventRow& e) {
        return e.text == t && e.kind == "message";
      });
      REQUIRE(it != evs.end());
      CHECK(it->ts == ts);
    }
    // `sources` gives the transcript's own line, and where it is, first
    // (invariant 1): not the line generated around it.
    const std::vector<std::string> lines = [&] {
      std::vector<std::string> out;
      std::string all = ReadAll(file);
      for (std::size_t p = 0; p <= all.size();) {
        std::size_t nl = all.find('\n', p);
        if (nl == std::string::npos) nl = all.size();
        out.push_back(all.substr(p, nl - p));
        p = nl + 1;
      }
      return out;
    }();
    for (const EventRow& e : evs) {
      auto src = EventSource(db, *s.mirrors, e.id);
      REQUIRE(src);
      CHECK(src->path == file);
      auto own = c.Original(src->key, src->raw);
      REQUIRE(own);
      REQUIRE(own->line >= 1);
      REQUIRE(own->line <= static_cast<std::int64_t>(lines.size()));
      CHECK(own->raw == lines[static_cast<std::size_t>(own->line - 1)]);
    }
    // A turn added later is dated up to the file's new mtime.
    WriteFile(file, ReadAll(file) +
                        "\n{\"role\":\"user\",\"message\":{\"content\":[{\"type\":\"text\","
                        "\"text\":\"<user_query>\\nRun it\\n</user_query>\"}]}}\n");
    const std::int64_t t2 = t1 + 600000;
    SetTimes(file, t2);
    s.ingester->Sync({&c}, {});
    evs = Events(db, session);
    REQUIRE(evs.size() == 8);
    CHECK(evs.back().text == "Run it");
    CHECK(evs.back().ts == t2);
    CHECK(GetSession(db, session)->title == "Why is the cart total wrong after the tax change?");
  }
}
