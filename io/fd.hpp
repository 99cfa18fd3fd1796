// SPDX-License-Identifier: MIT
#pragma once
// A file descriptor owned by one object, and the few POSIX file helpers that
// the store, the daemon and the clients need.  Every helper retries EINTR
// and throws std::system_error naming the path on any other failure, except
// where it says it returns a value instead.
//
// Why a library of its own (io/, after MPD's src/io/): both sides need these
// and the layers do not meet anywhere lower.  The clients link proto/ only,
// and the daemon links core/ and proto/; core/ must not depend on proto/
// (the store knows nothing of the socket protocol), and proto/ must not
// depend on core/ (SQLite, zstd and OpenSSL would come into every client).
// So io/ sits below both, depends on nothing but libc, and both core_dep and
// proto_dep carry it.
//
// Thread safety: none needed; each function works on what it is given.

#include <sys/types.h>

#include <optional>
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
/// Reads a whole (small) file; nullopt when there is none (ENOENT), throws
/// on any other failure.
std::optional<std::string> ReadFileIfExists(const std::string& path);
/// Writes `content` to `path` whole or not at all: a temporary file beside
/// it (`<path>.origin-tmp`, mode `mode`), fsync(2), then rename(2) over
/// `path`.  The temporary file is removed when anything fails.
void WriteFileAtomic(const std::string& path, std::string_view content, mode_t mode);
/// write(2) all of `data` to a stream (a socket, a pipe, stdout); false with
/// errno set when it fails (EPIPE: the reader is gone).
bool WriteAll(int fd, std::string_view data) noexcept;
/// WriteAll for a socket: send(2) with MSG_NOSIGNAL, so that a peer gone is
/// EPIPE rather than a SIGPIPE that kills the process.
bool SendAll(int socket, std::string_view data) noexcept;

}  // namespace origin
