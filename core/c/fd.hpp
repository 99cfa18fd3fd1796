// SPDX-License-Identifier: MIT
#pragma once
// A file descriptor owned by one object, and the few POSIX file helpers the
// store needs.  Every helper retries EINTR and throws std::system_error
// naming the path on any other failure.

#include <sys/types.h>

#include <string>
#include <string_view>
#include <utility>

namespace origin {

class UniqueFd {
 public:
  UniqueFd() = default;
  /// Takes ownership of `fd` (-1 for none).
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { Reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  int Release() noexcept { return std::exchange(fd_, -1); }
  void Reset() noexcept;

 private:
  int fd_ = -1;
};

/// open(2) with O_CLOEXEC; throws std::system_error naming `path`.
UniqueFd OpenFile(const std::string& path, int flags, mode_t mode = 0600);
/// open(2) that returns an empty UniqueFd with errno set instead of throwing.
UniqueFd TryOpenFile(const std::string& path, int flags, mode_t mode = 0600) noexcept;
/// pread(2) until `n` bytes or end of file; returns the bytes read.
std::size_t PreadFull(int fd, void* buf, std::size_t n, off_t offset, const std::string& path);
/// write(2) all of `data` at `offset` (pwrite).
void PwriteFull(int fd, std::string_view data, off_t offset, const std::string& path);
void Ftruncate(int fd, off_t size, const std::string& path);
void Fdatasync(int fd, const std::string& path);
off_t FileSize(int fd, const std::string& path);
/// mkdir -p with mode for the directories it creates.
void MakeDirs(const std::string& path, mode_t mode = 0700);
/// Reads a whole (small) file; throws when it cannot.
std::string ReadFile(const std::string& path);

}  // namespace origin
