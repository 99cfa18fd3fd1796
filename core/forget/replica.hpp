// SPDX-License-Identifier: MIT
#pragma once
// Forgets and restores between stores (spec: Forgetting, "Across stores";
// Personal hub, Replication steps 2 and 3; invariant 2).
//
// A tombstone keeps its id, target, reason, time, origin and author on
// every store.  A store applies a forget by the rules to the data it holds
// (direct), and covers what the sender listed, as far as it knows those
// ids: on a hub, what the device that made the forget reported
// (`reported`), on a device, what its hub listed (`listed`); each list
// replaces its sender's last one, since each judges rule 3 for the entries
// it holds and withdraws a decision after a restore.  A restore lifts its forget; one whose forget is not
// here yet is kept by a hub, which logs it again once the forget arrives,
// and skipped by a device, which receives it again then.  Applying a
// tombstone twice changes nothing but the coverage its sender lists.
//
// What a forget covers is sent as what it covers here now: its items that
// are hidden while it is in effect.  When that changes (a version or an
// event arrived that it covers, a restore decided rule 3 again), the forget
// is logged again in change_log (forget_rules::RelogCoverage), so that a
// hub's feed sends every device the new list.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

struct ReplicaTombstone {
  std::string id;      // tmb_…
  std::string target;  // forget: an entry, event or session id; restore: a forget's id
  std::string reason;
  std::int64_t created_at = 0;
  std::string origin;
  std::optional<std::string> author;
  // A forget's coverage on the store that sends it.
  std::vector<std::string> entries, events;

  bool IsRestore() const { return target.starts_with("tmb_"); }
};

/// An erasure (core/erase/erase.hpp) as stores send it: the record, never
/// what it erased.  Each store that receives one erases what the forget
/// covers there (RunErasures), and its forget stays in effect for good
/// there: a restore made anywhere, before or after, changes nothing
/// (kForgetInEffect).
struct ReplicaErasure {
  std::string id;      // ers_…
  std::string forget;  // tmb_…
  std::string reason;
  std::string author;
  std::int64_t created_at = 0;
  std::string origin;  // the store that made it
};

/// What a forget made on another store covers on a device by the rules
/// (direct), beyond what its hub listed: items whose coverage comes from the
/// device's own data that the hub lacks.  A chain the device hid before
/// sending it is never sent (spec: Replication, step 2), so the hub cannot
/// know that a forget of one event it cites covers its other sources
/// (rule 2).  Covering only grows by the rules (data only accumulates), so
/// the hub adds a report to the forget's direct coverage, for good.
struct CoverageReport {
  std::string forget;  // tmb_…
  std::vector<std::string> entries, events;
};

/// Whose list a store applies: a device's (on its hub) or its hub's.
enum class ListedBy { kDevice, kHub };

/// Applies `tombstones` in order, then `erasures`, in one transaction.
/// Throws OpError kInvalidArgument for a malformed record (nothing
/// applied), kConflict (naming the id) for a different body under an id
/// this store holds.  Returns how many were applied (all of them).
/// `store` is this store's name: the entries it wrote that a restore
/// brings back are logged again.
///
/// An erasure is recorded pending, to be run here by RunErasures outside
/// this transaction, whether or not its forget is here yet (it runs once
/// the forget is); what its forget covers is hidden again at once if a
/// restore had brought it back.  One whose forget this store erased under
/// another id already (two stores erased it before either heard of the
/// other) is taken as applied: what goes is the same.
std::int64_t ApplyTombstones(Db& db, const std::string& store,
                             const std::vector<ReplicaTombstone>& tombstones, ListedBy from,
                             const std::vector<ReplicaErasure>& erasures = {});

/// Applies the reports `device` sent (on its hub), in one transaction: each
/// adds to the direct coverage of a forget held here the device's own items
/// it names (its events, here or to come, and its entries), decided at once;
/// one of a forget not held here, or of a restore, changes nothing.  Throws
/// OpError kInvalidArgument for a malformed one (nothing applied).  Returns
/// how many were applied (all of them).
std::int64_t ApplyReports(Db& db, const std::string& store, const std::string& device,
                          const std::vector<CoverageReport>& reports);

/// The SQL condition that forget `t` (a tombstone row named t), of an event
/// or an entry held here, covers here by the rules an item
/// (tombstone_effect row `d`, how = 'direct') hidden while it is in effect,
/// that its hub has not listed.
std::string UnlistedCoverage();

/// What a device reports of forget `id`, made on another store (above): the
/// items UnlistedCoverage gives; nullopt when there are none.
std::optional<CoverageReport> LoadCoverageReport(Db& db, const std::string& id);

/// Decides again what each erased forget that a restore targets covers, in
/// one transaction: a store that took such a restore before erasures won
/// over restores (format 16) hides that again.  Changes nothing on any
/// other store; run at the start.
void HideErasedAgain(Db& db, const std::string& store);

/// The erasure `id` as stores send it; nullopt for an unknown id.
std::optional<ReplicaErasure> LoadErasure(Db& db, const std::string& id);

/// What a forget covers here now: the entry versions and events it covers
/// that are hidden, while it is in effect; nothing for a restore or a
/// forget out of effect.  By this store's own judgement (its rules, and on
/// a hub its devices' reports), never by its hub's list: a device's report
/// that echoed the list back would keep a chain hidden on both for good.
void CoverageNow(Db& db, const std::string& forget, std::vector<std::string>* entries,
                 std::vector<std::string>* events);

/// One tombstone as the store holds it, with its coverage now; nullopt for
/// an unknown id.
std::optional<ReplicaTombstone> LoadTombstone(Db& db, const std::string& id);

/// A page of a hub's feed (GET /v1/tombstones): the tombstones and
/// erasures logged in change_log after `after`, but for the first logging
/// of those `device` created (it has them); each once, where it was logged
/// last in the page.
struct TombstoneFeed {
  std::vector<ReplicaTombstone> tombstones;
  std::vector<ReplicaErasure> erasures;  // done on the hub, but those `device` made
  std::int64_t next = 0;  // the sequence number to ask after next
  bool more = false;
};
TombstoneFeed TombstonesAfter(Db& db, std::int64_t after, std::string_view device,
                              std::size_t limit);

}  // namespace origin
