// SPDX-License-Identifier: MIT
#pragma once
// event_fts, the trigram index of every event that records only which
// events contain each trigram (detail=none), kept in a database of its own,
// $ORIGIN_HOME/index.db, by a thread of its own.
//
// Why: FTS5's trigram tokenizer is what bounds ingestion (docs/performance.md);
// built on the writer thread, event_fts took a third of an import's time.
// Built beside it on the second core, it costs the writer nothing.
//
// It is derived data: event_fts is contentless (rowid = event.seq, the text
// stays in origin.db), and index_state records how far it has indexed
// (`upto`: every event with seq <= upto is in it, none after) and which store
// it indexes (the id of the first event).  CatchUp indexes what follows, in
// transactions of a few MiB of text.  The index may lag the store by what the
// writer committed since: a query reads event_fts for seq <= upto and checks
// the text of the newer events itself, so that every search stays exact.  An
// index that does not match its store (another origin.db put in place, or an
// older index format) is emptied and built again.
//
// Thread affinity: an EventIndex belongs to the thread that calls CatchUp.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/c/sqlite.hpp"

namespace origin {

inline constexpr int kIndexVersion = 1;

class EventIndex {
 public:
  /// Opens (creating) `index_path` for writing and `db_path` read-only.
  EventIndex(const std::string& index_path, const std::string& db_path);
  /// Indexes the events committed after `upto`, about `batch_bytes` of text
  /// per transaction, until none is left or `stop()` returns true.  Returns
  /// how many events it indexed.
  std::int64_t CatchUp(std::size_t batch_bytes = 4u << 20, const std::function<bool()>& stop = {});
  /// Every event with seq <= Upto() is indexed.
  std::int64_t Upto();
  /// MergeFtsStep on event_fts.
  bool MergeStep(int pages);

 private:
  void CheckStore();
  std::unique_ptr<Db> index_;
  std::unique_ptr<Db> store_;
};

/// One step of merging the segments of the FTS5 table `table` (e.g.
/// "message_fts", "idx.event_fts") towards a single one, about `pages`
/// pages of work in the caller's connection (FTS5's 'merge' command with a
/// negative count): a search then reads fewer segments.  Returns whether
/// there was work to do.  Run it on the connection that writes the table,
/// when idle.
bool MergeFtsStep(Db& db, const std::string& table, int pages);

/// Attaches index.db to a connection of origin.db as `idx` (read-only use).
void AttachIndex(Db& db, const std::string& index_path);
/// How far the index at `index_path` has indexed, from a connection that
/// attached it; 0 when it does not exist yet.
std::int64_t IndexedUpto(Db& db);

}  // namespace origin
