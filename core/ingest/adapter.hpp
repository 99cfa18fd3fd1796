// SPDX-License-Identifier: MIT
#pragma once
// The SourceAdapter interface: one per agent, implemented in adapters/ and
// passed in by the daemon (core knows no adapter by name).  An adapter
// discovers an agent's log files and parses one line at a time into events,
// deterministically: the same line, context and carried state give the same
// result on every store.  ParseLine throws on a line it cannot parse; the
// ingester counts the failure and goes on (Design principles).
//
// Thread affinity: adapters are immutable after construction; Discover and
// ParseLine may run on any thread.

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace origin {

/// What a stream holds that another stream of its source may hold too: two
/// copies of one session would give each message twice, under two ids.  The
/// adapter, which alone knows which of its streams overlap, names the
/// session; the ingester applies one rule to every source: a stream that
/// has not started is started only while `held` is false and the store
/// holds no session <source>:<session> (even one whose events are all
/// forgotten, invariant 2) that the streams of its `group` did not start;
/// once started it goes on.  So a session is archived once, and a forgotten
/// one does not come back as a copy.
struct Dedup {
  std::string session;  // native id of the one session the stream holds
  std::string group;    // key prefix of the streams that hold it together
  bool held = false;    // the adapter knows another stream holds it now
};

/// One log file an adapter found.
struct SourceFile {
  std::string abs_path;   // the file to read
  std::string key;        // logical path under the root; names the mirror
  bool zstd = false;      // the file is zstd-compressed (Codex .jsonl.zst)
  std::int64_t size = 0;  // from stat, at discovery
  std::int64_t mtime_ns = 0;
  // A generated stream (spec: Ingestion, Generated sources): its lines come
  // from SourceAdapter::Generate, not from reading abs_path.  `token`
  // changes whenever there may be new lines; a stream whose token is the
  // one recorded after its last complete look is skipped without asking.
  bool generated = false;
  std::string token;
  /// Set for a stream that may hold a session another stream holds.
  std::optional<Dedup> dedup;
};

/// A directory that could not be read, or another discovery problem.
struct DiscoveryProblem {
  std::string path;
  std::string message;
};

struct Discovery {
  std::vector<SourceFile> files;
  std::vector<std::string> dirs;  // every directory walked: the watcher watches each
  std::vector<DiscoveryProblem> problems;
  bool root_exists = false;
};

/// A normalized event, before the ingester adds the source, provenance and seq.
struct ParsedEvent {
  std::string native_id;  // <native-id>[#<block-index>]; the id is <source>:<native_id>
  std::string session;    // native session id; empty for none
  std::int64_t ts = 0;    // ms UTC
  std::string role;       // user | assistant | system | tool
  std::string kind;       // message | tool_call | tool_result | meta
  std::string text;
  std::optional<std::string> cwd, git_branch, tool_name, call_id, agent, model;
  bool is_error = false;
  // The line the event comes from when it is an earlier line than the one
  // being parsed (a message joined from chunks is emitted when its run ends;
  // it points to its first chunk's line, invariant 1).
  std::optional<std::int64_t> line;
};

/// A memory stream line (spec: Native memories): what happened to one file,
/// and the memory its adapter reads in the new version, if any.
struct ParsedMemory {
  std::string file;
  bool deleted = false;
  std::int64_t time = 0;       // ms UTC: the file's mtime, or when the deletion was noticed
  std::string prev_native_id;  // the file's previous line's event, "" for its first
  std::optional<std::string> project;
  // The memory in this version: nothing for a deletion, an empty file, an
  // index file (MEMORY.md) or anything else that holds no memory.
  struct Memory {
    std::string kind;  // memory | knowledge | cognition
    std::string text;
    double confidence = 0.8;
  };
  std::optional<Memory> memory;
};

/// A session title a line carries (spec: Session names).  The ingester
/// makes it an event like any other, so that it can be found, shown and
/// forgotten by id: kind meta, tool_name "title", role user for a title the
/// user gave (manual) and assistant for a generated one, the title as text,
/// no cwd.  A session's title is derived from its visible title events
/// alone: the latest manual one, else the latest generated one (by
/// arrival).  Title events count in none of the session's aggregates.
struct ParsedTitle {
  std::string native_id;  // stable: the event's id is <source>:<native_id>
  std::string session;    // native session id the title belongs to
  std::string text;
  bool manual = false;  // the user gave it; a generated title never replaces it
  std::int64_t ts = 0;  // ms UTC
  // The line the title comes from when it is an earlier line than the one
  // being parsed (a title that waited for a time, invariant 1).
  std::optional<std::int64_t> line;
  // A title that names the conversation holding a line rather than its own
  // log's session (Claude Code's summary and its leafUuid): the native id
  // of that line's event (its events are <leaf> or <leaf>#<block>).  The
  // title then belongs to the session of that event, once the store holds
  // it, whatever `session` says; until then it waits (the ingester's
  // title_wait), and it is applied when the event arrives.
  std::optional<std::string> leaf;
};

struct ParsedLine {
  std::vector<ParsedEvent> events;
  /// For a memory stream line: its one event is the line's, events[0].
  std::optional<ParsedMemory> memory;
  /// Session titles this line carries (or earlier lines' that waited for it).
  std::vector<ParsedTitle> titles;
  std::optional<std::string> agent_version;
};

/// An adapter's carry-over from earlier lines of the same file (Codex keeps
/// the cwd of session_meta).  Saved with the cursor in the same transaction,
/// so parsing resumes exactly where it stopped.
class FileState {
 public:
  virtual ~FileState() = default;
  virtual std::string Save() const = 0;
};

struct ParseContext {
  std::string_view abs_path;
  std::string_view key;
  std::int64_t line_no = 0;  // 1-based, in the mirror's content
  FileState* state = nullptr;
};

class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A generated stream's data cannot be read right now (a database busy or
/// mid-write): tried again at the next look, not reported as an error.
class SourceBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The agent's own line that a line of a generated stream copies: its
/// line number in the stream's file and its bytes (SourceAdapter::Original).
struct OriginalLine {
  std::int64_t line = 0;
  std::string raw;
};

class SourceAdapter {
 public:
  virtual ~SourceAdapter() = default;
  /// 'claude-code' | 'codex' | ...
  virtual std::string_view id() const = 0;
  virtual std::string_view display_name() const = 0;
  /// The root directory this adapter reads (it may not exist).
  virtual const std::string& root() const = 0;
  /// Walks the root; never throws for a missing or unreadable directory.
  virtual Discovery Discover() const = 0;
  /// The file state to parse `key` with, from what Save() wrote (empty for
  /// a new file).  nullptr when the adapter keeps none.
  virtual std::unique_ptr<FileState> LoadState(std::string_view key, std::string_view saved) const {
    (void)key;
    (void)saved;
    return nullptr;
  }
  /// For a line of a generated stream `key` that copies a line of the
  /// agent's file (Cursor's agent transcripts, Grok's chat history): that
  /// line and where it is, which `origin sources` gives first (invariant
  /// 1).  nullopt for any other line.
  virtual std::optional<OriginalLine> Original(std::string_view key,
                                               std::string_view mirror_line) const {
    (void)key;
    (void)mirror_line;
    return std::nullopt;
  }
  /// Parses one complete line (without its newline).  Throws ParseError.
  virtual ParsedLine ParseLine(std::string_view line, ParseContext& ctx) const = 0;
  /// A generated stream's next lines: complete lines, each ending in \n,
  /// that follow `last_line` (its last mirrored line, without the newline;
  /// empty for a new stream), at most about `max_bytes` (a longer line
  /// alone), or "" when there are none.  Each record is written once, when
  /// it will no longer change, and where to go on is read from `last_line`
  /// alone: the adapter keeps no state, and the same data and last line give
  /// the same lines on every store.  `now_ms` dates what has no time of its
  /// own (a deletion noticed now).  Throws SourceBusy, or another exception
  /// for a stream that cannot be read.
  virtual std::string Generate(const SourceFile& stream, std::string_view last_line,
                               std::size_t max_bytes, std::int64_t now_ms) const;
  /// Of a generated stream `key`'s line: what Generate reads from it to go
  /// on (a JSON object of those members alone), without the text the line
  /// carries; "" for a line Generate reads nothing from.  Kept when the
  /// line is erased (core/erase: the generated_cursor table) and given to
  /// Generate in its place, so that the stream goes on exactly where it was.
  virtual std::string CursorOf(std::string_view key, std::string_view line) const {
    (void)key;
    (void)line;
    return {};
  }
};

}  // namespace origin
