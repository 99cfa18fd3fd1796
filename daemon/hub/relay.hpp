// SPDX-License-Identifier: MIT
#pragma once
// A relay's sync (spec: Personal hub, Relays): step 1 sends its agents'
// new complete lines to the hub straight from their logs, as a device
// sends its mirrors; a relay has no entries or tombstones of its own
// (step 2), and pulls the hub's tombstones only to move its cursor
// (step 3).  On the hub thread, like a device's sync (sync.hpp).
//
// Each file's cursor (core/hub/relay.hpp) moves only once the hub has
// acknowledged a chunk.  Where the relay and the hub disagree (an answer
// lost on the way, a hub restored from a backup, a new relay store under a
// device name the hub knows), the relay goes on from the hub's cursor when
// the file has a line ending there (a generated stream: when its adapter's
// lines reach that offset), and sends the file as a new generation
// otherwise.  A file that shrank, or whose last 4 KiB sent changed, was
// rewritten: it goes as the next generation, and the hub keeps the old.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "daemon/hub/connection.hpp"
#include "core/ingest/adapter.hpp"
#include "daemon/hub/sync.hpp"

namespace origin::hub {

/// Sends what the hub lacks of every file the adapters discover, oldest
/// file first.  Throws Stopped when the hub cannot be reached or answers
/// something unexpected; a file it refuses (400, 413), or that cannot be
/// read, is reported in `report.refused` and the others still go.
void SendRelayFiles(Context& ctx, Http& http, const std::string& store, SyncReport& report);

/// What a relay has not sent yet, of one source (origin status): files
/// with complete lines the hub has not acknowledged, as far as a look
/// without reading them tells (a file's size past its cursor; a
/// compressed file or a generated stream that changed since its last
/// complete send counts whole), and the oldest of them.
struct RelayBacklog {
  std::string source;
  std::int64_t files = 0;
  std::int64_t bytes = 0;
  std::int64_t oldest_mtime_ms = 0;  // 0: none
  std::string oldest_path;
};
/// Reads the files' metadata (any thread but the loop) and the cursors in
/// `db`.
std::vector<RelayBacklog> ReadRelayBacklog(
    const std::vector<std::unique_ptr<SourceAdapter>>& adapters, Db& db);

/// The warnings before an agent's own cleanup can lose what the hub has
/// not received (spec: Relays, Warning before cleanup), judged by the
/// oldest unsent file's modification time: for Claude Code, within a week
/// of cleanupPeriodDays (read from settings.json beside its projects
/// directory, 30 days when not set), or past half of it when that is
/// shorter than two weeks; for the agents whose retention is not known,
/// once the file is a week old and no sync has finished for a week.
std::vector<std::string> RelayWarnings(const std::vector<std::unique_ptr<SourceAdapter>>& adapters,
                                       const std::vector<RelayBacklog>& backlog,
                                       std::int64_t now_ms, std::int64_t last_sync_ms);
/// RelayWarnings as they stand now: the backlog read from `db` and the
/// agents' files, against the last sync that finished (on a worker).
std::vector<std::string> RelayWarningsNow(const Context& ctx, Db& db);

}  // namespace origin::hub
