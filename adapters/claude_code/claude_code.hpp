// SPDX-License-Identifier: MIT
#pragma once
// Claude Code (spec: Claude Code mapping; sources.md section 1).
//
// Files: <root>/projects/<cwd-slug>/<session-id>.jsonl, sub-agents in the old
// layout (<slug>/agent-<id>.jsonl, lines marked isSidechain) and the new one
// (<slug>/<session-id>/subagents/[workflows/<id>/]agent-<id>.jsonl); every
// tool-results/ directory is skipped.  Each project's memory/ directory is a
// memory stream (adapters/common/memory_stream.hpp), mirrored as
// memory/<cwd-slug>.jsonl, whose cwd is read from the project's sessions.
// user and assistant lines become events: text blocks joined into one
// message event (<uuid>), each tool_use / tool_result block its own event
// (<uuid>#<block>, truncated to 2,000 / 4,000 characters); thinking blocks
// are not indexed.  isMeta lines, compaction summaries, API-error lines and
// system lines with content become meta events.  ai-title, custom-title and
// summary lines of a session's own log are title events (ParsedTitle): a
// line that repeats the title its kind (the user's, or generated) last gave
// the session in this file is none, and the id chains on that title
// (adapters/common/title.hpp).  Title lines carry no time: a title takes the
// time of the line before it in the file, or waits for the next line that
// has one.  That time, the last titles and the waiting titles are the state
// carried between lines (ClaudeState); every other line names its session
// and cwd.

#include <string>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

class ClaudeCodeAdapter final : public SourceAdapter {
 public:
  /// `root` is $CLAUDE_CONFIG_DIR or ~/.claude.
  explicit ClaudeCodeAdapter(std::string root) : root_(std::move(root)) {}
  std::string_view id() const override { return "claude-code"; }
  std::string_view display_name() const override { return "Claude Code"; }
  const std::string& root() const override { return root_; }
  Discovery Discover() const override;
  std::unique_ptr<FileState> LoadState(std::string_view key, std::string_view saved) const override;
  ParsedLine ParseLine(std::string_view line, ParseContext& ctx) const override;
  /// The memory streams (memory/<cwd-slug>.jsonl): see memory_stream.hpp.
  std::string Generate(const SourceFile& stream, std::string_view last_line, std::size_t max_bytes,
                       std::int64_t now_ms) const override;

 private:
  std::string root_;
};

}  // namespace origin::adapters
