// SPDX-License-Identifier: MIT
#include "core/store/schema.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/store/fts_rank.hpp"
#include "core/store/message_stamps.hpp"
#include "core/store/refs.hpp"
#include "core/util/text.hpp"

namespace origin {

namespace {

void CjkFunction(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  if (argc != 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
    return;
  }
  try {
    const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    std::string_view text(p, static_cast<std::size_t>(sqlite3_value_bytes(argv[0])));
    std::string out = CjkTokens(text);
    sqlite3_result_text64(ctx, out.data(), out.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  } catch (...) {
    sqlite3_result_error_nomem(ctx);
  }
}

int UserVersion(Db& db) { return static_cast<int>(db.QueryInt("PRAGMA user_version")); }

bool HasTable(Db& db, const char* name) {
  Stmt st(db.get(), "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  st.Bind(1, name);
  return st.Step();
}

}  // namespace

void RegisterFunctions(Db& db) {
  int rc = sqlite3_create_function_v2(db.get(), "origin_cjk", 1,
                                      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                      nullptr, CjkFunction, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) throw SqliteError(rc, "register origin_cjk");
  RegisterFtsRank(db);
  RegisterMessageStamps(db);
  RegisterRefFunction(db);
}

void Migrate(Db& db, const std::vector<Migration>& migrations, int target_version) {
  // Migrations may wait for another process's migration: up to 5 minutes.
  db.Exec("PRAGMA busy_timeout = 300000");
  auto refuse_newer = [&](int v) {
    if (v > target_version)
      throw std::runtime_error("store " + db.path() + " has format version " + std::to_string(v) +
                               ", newer than this Origin (" + std::to_string(target_version) +
                               "): upgrade Origin to open it");
  };
  int v = UserVersion(db);
  refuse_newer(v);
  if (v < target_version) {
    Transaction tx(db);
    v = UserVersion(db);  // again, now that the lock is held
    refuse_newer(v);
    if (v == 0) {
      if (HasTable(db, "event")) {
        v = 1;  // a store that recorded no version: the tables of version 1
        db.Exec("PRAGMA user_version = 1");
        tx.Commit();
      } else {
        // A new store: the base schema, then the migrations after it.
        v = std::min(kBaseSchemaVersion, target_version);
        db.Exec(kSchemaSql);
        db.Exec("PRAGMA user_version = " + std::to_string(v));
        tx.Commit();
      }
    }
  }
  for (const Migration& m : migrations) {
    if (m.version > target_version) break;
    if (m.version <= v) continue;
    Transaction tx(db);
    int now = UserVersion(db);
    if (now >= m.version) {
      v = now;
      continue;  // another process ran it while we waited
    }
    try {
      m.apply(db);
      db.Exec("PRAGMA user_version = " + std::to_string(m.version));
      tx.Commit();
    } catch (const std::exception& e) {
      throw std::runtime_error("migration " + std::to_string(m.version) + " (" + m.name +
                               ") failed and was rolled back: " + e.what());
    }
    v = m.version;
  }
  db.Exec("PRAGMA busy_timeout = 10000");
}

std::unique_ptr<Db> OpenWriteConnection(const std::string& path,
                                        const std::vector<Migration>& migrations,
                                        int target_version) {
  auto db = std::make_unique<Db>(path, Db::Mode::kReadWrite);
  db->Exec("PRAGMA busy_timeout = 10000");
  db->Exec("PRAGMA journal_mode = WAL");
  // FULL: a commit is on disk before a sealed tail is emptied (Raw mirrors).
  db->Exec("PRAGMA synchronous = FULL");
  db->Exec("PRAGMA journal_size_limit = 67108864");
  RegisterFunctions(*db);
  Migrate(*db, migrations, target_version);
  return db;
}

std::unique_ptr<Db> OpenReadConnection(const std::string& path) {
  auto db = std::make_unique<Db>(path, Db::Mode::kReadOnly);
  db->Exec("PRAGMA busy_timeout = 10000");
  // 40 MiB of pages (default 2): a ranked search reads a few thousand
  // index and row pages; with the working set of a mix of searches held
  // here rather than read again from the OS, a rare word on 2M events takes
  // 8 ms instead of 31 (docs/performance.md).  Two readers stay within the
  // daemon's memory budget.
  db->Exec("PRAGMA cache_size = -40960");
  RegisterFunctions(*db);
  return db;
}

std::string DumpSchema(Db& db) {
  Stmt st(db.get(),
          "SELECT type, name, coalesce(sql, '') FROM sqlite_master "
          "WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name");
  std::vector<std::string> rows;
  while (st.Step()) {
    rows.push_back(std::string(st.Text(0)) + " " + std::string(st.Text(1)) + " " +
                   std::string(st.Text(2)));
  }
  std::string out = "user_version " + std::to_string(UserVersion(db)) + "\n";
  for (auto& r : rows) out += r + "\n";
  return out;
}

std::optional<std::string> GetSetting(Db& db, const std::string& key) {
  auto st = db.Prepare("SELECT value FROM setting WHERE key = ?");
  st.Bind(1, key);
  if (!st.Step()) return std::nullopt;
  return std::string(st.Text(0));
}

void PutSetting(Db& db, const std::string& key, const std::string& value) {
  db.Prepare("INSERT OR REPLACE INTO setting(key, value) VALUES (?, ?)")
      .Bind(1, key)
      .Bind(2, value)
      .Run();
}

}  // namespace origin
