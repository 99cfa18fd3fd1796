// SPDX-License-Identifier: MIT
// Cursor: agent transcripts (sources.md 3.2, cursor.hpp), read only for a
// conversation held nowhere else.
#include <rapidjson/document.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <set>
#include <vector>

#include "adapters/common/json.hpp"
#include "adapters/common/memory_stream.hpp"
#include "adapters/common/sqlite_source.hpp"
#include "adapters/common/stream_cursor.hpp"
#include "adapters/common/title.hpp"
#include "adapters/cursor/cursor.hpp"
#include "adapters/cursor/parts.hpp"
#include "core/ingest/walk.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

using namespace cursor_parts;

namespace {

// A path as Cursor names its project directory (~/.cursor/projects/<slug>:
// /Users/me/prj -> Users-me-prj), every character but a letter or digit
// taken as a '-', so that either spelling compares.
std::string Slug(std::string_view path) {
  std::string out;
  for (char c : path)
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || (c & 0x80) != 0) ? c : '-';
  const std::size_t start = out.find_first_not_of('-');
  return start == std::string::npos ? "" : out.substr(start);
}

}  // namespace

// Agent transcripts (3.2): ~/.cursor/projects/<slug>/agent-transcripts/
// <id>/<id>.jsonl, a sub-agent's in <id>/subagents/<sub>.jsonl, each a
// generated stream of its items, transcripts/<slug>/<id>/ then the same.
// <id> is the conversation's id, the IDE's composer id (or the CLI's agent
// id): a transcript repeats a conversation read there, so it is read only
// for a conversation held nowhere else (SourceFile::dedup: the session is
// the conversation, the group a transcript and its sub-agents').
void CursorAdapter::AddTranscripts(Discovery& d, std::set<std::string>& held) const {
  const std::string projects = root_ + "/projects";
  if (!IsDirectory(projects)) return;
  WalkRules rules;
  rules.enter_dir = [](std::string_view rel) {
    const std::vector<std::string_view> p = SplitPath(rel);
    return p.size() == 1 || p.size() == 3 || (p.size() == 2 && p[1] == "agent-transcripts") ||
           (p.size() == 4 && p[3] == "subagents");
  };
  rules.accept_file = [](std::string_view rel, SourceFile& f) {
    const std::vector<std::string_view> p = SplitPath(rel);
    if (p.size() < 4 || p[1] != "agent-transcripts" || !EndsWith(rel, ".jsonl")) return false;
    const std::string slug(p[0]), id(p[2]);
    Dedup dedup{id, "transcripts/" + slug + "/" + id + "/"};
    if (p.size() == 4 && p[3] == id + ".jsonl")
      f.key = dedup.group + id + ".jsonl";
    else if (p.size() == 5 && p[3] == "subagents")
      f.key = dedup.group + "subagents/" + std::string(p[4]);
    else
      return false;
    f.generated = true;
    f.token = std::to_string(f.size) + ":" + std::to_string(f.mtime_ns);
    f.dedup = std::move(dedup);
    return true;
  };
  Discovery t = Walk(projects, rules);
  d.dirs.insert(d.dirs.end(), t.dirs.begin(), t.dirs.end());
  d.problems.insert(d.problems.end(), t.problems.begin(), t.problems.end());
  if (t.files.empty()) return;
  d.root_exists = true;
  // Which of them the IDE's database holds.  A conversation it holds with
  // bubbles is read there.  One it lists without bubbles is kept somewhere
  // this does not read (a newer layout): its transcript is read, once the
  // conversation has been quiet for kYoungMs, since a new one's first
  // bubbles may still be on their way to the database.  While the database
  // cannot be read, every transcript not started waits.
  std::set<std::string> ids;
  for (const SourceFile& f : t.files)
    if (held.count(f.dedup->session) == 0) ids.insert(f.dedup->session);
  bool unknown = false;
  const std::string global = ide_user_ + "/globalStorage/state.vscdb";
  if (!ids.empty() && ::access(global.c_str(), F_OK) == 0) {
    const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    try {
      ReadDatabase(global, [&](Db& db) {
        if (db.QueryInt("SELECT count(*) FROM sqlite_master WHERE name = 'cursorDiskKV'") == 0)
          return std::string();  // an older layout: no conversation there to repeat
        auto st = db.Prepare(
            "SELECT value, EXISTS (SELECT 1 FROM cursorDiskKV WHERE key > 'bubbleId:' || ?1 || "
            "':' AND key < 'bubbleId:' || ?1 || ';') FROM cursorDiskKV WHERE key = "
            "'composerData:' || ?1");
        for (const std::string& id : ids) {
          st.Bind(1, id);
          if (st.Step()) {
            bool young = false;
            if (st.Int(1) == 0) {
              std::optional<Composer> c = ParseComposer(st.Blob(0));
              young = c && now - std::max(c->created, c->updated) < kYoungMs;
            }
            if (st.Int(1) != 0 || young) held.insert(id);
          }
          st.Reset();
        }
        return std::string();
      });
    } catch (const SourceBusy&) {
      unknown = true;
    }
  }
  for (SourceFile& f : t.files) {
    f.dedup->held = unknown || held.count(f.dedup->session) != 0;
    d.files.push_back(std::move(f));
  }
}

std::string CursorAdapter::GenerateTranscript(const SourceFile& stream, std::string_view last_line,
                                              std::size_t max_bytes) const {
  // The conversation's name and workspace, when the IDE lists it (keeping
  // its messages elsewhere); else the project is the IDE's workspace whose
  // folder has the transcript's slug.
  const std::vector<std::string_view> p = SplitPath(stream.key);
  std::string cwd, title;
  const std::string global = ide_user_ + "/globalStorage/state.vscdb";
  if (p.size() >= 3 && ::access(global.c_str(), F_OK) == 0) {
    try {
      ReadDatabase(global, [&](Db& db) {
        if (db.QueryInt("SELECT count(*) FROM sqlite_master WHERE name = 'cursorDiskKV'") != 0)
          if (std::optional<Composer> c = LoadComposer(db, std::string(p[2]))) {
            title = c->name;
            cwd = c->folder;
          }
        return std::string();
      });
    } catch (const std::exception&) {
      // Not now: these lines go without them.
    }
  }
  if (p.size() >= 3 && cwd.empty())
    for (const auto& [dir, folder] : Workspaces(ide_user_))
      if (Slug(folder) == Slug(p[1])) cwd = folder;
  // No times in a transcript: its items are dated when they are first seen,
  // by the file's mtime, 1 ms apart.
  const std::int64_t seen = stream.mtime_ns / 1000000;
  std::optional<std::size_t> first;
  return GenerateItems(stream.abs_path, last_line, max_bytes, [&](JsonWriter& w, std::size_t i) {
    if (!first) first = i;
    w.Key("ts");
    w.Int64(seen + static_cast<std::int64_t>(i - *first));
    if (!cwd.empty()) WriteMember(w, "cwd", cwd);
    if (!title.empty()) WriteMember(w, "title", title);
  });
}

ParsedLine CursorAdapter::ParseTranscript(std::string_view line, std::string_view key) {
  rapidjson::Document doc;
  const ItemLine il = ParseItemLine(line, doc);
  // transcripts/<slug>/<id>/<id>.jsonl, transcripts/<slug>/<id>/subagents/<sub>.jsonl
  const std::vector<std::string_view> p = SplitPath(key.substr(0, key.size() - 6));
  if (p.size() < 4 || p.size() > 5) throw ParseError("not a Cursor transcript stream");
  const std::string session(p[2]);
  const std::optional<std::string> agent =
      p.size() == 5 ? std::optional<std::string>(p[4]) : std::nullopt;
  const std::optional<std::string> cwd = NonEmpty(doc, "cwd");
  ParsedLine out;
  if (auto title = NonEmpty(doc, "title"))
    out.titles.push_back(MakeTitle(session, *title, false, il.ts));
  MessageEvents(*il.item, session + ":t:" + (agent ? *agent + ":" : "") + il.id,
                [&](std::string native_id) -> ParsedEvent& {
                  ParsedEvent& e = out.events.emplace_back();
                  e.native_id = std::move(native_id);
                  e.session = session;
                  e.ts = il.ts;
                  e.cwd = cwd;
                  e.agent = agent;
                  return e;
                });
  return out;
}

}  // namespace origin::adapters
