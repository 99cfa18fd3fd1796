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

}  // namespace origin
