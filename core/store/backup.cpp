// SPDX-License-Identifier: MIT
#include "core/store/backup.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include "core/c/fd.hpp"
#include "core/store/schema.hpp"
#include "core/util/op_error.hpp"

namespace origin {

namespace {

namespace fs = std::filesystem;

constexpr const char* kSwapMarker = "backup.swap";
constexpr std::size_t kCopyChunk = 1 << 20;

[[noreturn]] void Refuse(const std::string& message) {
  throw OpError(OpError::Code::kInvalidArgument, message);
}

[[noreturn]] void Fail(const std::string& what, const std::string& path) {
  throw std::system_error(errno, std::generic_category(), what + " " + path);
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

void Unlink(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) Fail("remove", path);
}

void Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) Fail("rename " + from + " to", to);
}

void SyncDir(const std::string& dir) {
  UniqueFd fd = OpenFile(dir, O_RDONLY | O_DIRECTORY);
  while (::fsync(fd.get()) != 0)
    if (errno != EINTR) Fail("sync", dir);
}

// Whether `inner` is `outer` or lies under it (both canonical).
bool Within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i)
    if (i == inner.end() || *i != *o) return false;
  return true;
}

// The files a backup may leave in DIR besides a store's own.
bool OursOrStore(const std::string& name) {
  static const std::set<std::string> kNames = {"origin.db",
                                               "origin.db-wal",
                                               "origin.db-shm",
                                               "origin.db-journal",
                                               "index.db",
                                               "index.db-wal",
                                               "index.db-shm",
                                               "index.db-journal",
                                               "origin.db.next",
                                               "origin.db.next-journal",
                                               "origin.db.next-wal",
                                               "origin.db.next-shm",
                                               "index.db.next",
                                               "index.db.next-journal",
                                               kSwapMarker,
                                               "raw",
                                               "run"};
  return kNames.count(name) > 0;
}

// The directory, created 0700 when missing, checked and locked as the
// daemon locks its home: no daemon runs on it and no other backup writes it
// while the descriptor is open.
UniqueFd PrepareDir(const std::string& dir, const std::string& home, std::string* resolved) {
  if (dir.empty() || dir[0] != '/') Refuse("backup directory " + dir + " is not an absolute path");
  std::error_code ec;
  const fs::path d = fs::weakly_canonical(dir, ec);
  if (ec) Refuse("backup directory " + dir + ": " + ec.message());
  const fs::path h = fs::weakly_canonical(home, ec);
  if (ec) Refuse("store " + home + ": " + ec.message());
  if (Within(d, h))
    Refuse("backup directory " + d.string() + " is inside the store " + h.string() +
           ": choose a directory outside it");
  if (Within(h, d))
    Refuse("backup directory " + d.string() + " holds the store " + h.string() +
           ": choose a directory outside it");
  *resolved = d.string();
  MakeDirs(*resolved, 0700);
  UniqueFd fd = TryOpenFile(*resolved, O_RDONLY | O_DIRECTORY);
  if (!fd) Refuse("backup directory " + *resolved + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) Fail("stat", *resolved);
  if (st.st_uid != ::geteuid())
    Refuse("backup directory " + *resolved + " belongs to another user");
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      Refuse("backup directory " + *resolved +
             " is in use: a daemon runs on it, or another backup writes it; stop it first");
    Fail("lock", *resolved);
  }
  if (!Exists(*resolved + "/origin.db")) {
    for (const auto& e : fs::directory_iterator(*resolved))
      if (!OursOrStore(e.path().filename().string()))
        Refuse("backup directory " + *resolved +
               " is not empty and holds no Origin store: choose an empty directory");
  }
  return fd;
}

// Finishes or undoes a backup that was interrupted (see the header).
void Recover(const std::string& dir) {
  const std::string marker = dir + "/" + kSwapMarker;
  const std::optional<std::string> list = ReadFileIfExists(marker);
  const bool swapped = list && !Exists(dir + "/origin.db.next");
  if (list) {
    std::size_t pos = 0;
    while (pos < list->size()) {
      std::size_t nl = list->find('\n', pos);
      if (nl == std::string::npos) nl = list->size();
      const std::string tail = list->substr(pos, nl - pos);
      pos = nl + 1;
      if (tail.empty()) continue;
      const std::string path = dir + "/raw/" + tail;
      if (swapped && Exists(path + ".next"))
        Rename(path + ".next", path);
      else
        Unlink(path + ".next");
    }
    if (swapped && Exists(dir + "/index.db.next"))
      Rename(dir + "/index.db.next", dir + "/index.db");
    SyncDir(dir);
    Unlink(marker);
  }
  for (const char* f : {"origin.db.next", "origin.db.next-journal", "origin.db.next-wal",
                        "origin.db.next-shm", "index.db.next", "index.db.next-journal"})
    Unlink(dir + "/" + f);
}

// One online backup of `schema` of `src` into the file `dest` (new).
void CopyDatabase(Db& src, const char* schema, const std::string& dest) {
  Unlink(dest);
  Db out(dest, Db::Mode::kReadWrite);
  sqlite3_backup* b = sqlite3_backup_init(out.get(), "main", src.get(), schema);
  if (b == nullptr)
    throw SqliteError(sqlite3_errcode(out.get()),
                      "back up " + std::string(schema) + ": " + sqlite3_errmsg(out.get()));
  // -1: every page in one step, one read transaction of the source: a
  // consistent snapshot while the writer goes on (WAL).
  int rc = sqlite3_backup_step(b, -1);
  while (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
    sqlite3_sleep(50);
    rc = sqlite3_backup_step(b, -1);
  }
  const int done = sqlite3_backup_finish(b);
  if (rc != SQLITE_DONE)
    throw SqliteError(
        rc, "back up " + std::string(schema) + " into " + dest + ": " + sqlite3_errstr(rc));
  if (done != SQLITE_OK)
    throw SqliteError(done, "back up " + std::string(schema) + " into " + dest + ": " +
                                sqlite3_errmsg(out.get()));
}

std::int64_t SizeOf(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : 0;
}

struct Recorded {
  std::int64_t id = 0, bytes = 0, tail_offset = 0, zst_bytes = 0;
};

std::map<std::string, Recorded> Mirrors(Db& db) {
  std::map<std::string, Recorded> out;
  auto st = db.Prepare("SELECT mirror, id, bytes_ingested, tail_offset, zst_bytes FROM raw_file");
  while (st.Step())
    out[std::string(st.Text(0))] = Recorded{st.Int(1), st.Int(2), st.Int(3), st.Int(4)};
  return out;
}

std::string StoreName(Db& db) {
  return GetSetting(db, "store.name").value_or("");
}

// Refuses a DIR whose store is not an earlier state of the one backed up:
// its events must be a prefix of the snapshot's, its mirrors no longer.
void CheckSameStore(Db& old_db, Db& copy, const std::string& dir) {
  const std::string why = "backup directory " + dir +
                          " holds a different store, or one changed since it was backed up "
                          "(a daemon ran on it?): ";
  const std::string a = StoreName(old_db), b = StoreName(copy);
  if (!a.empty() && !b.empty() && a != b) Refuse(why + "its store is named " + a + ", not " + b);
  auto last = old_db.Prepare("SELECT seq, id FROM event ORDER BY seq DESC LIMIT 1");
  if (last.Step()) {
    auto same = copy.Prepare("SELECT id FROM event WHERE seq = ?");
    same.Bind(1, last.Int(0));
    if (!same.Step() || same.Text(0) != last.Text(1))
      Refuse(why + "event " + std::to_string(last.Int(0)) + " differs");
  }
  const std::map<std::string, Recorded> now = Mirrors(copy);
  for (const auto& [name, r] : Mirrors(old_db)) {
    auto it = now.find(name);
    if (it == now.end() || it->second.bytes < r.bytes || it->second.zst_bytes < r.zst_bytes)
      Refuse(why + "mirror " + name + " holds more than this store's");
  }
}

class Writer {
 public:
  explicit Writer(BackupReport& rep) : rep_(rep) {}
  // `data` at `offset` of `path`, which is then `size` bytes long; synced.
  void Write(const std::string& path, std::string_view data, std::int64_t offset, std::int64_t size,
             int extra_flags = 0) {
    UniqueFd fd = OpenFile(path, O_RDWR | O_CREAT | extra_flags, 0600);
    if (!data.empty()) PwriteFull(fd.get(), data, offset, path);
    if (FileSize(fd.get(), path) != size) Ftruncate(fd.get(), size, path);
    Fdatasync(fd.get(), path);
    Count(path, static_cast<std::int64_t>(data.size()));
  }
  void Count(const std::string& path, std::int64_t bytes) {
    if (files_.insert(path).second) ++rep_.files_written;
    rep_.bytes_written += bytes;
  }

 private:
  BackupReport& rep_;
  std::set<std::string> files_;
};

// Copies bytes [from, to) of the live `src` to the same offsets of `dest`.
void CopyFrames(Writer& w, const std::string& src, const std::string& dest, std::int64_t from,
                std::int64_t to) {
  UniqueFd in = OpenFile(src, O_RDONLY);
  if (FileSize(in.get(), src) < to)
    throw MirrorBroken("mirror " + src + " is shorter than the store records");
  std::string buf;
  for (std::int64_t off = from; off < to; off += static_cast<std::int64_t>(buf.size())) {
    buf.resize(static_cast<std::size_t>(std::min<std::int64_t>(kCopyChunk, to - off)));
    if (PreadFull(in.get(), buf.data(), buf.size(), off, src) != buf.size())
      throw MirrorBroken("mirror " + src + " is shorter than the store records");
    w.Write(dest, buf, off, off + static_cast<std::int64_t>(buf.size()));
  }
}

}  // namespace

BackupReport Backup(Db& live, MirrorStore& mirrors, const std::string& home, const std::string& dir,
                    const std::function<void(const BackupProgress&)>& progress) {
  BackupReport rep;
  UniqueFd lock = PrepareDir(dir, home, &rep.dir);
  const std::string d = rep.dir;
  Recover(d);
  Writer w(rep);

  // index.db before origin.db: the copied index then covers no event the
  // copied store lacks (an index ahead of its store is built again).
  CopyDatabase(live, "idx", d + "/index.db.next");
  CopyDatabase(live, "main", d + "/origin.db.next");
  for (const char* f : {"/index.db.next", "/origin.db.next"}) {
    rep.db_bytes += SizeOf(d + f);
    w.Count(d + f, SizeOf(d + f));
  }

  std::map<std::string, Recorded> snapshot, before;
  {
    Db copy(d + "/origin.db.next", Db::Mode::kReadWrite);
    snapshot = Mirrors(copy);
    rep.events = copy.QueryInt("SELECT count(*) FROM event");
    rep.max_seq = copy.QueryInt("SELECT coalesce(max(seq), 0) FROM event");
    if (Exists(d + "/origin.db")) {
      Db old_db(d + "/origin.db", Db::Mode::kReadWrite);
      CheckSameStore(old_db, copy, d);
      before = Mirrors(old_db);
      rep.incremental = true;
    }
  }

  // The mirrors as the snapshot records them; nothing the old database
  // reads is changed until the swap below.
  std::vector<std::string> staged;  // tails written as .next, renamed after the database
  std::set<std::string> dirs;
  BackupProgress p;
  p.mirrors_total = static_cast<std::int64_t>(snapshot.size());
  for (const auto& [name, now] : snapshot) {
    ++rep.mirrors;
    const Recorded was = before.count(name) ? before.at(name) : Recorded{};
    const std::string dest = d + "/raw/" + name;
    std::string parent = dest.substr(0, dest.rfind('/'));
    try {
      bool changed = false;
      MakeDirs(parent, 0700);
      dirs.insert(parent);
      // Frames: trusted as far as the old database records them (bytes past
      // that are from an interrupted backup, written again).
      std::int64_t have = std::min(was.zst_bytes, SizeOf(dest + ".zst"));
      if (now.zst_bytes > have) {
        CopyFrames(w, mirrors.PathOf(name, ".zst"), dest + ".zst", have, now.zst_bytes);
        auto n = live.Prepare(
            "SELECT count(*) FROM raw_chunk WHERE file_id = ? AND file_offset >= ? "
            "AND file_offset < ?");
        n.Bind(1, now.id).Bind(2, have).Bind(3, now.zst_bytes);
        n.Step();
        rep.frames_copied += n.Int(0);
        rep.frame_bytes += now.zst_bytes - have;
        changed = true;
      }
      // The tail: extended when it starts where the old one did, else
      // written again beside it.
      const std::int64_t len = now.bytes - now.tail_offset;
      const bool known = before.count(name) > 0;
      if (known && was.tail_offset == now.tail_offset &&
          SizeOf(dest + ".tail") >= was.bytes - was.tail_offset) {
        if (now.bytes > was.bytes) {
          const std::string more = mirrors.ReadRange(live, now.id, was.bytes, now.bytes);
          w.Write(dest + ".tail", more, was.bytes - was.tail_offset, len);
          ++rep.tails_written;
          rep.tail_bytes += static_cast<std::int64_t>(more.size());
          changed = true;
        }
      } else {
        const std::string tail = mirrors.ReadRange(live, now.id, now.tail_offset, now.bytes);
        // A mirror the old database does not know is read by nothing yet.
        const std::string path = known ? dest + ".tail.next" : dest + ".tail";
        w.Write(path, tail, 0, len, O_TRUNC);
        if (known) staged.push_back(name + ".tail");
        ++rep.tails_written;
        rep.tail_bytes += static_cast<std::int64_t>(tail.size());
        changed = true;
      }
      rep.mirrors_changed += changed ? 1 : 0;
    } catch (const std::exception& e) {
      rep.problems.push_back(name + ": " + e.what());
    }
    ++p.mirrors_done;
    if (progress) progress(p);
  }
  for (const std::string& dir_path : dirs) SyncDir(dir_path);

  // The swap: the marker says what is left to rename should it stop here.
  std::string list;
  for (const std::string& s : staged) list += s + "\n";
  WriteFileAtomic(d + "/" + kSwapMarker, list, 0600);
  w.Count(d + "/" + kSwapMarker, static_cast<std::int64_t>(list.size()));
  SyncDir(d);
  for (const char* f : {"/origin.db-wal", "/origin.db-shm", "/index.db-wal", "/index.db-shm"})
    Unlink(d + f);
  Rename(d + "/index.db.next", d + "/index.db");
  Rename(d + "/origin.db.next", d + "/origin.db");
  Recover(d);  // renames the staged tails, removes the marker
  return rep;
}

}  // namespace origin
