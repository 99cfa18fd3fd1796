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

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
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

/// Where a generated stream of database rows goes on (ZCode's messages,
/// Cursor's bubbles), read from its last line alone: every row up to the
/// rowid `upto` is out, and so is each row in `after`.  A row still
/// changing holds `upto` back while later rows go out.
class RowCursor {
 public:
  /// From the "upto" and "after" of `last_line` (none for a new stream).
  static RowCursor FromLine(std::string_view last_line);
  std::int64_t upto() const { return upto_; }
  /// Whether the row is out already (it is skipped); it then moves `upto`
  /// on when nothing before it is held.
  bool Done(std::int64_t rowid);
  /// The row is still changing: it stays for a later look.
  void Hold() { held_ = true; }
  /// The row goes out now.
  void Out(std::int64_t rowid);
  /// Writes "upto" and "after" (members of the line's object).
  void Write(rapidjson::Writer<rapidjson::StringBuffer>& w) const;

 private:
  std::int64_t upto_ = 0;
  std::set<std::int64_t> after_;
  bool held_ = false;
};

}  // namespace origin::adapters
