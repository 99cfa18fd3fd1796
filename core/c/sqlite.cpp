// SPDX-License-Identifier: MIT
#include "core/c/sqlite.hpp"

#include <cstdio>

namespace origin {

namespace {
[[noreturn]] void Throw(sqlite3* db, int rc, std::string_view what) {
  std::string msg(what);
  msg += ": ";
  msg += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw SqliteError(rc, msg);
}
}  // namespace

Stmt::Stmt(sqlite3* db, std::string_view sql) {
  int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) Throw(db, rc, "prepare " + std::string(sql.substr(0, 80)));
}

bool Stmt::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const char* sql = sqlite3_sql(stmt_);
  Throw(db(), rc, "step " + std::string(sql != nullptr ? std::string_view(sql).substr(0, 80) : ""));
}

void Stmt::Check(int rc, const char* what) const {
  if (rc != SQLITE_OK) Throw(db(), rc, what);
}

Stmt& Stmt::Bind(int i, std::int64_t v) {
  Check(sqlite3_bind_int64(stmt_, i, v), "bind");
  return *this;
}
Stmt& Stmt::Bind(int i, double v) {
  Check(sqlite3_bind_double(stmt_, i, v), "bind");
  return *this;
}
Stmt& Stmt::Bind(int i, std::string_view v) {
  Check(sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8), "bind");
  return *this;
}
Stmt& Stmt::BindStatic(int i, std::string_view v) {
  Check(sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_STATIC, SQLITE_UTF8), "bind");
  return *this;
}
Stmt& Stmt::Bind(int i, std::nullptr_t) {
  Check(sqlite3_bind_null(stmt_, i), "bind");
  return *this;
}
Stmt& Stmt::BindBlob(int i, const void* data, std::size_t n) {
  Check(sqlite3_bind_blob64(stmt_, i, data, n, SQLITE_TRANSIENT), "bind");
  return *this;
}

std::string_view Stmt::Text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (p == nullptr) return {};
  return {p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))};
}
std::string_view Stmt::Blob(int col) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
  if (p == nullptr) return {};
  return {p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))};
}

Db::Db(const std::string& path, Mode mode) : path_(path) {
  int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
  flags |= mode == Mode::kReadWrite ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
                                    : SQLITE_OPEN_READONLY;
  std::string name = path;
  if (mode == Mode::kImmutable) {
    // A URI: the characters URIs give a meaning to are escaped.
    name = "file:";
    for (char c : path) {
      if (c == '%' || c == '?' || c == '#') {
        char esc[4];
        std::snprintf(esc, sizeof esc, "%%%02X", static_cast<unsigned char>(c));
        name += esc;
      } else {
        name += c;
      }
    }
    name += "?immutable=1";
    flags |= SQLITE_OPEN_URI;
  }
  int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg =
        "open " + path + ": " + (db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc));
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw SqliteError(rc, msg);
  }
  sqlite3_extended_result_codes(db_, 1);
}

Db::~Db() {
  cache_.clear();  // statements must be finalized before the connection
  sqlite3_close_v2(db_);
}

void Db::Exec(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg =
        "exec " + s.substr(0, 80) + ": " + (err != nullptr ? err : sqlite3_errstr(rc));
    sqlite3_free(err);
    throw SqliteError(rc, msg);
  }
}

StmtLease Db::Prepare(std::string_view sql) {
  std::vector<std::unique_ptr<Cached>>& pool = cache_[std::string(sql)];
  for (const std::unique_ptr<Cached>& c : pool)
    if (!c->leased) {
      c->leased = true;
      return StmtLease(&c->stmt, &c->leased, nullptr);
    }
  if (pool.size() >= kPoolPerSql) {
    auto own = std::make_unique<Stmt>(db_, sql);
    Stmt* st = own.get();
    return StmtLease(st, nullptr, std::move(own));
  }
  pool.push_back(std::make_unique<Cached>(Cached{Stmt(db_, sql)}));
  pool.back()->leased = true;
  return StmtLease(&pool.back()->stmt, &pool.back()->leased, nullptr);
}

std::int64_t Db::QueryInt(std::string_view sql) {
  Stmt st(db_, sql);
  return st.Step() ? st.Int(0) : 0;
}

namespace {
// One name for every savepoint: RELEASE and ROLLBACK TO act on the most
// recent savepoint of that name, which is this scope's (nesting is by scope).
constexpr const char* kSavepoint = "origin_nested";
}  // namespace

SecureDelete::SecureDelete(Db& db) : db_(db), was_(db.QueryInt("PRAGMA secure_delete")) {
  db_.Exec("PRAGMA secure_delete = ON");
}

SecureDelete::~SecureDelete() {
  try {
    db_.Exec("PRAGMA secure_delete = " + std::to_string(was_));
  } catch (...) {  // a pragma of the connection's own: nothing to undo
  }
}

ReadSnapshot::ReadSnapshot(Db& db, bool wanted) {
  if (!wanted || db.InTransaction()) return;
  db.Exec("BEGIN");
  db_ = &db;
}

ReadSnapshot::~ReadSnapshot() {
  if (db_ != nullptr && db_->InTransaction())
    sqlite3_exec(db_->get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

Transaction::Transaction(Db& db) : db_(&db), nested_(db.InTransaction()) {
  db.Exec(nested_ ? std::string("SAVEPOINT ") + kSavepoint : std::string("BEGIN IMMEDIATE"));
}

Transaction::~Transaction() {
  // An error such as SQLITE_FULL may have rolled the whole transaction back
  // already (sqlite3_get_autocommit(3)): then there is nothing to undo.
  if (db_ == nullptr || !db_->InTransaction()) return;
  if (nested_) {
    // ROLLBACK TO leaves the savepoint open; RELEASE then ends it.
    std::string sql = std::string("ROLLBACK TO ") + kSavepoint + "; RELEASE " + kSavepoint;
    sqlite3_exec(db_->get(), sql.c_str(), nullptr, nullptr, nullptr);
  } else {
    sqlite3_exec(db_->get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void Transaction::Commit() {
  db_->Exec(nested_ ? std::string("RELEASE ") + kSavepoint : std::string("COMMIT"));
  db_ = nullptr;
}

namespace {

std::string QuoteName(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Whether a "NULL value in T.C" line is SQLite 3.40's false report: no row
// of T holds NULL in C.  Any doubt (a name that does not parse) keeps it.
bool FalseNullReport(Db& db, const std::string& schema, std::string_view line) {
  constexpr std::string_view kPrefix = "NULL value in ";
  if (line.substr(0, kPrefix.size()) != kPrefix) return false;
  const std::string_view what = line.substr(kPrefix.size());
  const std::size_t dot = what.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == what.size()) return false;
  try {
    StmtLease st = db.Prepare("SELECT EXISTS (SELECT 1 FROM " + QuoteName(schema) + "." +
                              QuoteName(what.substr(0, dot)) + " WHERE " +
                              QuoteName(what.substr(dot + 1)) + " IS NULL)");
    return st.Step() && st.Int(0) == 0;
  } catch (const SqliteError&) {
    return false;
  }
}

}  // namespace

bool StopSqliteMemoryCount() { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK; }

std::vector<std::string> QuickCheck(Db& db, const std::string& schema, int max_problems) {
  std::vector<std::string> lines;
  {
    StmtLease st = db.Prepare("PRAGMA " + QuoteName(schema) + ".quick_check(" +
                              std::to_string(max_problems) + ")");
    while (st.Step()) {
      std::string row(st.Text(0));
      if (row != "ok") lines.push_back(std::move(row));
    }
  }
  std::vector<std::string> out;
  for (std::string& l : lines)
    if (!FalseNullReport(db, schema, l)) out.push_back(std::move(l));
  return out;
}

}  // namespace origin
