// SPDX-License-Identifier: MIT
#pragma once
// ZCode (sources.md section 4), root $ZCODE_HOME or ~/.zcode.
//
// Sessions: cli/db/db.sqlite (an opencode-style schema: session, message,
// part; JSON in `data`), read as one generated stream, sessions/db.jsonl,
// opened read-only and never locked against ZCode.  Its token digests the
// sizes and mtimes of the database and its -wal file.  The stream has a
// line per message once the message will no longer change: a user message
// at once, an assistant message when it has completed (time.completed or
// finish) or when a later message of its session exists.  Messages go out
// in rowid order; one still streaming holds back what follows it in the
// cursor, while later completed ones go out and are listed, so each line
// holds where to go on: `upto` (every message up to this rowid is out) and
// `after` (those out beyond it).  A line holds the message, its session and
// its parts as the database had them.  Events per line:
//   user          its text parts joined: a message
//   assistant     its text parts joined: a message (model from modelID);
//                 each tool part a tool_call (<part>#call, the input) and,
//                 once completed or failed, a tool_result (<part>#result,
//                 is_error when failed); reasoning parts not indexed
// A sub-agent's session (parent_id set) puts its events in the parent's
// session, naming itself in `agent`.  A session's title comes with each of
// its messages (title_source 'custom' is the user's): a title event, one per
// distinct title, dated by the first message that carries it
// (adapters/common/title.hpp).  A database that is
// busy, missing its -shm or mid-write is tried again at the next look.
//
// Memory (sources.md 4.4): each project's cli/memories/projects/<slug>/memory/
// is a memory stream (adapters/common/memory_stream.hpp), memory/<slug>.jsonl;
// <slug> is <lower-cased basename>-<16 hex>, so the project is the slug
// without its hash, and the cwd is unknown.  The files follow Claude Code's
// auto-memory: optional front matter with name, description and type, and a
// MEMORY.md index that derives no entry.

#include <string>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

class ZcodeAdapter final : public SourceAdapter {
 public:
  explicit ZcodeAdapter(std::string root) : root_(std::move(root)) {}
  std::string_view id() const override { return "zcode"; }
  std::string_view display_name() const override { return "ZCode"; }
  const std::string& root() const override { return root_; }
  Discovery Discover() const override;
  ParsedLine ParseLine(std::string_view line, ParseContext& ctx) const override;
  std::string Generate(const SourceFile& stream, std::string_view last_line, std::size_t max_bytes,
                       std::int64_t now_ms) const override;
  std::string CursorOf(std::string_view key, std::string_view line) const override;

 private:
  std::string GenerateMessages(const SourceFile& stream, std::string_view last_line,
                               std::size_t max_bytes) const;
  static ParsedLine ParseMessage(std::string_view line);
  std::string root_;
};

}  // namespace origin::adapters
