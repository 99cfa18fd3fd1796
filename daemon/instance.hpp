// SPDX-License-Identifier: MIT
#pragma once
// The store's directories and the proof that this is the only originsd for
// them: PrepareHome creates $ORIGIN_HOME, raw/ and run/ (0700) and checks
// that they belong to us and that nobody else can write them; InstanceLock
// holds flock(LOCK_EX) on run/originsd.lock for the daemon's whole life,
// with our pid and version in it.  The lock is taken before the socket is
// touched, so a stale socket is removed only by its holder.

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
  /// nullopt if another live daemon holds it (*holder then says which);
  /// throws std::system_error on any other failure.
  static std::optional<InstanceLock> TryAcquire(const std::string& file, std::string* holder);
  void WritePidAndVersion(const char* version);

 private:
  explicit InstanceLock(UniqueFd fd, std::string path)
      : fd_(std::move(fd)), path_(std::move(path)) {}
  UniqueFd fd_;
  std::string path_;
};

}  // namespace origin
