// SPDX-License-Identifier: MIT
#include "core/ingest/import_writes.hpp"

#include <malloc.h>

#include <string>
#include <utility>

#include "core/ingest/ingester.hpp"

namespace origin {

void BulkCache::Begin() noexcept {
  if (saved_) return;
  try {
    const std::int64_t was = db_.QueryInt("PRAGMA cache_size");
    db_.Exec("PRAGMA cache_size = -" + std::to_string(kBulkCacheKib));
    saved_ = was;
  } catch (const std::exception&) {
    // Only an optimisation: the import goes on with the cache it had.
  }
}

void BulkCache::End() noexcept {
  if (!saved_) return;
  try {
    db_.Exec("PRAGMA cache_size = " + std::to_string(*saved_));
  } catch (const std::exception&) {
    // A pragma of the connection's own: nothing to undo.
  }
  sqlite3_db_release_memory(db_.get());
#ifdef __GLIBC__
  ::malloc_trim(0);  // the freed pages back to the system, not only to the heap
#endif
  saved_.reset();
}

void ImportGroup::Open(std::int64_t read) {
  tx_.emplace(db_);
  from_ = read;
}

bool ImportGroup::End() {
  if (!tx_) return false;
  try {
    tx_->Commit();
  } catch (...) {
    Drop();
    throw;
  }
  tx_.reset();
  for (const AppendResult& r : std::exchange(after_, {})) mirrors_.AfterCommit(r);
  return true;
}

bool ImportGroup::Lost() {
  if (tx_ && !db_.InTransaction()) Drop();
  return lost_;
}

void ImportGroup::Drop() noexcept {
  tx_.reset();     // ROLLBACK, when SQLite has not already
  after_.clear();  // the tails sealed in it keep their bytes, as recorded
  lost_ = true;
}

}  // namespace origin
