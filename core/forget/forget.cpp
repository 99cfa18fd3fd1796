// SPDX-License-Identifier: MIT
#include "core/forget/forget.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/entries/entries.hpp"
#include "core/erase/erase.hpp"
#include "core/forget/rules.hpp"
#include "core/store/audit.hpp"
#include "core/store/sessions.hpp"
#include "core/store/visible.hpp"
#include "core/util/hash.hpp"
#include "core/util/op_error.hpp"

namespace origin {

using Code = OpError::Code;

namespace forget_rules {

Ids Column(Db& db, const std::string& sql, const std::string& arg) {
  auto st = db.Prepare(sql);
  st.Bind(1, arg);
  Ids out;
  while (st.Step()) out.insert(std::string(st.Text(0)));
  return out;
}

Ids Versions(Db& db, const std::string& root) {
  return Column(db, "SELECT id FROM entry WHERE root = ?", root);
}
Ids CitedByChain(Db& db, const std::string& root) {
  return Column(db,
                "SELECT DISTINCT s.event_id FROM entry e JOIN entry_source s ON s.entry_id = e.id "
                "WHERE e.root = ?",
                root);
}
Ids ChainsCiting(Db& db, const std::string& event_id) {
  return Column(db,
                "SELECT DISTINCT e.root FROM entry_source s JOIN entry e ON e.id = s.entry_id "
                "WHERE s.event_id = ?",
                event_id);
}

Ids Covering(Db& db, const std::string& item) {
  return Column(db,
                std::string("SELECT te.tombstone FROM tombstone_effect te JOIN tombstone t ON "
                            "t.id = te.tombstone WHERE te.item = ? AND te.how IN ('direct', "
                            "'listed', 'reported') AND ") +
                    kInEffect,
                item);
}

namespace {

// One of them; "" when none.
std::string DirectCover(Db& db, const std::string& item) {
  Ids by = Covering(db, item);
  return by.empty() ? "" : *by.begin();
}

}  // namespace

void AddEffect(Db& db, const std::string& tombstone, const std::string& item, const char* kind,
               const char* how, Ids* touched) {
  db.Prepare(
        "INSERT OR IGNORE INTO tombstone_effect(tombstone, item, item_kind, how) VALUES (?,?,?,?)")
      .Bind(1, tombstone)
      .Bind(2, item)
      .Bind(3, kind)
      .Bind(4, how)
      .Run();
  if (touched != nullptr && db.Changes() > 0) touched->insert(tombstone);
}

namespace {

// Decides again whether each of `events`, then each chain of `roots`, is
// hidden, and records what changed in `out` (newly hidden for a forget,
// back for a restore).
class Decider {
 public:
  Decider(Db& db, const std::string& store, Ids* touched)
      : db_(db), store_(store), touched_(touched) {}

  void Events(const Ids& events, Ids& changed, Ids& sessions) {
    for (const std::string& id : events) {
      auto ev = db_.Prepare("SELECT seq, session FROM event WHERE id = ?");
      ev.Bind(1, id);
      if (!ev.Step()) {  // not here (yet): nothing to hide
        continue;
      }
      std::int64_t seq = ev.Int(0);
      std::optional<std::string> session = ev.OptText(1);
      bool was = EventHidden(db_, id);
      std::string by = DirectCover(db_, id);
      if (!by.empty()) {
        db_.Prepare(
               "INSERT INTO excluded_event(seq, event_id, tombstone) VALUES (?,?,?) "
               "ON CONFLICT(seq) DO UPDATE SET tombstone = excluded.tombstone")
            .Bind(1, seq)
            .Bind(2, id)
            .Bind(3, by)
            .Run();
      } else if (was) {
        db_.Prepare("DELETE FROM excluded_event WHERE seq = ?").Bind(1, seq).Run();
      }
      if (was != !by.empty()) {
        changed.insert(id);
        if (session) sessions.insert(*session);
        Touch(id);
      }
    }
  }

  void Chains(const Ids& roots, Ids& changed_entries, Ids& changed_chains) {
    for (const std::string& root : roots) {
      Ids versions = Versions(db_, root);
      if (versions.empty()) continue;
      bool was = EntryHidden(db_, root);
      std::string by;
      for (const std::string& v : versions)
        if (by = DirectCover(db_, v); !by.empty()) break;
      // Decided even when a forget covers the chain otherwise, so that its
      // cascade rows say what rule 3 gives now.
      const std::string cascade = Rule3(root, versions);
      if (by.empty()) by = cascade;
      if (!by.empty()) {
        for (const std::string& v : versions)
          db_.Prepare(
                 "INSERT INTO forgotten_entry(entry_id, tombstone) VALUES (?,?) "
                 "ON CONFLICT(entry_id) DO UPDATE SET tombstone = excluded.tombstone")
              .Bind(1, v)
              .Bind(2, by)
              .Run();
      } else if (was) {
        for (const std::string& v : versions)
          db_.Prepare("DELETE FROM forgotten_entry WHERE entry_id = ?").Bind(1, v).Run();
        // Back: the versions this store wrote are logged again, so that a
        // device sends its hub those it held back while they were hidden;
        // oldest first, since the hub takes a version only after the one
        // it supersedes (a correction is always later than it).
        db_.Prepare(
               "INSERT INTO change_log(kind, id, origin, at) SELECT 'entry', id, origin, "
               "created_at FROM entry WHERE root = ? AND origin = ? ORDER BY created_at, id")
            .Bind(1, root)
            .Bind(2, store_)
            .Run();
      }
      if (was != !by.empty()) {
        changed_chains.insert(root);
        changed_entries.insert(versions.begin(), versions.end());
        for (const std::string& v : versions) Touch(v);
      }
    }
  }

 private:
  // Rule 3: when the current version has no visible source left, the chain
  // is covered (cascade) by every forget in effect that covers one of its
  // sources; returns one of them, or "".  The chain's cascade rows are kept
  // to exactly those forgets: a row of a forget in effect that no longer
  // covers it so is removed, and the forget touched, so that what a store
  // reports a forget covers (CoverageNow) shrinks when a restore gives the
  // chain a visible source again, though another forget (its hub's list)
  // still hides it.
  std::string Rule3(const std::string& root, const Ids& versions) {
    Ids sources = Column(db_, "SELECT event_id FROM entry_source WHERE entry_id = ?",
                         CurrentVersion(db_, root));
    Ids by;
    for (const std::string& s : sources) {
      if (!EventHidden(db_, s)) {
        by.clear();
        break;
      }
      by.merge(Covering(db_, s));
    }
    for (const std::string& v : versions)
      for (const std::string& f :
           Column(db_,
                  std::string("SELECT te.tombstone FROM tombstone_effect te JOIN tombstone t ON "
                              "t.id = te.tombstone WHERE te.item = ? AND te.how = 'cascade' AND ") +
                      kInEffect,
                  v)) {
        if (by.count(f) != 0) continue;
        db_.Prepare("DELETE FROM tombstone_effect WHERE tombstone = ? AND item = ? AND how = 'cascade'")
            .Bind(1, f)
            .Bind(2, v)
            .Run();
        if (touched_ != nullptr) touched_->insert(f);
      }
    for (const std::string& f : by)
      for (const std::string& v : versions) AddEffect(db_, f, v, "entry", "cascade", touched_);
    return by.empty() ? "" : *by.begin();
  }

  // What the forgets covering `item` cover here changed: whether it is
  // hidden (RelogCoverage).
  void Touch(const std::string& item) {
    if (touched_ != nullptr)
      touched_->merge(Column(db_, "SELECT tombstone FROM tombstone_effect WHERE item = ?", item));
  }

  Db& db_;
  const std::string& store_;
  Ids* touched_;
};

std::string CheckReason(const TombstoneInput& in) {
  if (in.reason.find_first_not_of(" \t\r\n") == std::string::npos)
    throw OpError(Code::kInvalidArgument, "a reason is required");
  if (in.author.empty()) throw OpError(Code::kInvalidArgument, "a tombstone needs an author");
  return in.reason;
}

}  // namespace

void Record(Db& db, const std::string& id, const char* kind, const std::string& target,
            const std::string& reason, std::int64_t at, const std::string& origin,
            const std::optional<std::string>& author) {
  db.Prepare(
        "INSERT INTO tombstone(id, kind, target, reason, created_at, origin) VALUES (?,?,?,?,?,?)")
      .Bind(1, id)
      .Bind(2, kind)
      .Bind(3, target)
      .Bind(4, reason)
      .Bind(5, at)
      .Bind(6, origin)
      .Run();
  if (author)
    db.Prepare("INSERT INTO tombstone_meta(id, author) VALUES (?,?)")
        .Bind(1, id)
        .Bind(2, *author)
        .Run();
}

namespace {

void Audit(Db& db, std::int64_t at, const TombstoneInput& in, const ForgetOutcome& o) {
  // Ids and counts only: never a reason or a text.
  AppendAudit(db, at, AuditActor(in.author, in.channel), in.channel, o.kind,
              {{"tombstone", *o.tombstone},
               {"target", o.target},
               {"entries", static_cast<std::int64_t>(o.entries.size())},
               {"events", static_cast<std::int64_t>(o.events.size())}});
}

// The title each session shows: its text and whether the user gave it.
using Title = std::pair<std::optional<std::string>, bool>;

// The sessions that title events among `events` belong to, with the title
// each shows now.
std::map<std::string, Title> TitledBy(Db& db, const Ids& events) {
  std::map<std::string, Title> out;
  auto st = db.Prepare(
      "SELECT s.id, s.title, s.title_manual FROM event e JOIN session s ON "
      "s.id = e.session WHERE e.id = ? AND " +
      TitleEventSql("e."));
  for (const std::string& id : events) {
    st.Reset();
    st.Bind(1, id);
    if (st.Step()) out[std::string(st.Text(0))] = {st.OptText(1), st.Int(2) != 0};
  }
  return out;
}

// Decides `events` and then the chains of `roots` and those citing a
// changed event; fills the outcome's lists.
}  // namespace

void Decide(Db& db, const std::string& origin, const Ids& events, Ids roots, ForgetOutcome& o,
            Ids* touched) {
  Decider d(db, origin, touched);
  Ids changed_events, sessions, changed_entries, changed_chains;
  const std::map<std::string, Title> titles = TitledBy(db, events);
  d.Events(events, changed_events, sessions);
  for (const std::string& ev : events) roots.merge(ChainsCiting(db, ev));
  d.Chains(roots, changed_entries, changed_chains);
  o.events.assign(changed_events.begin(), changed_events.end());
  o.sessions.assign(sessions.begin(), sessions.end());
  o.entries.assign(changed_entries.begin(), changed_entries.end());
  o.chains.assign(changed_chains.begin(), changed_chains.end());
  if (!sessions.empty()) {
    std::vector<std::string> ids(sessions.begin(), sessions.end());
    RecomputeSessions(db, &ids);
  }
  // A title is one more place a title event's text shows: the sessions
  // whose title this changes are part of what is hidden or brought back.
  for (const auto& [session, before] : TitledBy(db, events))
    if (auto it = titles.find(session); it != titles.end() && it->second != before)
      o.titles.push_back(session);
}

std::string RootOf(Db& db, const std::string& version) {
  auto st = db.Prepare("SELECT root FROM entry WHERE id = ?");
  st.Bind(1, version);
  std::string root = st.Step() ? std::string(st.Text(0)) : "";
  return root;
}

void CoveredBy(Db& db, const std::string& forget, Ids& events, Ids& roots) {
  events.merge(Column(db,
                      "SELECT item FROM tombstone_effect WHERE tombstone = ? AND "
                      "item_kind = 'event'",
                      forget));
  roots.merge(Column(db,
                     "SELECT DISTINCT e.root FROM tombstone_effect te JOIN entry e ON e.id = "
                     "te.item WHERE te.tombstone = ? AND te.item_kind = 'entry'",
                     forget));
}

Targets RulesFrom(Db& db, const std::string& target) {
  Targets t;
  if (std::string root = RootOf(db, target); !root.empty()) {
    t.kind = "entry";
    t.roots.insert(std::move(root));
  } else if (!Column(db, "SELECT 1 FROM event WHERE id = ?", target).empty()) {
    t.kind = "event";
    t.events.insert(target);
    t.roots = ChainsCiting(db, target);
  } else if (t.events = Column(db, "SELECT id FROM event WHERE session = ?", target);
             !t.events.empty()) {
    // A session: every event of it, directly; the entries citing them only
    // by rule 3, when they are left without a visible source.
    t.kind = "session";
  }
  for (const std::string& r : t.roots) t.events.merge(CitedByChain(db, r));
  return t;
}

void CoverDirect(Db& db, const std::string& forget, const Targets& t, Ids* touched) {
  for (const std::string& ev : t.events) AddEffect(db, forget, ev, "event", "direct", touched);
  for (const std::string& r : t.roots)
    for (const std::string& v : Versions(db, r)) AddEffect(db, forget, v, "entry", "direct", touched);
}

// A cached statement (QueryInt prepares one a call): asked for every entry
// a hub is pushed (CoverArrival).
std::int64_t LastChange(Db& db) {
  auto st = db.Prepare("SELECT coalesce(max(seq), 0) FROM change_log");
  return st.Step() ? st.Int(0) : 0;
}

void RelogCoverage(Db& db, const Ids& forgets, std::int64_t since) {
  for (const std::string& f : forgets)
    db.Prepare(std::string("INSERT INTO change_log(kind, id, origin, at) SELECT 'tombstone', t.id, "
                           "t.origin, t.created_at FROM tombstone t WHERE t.id = ?1 AND ") +
               kInEffect +
               " AND NOT EXISTS (SELECT 1 FROM change_log c WHERE c.seq > ?2 AND c.kind = "
               "'tombstone' AND c.id = ?1)")
        .Bind(1, f)
        .Bind(2, since)
        .Run();
}

}  // namespace forget_rules

using namespace forget_rules;

ForgetOutcome Forget(Db& db, const Clock& clock, const std::string& store_name,
                     const TombstoneInput& in) {
  std::string reason = CheckReason(in);
  if (in.target.rfind("tmb_", 0) == 0)
    throw OpError(Code::kInvalidArgument,
                  in.target +
                      " is a tombstone: to undo a forget, restore it; a restore cannot be "
                      "forgotten");
  Transaction tx(db);
  ForgetOutcome o;
  o.kind = "forget";
  o.target = in.target;
  Targets t = RulesFrom(db, in.target);
  Ids& events = t.events;
  Ids& roots = t.roots;
  o.target_kind = t.kind;
  // A session forget covers what a later line adds (CoverSessionArrivals),
  // so it is recorded unless one is in effect already.
  const bool session = t.kind == "session";
  if (t.kind == "entry") {
    auto st = db.Prepare("SELECT tombstone FROM forgotten_entry WHERE entry_id = ?");
    st.Bind(1, in.target);
    if (st.Step()) o.hidden_by = std::string(st.Text(0));
  } else if (t.kind == "event") {
    auto by = db.Prepare("SELECT tombstone FROM excluded_event WHERE event_id = ?");
    by.Bind(1, in.target);
    if (by.Step()) o.hidden_by = std::string(by.Text(0));
  } else if (session) {
    Ids in_effect = Column(db,
                           std::string("SELECT t.id FROM tombstone t WHERE t.target = ? AND ") +
                               kInEffect,
                           in.target);
    if (!in_effect.empty()) o.hidden_by = *in_effect.begin();
  } else {
    throw OpError(Code::kNotFound, "no event, entry or session " + in.target);
  }
  std::string origin = FixStoreName(db, store_name);
  std::string id = RandomId("tmb_");
  const std::int64_t now = clock.NowMs();
  const std::int64_t since = LastChange(db);
  Record(db, id, "forget", in.target, reason, now, origin, in.author);
  CoverDirect(db, id, t, nullptr);
  Ids touched;
  Decide(db, origin, events, roots, o, &touched);
  RelogCoverage(db, touched, since);
  if (o.events.empty() && o.entries.empty() && (!session || o.hidden_by))
    return o;  // hides nothing new: not recorded
  if (in.dry_run) return o;                             // rolled back
  o.tombstone = id;
  o.hidden_by.reset();
  Audit(db, now, in, o);
  tx.Commit();
  return o;
}

std::set<std::string> RestoresOf(Db& db, const std::string& forget) {
  return Column(db, "SELECT id FROM tombstone WHERE kind = 'restore' AND target = ?", forget);
}

std::string PlanDigest(const ForgetOutcome& plan) {
  std::string form = "origin-forget-plan 1\n";
  for (const std::string* line : {&plan.target, &plan.target_kind})
    form += *line + "\n";
  form += plan.hidden_by.value_or("") + "\n";
  auto list = [&](const char* name, std::vector<std::string> ids) {
    std::sort(ids.begin(), ids.end());
    form += std::string(name) + "\n";
    for (const std::string& id : ids) form += id + "\n";
  };
  list("entries", plan.entries);
  list("events", plan.events);
  list("sessions", plan.sessions);
  list("titles", plan.titles);
  return Sha256Hex(form);
}

ForgetOutcome ForgetAsPreviewed(Db& db, const Clock& clock, const std::string& store_name,
                                const TombstoneInput& in, const std::string& digest) {
  TombstoneInput preview = in;
  preview.dry_run = true;
  if (PlanDigest(Forget(db, clock, store_name, preview)) != digest)
    throw OpError(Code::kConflict,
                  "the plan changed since it was shown: preview the forget of " + in.target +
                      " again");
  return Forget(db, clock, store_name, in);
}

ForgetOutcome Restore(Db& db, const Clock& clock, const std::string& store_name,
                      const TombstoneInput& in) {
  std::string reason = CheckReason(in);
  Transaction tx(db);
  ForgetOutcome o;
  o.kind = "restore";
  o.target = in.target;
  o.target_kind = "forget";
  {
    auto st = db.Prepare("SELECT kind FROM tombstone WHERE id = ?");
    st.Bind(1, in.target);
    if (!st.Step()) {
      throw OpError(Code::kNotFound, "no forget " + in.target);
    }
    std::string kind(st.Text(0));
    if (kind != "forget")
      throw OpError(Code::kInvalidArgument,
                    in.target + " is a restore: only a forget can be restored");
    // Erased (here or on another store, even after a restore made
    // elsewhere): in effect for good.
    if (auto erased = ErasureOf(db, in.target))
      throw OpError(Code::kConflict, in.target + " cannot be restored: what it hid was erased (" +
                                         erased->id + "), and an erasure cannot be undone");
    if (const Ids by = RestoresOf(db, in.target); !by.empty())
      throw OpError(Code::kConflict, in.target + " was already restored by " + *by.begin() +
                                         "; to hide its target again, forget it again");
  }
  std::string origin = FixStoreName(db, store_name);
  std::string id = RandomId("tmb_");
  const std::int64_t now = clock.NowMs();
  const std::int64_t since = LastChange(db);
  Record(db, id, "restore", in.target, reason, now, origin, in.author);
  // Everything the forget covered is decided again.
  Ids events, roots;
  CoveredBy(db, in.target, events, roots);
  Ids touched;
  Decide(db, origin, events, roots, o, &touched);
  RelogCoverage(db, touched, since);
  if (in.dry_run) return o;
  o.tombstone = id;
  Audit(db, now, in, o);
  tx.Commit();
  return o;
}

namespace {

// Whether forget `f`, found covering an earlier version of a chain (here,
// in its hub's list or in a device's report), covers the chain by rule 1
// or 2, and so covers a new version and the events the chain cites: its
// target is a version of the chain or an event the chain cites, or is not
// held here (the list or the report is then all there is to go by).  A
// forget of a session, or of an entry or an event the chain neither holds
// nor cites, covers a chain by rule 3 only, which Decide judges again with
// the new version's sources; extended, it would hide events no forget
// targets (invariant 2; found by the convergence test).
bool CoversByTarget(Db& db, const std::string& f, const Ids& versions, const Ids& chain_cites) {
  const Ids target = Column(db, "SELECT target FROM tombstone WHERE id = ?", f);
  if (target.empty()) return true;
  const std::string& t = *target.begin();
  if (versions.count(t) != 0 || chain_cites.count(t) != 0) return true;
  return Column(db,
                "SELECT 1 WHERE EXISTS (SELECT 1 FROM entry WHERE id = ?1) OR EXISTS (SELECT 1 "
                "FROM event WHERE id = ?1) OR EXISTS (SELECT 1 FROM event WHERE session = ?1)",
                t)
      .empty();
}

}  // namespace

void CoverArrival(Db& db, const std::string& version) {
  auto st = db.Prepare("SELECT root, origin FROM entry WHERE id = ?");
  st.Bind(1, version);
  if (!st.Step()) {
    return;
  }
  const std::string root(st.Text(0)), origin(st.Text(1));
  const Ids versions = Versions(db, root);
  // The forgets in effect that cover the chain by the rules from their
  // targets: those covering an earlier version directly (rule 1, as the
  // chain grows), those targeting a version (one that came before the
  // version it targets, from another store), and those targeting an event
  // the new version cites (rule 2).
  Ids forgets;
  std::optional<Ids> chain_cites;  // read when a forget covers the chain
  auto cites = [&]() -> const Ids& {
    if (!chain_cites) chain_cites = CitedByChain(db, root);
    return *chain_cites;
  };
  for (const std::string& v : versions) {
    if (v != version)
      for (const std::string& f : Covering(db, v))
        if (CoversByTarget(db, f, versions, cites())) forgets.insert(f);
    forgets.merge(Column(db, std::string("SELECT t.id FROM tombstone t WHERE t.target = ? AND ") +
                                 kInEffect,
                         v));
  }
  Ids cited = Column(db, "SELECT event_id FROM entry_source WHERE entry_id = ?", version);
  for (const std::string& ev : cited)
    forgets.merge(Column(db, std::string("SELECT t.id FROM tombstone t WHERE t.target = ? AND ") +
                                 kInEffect,
                         ev));
  // With no forget covering it, what its events show is unchanged: only
  // its own chain is decided (rule 3), not every chain citing its events,
  // which would make each arrival cost as much as the entries already
  // citing them.
  Ids events = forgets.empty() ? Ids{} : cites();
  const std::int64_t since = LastChange(db);
  Ids touched;
  for (const std::string& f : forgets) {
    for (const std::string& v : versions) AddEffect(db, f, v, "entry", "direct", &touched);
    for (const std::string& ev : events) AddEffect(db, f, ev, "event", "direct", &touched);
  }
  // Decided even when no forget covers it by its rules: its sources may be
  // hidden here (rule 3).
  ForgetOutcome ignored;
  Decide(db, origin, events, {root}, ignored, &touched);
  RelogCoverage(db, touched, since);
}

void CoverSessionArrivals(Db& db, std::int64_t after_seq) {
  // Event by event (the new ones, by seq), each looked up in tombstone's
  // index on target: never every event of a forgotten session.  A forget
  // of an event that arrives after it (one made on another store, whose
  // lines a device pushes later) covers it too, and so does one a device
  // reported covering it before it came (ApplyReports), by the index of
  // tombstone_effect on item.
  auto st = db.Prepare(std::string("SELECT t.id, e.id FROM event e CROSS JOIN tombstone t ON "
                                   "t.target = e.session WHERE e.seq > ?1 AND ") +
                       kInEffect +
                       " UNION SELECT t.id, e.id FROM event e CROSS JOIN tombstone t ON "
                       "t.target = e.id WHERE e.seq > ?1 AND " +
                       kInEffect +
                       " UNION SELECT t.id, e.id FROM event e CROSS JOIN tombstone_effect d ON "
                       "d.item = e.id AND d.how = 'direct' JOIN tombstone t ON t.id = d.tombstone "
                       "WHERE e.seq > ?1 AND " +
                       kInEffect);
  st.Bind(1, after_seq);
  Ids events;
  std::vector<std::pair<std::string, std::string>> effects;
  while (st.Step()) {
    effects.emplace_back(std::string(st.Text(0)), std::string(st.Text(1)));
    events.insert(std::string(st.Text(1)));
  }
  st.Reset();
  if (events.empty()) return;
  const std::int64_t since = LastChange(db);
  Ids touched;
  for (const auto& [forget, event] : effects)
    AddEffect(db, forget, event, "event", "direct", &touched);
  ForgetOutcome ignored;
  Decide(db, "", events, {}, ignored, &touched);
  RelogCoverage(db, touched, since);
}

namespace {
// Tombstone rows with what each covers; `tail` ends the query (a WHERE, the
// order, a limit) and takes one parameter, bound to `param`.
std::vector<TombstoneRow> TombstoneRows(Db& db, const char* tail, auto param) {
  auto st = db.Prepare(
      std::string("SELECT t.id, t.kind, t.target, t.reason, t.created_at, t.origin, m.author, "
                  "(SELECT r.id FROM tombstone r WHERE r.kind = 'restore' AND r.target = t.id), "
                  "(SELECT count(DISTINCT te.item) FROM tombstone_effect te WHERE te.tombstone = "
                  "t.id AND te.item_kind = 'entry'), "
                  "(SELECT count(DISTINCT te.item) FROM tombstone_effect te WHERE te.tombstone = "
                  "t.id AND te.item_kind = 'event'), x.id, x.done_at, x.lines, x.events, x.entries "
                  "FROM tombstone t LEFT JOIN tombstone_meta m ON m.id = t.id "
                  "LEFT JOIN erasure x ON x.forget = t.id ") +
      tail);
  st.Bind(1, param);
  std::vector<TombstoneRow> out;
  while (st.Step()) {
    TombstoneRow r;
    r.id = std::string(st.Text(0));
    r.kind = std::string(st.Text(1));
    r.target = std::string(st.Text(2));
    r.reason = std::string(st.Text(3));
    r.created_at = st.Int(4);
    r.origin = std::string(st.Text(5));
    r.author = st.OptText(6);
    r.restored_by = st.OptText(7);
    r.in_effect = r.kind == "forget" && (!r.restored_by || !st.IsNull(10));
    r.entries = st.Int(8);
    r.events = st.Int(9);
    if (!st.IsNull(10))
      r.erasure = TombstoneRow::Erasure{std::string(st.Text(10)),
                                        st.IsNull(11) ? std::nullopt : std::optional(st.Int(11)), st.Int(12),
                                        st.Int(13), st.Int(14)};
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::vector<TombstoneRow> ListTombstones(Db& db, int limit) {
  return TombstoneRows(db, "ORDER BY t.seq DESC LIMIT ?", limit);
}

std::optional<TombstoneRow> GetTombstone(Db& db, const std::string& id) {
  std::vector<TombstoneRow> rows = TombstoneRows(db, "WHERE t.id = ?", id);
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

bool HiddenHere(Db& db, const std::string& id) {
  if (EventHidden(db, id) || EntryHidden(db, id)) return true;
  return !Column(db, std::string("SELECT t.id FROM tombstone t WHERE t.target = ? AND ") + kInEffect,
                 id)
              .empty();
}

}  // namespace origin
