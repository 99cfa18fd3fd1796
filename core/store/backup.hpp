// SPDX-License-Identifier: MIT
#pragma once
// origin backup DIR (spec: Storage, Backups): a consistent copy of a live
// store, made while it is written.  The database is copied with SQLite's
// online backup in one step (one read snapshot), index.db first and then
// origin.db, so that the copied index never runs ahead of the copied events;
// then the mirrors as that snapshot records them: the frames of <mirror>.zst
// the directory does not hold yet (frames are never rewritten, so they are
// copied as bytes from the live file), and each open tail, read through
// MirrorStore::ReadRange by content offsets (a tail sealed since is read from
// its frames: the content only grows).  DIR is then a store of its own.
//
// Incremental: the database DIR holds already (the previous backup) says
// which frames and tail bytes DIR holds; only what follows is copied, and a
// tail whose start moved (frames were sealed from it since) is written again.
// The database is copied whole each time (SQLite's backup has no increments).
//
// Never a broken backup: everything new is written beside what DIR holds
// (appended past what its database records, which readers ignore, or as
// `.next` files), synced, and only then swapped in: a marker (backup.swap)
// lists the tails to rename, origin.db.next is renamed over origin.db, the
// tails after it, and the marker goes.  A backup interrupted anywhere is
// completed or undone by the next one (Recover).  DIR is locked as the daemon
// locks its home (flock on the directory), so no daemon runs on it meanwhile.
//
// Runs on a reader of the live store (its connection, with index.db attached
// as `idx`); writes only under DIR.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/store/mirror.hpp"

namespace origin {

struct BackupReport {
  std::string dir;                   // resolved
  bool incremental = false;          // DIR held a backup of this store
  std::int64_t db_bytes = 0;         // origin.db and index.db as copied
  std::int64_t mirrors = 0;          // in the snapshot
  std::int64_t mirrors_changed = 0;  // that had something to copy
  std::int64_t frames_copied = 0;
  std::int64_t frame_bytes = 0;
  std::int64_t tails_written = 0;  // appended to or written again
  std::int64_t tail_bytes = 0;
  std::int64_t files_written = 0;  // every file created or written to, databases included
  std::int64_t bytes_written = 0;  // every byte written under DIR
  std::int64_t events = 0;         // in the snapshot
  std::int64_t max_seq = 0;
  std::vector<std::string> problems;  // mirrors of the live store that could not be copied
};

struct BackupProgress {
  std::int64_t mirrors_done = 0, mirrors_total = 0;
};

/// Backs up the store `live` (a read connection with index.db attached as
/// `idx`; its mirrors `mirrors`) into `dir`.  `home` is the live store's
/// directory: DIR may be neither inside it nor hold it.  Throws OpError
/// (invalid_argument) for a DIR that cannot be used, with what to do.
BackupReport Backup(Db& live, MirrorStore& mirrors, const std::string& home, const std::string& dir,
                    const std::function<void(const BackupProgress&)>& progress = {});

}  // namespace origin
