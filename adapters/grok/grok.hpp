// SPDX-License-Identifier: MIT
#pragma once
// Grok Build (sources.md section 5), root $GROK_HOME or ~/.grok.
//
// Sessions: sessions/<encoded-cwd>/<session-uuid>/updates.jsonl, the
// authoritative ACP stream (5.3), and each sub-agent's
// <session-uuid>/subagents/<id>/updates.jsonl, whose events belong to the
// parent session and name the sub-agent in `agent`.  The session is the
// directory's uuid, the cwd the directory name percent-decoded (unknown when
// Grok shortened it).  Per line (`session/update` or `_x.ai/session/update`):
//   user_message_chunk / agent_message_chunk   consecutive chunks of one kind
//       are joined into one message event (user / assistant), emitted when
//       the run ends (at the next line of another kind), under the first
//       chunk's eventId and line; the run in progress is carried in the file
//       state, so a message straddling two reads is still one event.  The
//       last message of a stream therefore arrives with the next line Grok
//       writes after it.
//   agent_thought_chunk   not indexed (like Claude Code's thinking); ends a run
//   tool_call             a tool_call event (title as the tool, rawInput)
//   tool_call_update      with a final status (completed, failed) a
//                         tool_result event (its text content or rawOutput;
//                         is_error when failed); earlier updates give nothing
//   everything else (plan, hook_execution, retry_state, available_commands_update, ...)
//                         nothing; kept in the mirror
// Times: params._meta.agentTimestampMs, else update._meta.agentTimestampMs,
// else `timestamp` (seconds).  summary.json, which Grok rewrites every
// turn, is a generated stream of titles (<uuid>/summary.titles.jsonl): a
// line whenever the title it gives changes, a name the user gave (/rename)
// marked manual, dated by summary.json's updated_at (else last_active_at,
// created_at, its mtime).  Each line is a title event, <session>:title:<line>.
//
// Where a session has no updates.jsonl, its chat_history.jsonl (5.4, the
// model's view, rewritten on compaction) is read instead, as a generated
// stream of its items (<uuid>/chat_history.items.jsonl).  An item's id comes
// from its bytes (and how often the same line came before), so the items a
// compaction keeps keep their events; the stream goes on after the items
// written while the history still begins with them, else writes it again
// from the start (SequenceCursor).  Items have no time: they are dated from
// summary.json's created_at, one ms apart.  A user item is a message when
// it is a prompt (its <user_query>, or one with prompt_index), never when
// injected (synthetic_reason) or the environment preamble; an assistant
// item a message and its tool_calls; tool_result and backend_tool_call
// their events; system and reasoning nothing.
//
// Memory (5.5), plain Markdown without front matter, as memory streams
// (adapters/common/memory_stream.hpp):
//   memory/                    memory/global.jsonl: the global MEMORY.md
//   memory/<ws>/               memory/<ws>.jsonl: a workspace's MEMORY.md
//   memory/<ws>/sessions/      memory/<ws>/sessions.jsonl: per-session logs
// where <ws> is <project-slug>-<8 hex>.  A MEMORY.md here is the memory
// itself (curated by Grok's "dream"), not an index: it is knowledge; a
// session log is memory (what happened), ended when dream consumes and
// deletes it.

#include <string>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

class GrokAdapter final : public SourceAdapter {
 public:
  explicit GrokAdapter(std::string root) : root_(std::move(root)) {}
  std::string_view id() const override { return "grok"; }
  std::string_view display_name() const override { return "Grok Build"; }
  const std::string& root() const override { return root_; }
  Discovery Discover() const override;
  std::unique_ptr<FileState> LoadState(std::string_view key, std::string_view saved) const override;
  ParsedLine ParseLine(std::string_view line, ParseContext& ctx) const override;
  std::string Generate(const SourceFile& stream, std::string_view last_line, std::size_t max_bytes,
                       std::int64_t now_ms) const override;
  std::string CursorOf(std::string_view key, std::string_view line) const override;
  /// The transcript's own line behind a generated item line (ItemOriginal).
  std::optional<OriginalLine> Original(std::string_view key,
                                       std::string_view mirror_line) const override;

 private:
  ParsedLine ParseUpdate(std::string_view line, ParseContext& ctx) const;
  std::string GenerateTitles(const SourceFile& stream, std::string_view last_line) const;
  ParsedLine ParseTitle(std::string_view line, ParseContext& ctx) const;
  std::string GenerateHistory(const SourceFile& stream, std::string_view last_line,
                              std::size_t max_bytes) const;
  ParsedLine ParseHistoryItem(std::string_view line, ParseContext& ctx) const;
  std::string root_;
};

}  // namespace origin::adapters
