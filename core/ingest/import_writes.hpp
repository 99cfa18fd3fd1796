// SPDX-License-Identifier: MIT
#pragma once
// How the writer's connection works during an import (a sync past
// SyncOptions::bulk_bytes), Ingester::Sync's two helpers:
//
// BulkCache: a larger page cache (kBulkCacheKib) until the sync ends.  Each
// event an import adds dirties a leaf of the event table's two indexes
// keyed by random values (event.id's unique index and ref): with SQLite's
// default cache of 2 MiB, those leaves are read from the OS again and
// again, a system call and a copy each.  32 MiB holds both indexes of
// about 400,000 events.  Given back at the sync's end, so that a daemon
// serving searches all day keeps the default cache and its memory.
//
// ImportGroup: the import's transactions (savepoints then) nested in one
// enclosing transaction, so that a random leaf that consecutive
// transactions dirty is written to the WAL once a group, not once a
// transaction.  A tail sealed inside the group is emptied only once the
// group is in (Defer, then MirrorStore::AfterCommit at End): until then
// the database the disk holds says the tail has its bytes.
//
// docs/performance.md, "Where the 1 GiB import's time goes" and "An
// import's transactions in groups"; docs/architecture.md, Ingestion.
// Thread affinity: the writer thread, which owns `db`.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/store/mirror.hpp"

namespace origin {

class BulkCache {
 public:
  explicit BulkCache(Db& db) : db_(db) {}
  ~BulkCache() { End(); }
  BulkCache(const BulkCache&) = delete;
  BulkCache& operator=(const BulkCache&) = delete;

  /// The larger cache from now on (once; only an optimisation: a failure
  /// leaves the cache as it was).
  void Begin() noexcept;
  /// The cache as it was, its pages freed and given back to the system.
  void End() noexcept;

 private:
  Db& db_;
  std::optional<std::int64_t> saved_;
};

class ImportGroup {
 public:
  /// `tail_limit`: where an append inside the group seals (Ingester).
  ImportGroup(Db& db, MirrorStore& mirrors, std::size_t tail_limit)
      : db_(db), mirrors_(mirrors), tail_limit_(tail_limit) {}
  /// Rolls an open group back; the tails sealed in it keep their bytes.
  ~ImportGroup() {
    if (tx_) Drop();
  }
  ImportGroup(const ImportGroup&) = delete;
  ImportGroup& operator=(const ImportGroup&) = delete;

  bool open() const { return tx_.has_value(); }
  /// The bytes read when the group opened.
  std::int64_t from() const { return from_; }
  std::size_t tail_limit() const { return tail_limit_; }
  /// An append committed inside the open group sealed its tail: the tail
  /// is emptied once the group is in.
  void Defer(const AppendResult& sealed) { after_.push_back(sealed); }
  /// A tail sealed in the group waits: the group must end before its
  /// file's next append.
  bool sealed() const { return !after_.empty(); }
  /// Opens a group (BEGIN IMMEDIATE) outside any transaction.
  void Open(std::int64_t read);
  /// Commits the open group, then empties the tails sealed in it; true
  /// when a group was open.  When the commit fails, the group is rolled
  /// back (by SQLite or here), its sealed tails keep their bytes, Lost()
  /// turns true, and it rethrows.
  bool End();
  /// The group's work is gone: its commit failed, or SQLite rolled the
  /// whole transaction back under it (a full disk, an I/O error:
  /// sqlite3_get_autocommit(3)).  Stays true.
  bool Lost();

 private:
  void Drop() noexcept;
  Db& db_;
  MirrorStore& mirrors_;
  const std::size_t tail_limit_;
  std::vector<AppendResult> after_;  // Defer's, for End
  std::optional<Transaction> tx_;  // rolled back by its destructor if still open
  std::int64_t from_ = 0;
  bool lost_ = false;
};

}  // namespace origin
