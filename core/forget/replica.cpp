// SPDX-License-Identifier: MIT
#include "core/forget/replica.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/forget/rules.hpp"
#include "core/util/hash.hpp"
#include "core/util/op_error.hpp"

namespace origin {

using namespace forget_rules;
using Code = OpError::Code;

namespace {

bool TombstoneId(std::string_view id) { return IdShaped(id, "tmb_", 64); }

void Check(const ReplicaTombstone& t) {
  if (!TombstoneId(t.id))
    throw OpError(Code::kInvalidArgument, "a tombstone's id is tmb_ and letters or digits: " + t.id);
  if (t.target.empty() || t.target.size() > 512)
    throw OpError(Code::kInvalidArgument, "tombstone " + t.id + " has no target");
  if (t.IsRestore() && (!TombstoneId(t.target) || !t.entries.empty() || !t.events.empty()))
    throw OpError(Code::kInvalidArgument,
                  "tombstone " + t.id + " restores " + t.target + ": a restore lists nothing");
  if (t.origin.empty() || t.created_at < 0)
    throw OpError(Code::kInvalidArgument, "tombstone " + t.id + " needs its origin and time");
  if (t.author && (t.author->empty() || t.author->size() > 200))
    throw OpError(Code::kInvalidArgument, "tombstone " + t.id + ": an author of 1 to 200 bytes");
  for (const auto* list : {&t.entries, &t.events})
    for (const std::string& item : *list)
      if (item.empty() || item.size() > 512)
        throw OpError(Code::kInvalidArgument, "tombstone " + t.id + " lists an empty id");
}

// The tombstone `id` as held here, without its coverage.
std::optional<ReplicaTombstone> Held(Db& db, const std::string& id) {
  auto st = db.Prepare(
      "SELECT t.target, t.reason, t.created_at, t.origin, m.author FROM tombstone t "
      "LEFT JOIN tombstone_meta m ON m.id = t.id WHERE t.id = ?");
  st.Bind(1, id);
  if (!st.Step()) return std::nullopt;
  ReplicaTombstone t;
  t.id = id;
  t.target = std::string(st.Text(0));
  t.reason = std::string(st.Text(1));
  t.created_at = st.Int(2);
  t.origin = std::string(st.Text(3));
  t.author = st.OptText(4);
  return t;
}

bool SameBody(const ReplicaTombstone& a, const ReplicaTombstone& b) {
  return a.target == b.target && a.reason == b.reason && a.created_at == b.created_at &&
         a.origin == b.origin && a.author == b.author;
}

// Records the sender's list for `forget` (what it knows of it) and adds
// the items to decide to `events` and `roots`.  The list replaces the
// sender's last one, whose items are decided again too: on a device the
// hub's (which decides rule 3 for the entries it holds), on a hub the
// device's that made the forget (which sends it again whenever what it
// covers there changes, shrinking too: a chain hidden there by rule 3
// comes back when a restore gives it a visible source again).  A hub that
// kept what a device reported before would hide that chain for ever.
void ApplyList(Db& db, const ReplicaTombstone& t, ListedBy from, Ids& events, Ids& roots,
               Ids* touched) {
  const char* how = from == ListedBy::kHub ? "listed" : "reported";
  {
    auto old = db.Prepare(
        "SELECT item, item_kind FROM tombstone_effect WHERE tombstone = ? AND how = ?");
    old.Bind(1, t.id).Bind(2, how);
    std::vector<std::pair<std::string, bool>> items;
    while (old.Step()) items.emplace_back(std::string(old.Text(0)), old.Text(1) == "event");
    old.Reset();
    std::set<std::pair<std::string, bool>> next;
    for (const std::string& e : t.entries) next.insert({e, false});
    for (const std::string& e : t.events) next.insert({e, true});
    for (const auto& [item, is_event] : items) {
      if (next.count({item, is_event}) != 0) continue;
      db.Prepare("DELETE FROM tombstone_effect WHERE tombstone = ? AND item = ? AND how = ?")
          .Bind(1, t.id)
          .Bind(2, item)
          .Bind(3, how)
          .Run();
      if (touched != nullptr) touched->insert(t.id);
      if (is_event)
        events.insert(item);
      else if (std::string root = RootOf(db, item); !root.empty())
        roots.insert(root);
    }
  }
  auto event_here = db.Prepare("SELECT 1 FROM event WHERE id = ?");
  for (const std::string& ev : t.events) {
    event_here.Reset();
    event_here.Bind(1, ev);
    if (!event_here.Step()) continue;  // not here: nothing to cover
    AddEffect(db, t.id, ev, "event", how, touched);
    events.insert(ev);
  }
  event_here.Reset();
  for (const std::string& version : t.entries) {
    std::string root = RootOf(db, version);
    if (root.empty()) continue;
    AddEffect(db, t.id, version, "entry", how, touched);
    roots.insert(root);
  }
}

void CheckErasure(const ReplicaErasure& e) {
  if (!IdShaped(e.id, "ers_", 64))
    throw OpError(Code::kInvalidArgument, "an erasure's id is ers_ and letters or digits: " + e.id);
  if (!TombstoneId(e.forget))
    throw OpError(Code::kInvalidArgument, "erasure " + e.id + " erases no forget: " + e.forget);
  if (e.origin.empty() || e.origin.size() > 200 || e.created_at < 0)
    throw OpError(Code::kInvalidArgument, "erasure " + e.id + " needs its origin and time");
  if (e.author.empty() || e.author.size() > 200)
    throw OpError(Code::kInvalidArgument, "erasure " + e.id + ": an author of 1 to 200 bytes");
}

// A forget that a restore had taken out of effect, in effect again (an
// erasure of it): it covers by the rules from its target what is here now,
// including what arrived while it was out of effect (a line of its session,
// a version citing its event), as a forget arriving now would; then all it
// covers is decided again.
void Revive(Db& db, const std::string& store, const ReplicaTombstone& forget, Ids* touched) {
  Targets direct = RulesFrom(db, forget.target);
  CoverDirect(db, forget.id, direct, touched);
  Ids events = std::move(direct.events), roots = std::move(direct.roots);
  CoveredBy(db, forget.id, events, roots);
  ForgetOutcome ignored;
  Decide(db, store, events, roots, ignored, touched);
  touched->insert(forget.id);
}

// Records erasure `e` here, pending and not planned (RunErasures plans
// and runs it); its forget, if here and restored, is in effect again.
void ApplyErasure(Db& db, const std::string& store, const ReplicaErasure& e, Ids* touched) {
  if (std::optional<ReplicaErasure> held = LoadErasure(db, e.id)) {
    if (held->forget != e.forget || held->reason != e.reason || held->author != e.author ||
        held->created_at != e.created_at || held->origin != e.origin)
      throw OpError(Code::kConflict, "erasure " + e.id + " is here with another body");
    return;
  }
  // Erased here already, under the id of the store that did it first.
  if (!Column(db, "SELECT id FROM erasure WHERE forget = ?", e.forget).empty()) return;
  const std::optional<ReplicaTombstone> forget = Held(db, e.forget);
  if (forget && forget->IsRestore())
    throw OpError(Code::kInvalidArgument,
                  "erasure " + e.id + " erases " + e.forget + ", which is a restore");
  db.Prepare(
        "INSERT INTO erasure(id, forget, reason, author, created_at, lines, events, entries, "
        "origin, planned) VALUES (?,?,?,?,?,0,0,0,?,0)")
      .Bind(1, e.id)
      .Bind(2, e.forget)
      .Bind(3, e.reason)
      .Bind(4, e.author)
      .Bind(5, e.created_at)
      .Bind(6, e.origin)
      .Run();
  if (!forget) return;  // it takes effect when the forget arrives
  // A restore that came first no longer counts (kForgetInEffect): the
  // forget is in effect again.
  if (RestoresOf(db, e.forget).empty()) return;
  Revive(db, store, *forget, touched);
}

void CheckReport(const CoverageReport& r) {
  if (!TombstoneId(r.forget))
    throw OpError(Code::kInvalidArgument, "a report covers a forget's id: " + r.forget);
  for (const auto* list : {&r.entries, &r.events})
    for (const std::string& item : *list)
      if (item.empty() || item.size() > 512)
        throw OpError(Code::kInvalidArgument,
                      "the report of " + r.forget + " lists an id of 1 to 512 bytes");
}

// Adds what `device` reports forget `r.forget` covers there to what it
// covers here by the rules (CoverageReport says why), and decides it: only
// the device's own data, its events (lines of its mirrors) and its entries,
// so that a token hides through a report nothing it could not forget
// itself.  An event not here yet is recorded, and hidden when it arrives
// (CoverSessionArrivals): the device may have ingested it after its last
// push of mirrors.  A version not here is one the device held back.
void ApplyReport(Db& db, const std::string& store, const std::string& device,
                 const CoverageReport& r, Ids* touched) {
  const std::optional<ReplicaTombstone> forget = Held(db, r.forget);
  if (!forget || forget->IsRestore()) return;
  const std::string prefix = "@" + device + ":";  // its mirrors' keys (core/ingest/remote.cpp)
  auto event_of = db.Prepare(
      "SELECT substr(f.key, 1, length(?2)) = ?2 FROM event e JOIN raw_file f ON f.id = "
      "e.file_id WHERE e.id = ?1");
  Ids events, roots;
  for (const std::string& ev : r.events) {
    event_of.Reset();
    event_of.Bind(1, ev).Bind(2, prefix);
    if (event_of.Step() && event_of.Int(0) == 0) continue;  // another store's line
    AddEffect(db, r.forget, ev, "event", "direct", touched);
    events.insert(ev);
  }
  event_of.Reset();
  auto entry_of = db.Prepare("SELECT root FROM entry WHERE id = ? AND origin = ?");
  for (const std::string& version : r.entries) {
    entry_of.Reset();
    entry_of.Bind(1, version).Bind(2, device);
    if (!entry_of.Step()) continue;
    roots.emplace(entry_of.Text(0));
    AddEffect(db, r.forget, version, "entry", "direct", touched);
  }
  entry_of.Reset();
  ForgetOutcome ignored;
  Decide(db, store, events, roots, ignored, touched);
}

void Log(Db& db, const std::string& id) {
  db.Prepare(
        "INSERT INTO change_log(kind, id, origin, at) SELECT 'tombstone', id, origin, created_at "
        "FROM tombstone WHERE id = ?")
      .Bind(1, id)
      .Run();
}

}  // namespace

std::int64_t ApplyTombstones(Db& db, const std::string& store,
                             const std::vector<ReplicaTombstone>& tombstones, ListedBy from,
                             const std::vector<ReplicaErasure>& erasures) {
  for (const ReplicaTombstone& t : tombstones) Check(t);
  for (const ReplicaErasure& e : erasures) CheckErasure(e);
  Transaction tx(db);
  const std::int64_t since = LastChange(db);
  Ids touched;
  for (const ReplicaTombstone& t : tombstones) {
    Ids events, roots;
    const std::optional<ReplicaTombstone> held = Held(db, t.id);
    if (held && !SameBody(*held, t))
      throw OpError(Code::kConflict, "tombstone " + t.id + " is here with another body");
    if (t.IsRestore()) {
      if (held) continue;
      const std::optional<ReplicaTombstone> forget = Held(db, t.target);
      if (forget && forget->IsRestore())
        throw OpError(Code::kInvalidArgument,
                      "tombstone " + t.id + " restores " + t.target + ", which is a restore");
      // A device keeps only restores of forgets it holds: its hub sends
      // this one again after the forget.  A hub keeps it, and it takes
      // effect when the forget arrives.
      if (!forget && from == ListedBy::kHub) continue;
      Record(db, t.id, "restore", t.target, t.reason, t.created_at, t.origin, t.author);
      if (forget) CoveredBy(db, t.target, events, roots);
    } else {
      if (!held) {
        Record(db, t.id, "forget", t.target, t.reason, t.created_at, t.origin, t.author);
        Targets direct = RulesFrom(db, t.target);
        CoverDirect(db, t.id, direct, nullptr);
        events.merge(direct.events);
        roots.merge(direct.roots);
        // A restore that came first is logged again after its forget, so
        // that the devices that skipped it receive it now.
        for (const std::string& r : RestoresOf(db, t.id)) Log(db, r);
      }
      ApplyList(db, t, from, events, roots, &touched);
    }
    ForgetOutcome ignored;
    Decide(db, store, events, roots, ignored, &touched);
  }
  for (const ReplicaErasure& e : erasures) ApplyErasure(db, store, e, &touched);
  RelogCoverage(db, touched, since);
  tx.Commit();
  return static_cast<std::int64_t>(tombstones.size() + erasures.size());
}

std::int64_t ApplyReports(Db& db, const std::string& store, const std::string& device,
                          const std::vector<CoverageReport>& reports) {
  for (const CoverageReport& r : reports) CheckReport(r);
  Transaction tx(db);
  const std::int64_t since = LastChange(db);
  Ids touched;
  for (const CoverageReport& r : reports) ApplyReport(db, store, device, r, &touched);
  RelogCoverage(db, touched, since);
  tx.Commit();
  return static_cast<std::int64_t>(reports.size());
}

void HideErasedAgain(Db& db, const std::string& store) {
  Ids forgets;
  {
    auto st = db.Prepare(
        "SELECT x.forget FROM erasure x WHERE EXISTS (SELECT 1 FROM tombstone r WHERE r.kind = "
        "'restore' AND r.target = x.forget)");
    while (st.Step()) forgets.emplace(st.Text(0));
  }
  if (forgets.empty()) return;
  Transaction tx(db);
  const std::int64_t since = LastChange(db);
  Ids touched;
  for (const std::string& id : forgets)
    if (std::optional<ReplicaTombstone> forget = Held(db, id)) Revive(db, store, *forget, &touched);
  RelogCoverage(db, touched, since);
  tx.Commit();
}

std::optional<ReplicaErasure> LoadErasure(Db& db, const std::string& id) {
  auto st = db.Prepare(
      "SELECT forget, reason, author, created_at, coalesce(origin, '') FROM erasure WHERE id = ?");
  st.Bind(1, id);
  if (!st.Step()) return std::nullopt;
  return ReplicaErasure{
      id,        std::string(st.Text(0)), std::string(st.Text(1)), std::string(st.Text(2)),
      st.Int(3), std::string(st.Text(4))};
}

void CoverageNow(Db& db, const std::string& forget, std::vector<std::string>* entries,
                 std::vector<std::string>* events) {
  auto st = db.Prepare(
      std::string("SELECT DISTINCT te.item, te.item_kind FROM tombstone t JOIN tombstone_effect te "
                  "ON te.tombstone = t.id WHERE t.id = ? AND te.how <> 'listed' AND ") +
      kInEffect +
      " AND (te.item IN (SELECT entry_id FROM forgotten_entry) OR te.item IN (SELECT event_id "
      "FROM excluded_event)) ORDER BY te.item");
  st.Bind(1, forget);
  while (st.Step())
    (st.Text(1) == "event" ? events : entries)->push_back(std::string(st.Text(0)));
}

std::string UnlistedCoverage() {
  // Only a forget of an event or an entry held here: what it covers here
  // directly is then what rules 1 and 2 give (CoverArrival counts a
  // forget whose target is not here as rule 1 or 2 on its hub's word,
  // which may be rule 3's: that is not the hub's to be told back).
  return std::string(kInEffect) +
         " AND (EXISTS (SELECT 1 FROM event WHERE id = t.target) OR EXISTS (SELECT 1 FROM entry "
         "WHERE id = t.target))" +
         " AND d.tombstone = t.id AND d.how = 'direct' AND (d.item IN (SELECT entry_id FROM "
         "forgotten_entry) OR d.item IN (SELECT event_id FROM excluded_event)) AND NOT EXISTS "
         "(SELECT 1 FROM tombstone_effect l WHERE l.tombstone = t.id AND l.item = d.item AND "
         "l.how = 'listed')";
}

std::optional<CoverageReport> LoadCoverageReport(Db& db, const std::string& id) {
  auto st = db.Prepare(
      "SELECT d.item, d.item_kind FROM tombstone t JOIN tombstone_effect d WHERE t.id = ? AND " +
      UnlistedCoverage() + " ORDER BY d.item");
  st.Bind(1, id);
  CoverageReport r{id, {}, {}};
  while (st.Step()) (st.Text(1) == "event" ? r.events : r.entries).emplace_back(st.Text(0));
  if (r.events.empty() && r.entries.empty()) return std::nullopt;
  return r;
}

std::optional<ReplicaTombstone> LoadTombstone(Db& db, const std::string& id) {
  std::optional<ReplicaTombstone> t = Held(db, id);
  if (t && !t->IsRestore()) CoverageNow(db, id, &t->entries, &t->events);
  return t;
}

TombstoneFeed TombstonesAfter(Db& db, std::int64_t after, std::string_view device,
                              std::size_t limit) {
  // What `device` created is left out: its first logging, and a restore
  // logged again (which carries nothing new); a forget logged again, whose
  // coverage here changed, is not.
  // An erasure is logged once, when it is done here.
  auto st = db.Prepare(
      "SELECT c.seq, c.kind || ' ' || c.id, c.origin = ?2 AND (c.kind = 'erasure' OR (SELECT "
      "kind FROM tombstone WHERE id = c.id) = 'restore' OR NOT EXISTS (SELECT 1 FROM change_log "
      "p WHERE p.kind = 'tombstone' AND p.id = c.id AND p.seq < c.seq)) FROM change_log c "
      "WHERE c.seq > ?1 AND c.kind IN ('tombstone', 'erasure') ORDER BY c.seq LIMIT ?3");
  st.Bind(1, after).Bind(2, std::string(device)).Bind(3, static_cast<std::int64_t>(limit) + 1);
  TombstoneFeed feed;
  feed.next = after;
  std::vector<std::string> order;  // by where each was logged last
  std::size_t rows = 0;
  while (st.Step()) {
    if (++rows > limit) {
      feed.more = true;
      break;
    }
    feed.next = st.Int(0);
    if (st.Int(2) != 0) continue;
    std::string id(st.Text(1));
    order.erase(std::remove(order.begin(), order.end(), id), order.end());
    order.push_back(std::move(id));
  }
  st.Reset();
  for (const std::string& item : order) {
    const std::string id = item.substr(item.find(' ') + 1);
    if (item.starts_with("erasure ")) {
      if (std::optional<ReplicaErasure> e = LoadErasure(db, id))
        feed.erasures.push_back(std::move(*e));
    } else if (std::optional<ReplicaTombstone> t = LoadTombstone(db, id)) {
      feed.tombstones.push_back(std::move(*t));
    }
  }
  return feed;
}

}  // namespace origin
