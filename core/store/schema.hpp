// SPDX-License-Identifier: MIT
#pragma once
// The store's schema, its versioned migrations (PRAGMA user_version), and
// opening a connection with the settings every connection needs.
//
// A new store gets kSchemaSql and the latest version in one transaction.  An
// older store runs each migration it lacks, in order, each in its own
// BEGIN IMMEDIATE transaction that also records its version; the version is
// read again under the lock, so concurrent openers run each migration once.
// A store of a newer Origin is refused before anything changes.  After the
// migrations, kIdempotentSql runs on every open.
//
// Thread affinity: none; each function works on the connection it is given.

#include <functional>
#include <string>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

/// The version this build writes.  2: event_cjk holds every CJK letter.
/// 3: the search indexes of events are in index.db only.  4: request_key
/// (core/store/request_keys.hpp).
inline constexpr int kSchemaVersion = 4;
/// The version kSchemaSql is: a new store starts there and runs the
/// migrations after it.
inline constexpr int kBaseSchemaVersion = 3;

/// The schema of version kBaseSchemaVersion: tables, indexes, views, triggers.
extern const char* const kSchemaSql;
/// Statements run on every open (IF NOT EXISTS), for additions that existing
/// data needs nothing from.
extern const char* const kIdempotentSql;

struct Migration {
  int version;                     // the version this migration brings the store to
  std::string name;                // named in errors
  std::function<void(Db&)> apply;  // runs inside the migration's transaction
};

/// The statement that adds to scope_block the blocks of the events with
/// seq > ?1.
inline constexpr const char* kAddScopeBlocksSql =
    "INSERT OR IGNORE INTO scope_block(scope, block) "
    "SELECT DISTINCT 'project:' || project, seq >> 12 FROM event "
    "WHERE seq > ?1 AND project IS NOT NULL "
    "UNION SELECT DISTINCT 'source:' || source, seq >> 12 FROM event WHERE seq > ?1";
/// The migrations of this build, oldest first (none yet: version 1 is the base).
const std::vector<Migration>& Migrations();

/// Registers origin_cjk() (CjkTokens as SQL) and origin_bm25 (search's
/// ranking, core/store/fts_rank.hpp) on `db`.  Readers need the second; the
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

/// Migrates an open connection to `target_version`.
void Migrate(Db& db, const std::vector<Migration>& migrations, int target_version);

/// The schema as SQLite records it: sorted "type name sql" lines, for
/// comparing an upgraded store with a new one.
std::string DumpSchema(Db& db);

}  // namespace origin
