// SPDX-License-Identifier: MIT
#pragma once
// A directory walk shared by the adapters' Discover(): lstat-based, follows
// symlinked directories at most once each (a symlink loop is reported, not
// followed forever), reports unreadable directories and goes on.

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ingest/adapter.hpp"

namespace origin {

struct WalkRules {
  /// Whether to enter the directory `rel` (relative to the root, no leading /).
  std::function<bool(std::string_view rel)> enter_dir;
  /// Turns a regular file into a SourceFile (key, zstd, or a generated
  /// stream's token; its path, size and mtime are filled in already); false
  /// to skip it.
  std::function<bool(std::string_view rel, SourceFile& out)> accept_file;
};

/// True when `path` is a directory (following symlinks).
bool IsDirectory(const std::string& path);

/// A discovery of `root` with nothing found yet: whether it exists, and, if
/// it does, `root` among the directories to watch.
Discovery RootDiscovery(const std::string& root);

/// A file's modification time, in ns since the epoch.
std::int64_t MtimeNs(const struct stat& st);

/// `<size>:<mtime ns>` of a file, "-" when there is none: the stuff of a
/// generated stream's token (what can be known without reading the file).
std::string FileStamp(const std::string& path);

/// Calls `fn` with the name and lstat (a symlink is not followed) of each
/// entry of `dir` but . and .., in directory order; false when `dir` cannot
/// be read.
bool ForEachEntry(const std::string& dir,
                  const std::function<void(std::string_view name, const struct stat& st)>& fn);

/// The names of the subdirectories of `dir` (not following symlinks), sorted;
/// none when it cannot be read.
std::vector<std::string> SubDirs(const std::string& dir);

/// Walks `root`.  Files come out sorted by key.
Discovery Walk(const std::string& root, const WalkRules& rules);

}  // namespace origin
