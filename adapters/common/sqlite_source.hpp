// SPDX-License-Identifier: MIT
#pragma once
// Agents' SQLite databases as generated sources (spec: Ingestion,
// Generated sources): opened read-only and never locked against the agent
// or changed.  Without a -wal the file holds everything and nobody writes
// it: it is read as immutable (no lock, no -wal or -shm created), and the
// look is dropped if the agent began writing meanwhile.  With a -wal it is
// read as an ordinary WAL reader, which needs the -shm the agent keeps.  A
// database that is busy, locked, mid-write or missing its -shm is
// SourceBusy: the next look tries again.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/c/sqlite.hpp"
#include "core/ingest/adapter.hpp"

namespace origin::adapters {

/// The generated stream `key` of the database at `path`, if it is a regular
/// file: its token digests the size and mtime of the database and its -wal.
std::optional<SourceFile> DatabaseStream(const std::string& path, std::string key);

/// Runs `read` on the database at `path`, in one read transaction (one
/// snapshot), and returns what it returns.  Throws SourceBusy as above.
std::string ReadDatabase(const std::string& path, const std::function<std::string(Db&)>& read);

}  // namespace origin::adapters
