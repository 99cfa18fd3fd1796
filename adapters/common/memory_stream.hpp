// SPDX-License-Identifier: MIT
#pragma once
// Memory streams (spec: Native memories): an agent's memory directory, a
// folder of Markdown files it writes, rewrites and deletes in place, read as
// a generated source.  Shared by the adapters whose agents keep memories
// (Claude Code; ZCode and Grok Build later).
//
// A stream's lines, one JSON object each, say what happened to one file:
//   {"file":"x.md","op":"write"|"delete","time":<ms>,"project":..,"cwd":..,
//    "id":"memory:<hex>","prev":"memory:<hex>"|null,"hash":"<hex>",
//    "content":"..","state":{..}}
// `content` is the whole file as written ("" for a deletion), `time` the
// file's modification time (or, for a deletion, when it was noticed), and
// `prev` the id of the file's previous line (null for its first), and
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
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

/// Of a memory stream's line: its "state" alone, which GenerateMemoryLines
/// goes on from (SourceAdapter::CursorOf).
std::string MemoryCursorOf(std::string_view line);

/// The lines that follow `last_line` (see SourceAdapter::Generate).
std::string GenerateMemoryLines(const SourceFile& stream, std::string_view last_line,
                                std::size_t max_bytes, std::int64_t now_ms,
                                const MemoryPlace& place);

/// Reads the memory in one version of a file: nothing when it holds none.
using MemoryReader = std::function<std::optional<ParsedMemory::Memory>(std::string_view file,
                                                                       std::string_view content)>;

/// One line of a memory stream: one event of kind memory, in no session,
/// whose tool_name is the file's name and call_id the operation, and what
/// the line says for the file's entry (ParsedLine::memory).
ParsedLine ParseMemoryLine(std::string_view line, const MemoryReader& read);

/// Markdown with optional YAML front matter (between two `---` lines): its
/// simple `key: value` fields (quotes removed) and the body after it.
struct FrontMatter {
  std::map<std::string, std::string> fields;
  std::string body;
};
FrontMatter ParseFrontMatter(std::string_view content);

/// The memory of a Markdown memory file: `name` and `description` from the
/// front matter, then the body, as its text; a `confidence` field in [0, 1],
/// else 0.8; its kind as `kind_of` maps the file's name and its front
/// matter's `type`.  Nothing when `kind_of` gives "" (an index file) or the
/// file has no text.
using MemoryKind = std::function<std::string(std::string_view file, const std::string& type)>;
std::optional<ParsedMemory::Memory> MarkdownMemory(std::string_view file, std::string_view content,
                                                   const MemoryKind& kind_of);

/// Claude Code's types (sources.md 1.6), which ZCode follows: `user` and
/// `feedback` (how the user thinks and works) are cognition, `project` (what
/// happened) is memory, `reference` and no type are knowledge; MEMORY.md is
/// the index, not a memory.
std::string ClaudeStyleKind(std::string_view file, const std::string& type);

/// Adds the memory stream of `dir`, if it is a directory, to a discovery
/// (and `dir` to the directories watched).
void AddMemoryStream(Discovery& d, const std::string& dir, std::string key);

/// `name` without a trailing `-<hex_len characters>` (the hash agents add
/// to a project's name in their memory directories' names), else `name`.
std::string WithoutHashSuffix(std::string_view name, std::size_t hex_len);

}  // namespace origin::adapters
