// SPDX-License-Identifier: MIT
#pragma once
// The store's schema, its numbered migrations (PRAGMA user_version), and
// opening a connection with the settings every connection needs.  The
// schema's text and the migrations are in migrations.cpp, the rest in
// schema.cpp.
//
// Everything in origin.db's schema is made by a numbered version: a new
// store gets kSchemaSql, which is version 3 (kBaseSchemaVersion) frozen,
// and then runs every migration after it, as a store of an older version
// runs every migration it lacks; so both end with the same schema, which the
// tests check against frozen copies of versions 1 and 3
// (tests/fixtures/schema/).  Each migration runs in its own BEGIN IMMEDIATE
// transaction that also records its version; the version is read again
// under the lock, so concurrent openers run each migration once.  A store
// of a newer Origin is refused before anything changes.  Nothing runs on
// every open.  index.db, derived data, has a version of its own
// (kIndexVersion, core/store/event_index.hpp).
//
// Thread affinity: none; each function works on the connection it is given.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

/// The version this build writes.  2: event_cjk holds every CJK letter.
/// 3: the search indexes of events are in index.db only.  4: request_key
/// (core/store/request_keys.hpp).  5: what every open made until then
/// (entries, forgetting, scope_block), now a version of its own.  6:
/// title_wait (core/ingest/leaf_titles.hpp), sessions' models derived again.
/// 7: session_cwd (a session's projects) and session.parent (issue 14).
/// 8: `ref`, the hashes of every id for short references
/// (core/store/refs.hpp).  9: erasure (core/erase/erase.hpp).  10:
/// generated_cursor (a generated stream whose last line is erased).  11:
/// api_token, a hub's access tokens (core/hub/tokens.hpp).  12:
/// change_log_id.  13: entry_fts written by the insert of an entry, not by
/// its trigger (kEntryFtsInsertVersion).  14: event_seq_ts holds each
/// event's length (kEventLengthVersion).  15: scope_block's blocks of
/// 256 arrivals (kScopeBlocksVersion).  16: an erasure's origin, and
/// erasures in change_log (kErasureOriginVersion).
inline constexpr int kSchemaVersion = 16;
/// The version that made title_wait and derived sessions' models again.
inline constexpr int kLeafTitlesVersion = 6;
/// The migration that derives sessions' projects (session_cwd) and parents
/// (session.parent) again (issue 14).
inline constexpr int kSessionProjectsVersion = 7;
/// The migration that made `ref` (short references).
inline constexpr int kRefsVersion = 8;
/// Erasure (core/erase): its tables, and the one update events and entries take.
inline constexpr int kErasureVersion = 9;
inline constexpr int kGeneratedCursorVersion = 10;
inline constexpr int kTokensVersion = 11;
/// change_log's rows of one id: a hub's feed of tombstones tells a first
/// logging from a later one (core/forget/replica.hpp).
inline constexpr int kChangeLogIdVersion = 12;
/// The trigger entry_insert no longer writes entry_fts: the insert of an
/// entry does, or its caller for a batch (core/entries, IndexEntriesAfter).
/// Every INSERT INTO entry opens a statement savepoint (its triggers and
/// constraints), at which FTS5 writes out the terms it holds as a segment:
/// entries indexed one by one make one segment each, a batch indexed after
/// its inserts one (docs/performance.md, pushing entries to a hub).
inline constexpr int kEntryFtsInsertVersion = 13;
/// event_seq_ts on (seq, ts, length(text)): a ranked search reads each
/// candidate message's timestamp there, and now its length in characters
/// with it, which gives its length in trigrams (one a character but the last
/// two) without FTS5's docsize lookup (core/store/fts_rank.hpp).
inline constexpr int kEventLengthVersion = 14;
/// scope_block lists blocks of 2^kScopeBlockBits arrivals, where it listed
/// blocks of 4,096: a project's or source's events, mostly contiguous, fill
/// few of the small blocks, so that a filtered search drops most of the
/// candidates of others by the block alone (origin_scope), before it reads
/// their rows (docs/performance.md).
inline constexpr int kScopeBlocksVersion = 15;
inline constexpr int kScopeBlockBits = 8;
/// Erasures replicate like tombstones (core/forget/replica.hpp): each has
/// the store that made it (`origin`) and is logged in change_log (kind
/// 'erasure') once done; one received from another store is planned here
/// when it runs (`planned` 0 until then).
inline constexpr int kErasureOriginVersion = 16;
/// The SQL of the scope_block block of the seq `seq` (a column or an
/// expression).
inline std::string ScopeBlockSql(std::string_view seq) {
  return std::string(seq) + " >> " + std::to_string(kScopeBlockBits);
}
/// The version kSchemaSql is: a new store starts there and runs the
/// migrations after it.
inline constexpr int kBaseSchemaVersion = 3;

/// The schema of version kBaseSchemaVersion: tables, indexes, triggers.
extern const char* const kSchemaSql;
/// The statement that makes entry_fts (migration 5), for RepairEntryIndex
/// to make it again after dropping it.
extern const char* const kEntryFtsSql;

struct Migration {
  int version;                     // the version this migration brings the store to
  std::string name;                // named in errors
  std::function<void(Db&)> apply;  // runs inside the migration's transaction
};

/// The migrations of this build, oldest first: 2 and 3 bring a store of
/// version 1 to the base, 4 and after bring every store to kSchemaVersion.
const std::vector<Migration>& Migrations();

/// Registers origin_cjk() (CjkTokens as SQL), origin_bm25 (search's
/// ranking, core/store/fts_rank.hpp) and origin_ref() (the hash of an id,
/// which the triggers of `ref` call; core/store/refs.hpp) on `db`.  Readers need the second; the
/// first is called only by the event trigger of a store of format 2 or
/// before, until its migration to 3 drops that trigger.
void RegisterFunctions(Db& db);

/// Opens `path` for writing with WAL, the busy timeout, journal_size_limit
/// and synchronous=FULL, registers the functions, and migrates it with
/// `migrations` (default: this build's).  Throws SqliteError or
/// std::runtime_error ("store version N is newer than this Origin ...").
std::unique_ptr<Db> OpenWriteConnection(const std::string& path,
                                        const std::vector<Migration>& migrations = Migrations(),
                                        int target_version = kSchemaVersion);
/// Opens `path` read-only (WAL readers never wait for the writer).
std::unique_ptr<Db> OpenReadConnection(const std::string& path);

/// A value of `setting`, small state local to this store and never
/// replicated (the store's name, a device's cursors); nullopt when unset.
std::optional<std::string> GetSetting(Db& db, const std::string& key);
void PutSetting(Db& db, const std::string& key, const std::string& value);

/// Migrates an open connection to `target_version`.
void Migrate(Db& db, const std::vector<Migration>& migrations, int target_version);

/// The schema as SQLite records it: sorted "type name sql" lines, for
/// comparing an upgraded store with a new one.
std::string DumpSchema(Db& db);

}  // namespace origin
