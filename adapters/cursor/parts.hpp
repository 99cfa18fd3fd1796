// SPDX-License-Identifier: MIT
#pragma once
// What the files of the Cursor adapter share (cursor.hpp says what each
// kind of log is): a conversation's header in the IDE's database and the
// IDE's workspaces (ide.cpp), and the events of one message, which the
// CLI's chats and the agent transcripts give alike (chats.cpp).  Internal
// to adapters/cursor: chats.cpp, ide.cpp, chat_panel.cpp, transcripts.cpp
// and cursor.cpp (discovery, and which file a stream belongs to).

#include <rapidjson/document.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/common/json.hpp"
#include "core/c/sqlite.hpp"
#include "core/ingest/adapter.hpp"

namespace origin::adapters::cursor_parts {

// How long a conversation the IDE lists without bubbles may still be
// getting its first ones (AddTranscripts).
constexpr std::int64_t kYoungMs = 10 * 60 * 1000;

struct Composer {
  std::string name, model;
  std::int64_t created = 0, updated = 0;
  std::string folder;                // its workspaceIdentifier's, when it names one
  std::vector<std::string> bubbles;  // in order
  bool generating = true;            // unless its status says otherwise
  std::string status;
};

/// A conversation's header, from its composerData value; with the older
/// layout (before 0.40) its bubbles are inline, in `legacy`.
std::optional<Composer> ParseComposer(std::string_view value,
                                      rapidjson::Document* legacy = nullptr);
/// The header of conversation `id` in the IDE's database.
std::optional<Composer> LoadComposer(Db& db, const std::string& id);
/// The folder a workspace.json's URI opens (file:///abs/path, or a remote's
/// vscode-remote://<authority>/path), percent-decoded.
std::optional<std::string> FolderPath(std::string_view uri);
/// The folder a workspace storage directory's workspace.json opens.
std::optional<std::string> WorkspaceFolder(const std::string& dir);
/// The IDE's workspaces (workspaceStorage/<hash>/workspace.json): each
/// storage directory and the folder it opens.
std::vector<std::pair<std::string, std::string>> Workspaces(const std::string& ide_user);

/// `text` without its first <tag>...</tag> element, trimmed: what a harness
/// wrapped around it.
std::string OutsideTag(std::string_view text, std::string_view tag);

/// The events of one message, {role, content}, of a cursor-agent chat
/// (content parts text, reasoning, tool-call, tool-result) or of an agent
/// transcript ({role, message: {content}}, parts text, tool_use,
/// tool_result), under `id` (parts: <id>#<n>):
///   user       the text (the <user_query> in it, when there is one): a
///              message, and the context around that query (<id>#context):
///              meta; a message of only <user_info> context: meta
///   assistant  text parts joined: a message; each tool call a tool_call
///   tool, or a user's tool results: each a tool_result (is_error)
/// Reasoning is not indexed.  `event` adds one with its id; this sets the rest.
void MessageEvents(const Json& msg, const std::string& id,
                   const std::function<ParsedEvent&(std::string)>& event);

}  // namespace origin::adapters::cursor_parts
