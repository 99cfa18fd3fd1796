// SPDX-License-Identifier: MIT
#pragma once
// A hub's side of replication (spec: Personal hub, Replication): what the
// replication API (daemon/http/replication.cpp) reads and writes for a
// device.  Raw mirrors arrive through Ingester::IngestRemote
// (core/ingest/remote.cpp); this file says where each of a device's files
// stands, and stores the entries a device pushes.  core/hub is the top
// layer of core: it uses ingest, forget and entries.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/entries/entries.hpp"

namespace origin {

/// The hub's cursor of one generation of a device's file.
struct RemoteCursor {
  std::string source;
  std::string rel_path;  // the file's key on the device
  std::string path;      // its path there, as last pushed
  std::int64_t generation = 1;
  std::int64_t bytes = 0;  // content received: the next chunk's offset
  std::int64_t lines = 0;
};

/// Every generation of every file `device` has pushed, by source, key and
/// generation.
std::vector<RemoteCursor> DeviceCursors(Db& db, std::string_view device);

/// What a device has pushed to this hub, for its status.
struct DeviceSummary {
  std::string name;
  std::int64_t files = 0;                        // its files (each generation once)
  std::int64_t bytes = 0;                        // log content received
  std::int64_t lines = 0;                        // complete lines received
  std::int64_t parse_errors = 0;                 // lines of them the adapters could not parse
  std::optional<std::int64_t> last_received_ms;  // when a file of it last grew
  std::string token;  // "active", "revoked" (every token of its name), or "" for none
};

/// Every device whose logs this store holds (keys "@<device>:..."), by name.
std::vector<DeviceSummary> DeviceSummaries(Db& db);

/// The most entries (and tombstones) one request may push.
inline constexpr std::size_t kMaxPushRecords = 1000;

/// What pushing entries did (spec: Replication step 2; POST /v1/entries).
struct PushedEntries {
  std::int64_t applied = 0;  // stored now, or already stored with the same body
  /// The first entry whose cited events or superseded version are not here
  /// yet, and their ids: nothing from it on was stored.
  struct Pending {
    std::string id;
    std::vector<std::string> missing;
  };
  std::optional<Pending> pending;
};

/// Stores the versions `entries` that `device` wrote, in order, under their
/// ids, authors and origins, in one transaction: each hidden on arrival
/// when a forget in effect here covers it or its sources (CoverArrival).
/// One already stored with the same body is taken as applied (a request
/// sent twice).  Throws OpError kInvalidArgument for a field Remember would
/// refuse or an origin other than `device`, kConflict (naming the id) for
/// a different body under an existing id; nothing is stored then.
PushedEntries ApplyPushedEntries(Db& db, std::string_view device,
                                 const std::vector<EntryRow>& entries);

/// A version as a store sends it: its fields and every source it cites,
/// hidden or not; nothing for an unknown id.
std::optional<EntryRow> LoadEntryToSend(Db& db, const std::string& id);

// A device's side (spec: Replication): what it sends its hub.

/// One generation of a file this store mirrors from its own agents' logs
/// (not one a device pushed to it).
struct LocalMirror {
  std::int64_t file_id = 0;
  std::string source, rel_path, path;
  std::int64_t generation = 1;
  std::int64_t bytes = 0;     // the mirror's content
  std::int64_t mtime_ms = 0;  // of the agent's file at the last look
};
/// Every one, in the order they last grew (arrival order follows time as
/// far as possible on the hub too).
std::vector<LocalMirror> LocalMirrors(Db& db);

/// A row of change_log to send: an entry, a tombstone or an erasure whose
/// origin is `store`, or a forget made elsewhere whose coverage here the
/// hub should hear of (kReport: LoadCoverageReport).
struct OwnChange {
  enum class Kind { kEntry, kTombstone, kErasure, kReport };
  std::int64_t seq = 0;
  Kind kind = Kind::kEntry;
  std::string id;
};
/// Those after `after`, at most `limit`, in change_log's order: hidden
/// entries and entries derived from native memories are left out (a
/// restore logs an entry again, and the hub derives the same ones).
/// `through` (when given) is set to the last row of change_log these rows
/// were looked for in: past it, none was left out (rows logged later come
/// after it), so a sender may move its cursor there once all was sent.
std::vector<OwnChange> OwnChangesAfter(Db& db, std::string_view store, std::int64_t after,
                                       std::size_t limit, std::int64_t* through = nullptr);

}  // namespace origin
