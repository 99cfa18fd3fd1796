// SPDX-License-Identifier: MIT
#pragma once
// A relay's store (spec: Personal hub, Relays): a device that keeps no
// memory of its own.  Its database holds no event, mirrored file, entry or
// tombstone; only `setting`: its name, its mode ("store.mode" = "relay"),
// its replication cursors, and one cursor per source file, saying how much
// of the file the hub has acknowledged.  The cursors are kept in `setting`
// rather than raw_file because a raw_file row stands for a mirror under
// raw/, which backups, sealing, storage totals and pushes all read.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

/// Whether this store is a relay.
bool IsRelay(Db& db);
/// What the store holds that keeps it from becoming a relay ("3 events,
/// 1 mirrored file"), "" when it holds nothing.
std::string WhatItHolds(Db& db);
/// Makes an empty store a relay, in one transaction; throws
/// OpError kInvalidArgument, saying what it holds and how to start an empty
/// one, for a store that holds anything.  A relay stays one: true when it
/// already was.
bool MakeRelay(Db& db, std::string_view home);

/// How much of one of its agents' files a relay's hub has acknowledged.
struct RelayCursor {
  std::string source, key;  // the adapter's id and the file's key (the hub's relPath)
  std::int64_t generation = 1;
  std::int64_t bytes = 0;  // of the file's content the hub holds: the next chunk's offset
  /// A file's: the SHA-256 (hex) of the last <= 4 KiB before `bytes`, which
  /// tells a rewrite.
  std::string hash;
  /// A generated stream's: the last line acknowledged (without its line
  /// break), from which its adapter goes on.
  std::string last_line;
  /// When the look that found nothing more to send saw it: a file's size
  /// and modification time, a generated stream's token; a file found so
  /// again is skipped without reading it.  Empty while lines remain.
  std::string seen;
  std::int64_t changed_ms = 0;  // when `bytes` last moved
};

std::optional<RelayCursor> LoadRelayCursor(Db& db, std::string_view source, std::string_view key);
void SaveRelayCursor(Db& db, const RelayCursor& c);
/// Every cursor, by source and key.
std::vector<RelayCursor> AllRelayCursors(Db& db);

}  // namespace origin
