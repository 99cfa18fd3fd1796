// SPDX-License-Identifier: MIT
#include "client/file_edit.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <stdexcept>

#include "io/fd.hpp"

namespace origin::client {

namespace {

std::string Dir(const std::string& path) { return path.substr(0, path.rfind('/')); }

}  // namespace

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
  try {
    WriteFileAtomic(backup, ReadFileIfExists(path).value_or(""), st.st_mode & 07777);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot write the backup " + backup + " (" + e.what() +
                             "); nothing changed");
  }
  return backup;
}

std::string WriteWithBackup(const std::string& path, const std::string& content) {
  MakeDirs(Dir(path), 0700);
  mode_t mode = 0600;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) mode = st.st_mode & 07777;
  const std::string backup = Backup(path);
  WriteFileAtomic(path, content, mode);
  return backup;
}

}  // namespace origin::client
