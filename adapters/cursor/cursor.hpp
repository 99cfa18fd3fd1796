// SPDX-License-Identifier: MIT
#pragma once
// Cursor (sources.md section 3), root ~/.cursor.
//
// Read so far: the cursor-agent CLI's chats (3.3).  Each
// chats/<workspace-md5>/<agent-id>/store.db is one generated stream,
// chats/<workspace-md5>/<agent-id>.jsonl, whose token digests the size and
// mtime of the database and its -wal, opened read-only as ZCode's is.  The
// chat is a tree of content-addressed blobs: `meta` (key '0', hex-encoded
// JSON) names the latest root blob; a tree blob lists its children as
// protobuf field 1 (32-byte blob ids), and a blob that starts with '{' is a
// message ({role, content}).  The stream has a line per message of the
// latest tree, in order, each holding its blob id, its index in the tree
// and a digest of the tree's message ids so far.  The next look goes on
// after the last index while the tree still begins with the same messages;
// after a rewind (a root on another branch) the tree is written again from
// its start, and the messages it shares with the old branch, the same
// blobs, add no event.  A blob, named by its content, never changes.  Messages carry no time: the
// chat's createdAt plus the message's index in ms keeps them in order.  Events per line:
//   user        the text (the <user_query> in it, when there is one): a
//               message; a message of only <user_info> context: meta
//   assistant   text parts joined: a message (model: the chat's
//               lastUsedModel); each tool-call part a tool_call
//               (<blob>#<n>); reasoning parts not indexed
//   tool        each tool-result part a tool_result (is_error)
// The session is the agent id; its title the chat's name.  Not read yet:
// the IDE's state.vscdb (3.1) and its agent transcripts (3.2).

#include <string>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

class CursorAdapter final : public SourceAdapter {
 public:
  explicit CursorAdapter(std::string root) : root_(std::move(root)) {}
  std::string_view id() const override { return "cursor"; }
  std::string_view display_name() const override { return "Cursor"; }
  const std::string& root() const override { return root_; }
  Discovery Discover() const override;
  ParsedLine ParseLine(std::string_view line, ParseContext& ctx) const override;
  std::string Generate(const SourceFile& stream, std::string_view last_line, std::size_t max_bytes,
                       std::int64_t now_ms) const override;

 private:
  std::string root_;
};

}  // namespace origin::adapters
