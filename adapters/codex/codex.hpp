// SPDX-License-Identifier: MIT
#pragma once
// Codex CLI (sources.md section 2).
//
// Files: <root>/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl and
// <root>/archived_sessions/rollout-*.jsonl, either of them possibly
// compressed to .jsonl.zst.  A rollout's key is rollouts/<file name without
// .zst>, so the same rollout moving between sessions/ and archived_sessions/
// or between its plain and compressed forms keeps its cursor and mirror;
// when both forms exist the plain one wins.
// response_item lines become events (messages, tool calls and their
// outputs joined by call_id; reasoning is not indexed); event_msg copies of
// the messages are skipped, errors and thread names kept; compacted lines are
// meta events.  Codex lines carry no id, so an event's native id is
// <thread-uuid>:<line>.  The cwd, branch, model and version come from
// session_meta and turn_context lines: they are the file's carried state.
// <root>/session_index.jsonl, the thread names the user gave, is read like a
// log: each line is a title event of its thread (<thread>:index:<line>,
// dated by updated_at), the latest visible one winning; a rollout's
// thread_name_updated is a title event too (<thread>:<line>), which never
// replaces a name from the index.

#include <string>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

class CodexAdapter final : public SourceAdapter {
 public:
  /// `root` is $CODEX_HOME or ~/.codex.
  explicit CodexAdapter(std::string root) : root_(std::move(root)) {}
  std::string_view id() const override { return "codex"; }
  std::string_view display_name() const override { return "Codex CLI"; }
  const std::string& root() const override { return root_; }
  Discovery Discover() const override;
  std::unique_ptr<FileState> LoadState(std::string_view key, std::string_view saved) const override;
  ParsedLine ParseLine(std::string_view line, ParseContext& ctx) const override;

 private:
  std::string root_;
};

}  // namespace origin::adapters
