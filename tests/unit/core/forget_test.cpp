// SPDX-License-Identifier: MIT
// Forgetting and restoring (spec: Forgetting; invariant 2): rules 1 to 3 and
// the cascade, chains hidden as a whole, restores deciding again, re-syncs
// never bringing anything back, and a model-based test of random sequences
// of ingest, remember, correct (with forks), forget, restore and re-sync
// against a small reference model of what is visible.
#include "core/forget/forget.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "adapters/claude_code/claude_code.hpp"
#include "core/entries/entries.hpp"
#include "core/ingest/ingester.hpp"
#include "core/query/events.hpp"
#include "core/query/search.hpp"
#include "core/store/schema.hpp"
#include "core/store/sessions.hpp"
#include "core/store/visible.hpp"
#include "core/util/hash.hpp"
#include "core/util/op_error.hpp"
#include "tests/support/support.hpp"
#include "tests/unit/core/forget_world.hpp"

using namespace origin;
using namespace origin::test;

using namespace origin::test::forget_world;

TEST_SUITE("forget") {
  TEST_CASE("forget: rule 1 hides an entry's whole chain, forks included, and the events it cites (invariant 2)") {
    World w;
    std::string e1 = w.Say("s1", "alpha secret"), e2 = w.Say("s1", "alpha other"),
                e3 = w.Say("s1", "alpha third");
    w.Sync();
    std::string v1 = w.Remember({e1});
    std::string v2 = w.Correct(v1, {e2});
    // A fork from another store.
    const std::int64_t indexed = LastEntrySeq(*w.s.db);
    w.s.db->Prepare("INSERT INTO entry(id, kind, text, confidence, author, supersedes, root, created_at, origin) "
                    "VALUES ('ent_ffffffffffffffffffffffff', 'knowledge', 'fork', 0.5, 'user@laptop', ?, ?, ?, 'laptop')")
        .Bind(1, v1).Bind(2, v1).Bind(3, w.s.clock.NowMs() - 5).Run();
    IndexEntriesAfter(*w.s.db, indexed);
    CHECK(w.SessionEventsCount("s1") == 3);
    auto o = w.Forget(v2);
    REQUIRE(o.tombstone);
    CHECK(o.tombstone->rfind("tmb_", 0) == 0);
    CHECK(o.entries.size() == 3);
    CHECK(o.events == std::vector<std::string>{e1, e2});
    for (const auto& id : {v1, v2, std::string("ent_ffffffffffffffffffffffff")}) {
      CHECK(EntryHidden(*w.s.db, id));
      CHECK(ErrorOf([&] { GetEntry(*w.s.db, id, 0); }) == Code::kForgotten);
    }
    CHECK(ErrorOf([&] { EntryHistory(*w.s.db, v1, 0); }) == Code::kForgotten);
    CHECK(ErrorOf([&] { GetEvent(*w.s.db, e1); }) == Code::kForgotten);
    CHECK(ErrorOf([&] { w.Correct(v2); }) == Code::kForgotten);
    CHECK(ErrorOf([&] { w.Remember({e1}); }) == Code::kForgotten);  // hidden events cannot be cited
    CHECK(ListEntries(*w.s.db, {.history = true}, 0).empty());
    CHECK(w.Found("alpha") == std::set<std::string>{e3});
    // Session counts are over visible events.
    CHECK(w.SessionEventsCount("s1") == 1);
    auto events = SessionEvents(*w.s.db, "claude-code:s1", true, 100);
    REQUIRE(events.size() == 1);
    CHECK(events[0].id == e3);
    CHECK(FirstPrompt(*w.s.db, "claude-code:s1") == "alpha third");
  }

  TEST_CASE("forget: rule 2 hides an event, every chain citing it and their events; rule 3 cascades") {
    World w;
    std::string e1 = w.Say("s1", "beta one"), e2 = w.Say("s1", "beta two"),
                e3 = w.Say("s2", "beta three"), e4 = w.Say("s2", "beta four");
    w.Sync();
    std::string a = w.Remember({e1, e2});  // cites the target: hidden by rule 2
    std::string b = w.Remember({e2});      // only e2, hidden with a: rule 3
    std::string c = w.Remember({e2, e3});  // keeps e3: stays
    std::string d = w.Remember({e4});      // unrelated
    auto o = w.Forget(e1);
    REQUIRE(o.tombstone);
    CHECK(o.events == std::vector<std::string>{e1, e2});
    CHECK(EntryHidden(*w.s.db, a));
    CHECK(EntryHidden(*w.s.db, b));
    CHECK_FALSE(EntryHidden(*w.s.db, c));
    CHECK_FALSE(EntryHidden(*w.s.db, d));
    CHECK_FALSE(EventHidden(*w.s.db, e3));  // the cascade hides no events
    CHECK(w.Count("SELECT count(*) FROM tombstone_effect WHERE how = 'cascade' AND item = '" + b + "'") == 1);
    // A visible entry lists only its visible sources.
    auto ce = GetEntry(*w.s.db, c, 0);
    REQUIRE(ce->sources.size() == 1);
    CHECK(*ce->sources[0].event_id == e3);
    // A correction of c carries e2 over, still hidden.
    std::string c2 = w.Correct(c);
    CHECK(w.Count("SELECT count(*) FROM entry_source WHERE entry_id = '" + c2 + "'") == 2);
    CHECK(GetEntry(*w.s.db, c2, 0)->sources.size() == 1);
    // The restore brings everything back, as if the forget had never been made.
    auto r = w.Restore(*o.tombstone);
    REQUIRE(r.tombstone);
    CHECK(r.events == std::vector<std::string>{e1, e2});
    CHECK(r.chains.size() == 2);
    CHECK_FALSE(EntryHidden(*w.s.db, a));
    CHECK_FALSE(EntryHidden(*w.s.db, b));
    CHECK(w.SessionEventsCount("s1") == 2);
    CHECK(GetEntry(*w.s.db, c2, 0)->sources.size() == 2);
  }

  TEST_CASE("forget: a forget that hides nothing new is not recorded; a dry run changes nothing") {
    World w;
    std::string e1 = w.Say("s1", "gamma"), e2 = w.Say("s1", "gamma two");
    w.Sync();
    std::string a = w.Remember({e1});
    auto dry = w.Forget(a, true);
    CHECK_FALSE(dry.tombstone);
    CHECK(dry.entries == std::vector<std::string>{a});
    CHECK(dry.events == std::vector<std::string>{e1});
    CHECK(w.Count("SELECT count(*) FROM tombstone") == 0);
    CHECK(w.Count("SELECT count(*) FROM excluded_event") == 0);
    CHECK(w.Count("SELECT count(*) FROM change_log WHERE kind = 'tombstone'") == 0);
    auto o = w.Forget(a);
    REQUIRE(o.tombstone);
    CHECK(o.entries == dry.entries);
    CHECK(o.events == dry.events);
    auto again = w.Forget(a);
    CHECK_FALSE(again.tombstone);
    CHECK(again.hidden_by == o.tombstone);
    CHECK(w.Forget(e1).tombstone == std::nullopt);  // e1 is hidden, and only a cites it
    CHECK(w.Count("SELECT count(*) FROM tombstone") == 1);
    // Bad input.
    CHECK(ErrorOf([&] { origin::Forget(*w.s.db, w.s.clock, "box", {e2, "  ", "user@box"}); }) == Code::kInvalidArgument);
    CHECK(ErrorOf([&] { w.Forget("claude-code:nope"); }) == Code::kNotFound);
    CHECK(ErrorOf([&] { w.Forget(*o.tombstone); }) == Code::kInvalidArgument);
    CHECK(ErrorOf([&] { w.Restore("tmb_000000000000000000000000"); }) == Code::kNotFound);
    CHECK(ErrorOf([&] { origin::Restore(*w.s.db, w.s.clock, "box", {*o.tombstone, "", "user@box"}); }) == Code::kInvalidArgument);
    auto r = w.Restore(*o.tombstone);
    CHECK(ErrorOf([&] { w.Restore(*o.tombstone); }) == Code::kConflict);  // only once
    CHECK(ErrorOf([&] { w.Restore(*r.tombstone); }) == Code::kInvalidArgument);  // a restore cannot be restored
    // To hide it again, forget it again: a new record.
    auto o2 = w.Forget(a);
    REQUIRE(o2.tombstone);
    CHECK(*o2.tombstone != *o.tombstone);
  }

  TEST_CASE("forget: an item stays hidden while another forget in effect covers it") {
    World w;
    std::string e1 = w.Say("s1", "delta");
    w.Sync();
    std::string a = w.Remember({e1});
    std::string b = w.Remember({e1}, "another fact");
    auto fa = w.Forget(a);  // hides a, e1 and (rule 3) b
    REQUIRE(fa.tombstone);
    CHECK(EntryHidden(*w.s.db, b));
    auto fe = w.Forget(b);  // b is hidden already and e1 too: nothing new
    CHECK_FALSE(fe.tombstone);
    auto fe1 = w.Forget(e1);  // nothing new either
    CHECK_FALSE(fe1.tombstone);
    // A second forget of a (through another path): record by adding a new event cited by a? a is
    // hidden; instead forget the event directly after restoring, then restore the first.
    auto r = w.Restore(*fa.tombstone, true);
    CHECK(r.events == std::vector<std::string>{e1});
    CHECK(r.entries.size() == 2);
    CHECK(EntryHidden(*w.s.db, a));  // a dry run
    w.Restore(*fa.tombstone);
    auto f2 = w.Forget(e1);  // rule 2: hides e1, a and b
    REQUIRE(f2.tombstone);
    auto f3 = w.Forget(a, true);
    CHECK_FALSE(f3.tombstone);
    CHECK(EntryHidden(*w.s.db, a));
    CHECK(EntryHidden(*w.s.db, b));
  }

  TEST_CASE("forget: re-syncing, even a rewritten source file, never brings anything back (invariant 2)") {
    World w;
    std::string e1 = w.Say("s1", "epsilon private"), e2 = w.Say("s1", "epsilon public");
    w.Sync();
    auto o = w.Forget(e1);
    REQUIRE(o.tombstone);
    std::int64_t gens = w.Count("SELECT count(*) FROM raw_file");
    w.Rewrite("s1");
    CHECK(w.Count("SELECT count(*) FROM raw_file") == gens + 1);
    w.Sync();
    CHECK(EventHidden(*w.s.db, e1));
    CHECK(w.Found("epsilon") == std::set<std::string>{e2});
    CHECK(w.SessionEventsCount("s1") == 1);
    RecomputeSessions(*w.s.db);
    CHECK(w.SessionEventsCount("s1") == 1);
  }

  TEST_CASE(
      "forget: a title is an event: forgetting it takes it from the session's title, the preview "
      "counts the title, re-syncing keeps it hidden and a restore brings it back (invariant 2)") {
    World w;
    w.Say("s1", "deploy the service");
    w.Title("s1", "ai-title", "Deploy the service");
    w.Title("s1", "custom-title", "deploy with sk-SECRET-123");
    w.Title("s1", "custom-title", "deploy with sk-SECRET-123");  // Claude Code repeats it
    w.Sync();
    // One event holds the secret title: found, shown and listed like any other.
    const std::string secret = w.EventWith("sk-SECRET-123");
    const std::string generated = w.EventWith("Deploy the service");
    CHECK(GetEvent(*w.s.db, secret)->kind == "meta");
    auto listed = [&](const std::string& id) {
      for (const EventRow& e : SessionEvents(*w.s.db, "claude-code:s1", true, 100))
        if (e.id == id) return true;
      return false;
    };
    CHECK(listed(secret));
    EventQuery q;
    q.query = "sk-SECRET";
    q.include_tools = true;
    CHECK(SearchEvents(*w.s.db, q).size() == 1);
    CHECK(w.Name("s1") == "deploy with sk-SECRET-123*");
    CHECK(w.SessionEventsCount("s1") == 1);  // a title counts in no aggregate

    // The preview says the session's title goes too, and changes nothing.
    auto preview = w.Forget(secret, true);
    CHECK_FALSE(preview.tombstone);
    CHECK(preview.events == std::vector<std::string>{secret});
    CHECK(preview.titles == std::vector<std::string>{"claude-code:s1"});
    CHECK(w.Name("s1") == "deploy with sk-SECRET-123*");

    auto f = w.Forget(secret);
    REQUIRE(f.tombstone);
    CHECK(f.titles == std::vector<std::string>{"claude-code:s1"});
    // The session is titled by what is left: the generated title.
    CHECK(w.Name("s1") == "Deploy the service");
    CHECK_FALSE(listed(secret));
    CHECK(SearchEvents(*w.s.db, q).empty());
    for (const SessionRow& r : ListSessions(*w.s.db, SessionFilter{}))
      CHECK(r.title.value_or("").find("sk-SECRET") == std::string::npos);
    // Re-syncing, even a rewritten file whose title lines repeat it, and a
    // new repeat of the line, never bring it back.
    w.Rewrite("s1");
    w.Title("s1", "custom-title", "deploy with sk-SECRET-123");
    w.Sync();
    CHECK(w.Name("s1") == "Deploy the service");
    CHECK(w.Count("SELECT count(*) FROM event WHERE text LIKE '%sk-SECRET%'") == 1);
    RecomputeSessions(*w.s.db);
    CHECK(w.Name("s1") == "Deploy the service");

    // Without a visible title, the session shows its first prompt.
    auto g = w.Forget(generated);
    REQUIRE(g.tombstone);
    CHECK(g.titles == std::vector<std::string>{"claude-code:s1"});
    CHECK(w.Name("s1") == "\"deploy the service\"");

    // A restore brings the user's title back, and says so.
    auto r = w.Restore(*f.tombstone);
    CHECK(r.titles == std::vector<std::string>{"claude-code:s1"});
    CHECK(w.Name("s1") == "deploy with sk-SECRET-123*");
    CHECK(listed(secret));
    // Forgetting a title the session does not show changes no title.
    const std::string more = w.Say("s1", "more");
    w.Sync();
    CHECK(w.Forget(more).titles.empty());
  }

  TEST_CASE(
      "forget: a title read before titles were events stays until one of its session arrives") {
    World w;
    w.Say("s1", "first prompt");
    w.Sync();
    // A store made before: the title is in session, no event gives it.
    w.s.db->Exec("UPDATE session SET title = 'old title', title_manual = 1");
    RecomputeSessions(*w.s.db);
    CHECK(w.Name("s1") == "old title*");
    w.Title("s1", "ai-title", "new title");
    w.Sync();
    CHECK(w.Name("s1") == "new title");  // derived from its title events from then on
    w.Forget(w.EventWith("new title"));
    CHECK(w.Name("s1") == "\"first prompt\"");
  }

  TEST_CASE("forget: tombstones are records: never changed, logged, audited with ids and counts only") {
    World w;
    std::string e1 = w.Say("s1", "zeta");
    w.Sync();
    std::string a = w.Remember({e1});
    auto o = w.Forget(a);
    REQUIRE(o.tombstone);
    CHECK_THROWS_WITH(w.s.db->Exec("UPDATE tombstone SET reason = 'x'"), doctest::Contains("invariant 2"));
    CHECK_THROWS_WITH(w.s.db->Exec("DELETE FROM tombstone"), doctest::Contains("invariant 2"));
    CHECK_THROWS(w.s.db->Exec("DELETE FROM tombstone_meta"));
    CHECK_THROWS(w.s.db->Exec("DELETE FROM audit_log"));
    CHECK(w.Count("SELECT count(*) FROM change_log WHERE kind = 'tombstone'") == 1);
    CHECK(w.Count("SELECT count(*) FROM audit_log WHERE details LIKE '%private%' OR details LIKE '%zeta%'") == 0);
    CHECK(w.Count("SELECT count(*) FROM audit_log WHERE action = 'forget' AND details LIKE '%\"entries\":1%'") == 1);
    std::int64_t logged = w.Count("SELECT count(*) FROM change_log WHERE kind = 'entry'");
    auto r = w.Restore(*o.tombstone);
    // The entry this store wrote comes back and is logged again.
    CHECK(w.Count("SELECT count(*) FROM change_log WHERE kind = 'entry'") == logged + 1);
    auto list = ListTombstones(*w.s.db, 10);
    REQUIRE(list.size() == 2);
    CHECK(list[0].id == *r.tombstone);
    CHECK(list[1].id == *o.tombstone);
    CHECK(list[1].author == "user@box");
    CHECK(list[1].reason == "it was private");
    CHECK(list[1].restored_by == r.tombstone);
    CHECK_FALSE(list[1].in_effect);
    CHECK(list[1].entries == 1);
    CHECK(list[1].events == 1);
    // An event id holds what its log gave it, quotes included: the audit
    // log's details stay JSON.
    w.s.db->Exec("INSERT INTO event(id, source, ts, role, kind, text, file_id, line) "
                 "SELECT 'claude-code:a\"b\\c', 'claude-code', 1, 'user', 'message', 'q', file_id, 99 "
                 "FROM event LIMIT 1");
    REQUIRE(w.Forget("claude-code:a\"b\\c").tombstone);
    CHECK(w.Count("SELECT count(*) FROM audit_log WHERE NOT json_valid(details)") == 0);
    CHECK(w.Count("SELECT count(*) FROM audit_log WHERE details ->> '$.target' = 'claude-code:a\"b\\c'") == 1);
  }

  TEST_CASE("forget: a restore logs a chain's versions again oldest first, so that the hub, "
            "which takes a version only after the one it supersedes, can take them all") {
    World w;
    std::string e1 = w.Say("s1", "zeta");
    w.Sync();
    // Corrected until a version's id sorts before the one it supersedes
    // (ids are random): logged in id order, the hub would wait for ever.
    std::vector<std::string> versions = {w.Remember({e1})};
    while (versions.size() < 50 && (versions.size() < 2 || versions.back() > versions[versions.size() - 2]))
      versions.push_back(w.Correct(versions.back()));
    REQUIRE(versions.back() < versions[versions.size() - 2]);
    auto o = w.Forget(versions.front());
    REQUIRE(o.tombstone);
    const std::int64_t before = w.Count("SELECT coalesce(max(seq), 0) FROM change_log");
    w.Restore(*o.tombstone);
    auto st = w.s.db->Prepare("SELECT id FROM change_log WHERE kind = 'entry' AND seq > ? ORDER BY seq");
    st.Bind(1, before);
    std::vector<std::string> relogged;
    while (st.Step()) relogged.emplace_back(st.Text(0));
    CHECK(relogged == versions);
  }

  TEST_CASE("forget: a session forget hides every event of it, lines that arrive later (also after a reopen), and entries left without a source (invariant 2)") {
    World w;
    std::string e1 = w.Say("s1", "delta one"), e2 = w.Say("s1", "delta two"),
                e3 = w.Say("s2", "delta three");
    w.Title("s1", "custom-title", "Delta talk");
    w.Sync();
    std::string only = w.Remember({e1});      // left without a source: rule 3
    std::string both = w.Remember({e2, e3});  // keeps e3: stays, with e3 alone
    auto dry = w.Forget("claude-code:s1", true);
    CHECK_FALSE(dry.tombstone);
    CHECK(dry.target_kind == "session");
    CHECK(dry.events.size() == 3);  // the title event too
    CHECK(dry.entries == std::vector<std::string>{only});
    CHECK(dry.titles == std::vector<std::string>{"claude-code:s1"});
    CHECK(w.Count("SELECT count(*) FROM tombstone") == 0);
    CHECK_FALSE(EventHidden(*w.s.db, e1));
    auto o = w.Forget("claude-code:s1");
    REQUIRE(o.tombstone);
    CHECK(o.events == dry.events);
    CHECK(EventHidden(*w.s.db, e1));
    CHECK(EventHidden(*w.s.db, e2));
    CHECK_FALSE(EventHidden(*w.s.db, e3));
    CHECK(EntryHidden(*w.s.db, only));
    CHECK_FALSE(EntryHidden(*w.s.db, both));
    CHECK(GetEntry(*w.s.db, both, 0)->sources.size() == 1);
    CHECK(ErrorOf([&] { GetSession(*w.s.db, "claude-code:s1"); }) == Code::kForgotten);
    CHECK(w.Found("delta") == std::set<std::string>{e3});
    // A line that arrives later in the session is hidden on arrival.
    std::string late = w.Say("s1", "delta late");
    w.Sync();
    CHECK(EventHidden(*w.s.db, late));
    CHECK(w.Found("delta") == std::set<std::string>{e3});
    CHECK(w.SessionEventsCount("s1") == 0);
    // Forgetting it again hides nothing new and is not recorded.
    auto again = w.Forget("claude-code:s1");
    CHECK_FALSE(again.tombstone);
    CHECK(again.hidden_by == o.tombstone);
    // The store reopened (a daemon's restart): still hidden, and so is the
    // next line.
    w.s.ingester.reset();
    w.s.db = OpenWriteConnection(w.s.db_path());
    w.s.ingester = std::make_unique<Ingester>(*w.s.db, *w.s.mirrors, w.s.clock);
    std::string later = w.Say("s1", "delta later");
    w.Sync();
    w.Rewrite("s1");
    CHECK(EventHidden(*w.s.db, late));
    CHECK(EventHidden(*w.s.db, later));
    CHECK(w.Found("delta") == std::set<std::string>{e3});
    // The restore brings back all of it, the late lines and the entry too.
    auto r = w.Restore(*o.tombstone);
    REQUIRE(r.tombstone);
    CHECK(r.events.size() == 5);
    CHECK(w.Found("delta") == std::set<std::string>{e1, e2, e3, late, later});
    CHECK_FALSE(EntryHidden(*w.s.db, only));
    CHECK(w.SessionEventsCount("s1") == 4);
    CHECK(w.Name("s1") == "Delta talk*");
    // An unknown target names every kind forget takes.
    CHECK(ErrorOf([&] { w.Forget("claude-code:nope"); }) == Code::kNotFound);
  }

  TEST_CASE("forget: a session whose every event an earlier forget hid is still forgotten, for the lines to come") {
    World w;
    std::string e1 = w.Say("s1", "epsilon one");
    w.Sync();
    REQUIRE(w.Forget(e1).tombstone);
    auto o = w.Forget("claude-code:s1");
    REQUIRE(o.tombstone);  // nothing new now, but what arrives later
    CHECK(o.events.empty());
    std::string late = w.Say("s1", "epsilon late");
    w.Sync();
    CHECK(EventHidden(*w.s.db, late));
  }

  // The reference model: what is visible follows from the forgets in effect
  // and the data alone.
  TEST_CASE("forget: model-based, random ingest / remember / correct / fork / forget (events, entries, sessions) / restore / re-sync (invariant 2)") {
    struct Version {
      std::string id, root;
      std::int64_t created;
      std::set<std::string> sources;
    };
    struct Fgt {
      std::string id, target;
      bool restored = false;
    };
    // Its choices go by the ids' order: ids from the seed too.
    struct SeededIds {
      explicit SeededIds(unsigned seed) { SeedRandomIdsForTest(seed); }
      ~SeededIds() { SeedRandomIdsForTest(std::nullopt); }
    };
    for (unsigned seed : {1u, 2u, 3u, 4u}) {
      CAPTURE(seed);
      SeededIds ids(seed);
      World w;
      std::mt19937 rng(seed);
      auto pick = [&](auto& v) -> auto& { return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)]; };
      std::vector<std::string> events;
      std::map<std::string, std::string> event_session;
      std::vector<Version> versions;
      std::vector<Fgt> forgets;
      int forks = 0;

      auto chain = [&](const std::string& root) {
        std::vector<const Version*> out;
        for (const auto& v : versions)
          if (v.root == root) out.push_back(&v);
        return out;
      };
      auto current = [&](const std::string& root) {
        const Version* c = nullptr;
        for (const Version* v : chain(root))
          if (!c || v->created > c->created || (v->created == c->created && v->id > c->id)) c = v;
        return c;
      };
      auto root_of = [&](const std::string& id) -> std::string {
        for (const auto& v : versions)
          if (v.id == id) return v.root;
        return "";
      };
      // Rules 1 and 2 from a target, on the data as it is.
      auto direct = [&](const std::string& target, std::set<std::string>& evs, std::set<std::string>& roots) {
        if (target.rfind("claude-code:s", 0) == 0) {
          // A session: every event of it, those that arrived after the
          // forget too; entries only by rule 3.
          for (const auto& e : events)
            if ("claude-code:" + event_session[e] == target) evs.insert(e);
          return;
        }
        if (std::string r = root_of(target); !r.empty()) {
          roots.insert(r);
        } else {
          evs.insert(target);
          for (const auto& v : versions)
            if (v.sources.count(target)) roots.insert(v.root);
        }
        for (const auto& v : versions)
          if (roots.count(v.root)) evs.insert(v.sources.begin(), v.sources.end());
      };
      auto hidden = [&](const std::vector<Fgt>& fs, std::set<std::string>& evs, std::set<std::string>& roots) {
        for (const auto& f : fs)
          if (!f.restored) direct(f.target, evs, roots);
        for (const auto& v : versions) {
          if (roots.count(v.root)) continue;
          const Version* c = current(v.root);
          if (std::all_of(c->sources.begin(), c->sources.end(), [&](const std::string& s) { return evs.count(s) > 0; }))
            roots.insert(v.root);  // rule 3
        }
      };
      auto visible_events = [&] {
        std::set<std::string> evs, roots;
        hidden(forgets, evs, roots);
        std::vector<std::string> out;
        for (const auto& e : events)
          if (!evs.count(e)) out.push_back(e);
        return out;
      };
      auto visible_roots = [&] {
        std::set<std::string> evs, roots, out;
        hidden(forgets, evs, roots);
        for (const auto& v : versions)
          if (!roots.count(v.root)) out.insert(v.root);
        return std::vector<std::string>(out.begin(), out.end());
      };
      auto check = [&](int step) {
        CAPTURE(step);
        std::set<std::string> evs, roots;
        hidden(forgets, evs, roots);
        for (const auto& e : events) {
          CAPTURE(e);
          REQUIRE(EventHidden(*w.s.db, e) == (evs.count(e) > 0));
          CHECK(ErrorOf([&] { GetEvent(*w.s.db, e); }) == (evs.count(e) ? std::optional(Code::kForgotten) : std::nullopt));
        }
        for (const auto& v : versions) {
          CAPTURE(v.id);
          REQUIRE(EntryHidden(*w.s.db, v.id) == (roots.count(v.root) > 0));
        }
        std::set<std::string> listed, expect;
        for (const auto& e : ListEntries(*w.s.db, {.history = true, .limit = 100000}, 0)) listed.insert(e.id);
        for (const auto& v : versions)
          if (!roots.count(v.root)) expect.insert(v.id);
        CHECK(listed == expect);
        std::set<std::string> vis;
        std::map<std::string, std::int64_t> per_session;
        for (const auto& e : events)
          if (!evs.count(e)) {
            vis.insert(e);
            ++per_session[event_session[e]];
          }
        CHECK(w.Found("word") == vis);
        for (const char* s : {"s1", "s2", "s3"})
          if (w.lines.count(s)) CHECK(w.SessionEventsCount(s) == per_session[s]);
      };

      for (int step = 0; step < 120; ++step) {
        int op = std::uniform_int_distribution<int>(0, 9)(rng);
        if (op <= 1 || events.empty()) {  // ingest
          int n = std::uniform_int_distribution<int>(1, 3)(rng);
          std::string session = "s" + std::to_string(std::uniform_int_distribution<int>(1, 3)(rng));
          for (int i = 0; i < n; ++i) {
            std::string id = w.Say(session, "word " + std::to_string(w.next));
            events.push_back(id);
            event_session[id] = session;
          }
          w.Sync();
        } else if (op == 2) {  // re-sync a rewritten file
          if (!w.lines.empty()) w.Rewrite(w.lines.begin()->first);
        } else if (op == 3) {  // remember, citing visible events
          auto vis = visible_events();
          if (vis.empty()) continue;
          std::set<std::string> src{pick(vis)};
          if (rng() % 2) src.insert(pick(vis));
          // A text of its own: an equal one citing the same events is a duplicate.
          std::string id = w.Remember(std::vector<std::string>(src.begin(), src.end()),
                                      "a fact " + std::to_string(step));
          versions.push_back({id, id, w.s.clock.NowMs(), src});
        } else if (op == 4) {  // correct a visible chain's current version
          auto roots = visible_roots();
          if (roots.empty()) continue;
          const Version* c = current(pick(roots));
          std::vector<std::string> add;
          auto vis = visible_events();
          if (!vis.empty() && rng() % 2) add.push_back(pick(vis));
          std::string id = w.Correct(c->id, add);
          std::set<std::string> src = c->sources;
          src.insert(add.begin(), add.end());
          versions.push_back({id, c->root, GetEntry(*w.s.db, id, 0)->created_at, src});
        } else if (op == 5) {  // a fork arrives from another store, citing visible events
          auto roots = visible_roots();
          auto vis = visible_events();
          if (roots.empty() || vis.empty()) continue;
          std::string root = pick(roots);
          auto ch = chain(root);
          const Version* parent = ch[std::uniform_int_distribution<std::size_t>(0, ch.size() - 1)(rng)];
          char id[40];
          std::snprintf(id, sizeof id, "ent_f%023d", forks++);
          std::int64_t created = parent->created + 1 + static_cast<std::int64_t>(rng() % 30);
          std::string ev = pick(vis);
          const std::int64_t indexed = LastEntrySeq(*w.s.db);
          w.s.db->Prepare("INSERT INTO entry(id, kind, text, confidence, author, supersedes, root, created_at, origin) "
                          "VALUES (?, 'knowledge', 'fork', 0.5, 'user@laptop', ?, ?, ?, 'laptop')")
              .Bind(1, std::string(id)).Bind(2, parent->id).Bind(3, root).Bind(4, created).Run();
          IndexEntriesAfter(*w.s.db, indexed);
          w.s.db->Prepare("INSERT INTO entry_source(entry_id, event_id) VALUES (?, ?)").Bind(1, std::string(id)).Bind(2, ev).Run();
          versions.push_back({id, root, created, {ev}});
        } else if (op <= 7) {  // forget anything: visible, hidden, event, entry or session
          std::string target;
          const unsigned what = rng() % 5;
          if (!versions.empty() && what <= 1)
            target = pick(versions).id;
          else if (what == 2)
            target = "claude-code:" + event_session[pick(events)];
          else
            target = pick(events);
          std::set<std::string> before_e, before_r, after_e, after_r;
          hidden(forgets, before_e, before_r);
          auto with = forgets;
          with.push_back({"new", target});
          hidden(with, after_e, after_r);
          bool hides_new = after_e != before_e || after_r != before_r;
          // A session's forget covers lines to come: recorded unless one of
          // the same session is in effect.
          if (target.rfind("claude-code:s", 0) == 0)
            hides_new = hides_new || std::none_of(forgets.begin(), forgets.end(), [&](const Fgt& f) {
                          return !f.restored && f.target == target;
                        });
          auto o = w.Forget(target);
          CAPTURE(target);
          REQUIRE(o.tombstone.has_value() == hides_new);
          if (o.tombstone) forgets.push_back({*o.tombstone, target});
        } else {  // restore a forget, or try to restore twice
          if (forgets.empty()) continue;
          Fgt& f = pick(forgets);
          auto err = ErrorOf([&] { w.Restore(f.id); });
          CHECK(err == (f.restored ? std::optional(Code::kConflict) : std::nullopt));
          f.restored = true;
        }
        check(step);
      }
      CHECK(forgets.size() >= 5);
      CHECK(std::any_of(forgets.begin(), forgets.end(), [](const Fgt& f) {
        return f.target.rfind("claude-code:s", 0) == 0;
      }));
    }
  }

  TEST_CASE(
      "forget: a line that gives a forgotten event and a visible one is not shown as the "
      "visible one's source while the forget is in effect (invariant 2)") {
    World w;
    const std::string before = w.Say("s1", "a question");
    // One line, two events: the assistant's text and its tool call.
    w.lines["s1"].push_back(
        R"({"type":"assistant","uuid":"a9","sessionId":"s1","timestamp":"2026-01-05T01:00:00.000Z",)"
        R"("cwd":"/home/dev/app","message":{"role":"assistant","model":"m","content":[)"
        R"({"type":"text","text":"the key is sk-live-9f8e7d"},)"
        R"({"type":"tool_use","id":"t9","name":"Bash","input":{"command":"ls"}}]}})"
        "\n");
    AppendFile(w.File("s1"), w.lines["s1"].back());
    w.Sync();
    const std::string text = "claude-code:a9", call = "claude-code:a9#1";
    REQUIRE(GetEvent(*w.s.db, call)->kind == "tool_call");
    REQUIRE(EventSource(*w.s.db, *w.s.mirrors, call)->raw.find("sk-live-9f8e7d") !=
            std::string::npos);

    auto o = w.Forget(text);
    REQUIRE(o.tombstone);
    CHECK(ErrorOf([&] { EventSource(*w.s.db, *w.s.mirrors, text); }) == Code::kForgotten);
    // The tool call is still visible, and its line (file and number) still
    // said; the line's bytes, which hold the forgotten text, are not.
    auto src = EventSource(*w.s.db, *w.s.mirrors, call);
    REQUIRE(src);
    CHECK(src->withheld);
    CHECK(src->raw.empty());
    CHECK(src->line == 2);
    // For its own text only (show --full), the daemon still parses it.
    CHECK(EventSource(*w.s.db, *w.s.mirrors, call, true)->raw.find("sk-live") != std::string::npos);
    // A line of that session with nothing forgotten is shown.
    CHECK_FALSE(EventSource(*w.s.db, *w.s.mirrors, before)->withheld);

    w.Restore(*o.tombstone);
    src = EventSource(*w.s.db, *w.s.mirrors, call);
    CHECK_FALSE(src->withheld);
    CHECK(src->raw.find("sk-live-9f8e7d") != std::string::npos);
  }
}
