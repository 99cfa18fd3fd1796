// SPDX-License-Identifier: MIT
#include "core/store/event_index.hpp"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <vector>

#include "core/util/text.hpp"

namespace origin {

namespace {

const char* const kIndexSchema = R"sql(
CREATE VIRTUAL TABLE IF NOT EXISTS event_fts USING fts5(
  text, content = '', tokenize = 'trigram', detail = 'none');
CREATE VIRTUAL TABLE IF NOT EXISTS message_fts USING fts5(
  text, content = '', tokenize = 'trigram', detail = 'full');
CREATE VIRTUAL TABLE IF NOT EXISTS event_cjk USING fts5(
  bigrams, content = '', tokenize = 'unicode61 remove_diacritics 0', detail = 'none');
CREATE TABLE IF NOT EXISTS index_state (
  key   TEXT PRIMARY KEY,     -- upto: last seq indexed; first_id: the store's first event id
  value TEXT NOT NULL
) WITHOUT ROWID;
-- The erased events deleted from the tables (EraseEvents), each once, and
-- those the tables had not reached (indexed as empty by CatchUp).  Kept by
-- a rebuild, dropped with the tables when their format changes.
CREATE TABLE IF NOT EXISTS index_erased (seq INTEGER PRIMARY KEY);
)sql";

// Any two segments of a level are merged by a positive 'merge' (the
// default, 4, leaves up to three a level).
constexpr int kUserMerge = 2;

std::string State(Db& db, const char* key) {
  auto st = db.Prepare("SELECT value FROM index_state WHERE key = ?");
  st.Bind(1, key);
  std::string v = st.Step() ? std::string(st.Text(0)) : "";
  return v;
}

void SetState(Db& db, const char* key, const std::string& value) {
  db.Prepare("INSERT OR REPLACE INTO index_state(key, value) VALUES (?, ?)")
      .Bind(1, key)
      .Bind(2, value)
      .Run();
}

std::unique_ptr<Db> OpenIndexDb(const std::string& path) {
  auto db = std::make_unique<Db>(path, Db::Mode::kReadWrite);
  db->Exec("PRAGMA busy_timeout = 10000");
  db->Exec("PRAGMA journal_mode = WAL");
  db->Exec("PRAGMA synchronous = NORMAL");  // derived data: a lost commit is indexed again
  db->Exec("PRAGMA journal_size_limit = 67108864");
  return db;
}

}  // namespace

void DropFts5Table(Db& db, const std::string& name) {
  try {
    db.Exec("DROP TABLE IF EXISTS " + name);
    return;
  } catch (const SqliteError& e) {
    if (!IsCorruption(e)) throw;
  }
  // DROP TABLE opens the table first, which a damaged structure record
  // refuses ("vtable constructor failed"): its schema row goes by hand, its
  // shadow tables (ordinary tables) as usual, and the schema cookie moves on
  // so that every connection reads the schema again.
  db.Exec("PRAGMA writable_schema = ON");
  try {
    db.Prepare("DELETE FROM sqlite_master WHERE type = 'table' AND name = ?").Bind(1, name).Run();
  } catch (...) {
    db.Exec("PRAGMA writable_schema = OFF");
    throw;
  }
  db.Exec("PRAGMA writable_schema = OFF");
  db.Exec("PRAGMA schema_version = " + std::to_string(db.QueryInt("PRAGMA schema_version") + 1));
  for (const char* shadow : {"_data", "_idx", "_docsize", "_config", "_content"})
    db.Exec("DROP TABLE IF EXISTS " + name + shadow);
}

bool IsCorruption(const SqliteError& e) {
  const int rc = e.code() & 0xff;
  if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) return true;
  const std::string_view what = e.what();
  return what.find("malformed") != std::string_view::npos ||
         what.find("vtable constructor failed") != std::string_view::npos;
}

EventIndex::EventIndex(const std::string& index_path, const std::string& db_path) {
  try {
    index_ = OpenIndexDb(index_path);
    Create();
  } catch (const SqliteError& e) {
    if (!IsCorruption(e)) throw;
    // Derived data that SQLite cannot read at all: keep it aside for a
    // post-mortem and start again (no reader has it attached yet).
    index_.reset();
    std::error_code ec;
    std::filesystem::rename(index_path, index_path + ".broken", ec);
    for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(index_path + suffix, ec);
    index_ = OpenIndexDb(index_path);
    Create();
  }
  store_ = std::make_unique<Db>(db_path, Db::Mode::kReadOnly);
  store_->Exec("PRAGMA busy_timeout = 10000");
  // Interrupt() ends whatever runs on index_ then or later.
  sqlite3_progress_handler(
      index_->get(), 1000,
      [](void* self) noexcept -> int { return static_cast<EventIndex*>(self)->interrupted_ ? 1 : 0; },
      this);
}

void EventIndex::Create() {
  Transaction tx(*index_);
  CreateTables();
  tx.Commit();
}

void EventIndex::CreateTables() {
  int version = static_cast<int>(index_->QueryInt("PRAGMA user_version"));
  if (version != 0 && version != kIndexVersion) {
    // Another format of a derived index: build it again.
    for (const char* t : kEventIndexTables) DropFts5Table(*index_, t);
    index_->Exec("DROP TABLE IF EXISTS index_state");
    index_->Exec("DROP TABLE IF EXISTS index_erased");
  }
  // A table made now gets its usermerge; an existing one is not opened
  // here, so that a damaged one is found by Check(), not by the open.
  std::vector<std::string> made;
  for (const char* t : kEventIndexTables) {
    auto st = index_->Prepare("SELECT count(*) FROM sqlite_master WHERE name = ?");
    st.Bind(1, t);
    if (st.Step() && st.Int(0) == 0) made.push_back(t);
  }
  index_->Exec(kIndexSchema);
  for (const std::string& t : made)
    index_->Exec("INSERT INTO " + t + "(" + t + ", rank) VALUES ('usermerge', " +
                 std::to_string(kUserMerge) + ")");
  index_->Exec("PRAGMA user_version = " + std::to_string(kIndexVersion));
}

std::int64_t EventIndex::Upto() {
  std::string v = State(*index_, "upto");
  return v.empty() ? 0 : std::stoll(v);
}

void EventIndex::CheckStore() {
  // The index must describe this store: its first event is the one recorded,
  // and it has indexed no event the store does not have.
  std::string first;
  std::int64_t max_seq = 0;
  {
    auto st = store_->Prepare(
        "SELECT (SELECT id FROM event ORDER BY seq LIMIT 1), "
        "(SELECT max(seq) FROM event)");
    if (st.Step()) {
      first = std::string(st.Text(0));
      max_seq = st.Int(1);
    }
  }
  std::string recorded = State(*index_, "first_id");
  std::int64_t upto = Upto();
  if ((upto > 0 && recorded != first) || upto > max_seq) Rebuild();
}

void EventIndex::Rebuild() {
  // Dropping the tables, not 'delete-all': a damaged table may not be able
  // to delete what it holds, while dropping only drops its shadow tables.
  // One transaction: readers see the old tables or the new empty ones.
  for (sqlite3_stmt* st = sqlite3_next_stmt(index_->get(), nullptr); st != nullptr;
       st = sqlite3_next_stmt(index_->get(), st))
    sqlite3_reset(st);  // no statement left reading a table about to go
  Transaction tx(*index_);
  for (const char* t : kEventIndexTables) DropFts5Table(*index_, t);
  index_->Exec("DELETE FROM index_state");
  // index_erased stays: an erasure under way (its texts not yet emptied in
  // origin.db) is still indexed as empty (CatchUp).
  CreateTables();
  tx.Commit();
}

void EventIndex::EraseEvents(const std::vector<std::int64_t>& seqs) {
  SecureDelete secure(*index_);
  try {
    Transaction tx(*index_);
    const std::int64_t upto = Upto();
    auto done = index_->Prepare("SELECT 1 FROM index_erased WHERE seq = ?");
    auto mark = index_->Prepare("INSERT INTO index_erased(seq) VALUES (?)");
    auto others =
        index_->Prepare("INSERT INTO event_fts(event_fts, rowid, text) VALUES ('delete', ?, ?)");
    auto messages = index_->Prepare(
        "INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', ?, ?)");
    auto cjk =
        index_->Prepare("INSERT INTO event_cjk(event_cjk, rowid, bigrams) VALUES ('delete', ?, ?)");
    auto rd = store_->Prepare("SELECT text, kind = 'message' FROM event WHERE seq = ?");
    bool any = false;
    for (std::int64_t seq : seqs) {
      done.Reset();
      done.Bind(1, seq);
      if (done.Step()) continue;
      if (seq > upto) {
        // Not indexed yet: marked, so that CatchUp indexes it as empty
        // even if it runs before the erasure has emptied the text in
        // origin.db (its next step, on another connection).
        mark.Reset();
        mark.Bind(1, seq).Run();
        continue;
      }
      rd.Reset();
      rd.Bind(1, seq);
      if (!rd.Step()) continue;
      // The values CatchUp indexed, as it did: one table or the other.
      const std::string text(rd.Text(0));
      StmtLease& from = rd.Int(1) != 0 ? messages : others;
      rd.Reset();
      from.Reset();
      from.Bind(1, seq).Bind(2, text).Run();
      if (std::string tokens = CjkTokens(text); !tokens.empty()) {
        cjk.Reset();
        cjk.Bind(1, seq).Bind(2, tokens).Run();
      }
      mark.Reset();
      mark.Bind(1, seq).Run();
      any = true;
    }
    // 'delete' adds a delete marker; the tokens stay in older segments
    // until they are merged.  'optimize' merges them all into one.
    if (any)
      for (const char* t : kEventIndexTables)
        index_->Exec(std::string("INSERT INTO ") + t + "(" + t + ") VALUES ('optimize')");
    tx.Commit();
  } catch (const SqliteError& e) {
    if (!IsCorruption(e)) throw;
    Rebuild();  // what cannot be read cannot be deleted from: all goes
  }
  index_->Exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

std::string EventIndex::Check() {
  std::string problems;
  for (const char* t : kEventIndexTables) {
    if (interrupted_) throw SqliteError(SQLITE_INTERRUPT, "integrity-check: interrupted");
    try {
      index_->Exec(std::string("INSERT INTO ") + t + "(" + t + ") VALUES ('integrity-check')");
    } catch (const SqliteError& e) {
      // Damage only; busy, full, I/O errors are no verdict on the index.
      if (!IsCorruption(e)) throw;
      problems += (problems.empty() ? "" : "; ") + std::string(t) + ": " + e.what();
    }
  }
  return problems;
}

void EventIndex::Interrupt() {
  interrupted_ = true;  // statements started from now on (the progress handler)
  sqlite3_interrupt(index_->get());  // and the one running now
}

std::int64_t EventIndex::CatchUp(std::size_t batch_bytes, const std::function<bool()>& stop) {
  CheckStore();
  std::int64_t total = 0;
  for (;;) {
    if (stop && stop()) return total;
    std::int64_t upto = Upto();
    // One write transaction of index.db per batch.  The store is read in
    // runs of 4,096 events after the last one read, each run a read
    // snapshot of its own: events are append-only and their seq only grows
    // (invariant 3), so the runs follow one another without gap or overlap.
    Transaction tx(*index_);
    auto others = index_->Prepare("INSERT INTO event_fts(rowid, text) VALUES (?, ?)");
    auto messages = index_->Prepare("INSERT INTO message_fts(rowid, text) VALUES (?, ?)");
    auto cjk = index_->Prepare("INSERT INTO event_cjk(rowid, bigrams) VALUES (?, ?)");
    auto rd = store_->Prepare(
        "SELECT seq, text, id, kind = 'message' FROM event WHERE seq > ? ORDER BY seq LIMIT 4096");
    // Events erased before they were indexed (EraseEvents): indexed as
    // empty, whatever origin.db still says.
    std::set<std::int64_t> erased;
    {
      auto st = index_->Prepare("SELECT seq FROM index_erased WHERE seq > ?");
      st.Bind(1, upto);
      while (st.Step()) erased.insert(st.Int(0));
    }
    std::size_t bytes = 0;
    std::int64_t n = 0, last = upto;
    std::string first_id;
    bool more = true;
    while (bytes < batch_bytes && more) {
      rd.Bind(1, last);
      more = false;
      while (rd.Step()) {
        more = true;
        last = rd.Int(0);
        const std::string_view text = erased.count(last) != 0 ? std::string_view() : rd.Text(1);
        if (upto == 0 && n == 0) first_id = std::string(rd.Text(2));
        // A message in message_fts, every other event in event_fts: each
        // event's trigrams once (a search with tool events reads both).
        StmtLease& to = rd.Int(3) != 0 ? messages : others;
        to.Reset();
        to.Bind(1, last).BindStatic(2, text).Run();
        std::string tokens = CjkTokens(text);
        if (!tokens.empty()) {
          cjk.Reset();
          cjk.Bind(1, last).BindStatic(2, tokens).Run();
        }
        bytes += text.size() + 64;
        ++n;
        if (bytes >= batch_bytes) break;
      }
      rd.Reset();
    }
    if (n == 0) return total;
    if (!first_id.empty()) SetState(*index_, "first_id", first_id);
    SetState(*index_, "upto", std::to_string(last));
    tx.Commit();
    total += n;
  }
}

bool MergeFtsStep(Db& db, const std::string& table, int pages) {
  const std::string name = table.substr(table.find('.') + 1);
  const sqlite3_int64 before = sqlite3_total_changes64(db.get());
  // Never a negative count: see the header.
  db.Exec("INSERT INTO " + table + "(" + name + ", rank) VALUES ('merge', " +
          std::to_string(std::abs(pages)) + ")");
  // The command itself counts as one change; a step that merged wrote more.
  return sqlite3_total_changes64(db.get()) > before + 1;
}

bool EventIndex::MergeStep(int pages) {
  bool any = false;
  for (const char* t : kEventIndexTables) any = MergeFtsStep(*index_, t, pages) || any;
  return any;
}

void AttachIndex(Db& db, const std::string& index_path) {
  db.Prepare("ATTACH DATABASE ? AS idx").Bind(1, index_path).Run();
  db.Exec("PRAGMA idx.cache_size = -8192");  // 8 MiB
}

std::int64_t IndexedUpto(Db& db) {
  try {
    auto st = db.Prepare("SELECT value FROM idx.index_state WHERE key = 'upto'");
    return st.Step() ? std::stoll(std::string(st.Text(0))) : 0;
  } catch (const SqliteError&) {
    return 0;  // not created yet
  }
}

}  // namespace origin
