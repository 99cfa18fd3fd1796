// SPDX-License-Identifier: MIT
#include "core/store/event_index.hpp"

#include <cstdlib>

namespace origin {

namespace {

const char* const kIndexSchema = R"sql(
CREATE VIRTUAL TABLE IF NOT EXISTS event_fts USING fts5(
  text, content = '', tokenize = 'trigram', detail = 'none');
CREATE TABLE IF NOT EXISTS index_state (
  key   TEXT PRIMARY KEY,     -- upto: last seq indexed; first_id: the store's first event id
  value TEXT NOT NULL
) WITHOUT ROWID;
)sql";

std::string State(Db& db, const char* key) {
  auto& st = db.Prepare("SELECT value FROM index_state WHERE key = ?");
  st.Bind(1, key);
  std::string v = st.Step() ? std::string(st.Text(0)) : "";
  st.Reset();
  return v;
}

void SetState(Db& db, const char* key, const std::string& value) {
  db.Prepare("INSERT OR REPLACE INTO index_state(key, value) VALUES (?, ?)")
      .Bind(1, key)
      .Bind(2, value)
      .Run();
}

}  // namespace

EventIndex::EventIndex(const std::string& index_path, const std::string& db_path) {
  index_ = std::make_unique<Db>(index_path, Db::Mode::kReadWrite);
  index_->Exec("PRAGMA busy_timeout = 10000");
  index_->Exec("PRAGMA journal_mode = WAL");
  index_->Exec("PRAGMA synchronous = NORMAL");  // derived data: a lost commit is indexed again
  index_->Exec("PRAGMA journal_size_limit = 67108864");
  {
    Transaction tx(*index_);
    int version = static_cast<int>(index_->QueryInt("PRAGMA user_version"));
    if (version != 0 && version != kIndexVersion) {
      // Another format of a derived index: build it again.
      index_->Exec("DROP TABLE IF EXISTS event_fts; DROP TABLE IF EXISTS index_state;");
    }
    index_->Exec(kIndexSchema);
    index_->Exec("PRAGMA user_version = " + std::to_string(kIndexVersion));
    tx.Commit();
  }
  store_ = std::make_unique<Db>(db_path, Db::Mode::kReadOnly);
  store_->Exec("PRAGMA busy_timeout = 10000");
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
    auto& st = store_->Prepare(
        "SELECT (SELECT id FROM event ORDER BY seq LIMIT 1), "
        "(SELECT max(seq) FROM event)");
    if (st.Step()) {
      first = std::string(st.Text(0));
      max_seq = st.Int(1);
    }
    st.Reset();
  }
  std::string recorded = State(*index_, "first_id");
  std::int64_t upto = Upto();
  if ((upto > 0 && recorded != first) || upto > max_seq) {
    Transaction tx(*index_);
    index_->Exec("INSERT INTO event_fts(event_fts) VALUES ('delete-all')");
    index_->Exec("DELETE FROM index_state");
    tx.Commit();
  }
}

std::int64_t EventIndex::CatchUp(std::size_t batch_bytes, const std::function<bool()>& stop) {
  CheckStore();
  std::int64_t total = 0;
  for (;;) {
    if (stop && stop()) return total;
    std::int64_t upto = Upto();
    // One read transaction of the store per batch: a consistent snapshot.
    Transaction tx(*index_);
    auto& ins = index_->Prepare("INSERT INTO event_fts(rowid, text) VALUES (?, ?)");
    auto& rd =
        store_->Prepare("SELECT seq, text, id FROM event WHERE seq > ? ORDER BY seq LIMIT 4096");
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
        std::string_view text = rd.Text(1);
        if (upto == 0 && n == 0) first_id = std::string(rd.Text(2));
        ins.Reset();
        ins.Bind(1, last).BindStatic(2, text).Run();
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
  db.Exec("INSERT INTO " + table + "(" + name + ", rank) VALUES ('merge', " +
          std::to_string(-std::abs(pages)) + ")");
  // The command itself counts as one change; a step that merged wrote more.
  return sqlite3_total_changes64(db.get()) > before + 1;
}

bool EventIndex::MergeStep(int pages) { return MergeFtsStep(*index_, "event_fts", pages); }

void AttachIndex(Db& db, const std::string& index_path) {
  db.Prepare("ATTACH DATABASE ? AS idx").Bind(1, index_path).Run();
  db.Exec("PRAGMA idx.cache_size = -8192");  // 8 MiB
}

std::int64_t IndexedUpto(Db& db) {
  try {
    Stmt st(db.get(), "SELECT value FROM idx.index_state WHERE key = 'upto'");
    return st.Step() ? std::stoll(std::string(st.Text(0))) : 0;
  } catch (const SqliteError&) {
    return 0;  // not created yet
  }
}

}  // namespace origin
