// SPDX-License-Identifier: MIT
#pragma once
// Forgetting and restoring (spec: Forgetting; invariant 2).
//
// A forget is a tombstone whose target is an entry, an event or a session.
// What it covers on this store is recorded in tombstone_effect:
//   direct   rule 1: an entry's whole chain (forks included) and every event
//            its versions cite; rule 2: an event, every chain citing it, and
//            every event those chains cite.  Rules 1 and 2 apply once, from
//            the target; what they hide does not hide further.  A session:
//            every event of it, and every event that arrives in it later
//            (CoverSessionArrivals); the entries citing them only by rule 3.
//   cascade  rule 3: a chain citing an event the forget covers whose current
//            version has no visible source left.  It hides no events, so
//            the cascade stops there.
// An item is hidden while a forget in effect (one no restore targets, or
// one erased: kForgetInEffect) covers it: events by direct coverage, chains
// by direct coverage or by rule 3 on the events hidden now.  forgotten_entry and excluded_event
// hold what is hidden, each item with one forget in effect that covers it.
//
// A restore is a tombstone whose target is a forget; it takes that forget
// out of effect, and every item the forget covered, and every chain citing
// an event that comes back, is decided again by the same rules, so the store
// is left as if the forget had never been made.
//
// Both run on the writer's connection in one BEGIN IMMEDIATE transaction.
// A dry run does everything, reports what changed, and rolls back, so that a
// preview is exactly what the action will do.  A forget that would hide
// nothing new is not recorded.
//
// Layering: forget uses entries and core/store (the hiding tables and the
// conditions every read adds, core/store/visible.hpp; session rows,
// core/store/sessions.hpp); nothing below it includes it but ingestion.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/util/clock.hpp"

namespace origin {

/// A forget is in effect while no restore targets it, or once it is erased
/// (core/erase): an erasure cannot be undone, and wins over a restore made
/// on another store before the erasure reached it (a condition on `t`).
inline constexpr const char* kForgetInEffect =
    "t.kind = 'forget' AND (NOT EXISTS (SELECT 1 FROM tombstone r WHERE r.kind = 'restore' AND "
    "r.target = t.id) OR EXISTS (SELECT 1 FROM erasure x WHERE x.forget = t.id))";

struct TombstoneInput {
  std::string target;           // forget: an entry or event id; restore: a forget's id
  std::string reason;           // required, not blank
  std::string author;           // <agent>@<device>, user@<device>
  std::string channel = "cli";  // for the audit log: cli | mcp | ui
  bool dry_run = false;
};

/// What a forget hides, or a restore brings back.
struct ForgetOutcome {
  std::optional<std::string> tombstone;  // set when it was recorded
  std::string kind;                      // forget | restore
  std::string target;
  std::string target_kind;               // forget: entry, event or session; restore: forget
  std::vector<std::string> entries;      // entry versions newly hidden / back
  std::vector<std::string> chains;       // their roots
  std::vector<std::string> events;       // events newly hidden / back
  std::vector<std::string> sessions;     // sessions whose events changed
  std::vector<std::string> titles;       // sessions whose title changed (a title event's text)
  std::optional<std::string> hidden_by;  // forget: a forget in effect already hiding the target
};

/// The restores that target `forget`: one at most, unless two stores
/// restored it before either heard of the other.
std::set<std::string> RestoresOf(Db& db, const std::string& forget);

/// The digest of what a forget would hide (docs/architecture.md, "Operations
/// of the web UI"): hex SHA-256 of the plan's canonical form, from whole
/// sorted lists of ids.  A preview shows it; a forget given it refuses with
/// kConflict when the plan differs by then (ForgetAsPreviewed).
std::string PlanDigest(const ForgetOutcome& plan);

/// OpError kInvalidArgument for a blank reason or a tombstone id as target,
/// kNotFound for an unknown id.
ForgetOutcome Forget(Db& db, const Clock& clock, const std::string& store_name,
                     const TombstoneInput& in);
/// Forget, when its plan's digest is still `digest`: else OpError kConflict,
/// and nothing is written.  On the writer, so that nothing changes between
/// the plan and the forget.
ForgetOutcome ForgetAsPreviewed(Db& db, const Clock& clock, const std::string& store_name,
                                const TombstoneInput& in, const std::string& digest);
/// OpError kNotFound for an unknown forget, kInvalidArgument when the target
/// is a restore, kConflict when the forget was already restored.
ForgetOutcome Restore(Db& db, const Clock& clock, const std::string& store_name,
                      const TombstoneInput& in);

/// A version that arrived from elsewhere than a forget's store or a write
/// here (a memory file's next version, an entry a device pushed to its hub):
/// the forgets in effect that cover its chain by the rules from their
/// targets cover it too: those covering an earlier version, one targeting
/// any version (a forget that came before the version it targets), one
/// targeting an event it cites (rule 2), with every event the chain cites;
/// then the chain and those events are decided again, so that a version
/// whose sources are all hidden here is hidden on arrival (rule 3) and what
/// a forget hid stays hidden as the chain grows (invariant 2).  A restore
/// of such a forget brings the chain back at its latest version.  In the
/// caller's transaction.
void CoverArrival(Db& db, const std::string& version);

/// The events that arrived after `after_seq` (this transaction's) in a
/// session a forget in effect targets, or that such a forget targets
/// itself (one that reached this store first): it covers them directly, and
/// they, and the chains they leave without a visible source, are hidden on
/// arrival (invariant 2).  In the caller's transaction.
void CoverSessionArrivals(Db& db, std::int64_t after_seq);

struct TombstoneRow {
  std::string id, kind, target, reason;
  std::int64_t created_at = 0;
  std::string origin;
  std::optional<std::string> author;
  // A forget's:
  std::optional<std::string> restored_by;
  bool in_effect = false;
  std::int64_t entries = 0, events = 0;  // what it covers here
  /// The erasure of what it covered (core/erase/erase.hpp), if any.
  struct Erasure {
    std::string id;
    std::optional<std::int64_t> done_at;  // unset while it is pending
    std::int64_t lines = 0, events = 0, entries = 0;
  };
  std::optional<Erasure> erasure;
};
/// Every forget and restore, newest first.
std::vector<TombstoneRow> ListTombstones(Db& db, int limit);
/// One forget or restore by its full id; nullopt when there is none.
std::optional<TombstoneRow> GetTombstone(Db& db, const std::string& id);

/// Whether this store hides `id` (an entry version, an event, or a
/// session): a forget in effect covers it here, or targets it, whether or
/// not this store holds it.  What a connected device checks of the hub's
/// answers (spec: MCP server; invariant 2).
bool HiddenHere(Db& db, const std::string& id);

}  // namespace origin
