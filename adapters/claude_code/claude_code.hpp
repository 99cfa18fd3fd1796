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
// (<uuid>#<block>, truncated to 2,000 / 4,000 characters); attachment
// blocks leave a marker ([image: image/png, 590 KB]); thinking blocks and
// text of white space alone give nothing.  isMeta lines, compaction
// summaries, the compaction worker's (agent-acompact-*) messages, API-error
// lines (whose "<synthetic>" model is no model) and system lines with content
// become meta events, and so does the harness's text in a user line
// (adapters/common/harness.hpp): the line's own event, or <uuid>#context
// beside the person's message.  ai-title, custom-title and summary lines of
// a session's own log are title events (ParsedTitle; a summary's belongs to
// the session that holds its leafUuid, ParsedTitle::leaf): a
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
  std::string CursorOf(std::string_view key, std::string_view line) const override;

 private:
  std::string root_;
};

}  // namespace origin::adapters
