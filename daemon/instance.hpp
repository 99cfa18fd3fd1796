// SPDX-License-Identifier: MIT
#pragma once
// The store's directories and the proof that this is the only originsd for
// them: PrepareHome creates $ORIGIN_HOME, raw/ and run/ (0700) and checks
// that they belong to us and that nobody else can write them; InstanceLock
// holds flock(LOCK_EX) on the store directory itself for the daemon's whole
// life (a lock file can be deleted from under a running daemon, a directory
// in use cannot be swapped for another holding the same store), and on
// run/originsd.lock, which names the holder (pid and version) and is all
// that earlier versions locked.  The lock is taken before the socket is
// touched, so a stale socket is removed only by its holder; SocketFile
// tells a daemon's own socket from one that replaced it.

#include <sys/types.h>

#include <optional>
#include <string>

#include "core/c/fd.hpp"
#include "proto/paths.hpp"

namespace origin {

/// Creates and checks the home.  Throws std::runtime_error with a message
/// that says what to do ("chmod 700 ...").
void PrepareHome(const proto::Paths& paths);

/// Tells the service manager how the daemon is doing (systemd's sd_notify
/// protocol: one datagram to $NOTIFY_SOCKET, such as "READY=1"); nothing
/// when the variable is not set.  Returns false when it could not be sent.
bool NotifyServiceManager(const std::string& state);

class InstanceLock {
 public:
  /// Locks the directory `dir` (the store), then the lock file `file`.
  /// nullopt if another live daemon holds either (*holder then says which,
  /// from the lock file when it is still there); throws std::system_error on
  /// any other failure.
  static std::optional<InstanceLock> TryAcquire(const std::string& dir, const std::string& file,
                                                std::string* holder);
  void WritePidAndVersion(const char* version);

 private:
  InstanceLock(UniqueFd dir_fd, UniqueFd fd, std::string path)
      : dir_fd_(std::move(dir_fd)), fd_(std::move(fd)), path_(std::move(path)) {}
  UniqueFd dir_fd_;  // O_RDONLY | O_DIRECTORY, flock(LOCK_EX)
  UniqueFd fd_;      // the lock file, flock(LOCK_EX)
  std::string path_;
};

/// A Unix stream socket bound to `path`, mode 0600, close-on-exec; throws
/// std::system_error.  The caller listens (uv_pipe_open, uv_listen).
UniqueFd BindUnixSocket(const std::string& path);

/// Which file a path names (device and inode, from lstat), to tell the
/// socket a daemon bound from another bound at the same path later.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId&) const = default;
};
/// The file at `path` (not following a symlink); nothing when there is none.
std::optional<FileId> FileIdOf(const std::string& path);
/// Unlinks `path` only if it is still the file `id`: a daemon removes its
/// own socket at exit, never one that replaced it.  False when it did not.
bool UnlinkIfSame(const std::string& path, const FileId& id);

}  // namespace origin
