// SPDX-License-Identifier: MIT
#include "tests/support/support.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "core/c/fd.hpp"
#include "core/store/schema.hpp"
#include "core/util/hash.hpp"

namespace origin::test {

ScopedTempDir::ScopedTempDir(const std::string& base) {
  const char* env = std::getenv("TMPDIR");
  std::string dir = !base.empty() ? base : env != nullptr && *env != '\0' ? env : "/tmp";
  std::string tmpl = dir + "/origin-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

ScopedTempDir::~ScopedTempDir() {
  std::error_code ec;
  // Make everything removable again (tests take permissions away).
  for (auto it = std::filesystem::recursive_directory_iterator(
           path_, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) ::chmod(it->path().c_str(), 0700);
  }
  std::filesystem::remove_all(path_, ec);
}

void WriteFile(const std::string& path, std::string_view data) {
  MakeDirs(path.substr(0, path.rfind('/')), 0755);
  UniqueFd fd = OpenFile(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  PwriteFull(fd.get(), data, 0, path);
}

void AppendFile(const std::string& path, std::string_view data) {
  MakeDirs(path.substr(0, path.rfind('/')), 0755);
  UniqueFd fd = OpenFile(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd.get(), data.data() + done, data.size() - done);
    if (n <= 0) throw std::runtime_error("append " + path);
    done += static_cast<std::size_t>(n);
  }
}

std::string ReadAll(const std::string& path) { return ReadFile(path); }

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

void SetMtime(const std::string& path, std::int64_t mtime_ns) {
  timespec ts[2];
  ts[0].tv_sec = mtime_ns / 1000000000;
  ts[0].tv_nsec = mtime_ns % 1000000000;
  ts[1] = ts[0];
  if (::utimensat(AT_FDCWD, path.c_str(), ts, 0) != 0)
    throw std::runtime_error("utimensat " + path);
}

int Sh(const std::string& cmd) { return std::system(cmd.c_str()); }

TestStore::TestStore(const std::string& base) : dir(base) {
  db = OpenWriteConnection(db_path());
  mirrors = std::make_unique<MirrorStore>(raw_dir());
  ingester = std::make_unique<Ingester>(*db, *mirrors, clock);
}

std::map<std::string, std::string> HashTree(const std::string& root) {
  std::map<std::string, std::string> out;
  for (auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.is_regular_file()) out[e.path().string()] = Sha256Hex(ReadAll(e.path().string()));
  return out;
}

}  // namespace origin::test
