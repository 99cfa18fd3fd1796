// SPDX-License-Identifier: MIT
#pragma once
// origin verify: checks a store end to end and says what is wrong, changing
// nothing.  This part checks what core/store knows: the format versions,
// SQLite's quick_check of origin.db and index.db, every mirror against what
// the database records (each sealed frame is one zstd frame that
// decompresses, its checksum checked, to the length raw_chunk records, with
// the lines it records; frames follow one another in the content and in
// <mirror>.zst without gap or overlap and end where the tail starts; the
// tail holds the bytes and lines recorded), and with --all, that the search
// indexes of index.db hold exactly the events they say they do.  Whether
// events resolve to their lines is core/ingest/verify_events.hpp (it needs
// the adapters).
//
// On a live store: each mirror is checked in a read transaction of its own,
// and checked again (up to three times) when it shows a problem, since a
// seal may empty a tail between reading the database and reading the file;
// only a problem that stays is reported.  Runs on a reader's connection
// (index.db attached as `idx`).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/store/mirror.hpp"

namespace origin {

/// One check's outcome: how many items it looked at, and what is wrong.
struct VerifyCheck {
  explicit VerifyCheck(std::string n) : name(std::move(n)) {}
  std::string name;          // schema, database, mirrors, events, index, backup
  std::int64_t checked = 0;  // items looked at (mirrors, frames, events, ...)
  std::int64_t problem_count = 0;
  std::vector<std::string> problems;  // the first kMaxListed, each naming where
  void Add(std::string problem);
  bool ok() const { return problem_count == 0; }
};

inline constexpr std::size_t kMaxListed = 50;

/// user_version of origin.db and index.db against the versions of this build.
VerifyCheck VerifySchema(Db& db);
/// PRAGMA quick_check of origin.db and index.db.
VerifyCheck VerifyDatabase(Db& db);
/// Every mirror's frames and tail (see the header); `checked` counts frames
/// and tails.
VerifyCheck VerifyMirrors(Db& db, MirrorStore& mirrors);
/// The problems of one mirror, in a read transaction of its own (retried
/// as the header says).  Adds the frames and tail it checked to *checked.
std::vector<std::string> VerifyMirror(Db& db, MirrorStore& mirrors, std::int64_t file_id,
                                      std::int64_t* checked);
/// --all: every event with seq <= index_state.upto is in message_fts (a
/// message) or event_fts (any other), and in event_cjk when its text has
/// CJK letters; no index holds a row that is not such an event.
VerifyCheck VerifyIndex(Db& db);
/// A backup into `home` that did not finish (core/store/backup.hpp).
VerifyCheck VerifyNoInterruptedBackup(const std::string& home);

}  // namespace origin
