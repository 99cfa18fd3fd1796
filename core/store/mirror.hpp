// SPDX-License-Identifier: MIT
#pragma once
// Raw mirrors (spec: Raw mirrors).  A mirror holds the ingested bytes of one
// generation of a file, complete lines only, in two files under raw/:
//   <mirror>.zst   sealed zstd frames (level 3, checksums), appended only;
//   <mirror>.tail  the open tail, uncompressed, under 1 MiB.
// The content is the frames decompressed, then the tail, each up to what
// the database records (raw_chunk; raw_file.bytes_ingested / tail_offset).
// Bytes past that are never read and are dropped before the next append;
// a file shorter than recorded refuses appends (MirrorBroken), so that a
// line once recorded is never lost or replaced (invariants 1 and 3).
//
// Every read and write of raw/ goes through this module.  Appends happen on
// the writer thread inside the transaction that records them: Append writes
// and syncs the files, the caller records the result (RecordAppend) and
// commits, then calls AfterCommit, which empties a sealed tail.  Reads may
// come from any thread with its own connection.  Every write, sync and
// truncation goes through core/c/faults.hpp (StorePwrite, ...): a failure
// is a StoreWriteError, and a test can make any one of them fail.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

inline constexpr std::size_t kFrameTarget = 1 << 20;  // a frame ends at the first \n past 1 MiB
inline constexpr std::size_t kFrameMinLast = 512
                                             << 10;  // a last piece under this joins the one before
inline constexpr std::size_t kTailLimit = 1 << 20;   // an append reaching this seals

/// A mirror whose files are shorter than the database records.
class MirrorBroken : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the database records of one mirror (a raw_file row).
struct MirrorState {
  std::int64_t file_id = 0;
  std::string mirror;            // name under raw/, e.g. claude-code/projects/p/s.jsonl
  std::int64_t bytes = 0;        // content length
  std::int64_t lines = 0;        // complete lines in the content
  std::int64_t tail_offset = 0;  // content offset where the tail starts
  std::int64_t tail_line = 0;    // lines before the tail
  std::int64_t zst_bytes = 0;    // bytes of .zst the recorded frames take
};

struct Frame {
  std::int64_t first_line;  // 1-based
  std::int64_t line_count;
  std::int64_t content_offset;
  std::int64_t content_length;
  std::int64_t file_offset;
  std::int64_t file_length;
};

struct AppendResult {
  MirrorState after;          // the state to record
  std::vector<Frame> frames;  // frames written to .zst, to record in raw_chunk
  bool sealed = false;        // the tail must be emptied after the commit
};

/// How content is cut into frames: the lengths of consecutive frames of
/// `data` (complete lines), following the sealing rule.  Exposed for tests.
std::vector<std::size_t> CutFrames(std::string_view data);

/// What replaces an erased line of `length` bytes (its line break aside):
/// `{"origin_erased":"<erasure id>"}` padded with spaces to the length, or
/// only spaces when the line is shorter than that.  One line, valid JSON
/// (or blank), which no adapter takes for an event.
std::string ErasedFiller(const std::string& erasure_id, std::size_t length);

class MirrorStore {
 public:
  /// `raw_dir` is $ORIGIN_HOME/raw.
  explicit MirrorStore(std::string raw_dir);

  /// Appends `lines` (complete lines, each ending in \n; may be empty) to
  /// the mirror.  Seals when the tail would reach `tail_limit`, or
  /// whenever `seal` is true (an idle tail).  Throws MirrorBroken or I/O
  /// errors.
  AppendResult Append(const MirrorState& state, std::string_view lines, std::int64_t line_count,
                      bool seal, std::size_t tail_limit = kTailLimit);
  /// Records `r` in raw_chunk and raw_file; call inside the transaction.
  static void RecordAppend(Db& db, const AppendResult& r);
  /// Empties a sealed tail; call after the commit.  Never throws.
  void AfterCommit(const AppendResult& r) noexcept;

  /// Line `line` (1-based) of a mirror, without its newline; nullopt when
  /// the mirror has no such line.  Decompresses only the frame holding it.
  std::optional<std::string> ReadLine(Db& db, std::int64_t file_id, std::int64_t line);
  /// The whole content of a mirror (tests, backups).
  std::string ReadContent(Db& db, std::int64_t file_id);
  /// Bytes [from, to) of a mirror's content, as the database records it
  /// now (each statement its own snapshot: a seal may move the range from
  /// the tail into frames meanwhile; the content only grows, so the bytes
  /// are the same).  A tail read is kept only when the tail still starts
  /// where it did after the read (a seal commits before it empties the
  /// tail), else it is read again.  Throws MirrorBroken when the mirror does
  /// not hold the range.  For backups, which copy a snapshot's tails.
  std::string ReadRange(Db& db, std::int64_t file_id, std::int64_t from, std::int64_t to);
  /// Loads what the database records of a mirror.
  static MirrorState Load(Db& db, std::int64_t file_id);

  /// Erasure (core/erase/erase.hpp), the one exception to invariant 3:
  /// replaces lines `lines` (1-based, sorted) of a mirror by fillers of the
  /// same length (ErasedFiller), so that every other line keeps its bytes,
  /// offset and number.  A line of the tail is overwritten in place and the
  /// tail synced.  A sealed frame holding one is written again, with the
  /// fillers, at the end of .zst and synced; the replacement is recorded in
  /// frame_erasure with raw_file.zst_bytes (raw_chunk is never updated), in
  /// a transaction of its own; then the bytes of every frame it replaces
  /// are zeroed and synced.  Idempotent, so that an erasure interrupted at
  /// any step is taken up again: a frame already holding the fillers is not
  /// written again, but what it replaced is zeroed again.  Writer thread,
  /// outside a transaction.  Returns the frames written.
  std::int64_t EraseLines(Db& db, std::int64_t file_id, const std::vector<std::int64_t>& lines,
                          std::int64_t erasure_seq, const std::string& erasure_id);

  /// The sealed frame whose content starts at `content_offset`, where its
  /// bytes are now: raw_chunk's, or its latest replacement by an erasure
  /// (frame_erasure).  Throws when there is no such frame.
  static Frame FrameAt(Db& db, std::int64_t file_id, std::int64_t content_offset);
  /// Its content, decompressed.  Throws MirrorBroken when .zst is short.
  std::string ReadFrame(const std::string& mirror, const Frame& f) const;

  std::string PathOf(const std::string& mirror, const char* ext) const;
  const std::string& raw_dir() const { return raw_dir_; }

 private:
  std::string raw_dir_;
};

}  // namespace origin
