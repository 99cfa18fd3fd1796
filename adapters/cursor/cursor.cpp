// SPDX-License-Identifier: MIT
// Cursor: discovery of every kind of log, and which kind a stream is.  The
// kinds are read in files of their own: chats.cpp (the CLI's chats),
// ide.cpp (the IDE's database), chat_panel.cpp (its oldest chat panel),
// transcripts.cpp (agent transcripts).
#include "adapters/cursor/cursor.hpp"

#include <rapidjson/document.h>

#include <set>

#include "adapters/common/json.hpp"
#include "adapters/common/sqlite_source.hpp"
#include "adapters/common/stream_cursor.hpp"
#include "adapters/cursor/parts.hpp"
#include "core/ingest/walk.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

using namespace cursor_parts;

Discovery CursorAdapter::Discover() const {
  Discovery d = RootDiscovery(root_);
  // Conversations held elsewhere, which an agent transcript repeats: the
  // IDE's and the CLI's.
  std::set<std::string> held;
  // The IDE's database.
  const std::string global = ide_user_ + "/globalStorage";
  if (auto f = DatabaseStream(global + "/state.vscdb", "ide/state.vscdb.jsonl")) {
    d.files.push_back(std::move(*f));
    d.dirs.push_back(global);
    d.root_exists = true;
  }
  // The oldest chat panel, in each workspace's own database.  Those are
  // not watched: Cursor writes an open workspace's UI state there all the
  // time, and the panel they hold no longer changes; the rescan looks.
  const std::string storage = ide_user_ + "/workspaceStorage";
  if (IsDirectory(storage)) {
    d.dirs.push_back(storage);
    d.root_exists = true;
    for (const std::string& hash : SubDirs(storage)) {
      if (auto f = DatabaseStream(storage + "/" + hash + "/state.vscdb",
                                  "ide/workspaceStorage/" + hash + ".aichat.jsonl"))
        d.files.push_back(std::move(*f));
    }
  }
  const std::string chats = root_ + "/chats";
  if (IsDirectory(chats)) {
    d.dirs.push_back(chats);
    for (const std::string& ws : SubDirs(chats)) {
      d.dirs.push_back(chats + "/" + ws);
      for (const std::string& agent : SubDirs(chats + "/" + ws)) {
        const std::string dir = chats + "/" + ws + "/" + agent;
        held.insert(agent);
        if (auto f = DatabaseStream(dir + "/store.db", "chats/" + ws + "/" + agent + ".jsonl")) {
          d.files.push_back(std::move(*f));
          d.dirs.push_back(dir);
        }
      }
    }
  }
  AddTranscripts(d, held);
  return d;
}

std::string CursorAdapter::Generate(const SourceFile& stream, std::string_view last_line,
                                    std::size_t max_bytes, std::int64_t) const {
  if (stream.key == "ide/state.vscdb.jsonl") return GenerateIde(stream, last_line, max_bytes);
  if (EndsWith(stream.key, ".aichat.jsonl")) return GenerateChatPanel(stream, last_line, max_bytes);
  if (stream.key.rfind("transcripts/", 0) == 0)
    return GenerateTranscript(stream, last_line, max_bytes);
  return GenerateChat(stream, last_line, max_bytes);
}

std::string CursorAdapter::CursorOf(std::string_view key, std::string_view line) const {
  if (key == "ide/state.vscdb.jsonl") return RowCursor::CursorOf(line);
  // A transcript's next items are dated from where the last one was.
  if (key.rfind("transcripts/", 0) == 0) return CursorMembers(line, {"index", "chain", "ts"});
  return SequenceCursor::CursorOf(line);  // chat panels and chats
}

std::optional<OriginalLine> CursorAdapter::Original(std::string_view key,
                                                    std::string_view mirror_line) const {
  if (key.rfind("transcripts/", 0) != 0) return std::nullopt;
  return ItemOriginal(mirror_line);
}

ParsedLine CursorAdapter::ParseLine(std::string_view line, ParseContext& ctx) const {
  if (ctx.key == "ide/state.vscdb.jsonl") return ParseBubble(line);
  if (EndsWith(ctx.key, ".aichat.jsonl")) return ParseChatPanel(line);
  if (ctx.key.rfind("transcripts/", 0) == 0) return ParseTranscript(line, ctx.key);
  return ParseChat(line, ctx.key);
}

}  // namespace origin::adapters
