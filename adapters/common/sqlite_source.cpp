// SPDX-License-Identifier: MIT
#include "adapters/common/sqlite_source.hpp"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ingest/walk.hpp"
#include "core/util/hash.hpp"

namespace origin::adapters {

namespace {

bool Busy(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_CANTOPEN ||
         primary == SQLITE_PROTOCOL || primary == SQLITE_IOERR;
}

}  // namespace

std::optional<SourceFile> DatabaseStream(const std::string& path, std::string key) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  SourceFile f;
  f.abs_path = path;
  f.key = std::move(key);
  f.generated = true;
  f.size = st.st_size;
  f.mtime_ns = MtimeNs(st);
  // Writes land in the -wal first: it is part of the token.
  f.token = Sha256Hex(FileStamp(path) + "|" + FileStamp(path + "-wal"));
  return f;
}

std::string ReadDatabase(const std::string& path, const std::function<std::string(Db&)>& read) {
  const std::string wal = path + "-wal", shm = path + "-shm";
  const bool logged = ::access(wal.c_str(), F_OK) == 0;
  if (logged && ::access(shm.c_str(), F_OK) != 0)
    throw SourceBusy(path + " has a -wal but no -shm");
  const std::string before = FileStamp(path);
  std::string out;
  try {
    Db db(path, logged ? Db::Mode::kReadOnly : Db::Mode::kImmutable);
    db.Exec("BEGIN");
    out = read(db);
    db.Exec("COMMIT");
  } catch (const SqliteError& e) {
    if (Busy(e.code()) || !logged) throw SourceBusy(e.what());
    throw;
  }
  // Read as immutable while the agent began writing: what was read may be torn.
  if (!logged && (::access(wal.c_str(), F_OK) == 0 || FileStamp(path) != before))
    throw SourceBusy(path + " changed while it was read");
  return out;
}

}  // namespace origin::adapters
