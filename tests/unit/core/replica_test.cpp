// SPDX-License-Identifier: MIT
// Forgets and restores between stores (core/forget/replica.hpp; spec:
// Forgetting, "Across stores", and Replication steps 2 and 3; invariant 2):
// a forget made on one store hides by the rules what another holds, covers
// what its sender listed, and converges whatever the order of arrival: a
// restore before its forget, either one twice, a forget before the event
// it targets.  A hub's feed leaves out a device's own tombstones but sends
// their coverage again when it changes.  An erasure replicates beside them
// and wins over every restore (issue 18, point 3).
#include "core/forget/replica.hpp"

#include <doctest/doctest.h>

#include "core/erase/erase.hpp"
#include "core/hub/replicate.hpp"
#include "core/store/visible.hpp"
#include "tests/unit/core/forget_world.hpp"

using namespace origin;
using namespace origin::test;
using namespace origin::test::forget_world;

namespace {

// Two stores that ingest the same session (so the same event ids): a
// device, "box", and a hub.
struct Pair {
  World dev, hub;
  std::string alpha, beta;
  Pair() {
    for (World* w : {&dev, &hub}) {
      alpha = w->Say("s1", "alpha line");
      beta = w->Say("s1", "beta line");
      w->Sync();
    }
  }
  // A line of `session` both stores ingest; its event's id.
  std::string Say(const std::string& session, const std::string& text) {
    std::string id;
    for (World* w : {&dev, &hub}) {
      id = w->Say(session, text);
      w->Sync();
    }
    return id;
  }
  // An entry the device wrote, pushed to the hub.
  std::string Entry(const std::vector<std::string>& events, const std::string& text) {
    const std::string id = dev.Remember(events, text);
    std::optional<EntryRow> e = LoadEntryToSend(*dev.s.db, id);
    REQUIRE(e);
    REQUIRE(!ApplyPushedEntries(*hub.s.db, "box", {*e}).pending);
    return id;
  }
};

ReplicaTombstone Load(World& w, const std::string& id) {
  std::optional<ReplicaTombstone> t = LoadTombstone(*w.s.db, id);
  REQUIRE(t);
  return *t;
}

std::int64_t Apply(World& w, const std::string& store, const std::vector<ReplicaTombstone>& list,
                   ListedBy from) {
  return ApplyTombstones(*w.s.db, store, list, from);
}

// The device "box" erases `forget`, at its clock moved on by `later` (by
// default past 2026-01-05, when the lines of these tests were said: an
// erasure takes, on the stores it reaches, what was said before it).
EraseOutcome EraseOn(World& w, const std::string& forget, std::int64_t later = 5 * 86'400'000) {
  w.s.clock.Tick(later);
  EraseInput in;
  in.forget = forget;
  in.reason = "a key";
  in.author = "user@box";
  in.origin = "box";
  return Erase(*w.s.db, *w.s.mirrors, w.s.clock, in, nullptr);
}

// A tombstone made on store `origin` (a restore when `target` is a
// forget's id), as another store sends it.
ReplicaTombstone MadeOn(const std::string& origin, const std::string& id,
                        const std::string& target) {
  ReplicaTombstone t;
  t.id = id;
  t.target = target;
  t.reason = "fine";
  t.created_at = 1767225800000;
  t.origin = origin;
  return t;
}

std::vector<std::string> FeedIds(World& w, std::int64_t after, const std::string& device) {
  std::vector<std::string> ids;
  for (const ReplicaTombstone& t : TombstonesAfter(*w.s.db, after, device, 500).tombstones)
    ids.push_back(t.id);
  return ids;
}

}  // namespace

TEST_SUITE("forget") {
  TEST_CASE("forget across stores: a device's forget hides on its hub what the rules give, twice "
            "is once, another body under its id is refused, and its restore brings all back "
            "(invariant 2)") {
    Pair p;
    const std::string entry = p.Entry({p.alpha}, "alpha matters");
    const std::string forget = *p.dev.Forget(p.alpha).tombstone;
    ReplicaTombstone t = Load(p.dev, forget);
    CHECK(t.events == std::vector<std::string>{p.alpha});
    CHECK(t.entries == std::vector<std::string>{entry});
    CHECK(t.author == std::optional<std::string>("user@box"));

    for (int twice = 0; twice < 2; ++twice) {
      CHECK(Apply(p.hub, "hub", {t}, ListedBy::kDevice) == 1);
      CHECK(EventHidden(*p.hub.s.db, p.alpha));
      CHECK(EntryHidden(*p.hub.s.db, entry));  // rule 2
      CHECK_FALSE(EventHidden(*p.hub.s.db, p.beta));
      CHECK(p.hub.Count("SELECT count(*) FROM tombstone") == 1);
    }
    CHECK(p.hub.Count("SELECT count(*) FROM tombstone_meta WHERE author = 'user@box'") == 1);
    ReplicaTombstone other = t;
    other.reason = "another reason";
    CHECK(ErrorOf([&] { Apply(p.hub, "hub", {other}, ListedBy::kDevice); }) == Code::kConflict);
    ReplicaTombstone bad = t;
    bad.id = "tmb_../x";
    CHECK(ErrorOf([&] { Apply(p.hub, "hub", {bad}, ListedBy::kDevice); }) == Code::kInvalidArgument);

    const std::string restore = *p.dev.Restore(forget).tombstone;
    CHECK(Apply(p.hub, "hub", {Load(p.dev, restore)}, ListedBy::kDevice) == 1);
    CHECK_FALSE(EventHidden(*p.hub.s.db, p.alpha));
    CHECK_FALSE(EntryHidden(*p.hub.s.db, entry));
    // A restore lists nothing, and what it restores must be a forget.
    ReplicaTombstone listing = Load(p.dev, restore);
    listing.events = {p.alpha};
    CHECK(ErrorOf([&] { Apply(p.hub, "hub", {listing}, ListedBy::kDevice); }) ==
          Code::kInvalidArgument);
  }

  TEST_CASE("forget across stores: a restore that reaches the hub before its forget is kept and "
            "logged again after it; a device skips it until then (invariant 2)") {
    Pair p;
    const std::string forget = *p.dev.Forget(p.alpha).tombstone;
    const std::string restore = *p.dev.Restore(forget).tombstone;
    const ReplicaTombstone f = Load(p.dev, forget), r = Load(p.dev, restore);

    // The hub: the restore first, then its forget: nothing hidden.
    Apply(p.hub, "hub", {r}, ListedBy::kDevice);
    CHECK(p.hub.Count("SELECT count(*) FROM tombstone") == 1);
    Apply(p.hub, "hub", {f}, ListedBy::kDevice);
    CHECK_FALSE(EventHidden(*p.hub.s.db, p.alpha));
    // Another device reads the forget, then the restore logged again after it.
    const std::vector<std::string> feed = FeedIds(p.hub, 0, "desk");
    REQUIRE(feed.size() == 2);
    CHECK(feed[0] == forget);
    CHECK(feed[1] == restore);
    // Its creator reads neither: it has them.
    CHECK(FeedIds(p.hub, 0, "box").empty());

    // A device given the restore first keeps nothing, then both.
    World desk;
    desk.Say("s1", "alpha line");
    desk.Sync();
    Apply(desk, "desk", {r}, ListedBy::kHub);
    CHECK(desk.Count("SELECT count(*) FROM tombstone") == 0);
    Apply(desk, "desk", {f, r}, ListedBy::kHub);
    CHECK(desk.Count("SELECT count(*) FROM tombstone") == 2);
    CHECK_FALSE(EventHidden(*desk.s.db, p.alpha));
    // The other order, and twice: the same.
    World late;
    late.Say("s1", "alpha line");
    late.Sync();
    Apply(late, "late", {f}, ListedBy::kHub);
    CHECK(EventHidden(*late.s.db, p.alpha));
    Apply(late, "late", {r, f, r}, ListedBy::kHub);
    CHECK_FALSE(EventHidden(*late.s.db, p.alpha));
  }

  TEST_CASE("forget across stores: a forget of an event a store does not hold yet hides it on "
            "arrival (invariant 2)") {
    World dev, hub;
    const std::string alpha = dev.Say("s1", "alpha line");
    dev.Say("s1", "beta line");
    dev.Sync();
    const ReplicaTombstone f = Load(dev, *dev.Forget(alpha).tombstone);
    Apply(hub, "hub", {f}, ListedBy::kDevice);
    hub.Say("s1", "alpha line");
    const std::string beta = hub.Say("s1", "beta line");
    hub.Sync();
    CHECK(EventHidden(*hub.s.db, alpha));
    CHECK_FALSE(EventHidden(*hub.s.db, beta));
    CHECK(hub.Found("alpha").empty());
  }

  TEST_CASE("forget across stores: a forget's coverage that grows on the hub is logged again, "
            "for every device its creator included, and a hub's new list replaces the last one "
            "on a device (invariant 2)") {
    Pair p;
    const std::string forget = *p.dev.Forget(p.alpha).tombstone;
    Apply(p.hub, "hub", {Load(p.dev, forget)}, ListedBy::kDevice);
    const std::int64_t seen = p.hub.Count("SELECT max(seq) FROM change_log");
    CHECK(FeedIds(p.hub, 0, "box").empty());
    // Another device's entry citing the forgotten event arrives: hidden on
    // arrival, so the forget covers more, and is logged again.
    EntryRow e;
    e.id = "ent_0123456789abcdef01234567";
    e.root = e.id;
    e.kind = "knowledge";
    e.text = "desk's note on alpha";
    e.confidence = 0.5;
    e.author = "user@desk";
    e.origin = "desk";
    e.created_at = 1767225700000;
    e.sources = {{p.alpha, std::nullopt}};
    REQUIRE(!ApplyPushedEntries(*p.hub.s.db, "desk", {e}).pending);
    CHECK(EntryHidden(*p.hub.s.db, e.id));
    const TombstoneFeed feed = TombstonesAfter(*p.hub.s.db, seen, "box", 500);
    REQUIRE(feed.tombstones.size() == 1);
    CHECK(feed.tombstones[0].id == forget);
    CHECK(feed.tombstones[0].entries == std::vector<std::string>{e.id});
    CHECK_FALSE(feed.more);

    // On a device holding that entry (here, from its own push), the hub's
    // list hides it; a later list without it brings it back.
    World desk;
    desk.Say("s1", "alpha line");
    const std::string delta = desk.Say("s1", "delta line");
    desk.Sync();
    EntryRow mine = e;
    mine.sources = {{delta, std::nullopt}};
    {
      Transaction tx(*desk.s.db);
      InsertVersion(*desk.s.db, mine);
      tx.Commit();
    }
    ReplicaTombstone listed = feed.tombstones[0];
    Apply(desk, "desk", {listed}, ListedBy::kHub);
    CHECK(EntryHidden(*desk.s.db, e.id));
    CHECK(EventHidden(*desk.s.db, p.alpha));
    listed.entries.clear();
    Apply(desk, "desk", {listed}, ListedBy::kHub);
    CHECK_FALSE(EntryHidden(*desk.s.db, e.id));
    CHECK(EventHidden(*desk.s.db, p.alpha));  // by the rules, still
  }

  TEST_CASE("forget across stores: a device's new report of its forget replaces the last one on "
            "the hub, so a chain hidden there by rule 3 comes back on the hub once a restore gives "
            "it a visible source again (invariant 2; found by the convergence test)") {
    Pair p;
    const std::string gamma = p.Say("s2", "gamma line");
    const std::string entry = p.Entry({p.alpha, gamma}, "alpha and gamma");
    // Both sessions forgotten on the device: their events, and the entry by
    // rule 3 once neither of its sources is visible, covered by both.
    const std::string f1 = *p.dev.Forget("claude-code:s1").tombstone;
    CHECK_FALSE(EntryHidden(*p.dev.s.db, entry));
    const std::string f2 = *p.dev.Forget("claude-code:s2").tombstone;
    CHECK(EntryHidden(*p.dev.s.db, entry));
    const ReplicaTombstone f1_then = Load(p.dev, f1);
    CHECK(f1_then.entries == std::vector<std::string>{entry});
    Apply(p.hub, "hub", {f1_then, Load(p.dev, f2)}, ListedBy::kDevice);
    CHECK(EntryHidden(*p.hub.s.db, entry));
    // The second restored on the device: the entry has a visible source
    // again, and the first forget covers less there, which the device
    // reports (its forget logged again after the restore).
    const std::string r2 = *p.dev.Restore(f2).tombstone;
    CHECK_FALSE(EntryHidden(*p.dev.s.db, entry));
    const ReplicaTombstone f1_now = Load(p.dev, f1);
    CHECK(f1_now.entries.empty());
    Apply(p.hub, "hub", {Load(p.dev, r2), f1_now}, ListedBy::kDevice);
    CHECK_FALSE(EntryHidden(*p.hub.s.db, entry));
    CHECK(EventHidden(*p.hub.s.db, p.alpha));
    CHECK_FALSE(EventHidden(*p.hub.s.db, gamma));
  }

  TEST_CASE("forget across stores: a device's report of its forget leaves out what its hub "
            "listed, so a chain hidden on the device's word comes back on both once a restore "
            "gives it a visible source again (invariant 2; found by the convergence test)") {
    Pair p;
    const std::string gamma = p.Say("s2", "gamma line");
    const std::string entry = p.Entry({p.alpha, gamma}, "alpha and gamma");
    const std::string f1 = *p.dev.Forget("claude-code:s1").tombstone;
    const std::string f2 = *p.dev.Forget("claude-code:s2").tombstone;
    CHECK(EntryHidden(*p.dev.s.db, entry));
    // The hub takes the device's reports, and lists them back.
    Apply(p.hub, "hub", {Load(p.dev, f1), Load(p.dev, f2)}, ListedBy::kDevice);
    CHECK(EntryHidden(*p.hub.s.db, entry));
    Apply(p.dev, "box", {Load(p.hub, f1), Load(p.hub, f2)}, ListedBy::kHub);
    // The second restored on the device: by the rules the entry has a
    // visible source again; the hub's list of the first still hides it
    // here, but the device's own report of the first no longer holds it,
    // and the first is logged again to be sent.
    const std::int64_t before = p.dev.s.db->QueryInt("SELECT coalesce(max(seq), 0) FROM change_log");
    const std::string r2 = *p.dev.Restore(f2).tombstone;
    CHECK(EntryHidden(*p.dev.s.db, entry));
    const ReplicaTombstone f1_now = Load(p.dev, f1);
    CHECK(f1_now.entries.empty());
    CHECK(p.dev.s.db->QueryInt("SELECT count(*) FROM change_log WHERE kind = 'tombstone' AND id = '" +
                               f1 + "' AND seq > " + std::to_string(before)) == 1);
    // The hub: the restore and the new report; its own list of the first
    // then holds the entry no longer, and the device follows it.
    Apply(p.hub, "hub", {Load(p.dev, r2), f1_now}, ListedBy::kDevice);
    CHECK_FALSE(EntryHidden(*p.hub.s.db, entry));
    const ReplicaTombstone listed = Load(p.hub, f1);
    CHECK(listed.entries.empty());
    Apply(p.dev, "box", {listed}, ListedBy::kHub);
    CHECK_FALSE(EntryHidden(*p.dev.s.db, entry));
    CHECK(EventHidden(*p.dev.s.db, p.alpha));
    CHECK_FALSE(EventHidden(*p.dev.s.db, gamma));
  }

  TEST_CASE(
      "forget across stores: a new version of a chain that a device reported hidden by "
      "rule 3 does not make that forget hide the events the chain cites on the hub "
      "(invariant 2; found by the convergence test)") {
    Pair p;
    const std::string gamma = p.Say("s2", "gamma line");
    const std::string entry = p.Entry({p.alpha}, "alpha only");
    // Session s1 forgotten on the device: alpha, and the entry by rule 3,
    // which the device reports with the forget.
    const std::string f1 = *p.dev.Forget("claude-code:s1").tombstone;
    CHECK(EntryHidden(*p.dev.s.db, entry));
    const ReplicaTombstone report = Load(p.dev, f1);
    CHECK(report.entries == std::vector<std::string>{entry});
    // Restored there, and the entry corrected with gamma as a source.
    const std::string r1 = *p.dev.Restore(f1).tombstone;
    const std::string v2 = p.dev.Correct(entry, {gamma});
    CHECK_FALSE(EntryHidden(*p.dev.s.db, v2));
    // The hub has the forget and its report, not the restore yet, when the
    // new version arrives: alpha stays hidden (session s1 is forgotten
    // there), gamma was forgotten by nobody and stays shown.
    Apply(p.hub, "hub", {report}, ListedBy::kDevice);
    CHECK(EntryHidden(*p.hub.s.db, entry));
    std::optional<EntryRow> row = LoadEntryToSend(*p.dev.s.db, v2);
    REQUIRE(row);
    REQUIRE(!ApplyPushedEntries(*p.hub.s.db, "box", {*row}).pending);
    CHECK(EventHidden(*p.hub.s.db, p.alpha));
    CHECK_FALSE(EventHidden(*p.hub.s.db, gamma));
    // The restore and the new report: everything shown on the hub.
    Apply(p.hub, "hub", {Load(p.dev, r1), Load(p.dev, f1)}, ListedBy::kDevice);
    CHECK_FALSE(EventHidden(*p.hub.s.db, p.alpha));
    CHECK_FALSE(EventHidden(*p.hub.s.db, gamma));
    CHECK_FALSE(EntryHidden(*p.hub.s.db, v2));
  }

  TEST_CASE(
      "erasure across stores: received, it hides again what a restore made elsewhere "
      "brought back, twice is once, another body is refused; run, it erases the text and "
      "the mirror line there; the feed sends it to the other devices (invariants 2 and 3)") {
    Pair p;
    const std::string entry = p.Entry({p.alpha}, "alpha matters");
    const std::string forget = *p.dev.Forget(p.alpha).tombstone;
    Apply(p.hub, "hub", {Load(p.dev, forget)}, ListedBy::kDevice);
    CHECK(EventHidden(*p.hub.s.db, p.alpha));
    // Another device restores it, and the hub has that first.
    ReplicaTombstone restore = MadeOn("desk", "tmb_00112233445566778899aabb", forget);
    Apply(p.hub, "hub", {restore}, ListedBy::kDevice);
    CHECK_FALSE(EventHidden(*p.hub.s.db, p.alpha));

    // The device, which has not heard of the restore, erases the forget:
    // a change of its own to send, once done.
    const EraseOutcome mine = EraseOn(p.dev, forget);
    const std::vector<OwnChange> own = OwnChangesAfter(*p.dev.s.db, "box", 0, 100);
    REQUIRE(!own.empty());
    CHECK(own.back().kind == OwnChange::Kind::kErasure);
    CHECK(own.back().id == *mine.erasure);
    const std::optional<ReplicaErasure> e = LoadErasure(*p.dev.s.db, *mine.erasure);
    REQUIRE(e);
    CHECK(e->forget == forget);
    CHECK(e->origin == "box");
    CHECK(e->author == "user@box");

    const std::string alpha_text =
        "SELECT count(*) FROM event WHERE text <> '' AND id = '" + p.alpha + "'";
    for (int twice = 0; twice < 2; ++twice) {
      CHECK(ApplyTombstones(*p.hub.s.db, "hub", {}, ListedBy::kDevice, {*e}) == 1);
      // In effect again at once; erased only when it runs.
      CHECK(EventHidden(*p.hub.s.db, p.alpha));
      CHECK(EntryHidden(*p.hub.s.db, entry));
      CHECK(p.hub.Count(alpha_text) == 1);
      CHECK(p.hub.Count("SELECT count(*) FROM erasure") == 1);
    }
    ReplicaErasure other = *e;
    other.reason = "another reason";
    CHECK(ErrorOf([&] { ApplyTombstones(*p.hub.s.db, "hub", {}, ListedBy::kDevice, {other}); }) ==
          Code::kConflict);
    ReplicaErasure bad = *e;
    bad.id = "ers_../x";
    CHECK(ErrorOf([&] { ApplyTombstones(*p.hub.s.db, "hub", {}, ListedBy::kDevice, {bad}); }) ==
          Code::kInvalidArgument);
    // A restore arriving after it changes nothing.
    restore.id = "tmb_ffeeddccbbaa998877665544";
    Apply(p.hub, "hub", {restore}, ListedBy::kDevice);
    CHECK(EventHidden(*p.hub.s.db, p.alpha));

    // The feed sends it to another device once it is done here, never to
    // the device that made it.
    CHECK(TombstonesAfter(*p.hub.s.db, 0, "desk", 500).erasures.empty());
    EraseInput how;
    how.origin = "hub";
    const std::vector<EraseOutcome> ran =
        RunErasures(*p.hub.s.db, *p.hub.s.mirrors, p.hub.s.clock, how, nullptr).done;
    REQUIRE(ran.size() == 1);
    CHECK(*ran[0].erasure == e->id);
    CHECK(ran[0].events == std::vector<std::string>{p.alpha});
    CHECK(ran[0].entries == std::vector<std::string>{entry});
    CHECK(p.hub.Count(alpha_text) == 0);
    const std::int64_t file = p.hub.Count("SELECT file_id FROM event WHERE id = '" + p.alpha + "'");
    const std::string content = p.hub.s.mirrors->ReadContent(*p.hub.s.db, file);
    CHECK(content.find("alpha line") == std::string::npos);
    CHECK(content.find("beta line") != std::string::npos);
    CHECK(content == p.dev.s.mirrors->ReadContent(*p.dev.s.db, file));  // the same filler
    CHECK(RunErasures(*p.hub.s.db, *p.hub.s.mirrors, p.hub.s.clock, how, nullptr).done.empty());
    const TombstoneFeed feed = TombstonesAfter(*p.hub.s.db, 0, "desk", 500);
    REQUIRE(feed.erasures.size() == 1);
    CHECK(feed.erasures[0].id == e->id);
    CHECK(TombstonesAfter(*p.hub.s.db, 0, "box", 500).erasures.empty());
    CHECK(ErrorOf([&] { p.hub.Restore(forget); }) == Code::kConflict);
  }

  TEST_CASE(
      "erasure across stores: one that reaches a device before its forget waits for it, "
      "then erases what the forget covers there (invariants 2 and 3)") {
    Pair p;
    const std::string forget = *p.dev.Forget(p.beta).tombstone;
    const EraseOutcome mine = EraseOn(p.dev, forget);
    const std::optional<ReplicaErasure> e = LoadErasure(*p.dev.s.db, *mine.erasure);
    REQUIRE(e);
    EraseInput how;
    how.origin = "desk";
    ApplyTombstones(*p.hub.s.db, "desk", {}, ListedBy::kHub, {*e});
    CHECK(RunErasures(*p.hub.s.db, *p.hub.s.mirrors, p.hub.s.clock, how, nullptr).done.empty());
    CHECK_FALSE(EventHidden(*p.hub.s.db, p.beta));
    Apply(p.hub, "desk", {Load(p.dev, forget)}, ListedBy::kHub);
    CHECK(EventHidden(*p.hub.s.db, p.beta));
    REQUIRE(RunErasures(*p.hub.s.db, *p.hub.s.mirrors, p.hub.s.clock, how, nullptr).done.size() ==
            1);
    CHECK(p.hub.Count("SELECT count(*) FROM event WHERE text <> '' AND id = '" + p.beta + "'") ==
          0);
    CHECK_FALSE(EventHidden(*p.hub.s.db, p.alpha));
  }

  TEST_CASE(
      "erasure: what an erased forget comes to cover later is erased too, under the same "
      "erasure: a line arriving in a forgotten session, a version a device pushes again "
      "with its text (issue 18, point 3)") {
    Pair p;
    const std::string entry = p.Entry({p.alpha}, "alpha is sk-live-0123456789");
    const std::string forget = *p.dev.Forget("claude-code:s1").tombstone;
    const EraseOutcome mine = EraseOn(p.dev, forget);
    const std::string late = p.dev.Say("s1", "gamma line");
    p.dev.Sync();
    CHECK(EventHidden(*p.dev.s.db, late));  // hidden on arrival, its text still there
    const std::string late_text =
        "SELECT count(*) FROM event WHERE text <> '' AND id = '" + late + "'";
    CHECK(p.dev.Count(late_text) == 1);
    EraseInput how;
    const ErasureRuns runs =
        RunErasures(*p.dev.s.db, *p.dev.s.mirrors, p.dev.s.clock, how, nullptr);
    REQUIRE(runs.done.size() == 1);
    CHECK(runs.errors.empty());
    CHECK(*runs.done[0].erasure == *mine.erasure);
    CHECK(runs.done[0].events == std::vector<std::string>{late});
    CHECK(p.dev.Count(late_text) == 0);
    const std::int64_t file = p.dev.Count("SELECT file_id FROM event WHERE id = '" + late + "'");
    CHECK(p.dev.s.mirrors->ReadContent(*p.dev.s.db, file).find("gamma") == std::string::npos);
    CHECK(p.dev.Count("SELECT count(*) FROM erasure WHERE done_at IS NOT NULL AND events = 3") ==
          1);
    CHECK(p.dev.Count("SELECT count(*) FROM change_log WHERE kind = 'erasure'") == 1);  // once
    CHECK(RunErasures(*p.dev.s.db, *p.dev.s.mirrors, p.dev.s.clock, how, nullptr).done.empty());

    // What a forgotten session goes on with after the erasure was made is
    // hidden, not erased: an erasure takes what was said before it (here
    // made at a clock thirty days back, before the lines' date).
    p.dev.Say("s2", "delta line");
    p.dev.Sync();
    EraseOn(p.dev, *p.dev.Forget("claude-code:s2").tombstone, -30LL * 86'400'000);
    const std::string after = p.dev.Say("s2", "epsilon line");
    p.dev.Sync();
    CHECK(EventHidden(*p.dev.s.db, after));
    CHECK(RunErasures(*p.dev.s.db, *p.dev.s.mirrors, p.dev.s.clock, how, nullptr).done.empty());
    CHECK(p.dev.Count("SELECT count(*) FROM event WHERE text <> '' AND id = '" + after + "'") == 1);

    // The entry, erased on the device, goes between stores without its
    // text, naming its erasure; a store that erased it takes it again
    // with or without its text as the same version.
    std::optional<EntryRow> sent = LoadEntryToSend(*p.dev.s.db, entry);
    REQUIRE(sent);
    CHECK(sent->erased == mine.erasure);
    CHECK(sent->text.empty());
    World fresh;  // a store that never had it: kept without its text, once the erasure is here
    fresh.Say("s1", "alpha line");
    fresh.Sync();
    const PushedEntries waits = ApplyPushedEntries(*fresh.s.db, "box", {*sent});
    CHECK(waits.applied == 0);
    REQUIRE(waits.pending);
    CHECK(waits.pending->missing == std::vector<std::string>{*mine.erasure});
    ApplyTombstones(*fresh.s.db, "fresh", {Load(p.dev, forget)}, ListedBy::kHub,
                    {*LoadErasure(*p.dev.s.db, *mine.erasure)});
    REQUIRE(ApplyPushedEntries(*fresh.s.db, "box", {*sent}).applied == 1);
    CHECK(fresh.Count("SELECT count(*) FROM erased_entry") == 1);  // its forget covers it here
    CHECK(fresh.Count("SELECT count(*) FROM entry WHERE text = '' AND id = '" + entry + "'") == 1);
    EntryRow with_text = *sent;
    with_text.erased.reset();
    with_text.text = "alpha is sk-live-0123456789";
    CHECK(ApplyPushedEntries(*fresh.s.db, "box", {with_text}).applied == 1);  // not a conflict
    CHECK(fresh.Count("SELECT count(*) FROM entry WHERE text <> ''") == 0);
    EntryRow wrong = *sent;
    wrong.text = "some text";
    CHECK(ErrorOf([&] { ApplyPushedEntries(*fresh.s.db, "box", {wrong}); }) ==
          Code::kInvalidArgument);
  }

  TEST_CASE(
      "erasure: a store that took a restore of an erased forget before erasures won over "
      "restores hides what the forget covers again at the start (HideErasedAgain)") {
    Pair p;
    const std::string forget = *p.dev.Forget(p.alpha).tombstone;
    p.dev.Restore(forget);
    CHECK_FALSE(EventHidden(*p.dev.s.db, p.alpha));
    // As such a store holds it: the erasure recorded beside the restore.
    p.dev.s.db->Exec(
        "INSERT INTO erasure(id, forget, reason, author, created_at, done_at, lines, "
        "events, entries, origin) VALUES ('ers_0', '" +
        forget + "', 'a key', 'user@box', 1, 2, 0, 0, 0, 'box')");
    HideErasedAgain(*p.dev.s.db, "box");
    CHECK(EventHidden(*p.dev.s.db, p.alpha));
    CHECK_FALSE(EventHidden(*p.dev.s.db, p.beta));
  }

  TEST_CASE(
      "erasure across stores: a forget an erasure brings back into effect after a restore "
      "covers what arrived while it was out of effect (a line of its session) (invariant 2)") {
    Pair p;
    const std::string forget = *p.dev.Forget("claude-code:s1").tombstone;
    Apply(p.hub, "hub", {Load(p.dev, forget)}, ListedBy::kDevice);
    ReplicaTombstone restore = MadeOn("desk", "tmb_0a1b2c3d4e5f60718293a4b5", forget);
    Apply(p.hub, "hub", {restore}, ListedBy::kDevice);
    const std::string late = p.hub.Say("s1", "gamma line");  // while it is out of effect
    p.hub.Sync();
    CHECK_FALSE(EventHidden(*p.hub.s.db, late));
    const EraseOutcome mine = EraseOn(p.dev, forget);
    ApplyTombstones(*p.hub.s.db, "hub", {}, ListedBy::kDevice,
                    {*LoadErasure(*p.dev.s.db, *mine.erasure)});
    CHECK(EventHidden(*p.hub.s.db, late));
    CHECK(EventHidden(*p.hub.s.db, p.alpha));
  }
}

namespace {

// Pushes what the hub does not hold yet of the device's session `session`,
// as the device's sync does (a mirror under the device's name, "box").
void PushLines(World& dev, World& hub, const std::string& session) {
  const std::string key = "@box:projects/-home-dev-app/" + session + ".jsonl";
  const std::int64_t held =
      hub.Count("SELECT coalesce(max(bytes_ingested), 0) FROM raw_file WHERE key = '" + key + "'");
  std::string data;
  for (const std::string& line : dev.lines[session]) data += line;
  RemoteChunk c;
  c.device = "box";
  c.path = dev.File(session);
  c.rel_path = key.substr(key.find(':') + 1);
  c.offset = held;
  c.data = data.substr(static_cast<std::size_t>(held));
  hub.s.clock.Tick(1000);
  REQUIRE(hub.s.ingester->IngestRemote(hub.adapter, c).appended);
}

}  // namespace

TEST_SUITE("forget") {
  TEST_CASE(
      "forget across stores: what a forget made elsewhere covers on a device through a chain "
      "the device hid before sending it reaches the hub as a report of the device's own lines "
      "and entries, added to the forget's direct coverage there, a line to come included, and "
      "a restore brings all back (invariant 2)") {
    World dev, hub;
    const std::string alpha = dev.Say("s1", "alpha line");
    const std::string beta = dev.Say("s1", "beta line");
    dev.Sync();
    PushLines(dev, hub, "s1");
    hub.next = 100;  // the hub's own line, not the device's
    const std::string own = hub.Say("s2", "the hub's own line");
    hub.Sync();
    const std::string forget = *origin::Forget(*hub.s.db, hub.s.clock, "hub",
                                               {alpha, "it was private", "user@hub", "cli", false})
                                    .tombstone;
    // Said on the device before it heard of the forget, and never sent:
    // hidden there once the forget arrives, with their other sources (rule
    // 2), one of them a line the hub does not hold yet.
    const std::string entry = dev.Remember({alpha, beta}, "alpha and beta");
    const std::string gamma = dev.Say("s1", "gamma line");
    dev.Sync();
    const std::string later = dev.Remember({alpha, gamma}, "alpha and gamma");
    Apply(dev, "box", {Load(hub, forget)}, ListedBy::kHub);
    CHECK(EntryHidden(*dev.s.db, entry));
    CHECK(EventHidden(*dev.s.db, beta));
    CHECK(EventHidden(*dev.s.db, gamma));
    CHECK_FALSE(EventHidden(*hub.s.db, beta));

    // What the device sends: the report, not the hidden entries.
    std::vector<OwnChange> changes = OwnChangesAfter(*dev.s.db, "box", 0, 100);
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].kind == OwnChange::Kind::kReport);
    CHECK(changes[0].id == forget);
    std::optional<CoverageReport> report = LoadCoverageReport(*dev.s.db, forget);
    REQUIRE(report);
    CHECK(report->events == std::vector<std::string>{beta, gamma});  // alpha: the hub listed it
    CHECK(report->entries.size() == 2);

    // Another store's line named in it is not the device's to hide.
    CoverageReport sent = *report;
    sent.events.push_back(own);
    const std::int64_t seen = hub.Count("SELECT max(seq) FROM change_log");
    for (int twice = 0; twice < 2; ++twice)
      CHECK(ApplyReports(*hub.s.db, "hub", "box", {sent}) == 1);
    CHECK(EventHidden(*hub.s.db, beta));
    CHECK_FALSE(EventHidden(*hub.s.db, own));
    CHECK(hub.Count("SELECT count(*) FROM tombstone_effect WHERE how = 'direct' AND item = '" +
                    beta + "'") == 1);
    // Its coverage grew: logged again, for every device.
    CHECK(FeedIds(hub, seen, "box") == std::vector<std::string>{forget});
    // The line to come is hidden as it arrives.
    PushLines(dev, hub, "s1");
    CHECK(EventHidden(*hub.s.db, gamma));
    // The hub's new list names beta and gamma: the device has only the
    // entries, which the hub will never hold, left to say.
    Apply(dev, "box", {Load(hub, forget)}, ListedBy::kHub);
    report = LoadCoverageReport(*dev.s.db, forget);
    REQUIRE(report);
    CHECK(report->events.empty());

    // A report of a forget not held here, or of a restore, changes nothing;
    // a malformed one is refused.
    const std::string restore =
        *origin::Restore(*hub.s.db, hub.s.clock, "hub", {forget, "fine", "user@hub", "cli", false})
             .tombstone;
    CHECK_FALSE(EventHidden(*hub.s.db, beta));
    CHECK_FALSE(EventHidden(*hub.s.db, alpha));
    CHECK(ApplyReports(*hub.s.db, "hub", "box",
                       {{restore, {}, {beta}}, {"tmb_0a1b2c3d4e5f60718293a4b5", {}, {beta}}}) == 2);
    CHECK_FALSE(EventHidden(*hub.s.db, beta));
    CHECK(ErrorOf([&] {
            ApplyReports(*hub.s.db, "hub", "box", {{"tmb_../x", {}, {}}});
          }) == Code::kInvalidArgument);
    // The device takes the restore: the entries are back, and sent.
    Apply(dev, "box", {Load(hub, forget), Load(hub, restore)}, ListedBy::kHub);
    CHECK_FALSE(EntryHidden(*dev.s.db, entry));
    CHECK_FALSE(LoadCoverageReport(*dev.s.db, forget));
    std::set<std::string> sent_entries;
    for (const OwnChange& c : OwnChangesAfter(*dev.s.db, "box", 0, 100))
      if (c.kind == OwnChange::Kind::kEntry) sent_entries.insert(c.id);
    CHECK(sent_entries == std::set<std::string>{entry, later});
  }

  TEST_CASE(
      "forget across stores: a device reports nothing of a forget whose target it does "
      "not hold (what it covers there directly may be its hub's rule 3)") {
    Pair p;
    ReplicaTombstone f = MadeOn("hub", "tmb_0a1b2c3d4e5f60718293a4b6", "claude-code:elsewhere");
    f.events = {p.alpha, p.beta};
    Apply(p.dev, "box", {f}, ListedBy::kHub);
    CHECK(EventHidden(*p.dev.s.db, p.beta));
    // What CoverArrival leaves when a version arrives in a chain its hub
    // listed, the forget's target not here: direct rows, on the hub's word
    // (which may be rule 3's), here for beta.
    p.dev.s.db->Exec("INSERT INTO tombstone_effect(tombstone, item, item_kind, how) VALUES ('" +
                     f.id + "', '" + p.beta + "', 'event', 'direct')");
    f.events = {p.alpha};
    Apply(p.dev, "box", {f}, ListedBy::kHub);  // the hub's new list: beta is back there
    CHECK(EventHidden(*p.dev.s.db, p.beta));
    CHECK_FALSE(LoadCoverageReport(*p.dev.s.db, f.id));
    // Nothing to send: the sender's cursor may pass every row read.
    std::int64_t through = 0;
    CHECK(OwnChangesAfter(*p.dev.s.db, "box", 0, 100, &through).empty());
    CHECK(through > 0);
    CHECK(through == p.dev.Count("SELECT max(seq) FROM change_log"));
    // The same rows for a forget of an event the device holds are reported.
    f.id = "tmb_0a1b2c3d4e5f60718293a4b7";
    f.target = p.alpha;
    f.events = {p.alpha};
    Apply(p.dev, "box", {f}, ListedBy::kHub);
    p.dev.s.db->Exec("INSERT INTO tombstone_effect(tombstone, item, item_kind, how) VALUES ('" +
                     f.id + "', '" + p.beta + "', 'event', 'direct')");
    REQUIRE(LoadCoverageReport(*p.dev.s.db, f.id));
    CHECK(LoadCoverageReport(*p.dev.s.db, f.id)->events == std::vector<std::string>{p.beta});
  }
}
