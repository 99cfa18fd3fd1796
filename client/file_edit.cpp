// SPDX-License-Identifier: MIT
#include "client/file_edit.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace origin::client {

namespace {

std::string Dir(const std::string& path) { return path.substr(0, path.rfind('/')); }

void MakeDirs(const std::string& dir) {
  for (std::size_t i = 1; i <= dir.size(); ++i) {
    if (i != dir.size() && dir[i] != '/') continue;
    std::string part = dir.substr(0, i);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      throw std::runtime_error("cannot create " + part + ": " + std::strerror(errno));
  }
}

}  // namespace

std::optional<std::string> ReadIfExists(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT || ::access(path.c_str(), F_OK) != 0) return std::nullopt;
    throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Copies the file at `path`, if there is one, to a backup beside it;
// returns the backup's path, or "" when there was no file.
std::string Backup(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  char stamp[32];
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  std::string backup = path + ".origin-backup-" + stamp;
  for (int n = 2; ::access(backup.c_str(), F_OK) == 0; ++n)
    backup = path + ".origin-backup-" + stamp + "-" + std::to_string(n);
  auto old = ReadIfExists(path);
  std::ofstream b(backup, std::ios::binary | std::ios::trunc);
  b << old.value_or("");
  b.close();
  if (!b) throw std::runtime_error("cannot write the backup " + backup + "; nothing changed");
  ::chmod(backup.c_str(), st.st_mode & 07777);
  return backup;
}

// Writes `content` to `path` whole or not at all (a temporary file renamed
// over it), keeping the old file's mode, after a backup of the old file.
// Returns the backup's path, or "" when there was no file.
std::string WriteWithBackup(const std::string& path, const std::string& content) {
  MakeDirs(Dir(path));
  mode_t mode = 0600;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) mode = st.st_mode & 07777;
  const std::string backup = Backup(path);
  const std::string tmp = path + ".origin-tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
  std::string_view left = content;
  while (!left.empty()) {
    ssize_t n = ::write(fd, left.data(), left.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(err));
    }
    left.remove_prefix(static_cast<std::size_t>(n));
  }
  ::fchmod(fd, mode);
  if (::fsync(fd) != 0 || ::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  }
  return backup;
}

}  // namespace origin::client
