// SPDX-License-Identifier: MIT
#include "io/fd.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace origin {

namespace {
[[noreturn]] void ThrowErrno(const std::string& what, const std::string& path) {
  throw std::system_error(errno, std::generic_category(), what + " " + path);
}
}  // namespace

void UniqueFd::Reset() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

UniqueFd TryOpenFile(const std::string& path, int flags, mode_t mode) noexcept {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  return UniqueFd(fd);
}

UniqueFd OpenFile(const std::string& path, int flags, mode_t mode) {
  UniqueFd fd = TryOpenFile(path, flags, mode);
  if (!fd) ThrowErrno("open", path);
  return fd;
}

std::size_t PreadFull(int fd, void* buf, std::size_t n, off_t offset, const std::string& path) {
  std::size_t done = 0;
  auto* p = static_cast<char*>(buf);
  while (done < n) {
    ssize_t r = ::pread(fd, p + done, n - done, offset + static_cast<off_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      ThrowErrno("read", path);
    }
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  return done;
}

void PwriteFull(int fd, std::string_view data, off_t offset, const std::string& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t r =
        ::pwrite(fd, data.data() + done, data.size() - done, offset + static_cast<off_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      ThrowErrno("write", path);
    }
    done += static_cast<std::size_t>(r);
  }
}

void Ftruncate(int fd, off_t size, const std::string& path) {
  while (::ftruncate(fd, size) != 0) {
    if (errno != EINTR) ThrowErrno("truncate", path);
  }
}

void Fdatasync(int fd, const std::string& path) {
  while (::fdatasync(fd) != 0) {
    if (errno != EINTR) ThrowErrno("sync", path);
  }
}

off_t FileSize(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) ThrowErrno("stat", path);
  return st.st_size;
}

void MakeDirs(const std::string& path, mode_t mode) {
  if (path.empty()) return;
  std::string cur;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST) ThrowErrno("mkdir", cur);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) ThrowErrno("stat", path);
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    ThrowErrno("mkdir", path);
  }
}

namespace {

std::string ReadAll(const UniqueFd& fd, const std::string& path) {
  std::string out;
  char buf[65536];
  off_t off = 0;
  for (;;) {
    std::size_t n = PreadFull(fd.get(), buf, sizeof buf, off, path);
    out.append(buf, n);
    off += static_cast<off_t>(n);
    if (n < sizeof buf) break;
  }
  return out;
}

}  // namespace

std::string ReadFile(const std::string& path) { return ReadAll(OpenFile(path, O_RDONLY), path); }

std::optional<std::string> ReadFileIfExists(const std::string& path) {
  UniqueFd fd = TryOpenFile(path, O_RDONLY);
  if (!fd) {
    if (errno == ENOENT) return std::nullopt;
    ThrowErrno("open", path);
  }
  return ReadAll(fd, path);
}

void WriteFileAtomic(const std::string& path, std::string_view content, mode_t mode) {
  const std::string tmp = path + ".origin-tmp";
  try {
    UniqueFd fd = OpenFile(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode);
    PwriteFull(fd.get(), content, 0, tmp);
    // The mode asked for, whatever the umask took away.
    if (::fchmod(fd.get(), mode) != 0) ThrowErrno("chmod", tmp);
    while (::fsync(fd.get()) != 0)
      if (errno != EINTR) ThrowErrno("sync", tmp);
    if (::close(fd.Release()) != 0) ThrowErrno("close", tmp);
    if (::rename(tmp.c_str(), path.c_str()) != 0) ThrowErrno("rename " + tmp + " to", path);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

namespace {

template <typename Write>
bool WriteAllWith(std::string_view data, Write write) noexcept {
  while (!data.empty()) {
    ssize_t n = write(data);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

bool WriteAll(int fd, std::string_view data) noexcept {
  return WriteAllWith(data, [fd](std::string_view d) { return ::write(fd, d.data(), d.size()); });
}

bool SendAll(int socket, std::string_view data) noexcept {
  return WriteAllWith(data, [socket](std::string_view d) {
    return ::send(socket, d.data(), d.size(), MSG_NOSIGNAL);
  });
}

}  // namespace origin
