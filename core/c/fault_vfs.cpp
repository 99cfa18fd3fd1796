// SPDX-License-Identifier: MIT
// The VFS of faults.hpp: a shim over the default VFS ("unix") whose files
// count their writes, syncs and truncations as write steps, and fail the
// one the plan names with what a full disk or a failing device gives.
// Everything else is forwarded unchanged to the VFS it wraps, which does
// the real I/O.  Only a database, its WAL and its journals count: temporary
// files (temp_store = MEMORY keeps ours in memory anyway) do not, and
// neither does the WAL index (-shm), which SQLite maps without the VFS's
// file methods.
//
// Every function here is a C callback: none throws (NextWriteStep is
// noexcept, the rest is C).  See SQLite's test_vfstrace.c for the pattern.
#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <stdexcept>
#include <string>

#include "core/c/faults.hpp"

namespace origin {

namespace {

sqlite3_vfs* g_real = nullptr;  // the VFS wrapped; set once, before registering
sqlite3_vfs g_vfs;

struct FaultFile {
  sqlite3_file base;   // pMethods: one of g_methods
  sqlite3_file* real;  // the wrapped VFS's file, in the same allocation, after this
  bool counted;        // a database, WAL or journal: its writes are steps
};
// Rounded up so that the wrapped file that follows is aligned for anything.
constexpr int kHeader = static_cast<int>((sizeof(FaultFile) + 15) & ~std::size_t{15});

sqlite3_file* Real(sqlite3_file* f) { return reinterpret_cast<FaultFile*>(f)->real; }
bool Counted(sqlite3_file* f) { return reinterpret_cast<FaultFile*>(f)->counted; }

int Close(sqlite3_file* f) {
  sqlite3_file* r = Real(f);
  return r->pMethods != nullptr ? r->pMethods->xClose(r) : SQLITE_OK;
}
int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
  return Real(f)->pMethods->xRead(Real(f), buf, n, off);
}
int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
  sqlite3_file* r = Real(f);
  if (Counted(f)) {
    if (int err = NextWriteStep(WriteStep::kWrite)) {
      // As a disk that fills up mid-write: the first half gets there.
      if (n > 1) (void)r->pMethods->xWrite(r, buf, n / 2, off);
      return err == ENOSPC ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    }
  }
  return r->pMethods->xWrite(r, buf, n, off);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  if (Counted(f) && NextWriteStep(WriteStep::kTruncate) != 0) return SQLITE_IOERR_TRUNCATE;
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
int Sync(sqlite3_file* f, int flags) {
  if (Counted(f) && NextWriteStep(WriteStep::kSync) != 0) return SQLITE_IOERR_FSYNC;
  return Real(f)->pMethods->xSync(Real(f), flags);
}
int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  return Real(f)->pMethods->xFileSize(Real(f), size);
}
int Lock(sqlite3_file* f, int level) { return Real(f)->pMethods->xLock(Real(f), level); }
int Unlock(sqlite3_file* f, int level) { return Real(f)->pMethods->xUnlock(Real(f), level); }
int CheckReservedLock(sqlite3_file* f, int* out) {
  return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
}
int FileControl(sqlite3_file* f, int op, void* arg) {
  return Real(f)->pMethods->xFileControl(Real(f), op, arg);
}
int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int DeviceCharacteristics(sqlite3_file* f) {
  return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
}
int ShmMap(sqlite3_file* f, int page, int size, int extend, void volatile** p) {
  return Real(f)->pMethods->xShmMap(Real(f), page, size, extend, p);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int ShmUnmap(sqlite3_file* f, int del) { return Real(f)->pMethods->xShmUnmap(Real(f), del); }
int Fetch(sqlite3_file* f, sqlite3_int64 off, int n, void** p) {
  return Real(f)->pMethods->xFetch(Real(f), off, n, p);
}
int Unfetch(sqlite3_file* f, sqlite3_int64 off, void* p) {
  return Real(f)->pMethods->xUnfetch(Real(f), off, p);
}

// One table per version of sqlite3_io_methods, so that SQLite never calls
// a method the wrapped file lacks.
sqlite3_io_methods MethodsOfVersion(int version) {
  sqlite3_io_methods m{};
  m.iVersion = version;
  m.xClose = Close;
  m.xRead = Read;
  m.xWrite = Write;
  m.xTruncate = Truncate;
  m.xSync = Sync;
  m.xFileSize = FileSize;
  m.xLock = Lock;
  m.xUnlock = Unlock;
  m.xCheckReservedLock = CheckReservedLock;
  m.xFileControl = FileControl;
  m.xSectorSize = SectorSize;
  m.xDeviceCharacteristics = DeviceCharacteristics;
  if (version >= 2) {
    m.xShmMap = ShmMap;
    m.xShmLock = ShmLock;
    m.xShmBarrier = ShmBarrier;
    m.xShmUnmap = ShmUnmap;
  }
  if (version >= 3) {
    m.xFetch = Fetch;
    m.xUnfetch = Unfetch;
  }
  return m;
}
const sqlite3_io_methods g_methods[3] = {MethodsOfVersion(1), MethodsOfVersion(2),
                                         MethodsOfVersion(3)};

int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  auto* f = reinterpret_cast<FaultFile*>(file);
  f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + kHeader);
  f->real->pMethods = nullptr;
  f->counted = (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL |
                         SQLITE_OPEN_SUPER_JOURNAL)) != 0;
  const int rc = g_real->xOpen(g_real, name, f->real, flags, out_flags);
  // pMethods must be valid or NULL whether the open worked or not (sqlite3_vfs(3)).
  const sqlite3_io_methods* m = f->real->pMethods;
  f->base.pMethods = m == nullptr ? nullptr : &g_methods[std::min(std::max(m->iVersion, 1), 3) - 1];
  return rc;
}

// The VFS's other methods act on no file of ours: they go to the VFS wrapped,
// called with itself.
int Delete(sqlite3_vfs*, const char* name, int sync_dir) {
  return g_real->xDelete(g_real, name, sync_dir);
}
int Access(sqlite3_vfs*, const char* name, int flags, int* out) {
  return g_real->xAccess(g_real, name, flags, out);
}
int FullPathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return g_real->xFullPathname(g_real, name, n, out);
}
void* DlOpen(sqlite3_vfs*, const char* name) { return g_real->xDlOpen(g_real, name); }
void DlError(sqlite3_vfs*, int n, char* out) { g_real->xDlError(g_real, n, out); }
void (*DlSym(sqlite3_vfs*, void* h, const char* sym))(void) {
  return g_real->xDlSym(g_real, h, sym);
}
void DlClose(sqlite3_vfs*, void* h) { g_real->xDlClose(g_real, h); }
int Randomness(sqlite3_vfs*, int n, char* out) { return g_real->xRandomness(g_real, n, out); }
int Sleep(sqlite3_vfs*, int us) { return g_real->xSleep(g_real, us); }
int CurrentTime(sqlite3_vfs*, double* t) { return g_real->xCurrentTime(g_real, t); }
int GetLastError(sqlite3_vfs*, int n, char* out) { return g_real->xGetLastError(g_real, n, out); }
int CurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* t) {
  return g_real->xCurrentTimeInt64(g_real, t);
}
int SetSystemCall(sqlite3_vfs*, const char* name, sqlite3_syscall_ptr p) {
  return g_real->xSetSystemCall(g_real, name, p);
}
sqlite3_syscall_ptr GetSystemCall(sqlite3_vfs*, const char* name) {
  return g_real->xGetSystemCall(g_real, name);
}
const char* NextSystemCall(sqlite3_vfs*, const char* name) {
  return g_real->xNextSystemCall(g_real, name);
}

}  // namespace

void InstallFaultVfs() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_real = sqlite3_vfs_find(nullptr);
    if (g_real == nullptr) throw std::runtime_error("install the fault VFS: SQLite has no VFS");
    g_vfs = sqlite3_vfs{};
    g_vfs.iVersion = std::min(g_real->iVersion, 3);
    g_vfs.szOsFile = kHeader + g_real->szOsFile;
    g_vfs.mxPathname = g_real->mxPathname;
    g_vfs.zName = "origin-fault";
    g_vfs.xOpen = Open;
    g_vfs.xDelete = Delete;
    g_vfs.xAccess = Access;
    g_vfs.xFullPathname = FullPathname;
    g_vfs.xDlOpen = DlOpen;
    g_vfs.xDlError = DlError;
    g_vfs.xDlSym = DlSym;
    g_vfs.xDlClose = DlClose;
    g_vfs.xRandomness = Randomness;
    g_vfs.xSleep = Sleep;
    g_vfs.xCurrentTime = CurrentTime;
    g_vfs.xGetLastError = GetLastError;
    if (g_vfs.iVersion >= 2) g_vfs.xCurrentTimeInt64 = CurrentTimeInt64;
    if (g_vfs.iVersion >= 3) {
      g_vfs.xSetSystemCall = SetSystemCall;
      g_vfs.xGetSystemCall = GetSystemCall;
      g_vfs.xNextSystemCall = NextSystemCall;
    }
    if (int rc = sqlite3_vfs_register(&g_vfs, /*makeDflt=*/1); rc != SQLITE_OK)
      throw std::runtime_error(std::string("register the fault VFS: ") + sqlite3_errstr(rc));
  });
}

}  // namespace origin
