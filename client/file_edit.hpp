// SPDX-License-Identifier: MIT
#pragma once
// Changing a file that belongs to someone else (an agent's settings, a
// service unit): read it if it is there, copy it to a backup beside it, and
// write the new content whole or not at all (io/fd.hpp's WriteFileAtomic,
// keeping the old file's mode).  Read it with ReadFileIfExists.  Every
// failure throws std::runtime_error saying what was done to which file.

#include <string>

namespace origin::client {

/// Copies the file at `path`, if there is one, to `<path>.origin-backup-<time>`
/// (with its mode); returns the backup's path, or "" when there was no file.
std::string Backup(const std::string& path);

/// Writes `content` to `path` whole or not at all, after a Backup, creating
/// its directory (0700) when needed.  Returns the backup's path, or "".
std::string WriteWithBackup(const std::string& path, const std::string& content);

}  // namespace origin::client
