// SPDX-License-Identifier: MIT
#include "core/ingest/walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <utility>

namespace origin {

namespace {

struct DirCloser {
  void operator()(DIR* d) const noexcept { closedir(d); }
};

void WalkDir(const std::string& root, const std::string& rel, const WalkRules& rules,
             std::set<std::pair<dev_t, ino_t>>& seen, Discovery& out, int depth) {
  std::string abs = rel.empty() ? root : root + "/" + rel;
  struct stat st {};
  if (::stat(abs.c_str(), &st) != 0) {
    if (errno == ELOOP)
      out.problems.push_back({abs, "symlink loop"});
    else if (errno != ENOENT)
      out.problems.push_back({abs, std::strerror(errno)});
    return;
  }
  if (!seen.insert({st.st_dev, st.st_ino}).second) {
    out.problems.push_back({abs, "directory reached twice (symlink loop?): skipped"});
    return;
  }
  if (depth > 64) {
    out.problems.push_back({abs, "directories nested too deep: skipped"});
    return;
  }
  std::unique_ptr<DIR, DirCloser> dir(::opendir(abs.c_str()));
  if (!dir) {
    if (errno != ENOENT) out.problems.push_back({abs, std::strerror(errno)});
    return;
  }
  out.dirs.push_back(abs);
  std::vector<std::string> subdirs;
  while (dirent* de = ::readdir(dir.get())) {
    std::string_view name = de->d_name;
    if (name == "." || name == "..") continue;
    std::string child_rel = rel.empty() ? std::string(name) : rel + "/" + std::string(name);
    std::string child_abs = abs + "/" + std::string(name);
    struct stat cs {};
    if (::stat(child_abs.c_str(), &cs) != 0) {
      if (errno == ELOOP) out.problems.push_back({child_abs, "symlink loop"});
      continue;  // vanished, or a dangling link
    }
    if (S_ISDIR(cs.st_mode)) {
      if (rules.enter_dir(child_rel)) subdirs.push_back(std::move(child_rel));
    } else if (S_ISREG(cs.st_mode)) {
      SourceFile f;
      f.abs_path = child_abs;
      f.size = cs.st_size;
      f.mtime_ns = MtimeNs(cs);
      if (!rules.accept_file(child_rel, f)) continue;
      out.files.push_back(std::move(f));
    }
  }
  dir.reset();
  std::sort(subdirs.begin(), subdirs.end());
  for (const auto& s : subdirs) WalkDir(root, s, rules, seen, out, depth + 1);
}

}  // namespace

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Discovery Walk(const std::string& root, const WalkRules& rules) {
  Discovery out;
  struct stat st {};
  out.root_exists = ::stat(root.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  if (!out.root_exists) return out;
  std::set<std::pair<dev_t, ino_t>> seen;
  WalkDir(root, "", rules, seen, out, 0);
  std::sort(out.files.begin(), out.files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.key < b.key; });
  return out;
}

Discovery RootDiscovery(const std::string& root) {
  Discovery d;
  d.root_exists = IsDirectory(root);
  if (d.root_exists) d.dirs.push_back(root);
  return d;
}

std::int64_t MtimeNs(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

std::string FileStamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "-";
  return std::to_string(st.st_size) + ":" + std::to_string(MtimeNs(st));
}

bool ForEachEntry(const std::string& dir,
                  const std::function<void(std::string_view name, const struct stat& st)>& fn) {
  std::unique_ptr<DIR, DirCloser> d(::opendir(dir.c_str()));
  if (!d) return false;
  const int fd = ::dirfd(d.get());
  while (dirent* e = ::readdir(d.get())) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) fn(name, st);
  }
  return true;
}

std::vector<std::string> SubDirs(const std::string& dir) {
  std::vector<std::string> out;
  ForEachEntry(dir, [&](std::string_view name, const struct stat& st) {
    if (S_ISDIR(st.st_mode)) out.emplace_back(name);
  });
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace origin
