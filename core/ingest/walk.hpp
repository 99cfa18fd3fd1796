// SPDX-License-Identifier: MIT
#pragma once
// A directory walk shared by the adapters' Discover(): lstat-based, follows
// symlinked directories at most once each (a symlink loop is reported, not
// followed forever), reports unreadable directories and goes on.

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

/// The names of the subdirectories of `dir` (not following symlinks), sorted;
/// none when it cannot be read.
std::vector<std::string> SubDirs(const std::string& dir);

/// Walks `root`.  Files come out sorted by key.
Discovery Walk(const std::string& root, const WalkRules& rules);

}  // namespace origin
