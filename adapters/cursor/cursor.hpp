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
// The session is the agent id; its title the chat's name.
//
// The IDE (3.1): <user data dir>/globalStorage/state.vscdb (Linux
// ~/.config/Cursor/User, macOS ~/Library/Application Support/Cursor/User),
// one generated stream, ide/state.vscdb.jsonl, read like the chats.  Its
// cursorDiskKV table holds each conversation's header (composerData:<id>:
// name, createdAt, modelConfig.modelName, status and the ordered bubble
// list fullConversationHeadersOnly) and each message (bubbleId:<composer>:
// <bubble>: type 1 user, 2 assistant, text, createdAt, toolFormerData).
// Bubbles are rewritten in place while they stream (a rewrite gives the row
// a new rowid), so a bubble is written out only once it will no longer
// change: when a later bubble follows it in its conversation, or, for the
// last one, when the conversation's status says it is no longer generating
// (completed, aborted).  Rows go out in rowid order, with `upto` and
// `after` as ZCode's messages do.  A line holds the conversation's name,
// model and time, and the bubble's type, text, time and tool (name,
// arguments and result, cut to 64 KiB each: bubbles can hold whole files).
// Events: a user bubble a message; an assistant bubble its text as a
// message, its tool as a tool_call (<bubble>#call) and, once completed or
// failed, a tool_result (<bubble>#result).  Thinking is not indexed.  The
// session is the conversation (composer) id; its title the name.  The
// older layout (before 0.40), bubbles inline in composerData (conversation,
// conversationMap), goes out a conversation at a time once it is not
// generating.  A conversation's workspace (its workspaceIdentifier, else
// workspaceStorage/<hash>: the
// folder of workspace.json, whose state.vscdb lists the conversation in
// composer.composerData) gives its bubbles' cwd.  The oldest chat panel
// (before 0.40): each workspace database's
// workbench.panel.aichat.view.aichat.chatdata tabs, a generated stream
// ide/workspaceStorage/<hash>.aichat.jsonl of their bubbles.  Credentials
// (cursorAuth/*) are never read.
//
// Agent transcripts (3.2): projects/<slug>/agent-transcripts/<id>/<id>.jsonl
// and <id>/subagents/<sub>.jsonl, generated streams of their items
// (GenerateItems), read only for a conversation whose messages neither the
// IDE's database (bubbles) nor a CLI chat holds (SourceFile::dedup).  No ids
// or times: items are named by their bytes and dated by the file's mtime
// when first seen.
//
// Titles: every line repeats its conversation's (or tab's) name; each
// distinct name is a title event, dated by the first line that carries it
// (adapters/common/title.hpp).  Cursor does not say whether the user gave
// it, so none is manual.
//
// Files, one a kind of log: chats.cpp (the CLI's chats), ide.cpp (the
// IDE's database and workspaces), chat_panel.cpp (the oldest chat panel),
// transcripts.cpp (agent transcripts); cursor.cpp discovers them all and
// sends each stream to its file; parts.hpp is what they share.

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

class CursorAdapter final : public SourceAdapter {
 public:
  /// `root` is ~/.cursor; `ide_user` the IDE's user data directory.
  CursorAdapter(std::string root, std::string ide_user)
      : root_(std::move(root)), ide_user_(std::move(ide_user)) {}
  std::string_view id() const override { return "cursor"; }
  std::string_view display_name() const override { return "Cursor"; }
  const std::string& root() const override { return root_; }
  Discovery Discover() const override;
  ParsedLine ParseLine(std::string_view line, ParseContext& ctx) const override;
  std::string Generate(const SourceFile& stream, std::string_view last_line, std::size_t max_bytes,
                       std::int64_t now_ms) const override;
  std::string CursorOf(std::string_view key, std::string_view line) const override;
  /// The transcript's own line behind a generated item line (ItemOriginal).
  std::optional<OriginalLine> Original(std::string_view key,
                                       std::string_view mirror_line) const override;

 private:
  // The CLI's chats (chats.cpp).
  static std::string GenerateChat(const SourceFile& stream, std::string_view last_line,
                                  std::size_t max_bytes);
  static ParsedLine ParseChat(std::string_view line, std::string_view key);
  // The IDE's database (ide.cpp).
  std::string GenerateIde(const SourceFile& stream, std::string_view last_line,
                          std::size_t max_bytes) const;
  static ParsedLine ParseBubble(std::string_view line);
  std::map<std::string, std::string> ComposerFolders() const;
  // Agent transcripts (transcripts.cpp).
  void AddTranscripts(Discovery& d, std::set<std::string>& held) const;
  std::string GenerateTranscript(const SourceFile& stream, std::string_view last_line,
                                 std::size_t max_bytes) const;
  static ParsedLine ParseTranscript(std::string_view line, std::string_view key);
  // The oldest chat panel (chat_panel.cpp).
  std::string GenerateChatPanel(const SourceFile& stream, std::string_view last_line,
                                std::size_t max_bytes) const;
  static ParsedLine ParseChatPanel(std::string_view line);
  std::string root_, ide_user_;
  // What each workspace database lists, by its path, while its stamp holds
  // (ComposerFolders): derived data, checked at every use, not state.
  struct WorkspaceList {
    std::string stamp;
    std::vector<std::string> composers;
  };
  mutable std::mutex workspaces_mu_;
  mutable std::map<std::string, WorkspaceList> workspaces_;
};

}  // namespace origin::adapters
