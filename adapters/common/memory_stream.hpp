// SPDX-License-Identifier: MIT
#pragma once
// Memory streams (spec: Native memories): an agent's memory directory, a
// folder of Markdown files it writes, rewrites and deletes in place, read as
// a generated source.  Shared by the adapters whose agents keep memories
// (Claude Code; ZCode and Grok Build later).
//
// A stream's lines, one JSON object each, say what happened to one file:
//   {"file":"x.md","op":"write"|"delete","time":<ms>,"project":..,"cwd":..,
//    "id":"memory:<hex>","hash":"<hex>","content":"..","state":{..}}
// `content` is the whole file as written ("" for a deletion), `time` the
// file's modification time (or, for a deletion, when it was noticed), and
// `state` the directory after the line: for each file, the id of its latest
// line and the SHA-256 of its content.  The next lines are computed from the
// state in the last line alone: first a line for every file that is new or
// whose content changed, oldest first, then one for every file that is gone.
// A file that cannot be read is left as it was; files over 256 KiB, and
// anything but regular *.md files (symlinks included), are left out.
//
// Ids are chained: a line's id is the SHA-256 of the file's previous line's
// id (for its first line: the stream's key and the file's name), the
// operation and the content's hash.  The same history gets the same ids
// wherever it is parsed, and a file that comes back after a deletion gets
// new ones.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

inline constexpr std::int64_t kMaxMemoryFileBytes = 256 << 10;

/// The stream of memory directory `dir`, mirrored as `key`: its token is a
/// digest of the names, sizes and modification times of the files it would
/// read.  Nothing when `dir` is not a directory.
std::optional<SourceFile> MemoryStream(const std::string& dir, std::string key);

/// What a stream's lines say about where the memories belong, if known.
struct MemoryPlace {
  std::optional<std::string> project, cwd;
};

/// The lines that follow `last_line` (see SourceAdapter::Generate).
std::string GenerateMemoryLines(const SourceFile& stream, std::string_view last_line,
                                std::size_t max_bytes, std::int64_t now_ms,
                                const MemoryPlace& place);

/// One line of a memory stream: one event of kind memory, in no session,
/// whose tool_name is the file's name and call_id the operation.
ParsedLine ParseMemoryLine(std::string_view line);

}  // namespace origin::adapters
