// SPDX-License-Identifier: MIT
#include "daemon/instance.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace origin {

namespace {

void EnsureDir(const std::string& path, bool check_owner) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw std::runtime_error("cannot use " + path + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) throw std::runtime_error(path + " is not a directory");
  if (check_owner) {
    if (st.st_uid != ::geteuid())
      throw std::runtime_error(path + " belongs to uid " + std::to_string(st.st_uid) +
                               ", not to you (uid " + std::to_string(::geteuid()) + ")");
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
      throw std::runtime_error(path + " can be written by others; fix it with: chmod go-w " + path);
  }
  if (::access(path.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error("cannot write to " + path + ": " + std::strerror(errno));
}

}  // namespace

void PrepareHome(const proto::Paths& paths) {
  // The parents of the home may need creating (a fresh ORIGIN_HOME).
  std::string parent = paths.home.substr(0, paths.home.rfind('/'));
  if (!parent.empty()) {
    try {
      MakeDirs(parent, 0700);
    } catch (const std::system_error& e) {
      throw std::runtime_error("cannot create the store " + paths.home + ": " + e.what());
    }
  }
  EnsureDir(paths.home, true);
  EnsureDir(paths.run, true);
  if (::chmod(paths.run.c_str(), 0700) != 0)
    throw std::runtime_error("cannot chmod " + paths.run + ": " + std::strerror(errno));
  EnsureDir(paths.raw, true);
  std::string sock_dir = paths.socket.substr(0, paths.socket.rfind('/'));
  if (sock_dir != paths.run) EnsureDir(sock_dir, true);
  // Prove that the store can really be written (a read-only mount passes access(2)).
  std::string probe = paths.run + "/.write-test";
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::write(fd, "x", 1) != 1) {
    int err = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot write to " + paths.home + ": " + std::strerror(err));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

namespace {
// flock(LOCK_EX | LOCK_NB): false when another open file description holds it.
bool TryLock(int fd, const std::string& path) {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
  if (errno != EWOULDBLOCK) throw std::system_error(errno, std::generic_category(), "lock " + path);
  return false;
}

// Who holds the lock, as its lock file says ("originsd pid 12 version 1.0").
std::string HolderOf(const std::string& file) {
  UniqueFd fd = TryOpenFile(file, O_RDONLY);
  char buf[256] = {};
  ssize_t n = fd ? ::pread(fd.get(), buf, sizeof buf - 1, 0) : 0;
  std::string content = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  while (!content.empty() && (content.back() == '\n' || content.back() == ' ')) content.pop_back();
  for (char& c : content)
    if (c == '\n') c = ' ';
  return content.empty() ? "another originsd" : "originsd pid " + content;
}
}  // namespace

std::optional<InstanceLock> InstanceLock::TryAcquire(const std::string& dir,
                                                     const std::string& file, std::string* holder) {
  // The directory first: a daemon refused here has not touched the lock file.
  UniqueFd dir_fd = OpenFile(dir, O_RDONLY | O_DIRECTORY);
  if (!TryLock(dir_fd.get(), dir)) {
    *holder = HolderOf(file);
    return std::nullopt;
  }
  UniqueFd fd = OpenFile(file, O_RDWR | O_CREAT, 0600);
  if (!TryLock(fd.get(), file)) {
    *holder = HolderOf(file);  // a daemon of an earlier version
    return std::nullopt;
  }
  return InstanceLock(std::move(dir_fd), std::move(fd), file);
}

UniqueFd BindUnixSocket(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    throw std::system_error(ENAMETOOLONG, std::generic_category(), "bind " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size());
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) throw std::system_error(errno, std::generic_category(), "socket for " + path);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    throw std::system_error(errno, std::generic_category(), "bind " + path);
  if (::chmod(path.c_str(), 0600) != 0)
    throw std::system_error(errno, std::generic_category(), "chmod " + path);
  return fd;
}

std::optional<FileId> FileIdOf(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

bool UnlinkIfSame(const std::string& path, const FileId& id) {
  return FileIdOf(path) == id && ::unlink(path.c_str()) == 0;
}

void InstanceLock::WritePidAndVersion(const char* version) {
  std::string s = std::to_string(::getpid()) + " version " + version + "\n";
  Ftruncate(fd_.get(), 0, path_);
  PwriteFull(fd_.get(), s, 0, path_);
}

bool NotifyServiceManager(const std::string& state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  if (path == nullptr || *path == '\0') return true;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::size_t len = std::strlen(path);
  if ((path[0] != '/' && path[0] != '@') || len >= sizeof addr.sun_path) return false;
  std::memcpy(addr.sun_path, path, len);
  if (path[0] == '@') addr.sun_path[0] = '\0';  // an abstract socket
  UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd) return false;
  const auto addr_len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + len);
  return ::sendto(fd.get(), state.data(), state.size(), MSG_NOSIGNAL,
                  reinterpret_cast<const sockaddr*>(&addr),
                  addr_len) == static_cast<ssize_t>(state.size());
}

}  // namespace origin
