// SPDX-License-Identifier: MIT
#pragma once
// RAII over the SQLite C API: a connection (Db), a prepared statement (Stmt)
// and a write transaction (Transaction), which nests as a savepoint.
//
// Thread affinity: a Db and its statements belong to the thread that uses
// them; nothing here locks.  Errors throw SqliteError, whose message names
// what was being done ("prepare ...: no such table: x").  The statement
// cache (Db::Prepare) keeps one statement per SQL text, so hot paths prepare
// once, and lends it out as a StmtLease, which resets it and clears its
// bindings when it goes out of scope: a statement left stepped keeps its
// read transaction (and so an old snapshot of a WAL database) open, and
// until leases a forgotten Reset() did exactly that.

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace origin {

class SqliteError : public std::runtime_error {
 public:
  SqliteError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const noexcept { return code_; }
  /// True for SQLITE_BUSY / SQLITE_LOCKED: another process holds the lock.
  bool busy() const noexcept {
    return (code_ & 0xff) == SQLITE_BUSY || (code_ & 0xff) == SQLITE_LOCKED;
  }

 private:
  int code_;
};

class Stmt {
 public:
  Stmt(sqlite3* db, std::string_view sql);  // throws SqliteError
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(Stmt&& o) noexcept : stmt_(std::exchange(o.stmt_, nullptr)) {}
  Stmt& operator=(Stmt&&) = delete;
  Stmt(const Stmt&) = delete;

  /// True when a row is ready, false at SQLITE_DONE; throws otherwise.
  bool Step();
  /// Step() to completion, for statements that return no rows.
  void Run() {
    while (Step()) {
    }
  }
  void Reset() noexcept {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  // Binding, 1-based as in SQLite.  Text and blobs are copied (SQLITE_TRANSIENT)
  // unless BindStatic is used, whose buffer must outlive the next Step/Reset.
  Stmt& Bind(int i, std::int64_t v);
  Stmt& Bind(int i, int v) { return Bind(i, static_cast<std::int64_t>(v)); }
  Stmt& Bind(int i, double v);
  Stmt& Bind(int i, std::string_view v);
  Stmt& Bind(int i, const char* v) { return Bind(i, std::string_view(v)); }
  Stmt& Bind(int i, const std::string& v) { return Bind(i, std::string_view(v)); }
  Stmt& Bind(int i, std::nullptr_t);
  Stmt& Bind(int i, const std::optional<std::string>& v) {
    return v ? Bind(i, std::string_view(*v)) : Bind(i, nullptr);
  }
  Stmt& BindBlob(int i, const void* data, std::size_t n);
  Stmt& BindStatic(int i, std::string_view v);

  std::int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  /// The text of a column; valid until the next Step/Reset.
  std::string_view Text(int col) const;
  std::optional<std::string> OptText(int col) const {
    if (IsNull(col)) return std::nullopt;
    return std::string(Text(col));
  }
  std::string_view Blob(int col) const;

  sqlite3_stmt* get() const noexcept { return stmt_; }

 private:
  sqlite3* db() const { return sqlite3_db_handle(stmt_); }
  void Check(int rc, const char* what) const;
  sqlite3_stmt* stmt_ = nullptr;
};

/// A cached statement lent out by Db::Prepare: reset, with its bindings
/// cleared, when the lease ends (so no read snapshot outlives it).  It
/// forwards Stmt's calls; Reset() resets it early, to use it again within
/// the lease.  Two leases of one SQL (an outer loop and a call inside it,
/// a search reading several chains with one statement each) get a statement
/// each, so that they never reset each other: up to kPoolPerSql statements
/// of one SQL are kept, a lease beyond them gets one of its own, finalized
/// with the lease.  Must not outlive its Db.
class StmtLease {
 public:
  StmtLease(StmtLease&& o) noexcept
      : st_(std::exchange(o.st_, nullptr)),
        leased_(std::exchange(o.leased_, nullptr)),
        owned_(std::move(o.owned_)) {}
  StmtLease& operator=(StmtLease&&) = delete;
  StmtLease(const StmtLease&) = delete;
  ~StmtLease() {
    if (st_ != nullptr) st_->Reset();
    if (leased_ != nullptr) *leased_ = false;
  }

  Stmt& operator*() const noexcept { return *st_; }
  Stmt* operator->() const noexcept { return st_; }
  operator Stmt&() const noexcept { return *st_; }  // NOLINT: a lease is used as its statement

  bool Step() { return st_->Step(); }
  void Run() { st_->Run(); }
  void Reset() noexcept { st_->Reset(); }
  template <typename T>
  Stmt& Bind(int i, T&& v) {
    return st_->Bind(i, std::forward<T>(v));
  }
  Stmt& BindBlob(int i, const void* data, std::size_t n) { return st_->BindBlob(i, data, n); }
  Stmt& BindStatic(int i, std::string_view v) { return st_->BindStatic(i, v); }
  std::int64_t Int(int col) const { return st_->Int(col); }
  double Double(int col) const { return st_->Double(col); }
  bool IsNull(int col) const { return st_->IsNull(col); }
  std::string_view Text(int col) const { return st_->Text(col); }
  std::optional<std::string> OptText(int col) const { return st_->OptText(col); }
  std::string_view Blob(int col) const { return st_->Blob(col); }
  sqlite3_stmt* get() const noexcept { return st_->get(); }

 private:
  friend class Db;
  StmtLease(Stmt* st, bool* leased, std::unique_ptr<Stmt> owned) noexcept
      : st_(st), leased_(leased), owned_(std::move(owned)) {}
  Stmt* st_;
  bool* leased_;                 // the cache's mark, cleared when the lease ends
  std::unique_ptr<Stmt> owned_;  // a second lease's own statement
};

class Db {
 public:
  /// kImmutable: read-only, as a file nothing changes (SQLite's immutable=1:
  /// no locks, no -wal or -shm created), for another program's database
  /// that has no write-ahead log at the moment.
  enum class Mode { kReadWrite, kReadOnly, kImmutable };
  /// Opens (creating when kReadWrite) the database at `path`.  Throws.
  Db(const std::string& path, Mode mode);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void Exec(std::string_view sql);
  /// A cached prepared statement, ready to bind, lent until the lease ends.
  [[nodiscard]] StmtLease Prepare(std::string_view sql);
  std::int64_t LastInsertRowid() const { return sqlite3_last_insert_rowid(db_); }
  int Changes() const { return sqlite3_changes(db_); }
  /// The value of a one-row, one-column query (NULL → 0).
  std::int64_t QueryInt(std::string_view sql);
  bool InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }
  sqlite3* get() const noexcept { return db_; }
  const std::string& path() const noexcept { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  struct Cached {
    Stmt stmt;
    bool leased = false;  // a StmtLease holds it
  };
  // Statements of one SQL kept for leases at once (a search's chains:
  // core/query/gather.hpp, Chains::kMaxChains).
  static constexpr std::size_t kPoolPerSql = 32;
  std::unordered_map<std::string, std::vector<std::unique_ptr<Cached>>> cache_;
};

/// BEGIN IMMEDIATE in the constructor (waiting up to the busy timeout for
/// the write lock); rolls back unless Commit() succeeded.
///
/// Nests: on a connection already in a transaction (another Transaction, or
/// a read transaction opened by hand) it is a SAVEPOINT instead, which
/// Commit() releases into the enclosing transaction and the destructor
/// rolls back to, leaving the enclosing transaction open.  So an operation
/// that writes in its own Transaction can run inside a caller's (AnswerOnce,
/// core/store/request_keys.hpp), and what it wrote stands or falls with the
/// caller's.  Nesting is strictly by scope: an inner Transaction ends before
/// the one around it.
class Transaction {
 public:
  explicit Transaction(Db& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  /// COMMIT, or RELEASE of the savepoint when nested.  Throws SqliteError;
  /// the destructor then still rolls back.
  void Commit();
  /// True when this is a savepoint inside an enclosing transaction.
  bool nested() const noexcept { return nested_; }

 private:
  Db* db_;
  bool nested_;
};

/// One read transaction while it lives, so that every statement of a read
/// sees one state of the store, and the WAL's read lock is taken once
/// rather than once a statement; none when `db` is in a transaction
/// already (the enclosing one is that state), or when not `wanted`.  Ends
/// it however the read ends (ROLLBACK: nothing was written).
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Db& db, bool wanted = true);
  ~ReadSnapshot();
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;

 private:
  Db* db_ = nullptr;  // set when this began the transaction
};

/// Turns `PRAGMA secure_delete` on for `db` while it lives, then puts back
/// the connection's setting as it was (on by default in Debian's build, so
/// that whatever the store deletes is zeroed: a step that needs it on must
/// not leave it off).
class SecureDelete {
 public:
  explicit SecureDelete(Db& db);
  ~SecureDelete();
  SecureDelete(const SecureDelete&) = delete;
  SecureDelete& operator=(const SecureDelete&) = delete;

 private:
  Db& db_;
  std::int64_t was_;
};

/// For a process of many threads, before its first connection: SQLite's
/// count of the memory it holds (on in Debian's build) takes one global
/// mutex at every allocation and free, which the readers, the writer and
/// the indexer all contend on, and costs a few percent of a search's CPU
/// even on one thread.  Nothing of Origin reads it (sqlite3_memory_used,
/// sqlite3_status64 and the heap limits go inert).  False when too late
/// (SQLite was initialized already).
bool StopSqliteMemoryCount();

/// SQLite's quick_check of `schema` ("main", or an attached name): what it
/// reports, at most `max_problems` lines, none when all is well.  SQLite
/// 3.40 reports "NULL value in T.C" for every NOT NULL column of a WITHOUT
/// ROWID table that is not in its primary key, whatever the rows hold
/// (fixed in 3.41): such a line is kept only when a row of T holds NULL in C.
std::vector<std::string> QuickCheck(Db& db, const std::string& schema, int max_problems);

}  // namespace origin
