// SPDX-License-Identifier: MIT
#pragma once
// Erasure (issue 18): the explicit, recorded, irreversible exception to
// invariant 3, for secrets.  Forgetting hides; the raw line holding a leaked
// key stays in its mirror, the event's text in origin.db, its trigrams in
// index.db.  Erase takes a forget in effect and removes what it covers:
//
//   * every mirror line an event it covers was read from (and every line of
//     another generation of that file byte-identical to one) is replaced by
//     a filler of the same length (ErasedFiller), so that every other line
//     keeps its bytes, offset, number and event id
//     (MirrorStore::EraseLines: frames rewritten, old bytes zeroed);
//   * every event read from those lines keeps its row, id and provenance
//     but loses its text ('' : the one update migration 9 lets through);
//   * every entry version it covers loses its text and its quotes;
//   * every index entry of them: message_fts / event_fts / event_cjk in
//     index.db (FTS5's 'delete' with the original values, on the indexer's
//     thread, then 'optimize'), entry_fts ('delete', then 'optimize');
//   * then, with secure_delete, VACUUM and a WAL checkpoint that truncates,
//     so that no page of origin.db or its WAL still holds the text.
//
// Steps, so that a crash at any point leaves the old or the new state and
// the erasure can be taken up again (running erase again resumes it):
//   1. the erasure recorded, pending (done_at NULL), with the lines, events
//      and entries it covers: committed before anything is touched;
//   2. the mirrors (MirrorStore::EraseLines, idempotent);
//   3. index.db (each event deleted once: index_erased records it);
//   4. origin.db: texts, entry_fts, titles waiting, request answers; the
//      erasure done and audited; one transaction with secure_delete;
//   5. VACUUM and checkpoint(TRUNCATE) of origin.db.
//
// The erasure stays in effect: a later rewrite of the agent's file whose
// new generation brings an erased event's line again gets the filler there
// too (ingestion asks ErasedEventIds).  The forget it erased can no longer
// be restored.  Origin never writes into agents' directories: the answer
// lists the agent files that still hold the text, and backups are not
// touched.  Erase is for the owner only: the CLI, never an MCP tool.
//
// Writer thread, outside a transaction (it commits several).

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/store/mirror.hpp"
#include "core/util/clock.hpp"

namespace origin {

struct EraseInput {
  std::string forget;           // the forget whose coverage is erased (tmb_...)
  std::string reason;           // required, not blank; kept, never shown with text
  std::string author;           // user@<device>
  std::string channel = "cli";  // for the audit log
  bool dry_run = false;         // the preview: nothing written
  /// SourceAdapter::CursorOf of the adapter `source`: for a generated
  /// stream whose last line is erased, what Generate goes on from.  Null:
  /// none kept.
  std::function<std::string(const std::string& source, const std::string& key,
                            std::string_view line)>
      cursor_of;
  /// This store's name: the erasure's origin, sent with it to other
  /// stores.  Empty: none (a store that replicates nothing).
  std::string origin;
};

/// A mirror with lines to erase, and the agent's file it mirrors.
struct ErasedFile {
  std::int64_t file_id = 0;
  std::string mirror;                // under raw/
  std::string source;                // adapter id
  std::int64_t generation = 0;
  std::string path;                  // the agent's file, as last read
  bool path_exists = false;          // it is still there (and may hold the text)
  std::vector<std::int64_t> lines;   // 1-based, sorted
};

struct EraseOutcome {
  std::optional<std::string> erasure;  // its id, once recorded (not on a dry run)
  std::string forget;
  bool resumed = false;                // it took up a pending erasure
  std::vector<ErasedFile> files;
  std::vector<std::string> events;     // events whose text goes
  std::vector<std::string> entries;    // entry versions whose text goes
  std::int64_t frames = 0;             // sealed frames written again
  std::int64_t lines = 0;
  bool wal_truncated = false;          // origin.db's WAL emptied at the end (not on a dry run)
};

/// Erases the events of index.db that an erasure covers (their seqs), while
/// their text is still in origin.db; on the thread that owns the index.
/// Null when the store has no index.db to erase from.
using EraseFromIndex = std::function<void(const std::vector<std::int64_t>& seqs)>;

/// OpError kNotFound (no such tombstone), kInvalidArgument (a blank reason,
/// a restore), kConflict (the forget was restored, or is already erased).
EraseOutcome Erase(Db& db, MirrorStore& mirrors, const Clock& clock, const EraseInput& in,
                   const EraseFromIndex& index);

/// What RunErasures did: the erasures it ran, and those that failed (each
/// its id, forget and error), which stay pending and are run again by the
/// next call.
struct ErasureRuns {
  std::vector<EraseOutcome> done;
  std::vector<std::string> errors;
};
/// Runs every erasure that has something left to do here, each once, from
/// the oldest: one received from another store (core/forget/replica.hpp,
/// ApplyTombstones), whose step 1 plans what its forget covers on this
/// store, and which waits for its forget; one stopped midway (a crash, a
/// full disk), taken up from its recorded plan; and one done whose forget
/// has come to cover more since, of what was said before the erasure (by
/// the events' ts, the versions' created_at): a line or a version pushed
/// by a device that had not heard of the erasure yet, erased too under the
/// same erasure.  What a forgotten session goes on with after the erasure
/// is hidden, not erased (a live session would be erased line by line).  Then steps 2 to
/// 5 as for Erase.  `how` gives the channel and `cursor_of`; the rest
/// comes from each erasure's record.  Its forget is in effect whatever
/// restores it (kForgetInEffect), so that is not checked.  Writer thread,
/// outside a transaction.
ErasureRuns RunErasures(Db& db, MirrorStore& mirrors, const Clock& clock, const EraseInput& how,
                        const EraseFromIndex& index);

/// The erasure of forget `forget`, if any: its id, and whether it is done.
struct ErasureRef {
  std::string id;
  std::int64_t created_at = 0;
  bool done = false;
  std::int64_t seq = 0;  // its row's
  bool planned = false;  // its plan recorded (step 1 done here)
};
std::optional<ErasureRef> ErasureOf(Db& db, const std::string& forget);

/// Whether any event is erased (ingestion asks ErasedEventIds only then).
bool AnyErased(Db& db);
/// The erasure covering each of `ids` that one covers (ingestion: a line
/// that gives such an event is mirrored as a filler in a new generation
/// too), by event id.
std::map<std::string, std::string> ErasedEventIds(Db& db, const std::vector<std::string>& ids);

/// A line of a chunk to mirror as a filler: its offset in the chunk, its
/// length without the line break, and the erasure that covers it.
struct ErasedLine {
  std::size_t offset = 0, length = 0;
  std::string erasure;
};
/// `data` with those lines replaced by their fillers (ErasedFiller).
std::string WithFillers(std::string_view data, const std::vector<ErasedLine>& lines);

/// The cursor kept for line `line` of mirror `file_id`, a generated
/// stream's last line that is a filler (SourceAdapter::CursorOf); nullopt
/// when none is kept for it.
std::optional<std::string> ErasedLineCursor(Db& db, std::int64_t file_id, std::int64_t line);
/// Keeps `cursor` for line `line` of `file_id` (the stream's one cursor:
/// a later one replaces it).  Nothing for an empty cursor.
void KeepErasedLineCursor(Db& db, std::int64_t file_id, std::int64_t line,
                          const std::string& cursor);

}  // namespace origin
