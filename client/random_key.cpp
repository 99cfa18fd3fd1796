// SPDX-License-Identifier: MIT
#include "client/random_key.hpp"

#include <fcntl.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

#include "io/fd.hpp"

namespace origin::client {

namespace {

// getrandom(2): up to 256 bytes never come back short once the pool is
// initialised, but EINTR is possible while it is not yet; ENOSYS on kernels
// before 3.17, where /dev/urandom serves.
void Fill(unsigned char* buf, std::size_t n) {
  std::size_t done = 0;
  while (done < n) {
    ssize_t r = ::getrandom(buf + done, n - done, 0);
    if (r > 0) {
      done += static_cast<std::size_t>(r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == ENOSYS) break;
    throw std::system_error(errno, std::generic_category(), "getrandom");
  }
  if (done == n) return;
  UniqueFd fd = OpenFile("/dev/urandom", O_RDONLY);
  if (PreadFull(fd.get(), buf + done, n - done, 0, "/dev/urandom") != n - done)
    throw std::system_error(EIO, std::generic_category(), "read /dev/urandom");
}

}  // namespace

std::string RandomKey() {
  unsigned char bytes[16];
  Fill(bytes, sizeof bytes);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

}  // namespace origin::client
