// SPDX-License-Identifier: MIT
#pragma once
// The search indexes of events, kept in a database of their own,
// $ORIGIN_HOME/index.db, by a thread of its own:
//
//   event_fts    the text of every other event (tool calls and results,
//                meta), trigrams, detail=none (which events hold a trigram,
//                nothing more)
//   message_fts  the text of message events, trigrams, detail=full (phrases
//                and BM25 ranking)
//   event_cjk    every event's CJK letters and pairs (origin_cjk), for terms
//                of one or two CJK letters
//
// Why apart: FTS5's trigram tokenizer is what bounds ingestion
// (docs/performance.md); built beside the writer on the second core, the
// indexes cost the writer nothing.  And they are derived data, so that an
// index in trouble can never stop events from being stored: origin.db holds
// no index of events that an INSERT INTO event would have to update.
//
// The tables are contentless (rowid = event.seq, the text stays in
// origin.db), and index_state records how far they have indexed (`upto`:
// every event with seq <= upto is in all three, none after) and which store
// they index (the id of the first event).  CatchUp indexes what follows, in
// transactions of a few MiB of text.  The indexes may lag the store by what
// the writer committed since: a query reads them for seq <= upto and checks
// the text of the newer events itself, so that every search stays exact.
// An index that does not match its store (another origin.db put in place,
// or an older index format) is emptied and built again.
//
// Health: SQLite 3.40's FTS5 corrupts an index after a few thousand small
// transactions when 'merge' is given a negative count, so merges here only
// ever use a positive one (with usermerge 2: any two segments of a level are
// merged), and every FTS5 command issued here has a stress test of its own
// against the SQLite we link (tests/unit/core/fts5_commands_test.cpp).
// Should an index still break (a disk error, a bug of SQLite, a file
// damaged by hand), Check() finds it with FTS5's integrity-check and
// Rebuild() empties every table, after which CatchUp builds them again from
// the events while searches read the events directly.
//
// Thread affinity: an EventIndex belongs to the thread that calls CatchUp;
// Interrupt() alone may be called from any thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

/// index.db's format, in its own PRAGMA user_version; its history:
///   1  event_fts alone (message_fts and event_cjk were in origin.db)
///   2  message_fts and event_cjk moved here from origin.db (store format 3)
///   3  event_fts holds only the events message_fts does not (until 2: every
///      event), so that what a search of tool events reads is theirs alone
/// Unlike origin.db, index.db has no migrations, on purpose: it holds only
/// what CatchUp derives from the events, so a change of its format is a
/// change of what is derived (a tokenizer, a table), which migrating in
/// place would have to compute anyway.  An index.db of any other version,
/// older or newer, has its tables dropped and is built again from the
/// events in the background (CreateTables), while searches read the events.
inline constexpr int kIndexVersion = 3;

/// The FTS5 tables of index.db.
inline constexpr const char* kEventIndexTables[] = {"event_fts", "message_fts", "event_cjk"};

class EventIndex {
 public:
  /// Opens (creating) `index_path` for writing and `db_path` read-only.  A
  /// file that is no database at all is put aside (index.db.broken) and made
  /// anew.
  EventIndex(const std::string& index_path, const std::string& db_path);
  /// Indexes the events committed after `upto`, about `batch_bytes` of text
  /// per transaction, until none is left or `stop()` returns true.  Returns
  /// how many events it indexed.
  std::int64_t CatchUp(std::size_t batch_bytes = 4u << 20, const std::function<bool()>& stop = {});
  /// Every event with seq <= Upto() is indexed.
  std::int64_t Upto();
  /// One merge step on each table (MergeFtsStep); whether any had work.
  bool MergeStep(int pages);
  /// FTS5's integrity-check of every table: "" when all hold, else the
  /// damage found.  Throws SqliteError for anything else (interrupted,
  /// busy, a full disk): no verdict.
  std::string Check();
  /// Empties every table and forgets how far it had indexed: CatchUp then
  /// builds the indexes again from the events.
  void Rebuild();
  /// Erasure (core/erase/erase.hpp): removes the events `seqs` from every
  /// table, with FTS5's 'delete' and the values they were indexed with
  /// (their text, still in origin.db), each once (index_erased records
  /// them, so that an erasure taken up again deletes nothing twice); then
  /// 'optimize', so that no segment keeps their tokens, with secure_delete
  /// on, and a checkpoint that truncates the WAL.  An index found damaged
  /// is emptied instead (Rebuild).
  void EraseEvents(const std::vector<std::int64_t>& seqs);
  /// Makes what runs on the index now, and whatever is started after, stop
  /// with SQLITE_INTERRUPT (for good: at shutdown).  Thread-safe.
  void Interrupt();
  /// The index's connection, for its owner's thread: tests read its
  /// settings through it.
  Db& connection() { return *index_; }

 private:
  void Create();
  void CreateTables();  // inside a transaction
  void CheckStore();
  std::unique_ptr<Db> index_;
  std::unique_ptr<Db> store_;
  std::atomic<bool> interrupted_{false};
};

/// One step of merging the segments of the FTS5 table `table` (e.g.
/// "entry_fts", "idx.event_fts"), about `pages` pages of work in the
/// caller's connection: a search then reads fewer segments.  Always FTS5's
/// 'merge' with a positive count (a negative one corrupts indexes on SQLite
/// 3.40), which merges the segments of any level holding `usermerge` of
/// them.  Returns whether there was work to do.  Run it on the connection
/// that writes the table, when idle.
bool MergeFtsStep(Db& db, const std::string& table, int pages);

/// Drops the FTS5 table `name` of `db`, inside the caller's transaction,
/// even when it is too damaged to be opened (then its schema row is removed
/// by hand, with its shadow tables).
void DropFts5Table(Db& db, const std::string& name);

/// Whether `e` says that a database or one of its FTS5 tables is damaged
/// (SQLITE_CORRUPT, "malformed", an FTS5 table that cannot be opened).
bool IsCorruption(const SqliteError& e);

/// Attaches index.db to a connection of origin.db as `idx` (read-only use).
void AttachIndex(Db& db, const std::string& index_path);
/// How far the index at `index_path` has indexed, from a connection that
/// attached it; 0 when it does not exist yet.
std::int64_t IndexedUpto(Db& db);

}  // namespace origin
