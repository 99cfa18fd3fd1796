// SPDX-License-Identifier: MIT
#pragma once
// The store's writes, and failing them on purpose: a full disk or an I/O
// error at the Nth write step, so that tests can make each step of an
// import fail in turn and check that nothing is lost, doubled or skipped.
//
// A write step is one write, sync or truncation of a file of the store:
// of raw/ (StorePwrite, StoreFdatasync, StoreFtruncate below, through which
// core/store/mirror.cpp makes every write of a mirror), and SQLite's
// (xWrite, xSync, xTruncate of a database, its WAL or its journal, through
// the VFS that InstallFaultVfs registers over "unix" as the default).  Both
// count on one counter, in the order they happen.  A failing write writes
// the first half of its bytes first, as a disk that fills up mid-write does.
//
// Off unless armed: by a test (ArmFaults), or in originsd by the variable
// ORIGIN_FAULT (ArmFaultsFromEnv; docs/architecture.md, Faults).  Disarmed,
// a step costs one relaxed atomic load, and the VFS is not installed.  The
// errors are those of the real thing: ENOSPC or EIO from the file helpers,
// SQLITE_FULL or SQLITE_IOERR_* from SQLite, so every layer above handles
// an injected fault through the code a real one takes.
//
// Thread safety: any thread (the plan under a mutex, the count atomic).

#include <sys/types.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace origin {

enum class FaultKind {
  kFull,  // ENOSPC; SQLITE_FULL for SQLite's writes
  kIo,    // EIO; SQLITE_IOERR_WRITE
};

struct FaultPlan {
  std::int64_t at = 0;   // the first step that fails, 1-based; 0: none, only count
  bool lasting = false;  // every step from `at` on fails (a full disk) until disarmed
  FaultKind kind = FaultKind::kFull;
  std::string while_exists;  // lasting only while this file exists ("": always)
};

enum class WriteStep { kWrite, kSync, kTruncate };

/// Arms `plan` and starts counting steps from 0.
void ArmFaults(const FaultPlan& plan);
/// No step fails any more (the count stays readable).
void DisarmFaults();
/// The write steps counted since ArmFaults.
std::int64_t FaultSteps();
/// Counts one step of the store's writes; the errno it must fail with, or 0.
int NextWriteStep(WriteStep step) noexcept;
/// Arms the plan ORIGIN_FAULT describes: `full@N` or `io@N` (the Nth step
/// fails), `full@N+` (every step from the Nth on), `full@N+:PATH` (while
/// PATH exists), and installs the VFS.  Returns what was armed, "" when the
/// variable is unset; throws std::invalid_argument naming a bad value.
std::string ArmFaultsFromEnv();
/// Registers the counting VFS over the default one ("unix") as the new
/// default: call before opening the connections it should see.  Idempotent.
void InstallFaultVfs();

/// A write of the store's own files failed (a full disk, an I/O error).
class StoreWriteError : public std::runtime_error {
 public:
  /// `what` names what was done to which file, as std::system_error does.
  StoreWriteError(int err, const std::string& what);
  /// The same failure, from a file helper of io/.
  explicit StoreWriteError(const std::system_error& e)
      : std::runtime_error(e.what()), code_(e.code()) {}
  const std::error_code& code() const noexcept { return code_; }

 private:
  std::error_code code_;
};

/// pwrite(2) all of `data` at `offset`; throws StoreWriteError.
void StorePwrite(int fd, std::string_view data, off_t offset, const std::string& path);
/// fdatasync(2); throws StoreWriteError.
void StoreFdatasync(int fd, const std::string& path);
/// ftruncate(2); throws StoreWriteError.
void StoreFtruncate(int fd, off_t size, const std::string& path);

/// Whether `e` is the store refusing a write: a StoreWriteError, ENOSPC or
/// EDQUOT, SQLITE_FULL or SQLITE_IOERR.  The step was rolled back; the
/// same step taken again later may succeed (space returned).
bool IsStoreWriteFailure(const std::exception& e) noexcept;

}  // namespace origin
