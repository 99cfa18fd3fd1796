// SPDX-License-Identifier: MIT
#pragma once
// The content reader of ingestion: a log file's content, read at increasing
// offsets (a zstd-compressed file, Codex .jsonl.zst, through a streaming
// decompressor that starts again when asked to go back), and the complete
// lines one transaction takes from it (ReadChunk: at most a transaction's
// bytes, or one longer line alone, up to a limit; a trailing partial line
// waits for the next look).  Thread affinity: the thread that reads.

#include <cstdint>
#include <memory>
#include <string>

namespace origin {

/// The decompressed content of a log file, read at increasing offsets.
class Content {
 public:
  virtual ~Content() = default;
  /// Reads up to n bytes at `offset`; fewer only at the end of the content.
  virtual std::size_t ReadAt(std::int64_t offset, char* buf, std::size_t n) = 0;
};

/// Opens the content of `path`, decompressed when `zstd`; nullptr, with
/// errno set, when the file cannot be opened.
std::unique_ptr<Content> OpenContent(const std::string& path, bool zstd);

/// The complete lines to ingest in one transaction.
struct Chunk {
  std::string data;  // complete lines
  std::int64_t lines = 0;
  bool at_eof = false;  // no further complete line was seen after it
};

/// The complete lines after `start`: up to `max_bytes`, or one longer line
/// alone.  Throws std::runtime_error for a line longer than `max_line`
/// (nothing after it is taken).
Chunk ReadChunk(Content& content, std::int64_t start, std::size_t max_bytes, std::size_t max_line);

}  // namespace origin
