// SPDX-License-Identifier: MIT
#pragma once
// Entries (spec: Entries): durable memory / knowledge / cognition
// statements with their sources, written by remember, changed only by
// correct, which inserts a new version that supersedes the current one
// (invariant 3).  All versions of an entry share its root and form its
// chain; the current version is the one with the greatest (created_at, id),
// which resolves forks from concurrent corrections the same way on every
// store.  Every entry cites at least one event (invariant 1).
//
// Status is derived when read, never stored: active (the current version)
// or superseded (with superseded_by; `concurrent` when nothing corrects it,
// having lost to a concurrent correction); `ended` once valid_to has passed.
// Hidden versions (invariant 2, core/forget) are left out of every list;
// asking for one by id, or correcting one, throws OpError kForgotten, and a
// hidden event cannot be cited.  A visible entry lists only its visible
// sources.
//
// A source given by a quote alone is resolved to its event first, by
// ResolveQuotes on a reader (it searches); Remember and Correct refuse one
// that arrives unresolved.
//
// Writes run on the writer's connection, each in one BEGIN IMMEDIATE
// transaction (a savepoint inside a caller's, e.g. AnswerOnce's); reads on
// any connection.  Entries use core/query (quotes) and core/store (what is
// hidden: core/store/visible.hpp), never core/forget, which is above them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/query/terms.hpp"
#include "core/util/clock.hpp"

namespace origin {

struct EntrySource {
  std::optional<std::string> event_id;
  std::optional<std::string> quote;
};

struct RememberInput {
  std::string kind;  // memory | knowledge | cognition
  std::string text;
  double confidence = -1;  // [0, 1]; required
  std::string author;      // <agent>@<device>, user@<device> for people
  std::optional<std::string> project;  // none: the first cited event's project, if any
  std::optional<std::int64_t> valid_from, valid_to;  // ms UTC
  std::vector<EntrySource> sources;
  /// Where it comes from: cli, mcp or ui; an entry written from origin ui
  /// is recorded in audit_log (its id and counts, never its text).
  std::string channel = "cli";
};

/// What a correction changes; what it leaves unset carries over.
struct CorrectInput {
  std::optional<std::string> kind, text, project;
  std::optional<double> confidence;
  std::optional<std::int64_t> valid_from, valid_to;
  std::string author;
  std::vector<EntrySource> add_sources;
  std::string channel = "cli";  // as RememberInput's
};

struct EntryRow {
  std::string id, kind, text;
  double confidence = 0;
  std::string author;
  std::optional<std::string> project, supersedes;
  std::string root;
  std::optional<std::int64_t> valid_from, valid_to;
  std::int64_t created_at = 0;
  std::string origin;
  std::vector<EntrySource> sources;  // each with its event id, and the quote if one was given
  /// Between stores: the erasure that took its text and quotes (text '',
  /// no quote), when one did (core/erase; LoadEntryToSend).
  std::optional<std::string> erased;
  // Derived:
  std::string status;  // active | superseded
  std::optional<std::string> superseded_by;
  bool concurrent = false;  // superseded without being corrected
  bool ended = false;       // valid_to has passed
  bool imported = false;    // derived from an agent's memory file (imported_entry)
};

struct RememberResult {
  std::string id;          // the entry written, or the current one it repeats
  bool duplicate = false;  // true when nothing was written (see Remember)
};

/// Writes a new entry and returns its id.  Agents repeat themselves: when a
/// current entry (visible, the current version of its chain, not ended) has
/// the same text, kind and project and cites the same set of events, that
/// entry is returned with `duplicate` set and nothing is written.  Throws
/// OpError for invalid input or an unknown event.  `store_name` is fixed in
/// the store by the first write.
RememberResult Remember(Db& db, const Clock& clock, const std::string& store_name,
                        const RememberInput& in);
/// Supersedes the current version `id`; returns the new version's id.
/// OpError kConflict when `id` is not the current version.
std::string Correct(Db& db, const Clock& clock, const std::string& store_name,
                    const std::string& id, const CorrectInput& in);

std::optional<EntryRow> GetEntry(Db& db, const std::string& id, std::int64_t now_ms);
/// Every version of the chain, forks included, oldest first.
std::vector<EntryRow> EntryHistory(Db& db, const std::string& root, std::int64_t now_ms);

struct EntryFilter {
  bool history = false;  // every version, ended ones included
  std::optional<std::string> kind, project;
  int limit = 100;
};
/// Entries newest first: current versions whose validity has not ended,
/// unless history is asked for.
std::vector<EntryRow> ListEntries(Db& db, const EntryFilter& f, std::int64_t now_ms);

struct EntryHit {
  EntryRow entry;
  std::string snippet;  // up to 200 characters around the first match, matches in brackets
  SnippetMarks marks;   // where the snippet's matches are
};
/// Entries whose text holds every term of `query` (spec: Search and timeline,
/// entries): terms of three or more characters through entry_fts, ranked by
/// BM25 (ties newest first), shorter ones by checking the text; without a
/// term of three or more characters, newest first.  The filter's visibility
/// rules are those of ListEntries.  An empty query lists entries.
std::vector<EntryHit> SearchEntries(Db& db, std::string_view query, const EntryFilter& f,
                                    std::int64_t now_ms);

/// Gives every source that has a quote but no event id the event it quotes
/// (spec: Entries): the most recent message event containing it, else the
/// most recent tool result; tool calls never.  The quote's words are looked
/// up as a search does, and at most the newest kScanLimit events of each kind
/// holding all of them are checked.  OpError kNotFound when none holds it.
/// Run it on a connection with index.db attached; Remember and Correct then
/// take the sources with their ids.
void ResolveQuotes(Db& db, std::vector<EntrySource>& sources);

/// The name this store's entries and tombstones record as their origin: the
/// one it had when it first wrote one, else `name`, which it then keeps
/// (spec: Store names).  In the caller's write transaction.
std::string FixStoreName(Db& db, const std::string& name);
/// The name this store goes by: the one it fixed (FixStoreName), else
/// $ORIGIN_DEVICE, else the host name.  It fixes nothing.
std::string StoreNameOf(Db& db);
/// The current version of the chain whose first version is `root`: the
/// greatest (created_at, id); "" for an unknown root.
std::string CurrentVersion(Db& db, const std::string& root);

/// OpError kInvalidArgument unless `e`'s kind, text, confidence and validity
/// are what Remember and Correct take.
void CheckEntryFields(const EntryRow& e);
/// Inserts the version `e` as it is, with its sources (entries derived by
/// the store itself, core/entries/memories): no check beyond the schema's.
/// In the caller's transaction.  `index` false leaves its entry_fts row to
/// the caller, who must then call IndexEntriesAfter before its commit.
void InsertVersion(Db& db, const EntryRow& e, bool index = true);
/// The greatest entry.seq (0 without entries): what a batch of versions
/// inserted with `index` false follows.
std::int64_t LastEntrySeq(Db& db);
/// Writes entry_fts for every entry after `after` (LastEntrySeq before the
/// batch), in one statement.  An entry's own INSERT opens a statement
/// savepoint (entry has triggers and constraints), at which FTS5 writes out
/// the terms it holds as a segment: entries indexed one by one between
/// such inserts make a segment each, and a batch indexed after them makes
/// one (kEntryFtsInsertVersion; a hub applying pushed entries).
void IndexEntriesAfter(Db& db, std::int64_t after);
/// A version as stored (no derived fields), hidden or not; nothing when
/// there is no such version.
std::optional<EntryRow> LoadVersion(Db& db, const std::string& id);

/// Quote matching: `quote` occurs in `text`, whitespace and case ignored.
bool QuoteOccurs(std::string_view text, std::string_view quote);

/// entry_fts, the one FTS5 index origin.db keeps (entries are few, and a
/// remember must find its entry at once): FTS5's integrity-check, of the
/// index and against the entries (each entry's words, and one row per
/// entry), and when it fails, FTS5's 'rebuild' from the entries.  Returns
/// what was wrong, "" when nothing was.  Writer's connection.
std::string RepairEntryIndex(Db& db);

}  // namespace origin
