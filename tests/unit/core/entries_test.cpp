// SPDX-License-Identifier: MIT
// Entries (spec: Entries): remember, correct, chains and forks, validity,
// sources (invariant 1), never changed in place (invariant 3).
#include "core/entries/entries.hpp"

#include <doctest/doctest.h>

#include "core/hub/replicate.hpp"
#include "core/util/op_error.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

struct Fixture {
  TestStore s;
  Fixture() {
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0);"
        "INSERT INTO event(id, source, session, ts, role, kind, text, file_id, line) VALUES "
        "('t:1', 't', 't:s', 100, 'user', 'message', 'We drop schema versioning\n  until the FIRST release', 1, 1),"
        "('t:2', 't', 't:s', 200, 'assistant', 'message', 'Project A depends on library B', 1, 2)");
  }
  RememberInput Input(const std::string& text = "Prefers small commits") {
    RememberInput in;
    in.kind = "cognition";
    in.text = text;
    in.confidence = 0.9;
    in.author = "user@box";
    in.sources = {{std::string("t:1"), std::nullopt}};
    return in;
  }
  OpError::Code ErrorOf(const std::function<void()>& fn) {
    try {
      fn();
    } catch (const OpError& e) {
      return e.code();
    }
    FAIL("no OpError");
    return OpError::Code::kConflict;
  }
};

}  // namespace

TEST_SUITE("entries") {
  TEST_CASE("entries: remember writes a version that cites its sources (invariant 1)") {
    Fixture f;
    auto in = f.Input();
    in.sources.push_back({std::string("t:2"), std::string("depends   ON library")});
    in.project = "origin";
    std::string id = Remember(*f.s.db, f.s.clock, "box", in).id;
    CHECK(id.rfind("ent_", 0) == 0);
    CHECK(id.size() == 28);
    auto e = GetEntry(*f.s.db, id, f.s.clock.NowMs());
    REQUIRE(e);
    CHECK(e->root == id);
    CHECK(e->status == "active");
    CHECK(e->origin == "box");
    CHECK(e->created_at == f.s.clock.NowMs());
    REQUIRE(e->sources.size() == 2);
    CHECK(e->sources[1].quote == "depends   ON library");
    CHECK(f.s.db->QueryInt("SELECT count(*) FROM change_log WHERE kind = 'entry'") == 1);
    CHECK(f.s.db->QueryInt("SELECT count(*) FROM entry_fts WHERE entry_fts MATCH '\"small comm\"'") == 1);
  }

  TEST_CASE(
      "entries: a hub applies a push's entries with one segment of entry_fts, not one an entry "
      "(kEntryFtsInsertVersion)") {
    // An INSERT INTO entry opens a statement savepoint (triggers and
    // constraints), at which FTS5 writes out the terms it holds: entries
    // indexed one by one make a segment each, whether by a trigger (before
    // migration 13) or by a statement after each insert.
    auto segments = [](Db& db) {
      return db.QueryInt("SELECT count(DISTINCT segid) FROM entry_fts_idx");
    };
    auto pushed = [](int i) {
      EntryRow e;
      e.id = "ent_" + std::string(20, '0') + std::to_string(1000 + i);
      e.kind = "knowledge";
      e.text = "pushed entry number " + std::to_string(i) + " about meson";
      e.confidence = 0.5;
      e.author = "user@laptop";
      e.root = e.id;
      e.created_at = 1000 + i;
      e.origin = "laptop";
      e.sources = {{std::string("t:1"), std::nullopt}};
      return e;
    };
    Fixture one, hub;
    for (Fixture* f : {&one, &hub})  // no merging: each segment written stays one
      f->s.db->Exec(
          "INSERT INTO entry_fts(entry_fts, rank) VALUES ('automerge', 0);"
          "INSERT INTO entry_fts(entry_fts, rank) VALUES ('crisismerge', 100000)");
    {
      Transaction tx(*one.s.db);
      for (int i = 0; i < 200; ++i) InsertVersion(*one.s.db, pushed(i));
      tx.Commit();
    }
    CHECK(segments(*one.s.db) == 200);
    std::vector<EntryRow> push;
    for (int i = 0; i < 200; ++i) push.push_back(pushed(i));
    CHECK(ApplyPushedEntries(*hub.s.db, "laptop", push).applied == 200);
    CHECK(segments(*hub.s.db) == 1);
    for (Fixture* f : {&one, &hub}) {
      CHECK(f->s.db->QueryInt("SELECT count(*) FROM entry_fts WHERE entry_fts MATCH 'meson'") ==
            200);
      CHECK(f->s.db->QueryInt("SELECT count(*) FROM change_log WHERE kind = 'entry'") == 200);
      // With rank 1, the index is compared with the entries themselves.
      f->s.db->Exec("INSERT INTO entry_fts(entry_fts, rank) VALUES ('integrity-check', 1)");
    }
  }

  TEST_CASE("entries: bad input is refused with the reason") {
    Fixture f;
    using C = OpError::Code;
    auto with = [&](auto change) {
      auto in = f.Input();
      change(in);
      return f.ErrorOf([&] { Remember(*f.s.db, f.s.clock, "box", in); });
    };
    CHECK(with([](RememberInput& in) { in.kind = "fact"; }) == C::kInvalidArgument);
    CHECK(with([](RememberInput& in) { in.text = "  "; }) == C::kInvalidArgument);
    CHECK(with([](RememberInput& in) { in.confidence = 1.5; }) == C::kInvalidArgument);
    CHECK(with([](RememberInput& in) { in.confidence = -1; }) == C::kInvalidArgument);
    CHECK(with([](RememberInput& in) { in.sources.clear(); }) == C::kInvalidArgument);
    CHECK(with([](RememberInput& in) { in.sources = {{std::string("t:9"), std::nullopt}}; }) == C::kNotFound);
    CHECK(with([](RememberInput& in) { in.sources = {{std::string("t:1"), std::string("not there")}}; }) ==
          C::kInvalidArgument);
    CHECK(with([](RememberInput& in) { in.sources = {{std::nullopt, std::string("schema")}}; }) ==
          C::kInvalidArgument);
    CHECK(with([](RememberInput& in) { in.valid_from = 10, in.valid_to = 5; }) == C::kInvalidArgument);
    CHECK(f.s.db->QueryInt("SELECT count(*) FROM entry") == 0);
  }

  TEST_CASE("entries: quotes match whatever their whitespace and case") {
    CHECK(QuoteOccurs("We drop schema versioning\n  until the FIRST release", "versioning until the first"));
    CHECK(QuoteOccurs("Ärger mit ÜBER", "ärger mitüber"));
    CHECK(QuoteOccurs("部署 到生产", "部署到"));
    CHECK_FALSE(QuoteOccurs("abc", "abd"));
    CHECK_FALSE(QuoteOccurs("abc", "  "));
  }

  TEST_CASE("entries: a correction supersedes the current version and is dated after it") {
    Fixture f;
    std::string v1 = Remember(*f.s.db, f.s.clock, "box", f.Input()).id;
    f.s.clock.Tick(-60000);  // the clock went back
    CorrectInput c;
    c.text = "Prefers small, reviewed commits";
    c.author = "user@box";
    c.add_sources = {{std::string("t:2"), std::nullopt}};
    std::string v2 = Correct(*f.s.db, f.s.clock, "box", v1, c);
    auto e2 = GetEntry(*f.s.db, v2, f.s.clock.NowMs());
    auto e1 = GetEntry(*f.s.db, v1, f.s.clock.NowMs());
    CHECK(e2->created_at > e1->created_at);
    CHECK(e2->supersedes == v1);
    CHECK(e2->root == v1);
    CHECK(e2->kind == "cognition");  // carried over
    CHECK(e2->sources.size() == 2);  // carried over, one added
    CHECK(e2->status == "active");
    CHECK(e1->status == "superseded");
    CHECK(e1->superseded_by == v2);
    CHECK_FALSE(e1->concurrent);
    // Only the current version can be corrected.
    CHECK(f.ErrorOf([&] { Correct(*f.s.db, f.s.clock, "box", v1, c); }) == OpError::Code::kConflict);
    CHECK(f.ErrorOf([&] { Correct(*f.s.db, f.s.clock, "box", "ent_nope", c); }) == OpError::Code::kNotFound);
    // A correction that would change nothing writes nothing: no option, the
    // same text, or a source already cited.
    CorrectInput same;
    same.author = "user@box";
    CHECK(f.ErrorOf([&] { Correct(*f.s.db, f.s.clock, "box", v2, same); }) ==
          OpError::Code::kInvalidArgument);
    same.text = c.text;
    same.kind = "cognition";
    same.add_sources = {{std::string("t:2"), std::nullopt}};
    CHECK(f.ErrorOf([&] { Correct(*f.s.db, f.s.clock, "box", v2, same); }) ==
          OpError::Code::kInvalidArgument);
    CHECK(f.s.db->QueryInt("SELECT count(*) FROM entry") == 2);
    same.confidence = 0.5;
    CHECK(GetEntry(*f.s.db, Correct(*f.s.db, f.s.clock, "box", v2, same), 0)->confidence == 0.5);
    // Versions never change in place (invariant 3).
    CHECK_THROWS_WITH(f.s.db->Exec("UPDATE entry SET text = 'x'"), doctest::Contains("invariant 3"));
    CHECK_THROWS_WITH(f.s.db->Exec("DELETE FROM entry"), doctest::Contains("invariant 3"));
    CHECK_THROWS(f.s.db->Exec("DELETE FROM entry_source"));
    CHECK_THROWS(f.s.db->Exec("DELETE FROM change_log"));
  }

  TEST_CASE("entries: a fork from concurrent corrections resolves to the greatest (created_at, id)") {
    Fixture f;
    std::string v1 = Remember(*f.s.db, f.s.clock, "box", f.Input()).id;
    f.s.clock.Tick(1000);
    CorrectInput c;
    c.text = "here";
    c.author = "user@box";
    std::string mine = Correct(*f.s.db, f.s.clock, "box", v1, c);
    // Another store corrected v1 too, a little later: it arrives here.
    std::int64_t later = GetEntry(*f.s.db, mine, 0)->created_at + 5;
    const std::int64_t indexed = LastEntrySeq(*f.s.db);
    f.s.db->Prepare("INSERT INTO entry(id, kind, text, confidence, author, supersedes, root, created_at, origin) "
                    "VALUES ('ent_ffffffffffffffffffffffff', 'cognition', 'there', 0.5, 'user@laptop', ?, ?, ?, 'laptop')")
        .Bind(1, v1).Bind(2, v1).Bind(3, later).Run();
    IndexEntriesAfter(*f.s.db, indexed);
    auto hist = EntryHistory(*f.s.db, v1, f.s.clock.NowMs());
    REQUIRE(hist.size() == 3);
    CHECK(hist[0].id == v1);  // oldest first
    CHECK(hist[2].id == "ent_ffffffffffffffffffffffff");
    CHECK(hist[2].status == "active");
    CHECK(hist[1].id == mine);
    CHECK(hist[1].status == "superseded");
    CHECK(hist[1].concurrent);  // lost to a concurrent correction
    CHECK_FALSE(hist[0].concurrent);
    CHECK(f.ErrorOf([&] { Correct(*f.s.db, f.s.clock, "box", mine, c); }) == OpError::Code::kConflict);
    auto list = ListEntries(*f.s.db, {}, f.s.clock.NowMs());
    REQUIRE(list.size() == 1);
    CHECK(list[0].text == "there");
  }

  TEST_CASE("entries: listings leave out ended and superseded entries unless history is asked") {
    Fixture f;
    auto in = f.Input("was true");
    in.valid_to = f.s.clock.NowMs() + 1000;
    std::string ending = Remember(*f.s.db, f.s.clock, "box", in).id;
    f.s.clock.Tick(10);
    auto k = f.Input("knowledge stays");
    k.kind = "knowledge";
    k.project = "p";
    std::string stays = Remember(*f.s.db, f.s.clock, "box", k).id;
    CHECK(ListEntries(*f.s.db, {}, f.s.clock.NowMs()).size() == 2);
    f.s.clock.Tick(2000);
    auto now = ListEntries(*f.s.db, {}, f.s.clock.NowMs());
    REQUIRE(now.size() == 1);
    CHECK(now[0].id == stays);
    EntryFilter h;
    h.history = true;
    auto all = ListEntries(*f.s.db, h, f.s.clock.NowMs());
    REQUIRE(all.size() == 2);
    CHECK(all[1].id == ending);
    CHECK(all[1].ended);
    CHECK(GetEntry(*f.s.db, ending, f.s.clock.NowMs())->ended);  // get still shows it
    EntryFilter kind;
    kind.kind = "cognition";
    kind.history = true;
    CHECK(ListEntries(*f.s.db, kind, f.s.clock.NowMs()).size() == 1);
    EntryFilter proj;
    proj.project = "p";
    CHECK(ListEntries(*f.s.db, proj, f.s.clock.NowMs()).size() == 1);
  }

  TEST_CASE("entries: an entry without a project takes the first cited event's that has one") {
    Fixture f;
    f.s.db->Exec(
        "INSERT INTO event(id, source, session, ts, role, kind, text, project, file_id, line) "
        "VALUES ('t:3', 't', 't:s', 300, 'user', 'message', 'ship it', 'shop', 1, 3)");
    auto in = f.Input();
    in.sources = {{std::string("t:1"), std::nullopt}, {std::string("t:3"), std::nullopt}};
    auto e = GetEntry(*f.s.db, Remember(*f.s.db, f.s.clock, "box", in).id, f.s.clock.NowMs());
    REQUIRE(e);
    CHECK(e->project == "shop");
    in.text = "Another";
    in.project = "ops";  // given: kept
    e = GetEntry(*f.s.db, Remember(*f.s.db, f.s.clock, "box", in).id, f.s.clock.NowMs());
    CHECK(e->project == "ops");
    in.text = "A third";
    in.project.reset();
    in.sources = {{std::string("t:1"), std::nullopt}};  // no cited event has one: none
    e = GetEntry(*f.s.db, Remember(*f.s.db, f.s.clock, "box", in).id, f.s.clock.NowMs());
    CHECK_FALSE(e->project);
    // The errors name what is missing and what would do.
    in.kind = "";
    try {
      Remember(*f.s.db, f.s.clock, "box", in);
      FAIL("no error");
    } catch (const OpError& err) {
      CHECK(std::string(err.what()) == "an entry needs a kind: memory, knowledge or cognition");
    }
  }

  TEST_CASE("entries: remembering what a current entry says, with the same sources, returns it") {
    Fixture f;
    auto in = f.Input();
    in.project = "origin";
    in.sources.push_back({std::string("t:2"), std::nullopt});
    RememberResult first = Remember(*f.s.db, f.s.clock, "box", in);
    CHECK_FALSE(first.duplicate);
    f.s.clock.Tick(10);
    auto entries = [&] { return f.s.db->QueryInt("SELECT count(*) FROM entry"); };
    SUBCASE("the same sources in another order, one by quote: nothing is written") {
      auto again = in;
      again.sources = {{std::string("t:2"), std::string("library B")},
                       {std::string("t:1"), std::nullopt}};
      again.confidence = 0.4;  // confidence, author and validity are not compared
      again.author = "agent@box";
      RememberResult r = Remember(*f.s.db, f.s.clock, "box", again);
      CHECK(r.duplicate);
      CHECK(r.id == first.id);
      CHECK(entries() == 1);
      CHECK(f.s.db->QueryInt("SELECT count(*) FROM change_log") == 1);
    }
    SUBCASE("a difference in text, kind, project or sources writes a new entry") {
      auto text = in;
      text.text += ".";
      auto kind = in;
      kind.kind = "memory";
      auto project = in;
      project.project.reset();
      auto fewer = in;
      fewer.sources.pop_back();
      for (const RememberInput& other : {text, kind, project, fewer}) {
        RememberResult r = Remember(*f.s.db, f.s.clock, "box", other);
        CHECK_FALSE(r.duplicate);
        CHECK(r.id != first.id);
      }
      CHECK(entries() == 5);
    }
    SUBCASE("an entry that is no longer current is not returned") {
      SUBCASE("superseded") {
        CorrectInput c;
        c.confidence = 0.5;  // same text: the correction is current, the first is not
        c.author = "user@box";
        std::string v2 = Correct(*f.s.db, f.s.clock, "box", first.id, c);
        f.s.clock.Tick(10);
        RememberResult r = Remember(*f.s.db, f.s.clock, "box", in);
        CHECK(r.duplicate);
        CHECK(r.id == v2);
        CHECK(entries() == 2);
      }
      SUBCASE("ended") {
        auto ending = in;
        ending.text = "ends";
        ending.valid_to = f.s.clock.NowMs() + 5;
        std::string id = Remember(*f.s.db, f.s.clock, "box", ending).id;
        CHECK(Remember(*f.s.db, f.s.clock, "box", ending).id == id);  // not ended yet
        f.s.clock.Tick(5);
        RememberResult r = Remember(*f.s.db, f.s.clock, "box", ending);
        CHECK_FALSE(r.duplicate);
        CHECK(r.id != id);
      }
      SUBCASE("forgotten") {
        f.s.db->Exec("INSERT INTO forgotten_entry(entry_id, tombstone) VALUES ('" + first.id +
                     "', 'tmb_x')");
        RememberResult r = Remember(*f.s.db, f.s.clock, "box", in);
        CHECK_FALSE(r.duplicate);
        CHECK(r.id != first.id);
      }
    }
  }

  TEST_CASE("entries: the store keeps the name it had when it first wrote an entry") {
    Fixture f;
    Remember(*f.s.db, f.s.clock, "first-name", f.Input());
    std::string id = Remember(*f.s.db, f.s.clock, "renamed", f.Input("another")).id;
    CHECK(GetEntry(*f.s.db, id, 0)->origin == "first-name");
  }

  TEST_CASE("entries: a quote alone cites the most recent message holding it, else a tool result") {
    TestStore s;
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0);"
        "INSERT INTO event(id, source, ts, role, kind, text, file_id, line) VALUES "
        "('t:new-call', 't', 900, 'assistant', 'tool_call', 'remember: we use WAL mode', 1, 1),"
        "('t:late', 't', 500, 'user', 'message', 'so: We  use\nWAL mode, fine', 1, 2),"
        "('t:early', 't', 100, 'user', 'message', 'we use wal mode', 1, 3),"
        "('t:arrived-last', 't', 300, 'user', 'message', 'WE USE WAL MODE', 1, 4),"
        "('t:result', 't', 800, 'tool', 'tool_result', 'output: zstd level 3', 1, 5)");
    std::vector<EntrySource> src = {{std::nullopt, std::string("we use wal mode")},
                                    {std::nullopt, std::string("ZSTD level")},
                                    {std::string("t:early"), std::nullopt}};
    ResolveQuotes(*s.db, src);
    CHECK(src[0].event_id == "t:late");    // most recent by timestamp; never the tool call
    CHECK(src[1].event_id == "t:result");  // no message holds it: a tool result
    CHECK(src[2].event_id == "t:early");   // an id given stays
    std::vector<EntrySource> none = {{std::nullopt, std::string("never said")}};
    CHECK_THROWS_AS(ResolveQuotes(*s.db, none), OpError);
    RememberInput in;
    in.kind = "knowledge";
    in.text = "WAL";
    in.confidence = 1;
    in.author = "user@t";
    in.sources = src;
    std::string id = Remember(*s.db, s.clock, "t", in).id;
    CHECK(GetEntry(*s.db, id, 0)->sources.size() == 3);  // t:late, t:result, t:early
  }
}
