// SPDX-License-Identifier: MIT
#pragma once
// A hub's side of replication (spec: Personal hub, Replication): what the
// replication API (daemon/http/replication.cpp) reads and writes for a
// device.  Raw mirrors arrive through Ingester::IngestRemote
// (core/ingest/remote.cpp); this file says where each of a device's files
// stands.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"

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

}  // namespace origin
