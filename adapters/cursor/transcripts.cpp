// SPDX-License-Identifier: MIT
// Cursor: agent transcripts (sources.md 3.2, cursor.hpp), read only for a
// conversation held nowhere else.
#include <fcntl.h>
#include <rapidjson/document.h>
#include <rapidjson/writer.h>
#include <sys/stat.h>
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
#include "core/query/events.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

using namespace cursor_parts;

namespace {

// A name as Cursor's project slugs compare (~/.cursor/projects/<slug>:
// /Users/me/prj -> Users-me-prj, C:\\Users\\me\\prj -> c-Users-me-prj):
// letters and digits (and every byte of a non-ASCII letter) kept, in lower
// case, every run of other characters one '-', none at either end.
std::string SlugKey(std::string_view path) {
  std::string out;
  for (char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || (u & 0x80) != 0)
      out += static_cast<char>(std::tolower(u));
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

bool EndsPath(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0 || c == '"' || c == '\'' || c == '`' ||
         c == '<' || c == '>' || c == '|' || c == '*' || c == '?' || c == '(' || c == ')' ||
         c == ',' || c == ';';
}

// The folder an absolute path in `text` starts with whose slug is `key`
// (SlugKey of the transcript's project directory): the lossy slug, read
// back from a path the conversation names (Cursor's <user_info> names the
// workspace, tool calls name files in it).
std::optional<std::string> FolderInText(std::string_view text, const std::string& key) {
  for (std::size_t p = 0; p < text.size(); ++p) {
    const bool after_word =
        p > 0 && (std::isalnum(static_cast<unsigned char>(text[p - 1])) != 0 ||
                  text[p - 1] == '/' || text[p - 1] == '\\' || text[p - 1] == '.' ||
                  text[p - 1] == '-' || text[p - 1] == '_' || text[p - 1] == ':');
    if (after_word) continue;
    const bool unix_root = text[p] == '/';
    const bool drive = std::isalpha(static_cast<unsigned char>(text[p])) != 0 &&
                       p + 2 < text.size() && text[p + 1] == ':' &&
                       (text[p + 2] == '\\' || text[p + 2] == '/');
    if (!unix_root && !drive) continue;
    std::size_t q = p + (drive ? 3 : 1);
    for (;; ++q) {
      if (q == text.size() || EndsPath(text[q]) || text[q] == '/' || text[q] == '\\') {
        const std::string_view prefix = text.substr(p, q - p);
        const std::string k = SlugKey(prefix);
        if (k == key) return std::string(prefix);
        if (k.size() > key.size() || key.compare(0, k.size(), k) != 0) break;
        if (q == text.size() || EndsPath(text[q])) break;
      }
    }
  }
  return std::nullopt;
}

// FolderInText over every string of a JSON value.
std::optional<std::string> FolderInJson(const Json& v, const std::string& key) {
  if (v.IsString()) return FolderInText(std::string_view(v.GetString(), v.GetStringLength()), key);
  if (v.IsArray())
    for (const Json& x : v.GetArray())
      if (auto f = FolderInJson(x, key)) return f;
  if (v.IsObject())
    for (const auto& m : v.GetObject())
      if (auto f = FolderInJson(m.value, key)) return f;
  return std::nullopt;
}

// An item of a transcript, parsed; nullopt when it is not a JSON object.
std::optional<rapidjson::Document> ParseItem(std::string_view item) {
  if (!JsonDepthWithin(item, kMaxJsonDepth)) return std::nullopt;
  rapidjson::Document d;
  d.Parse<rapidjson::kParseIterativeFlag>(item.data(), item.size());
  if (d.HasParseError() || !d.IsObject()) return std::nullopt;
  return d;
}

// A user's item with text: a turn of the conversation begins there; its
// <user_query> (else its text) in `query`.
bool StartsTurn(const Json& item, std::string* query) {
  if (Str(item, "role").value_or("") != "user") return false;
  const Json* content = Member(item, "content");
  if (content == nullptr)
    if (const Json* m = Member(item, "message"); m != nullptr && m->IsObject())
      content = Member(*m, "content");
  const std::string text = TextParts(content);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return false;
  if (query != nullptr) *query = TagContent(text, "user_query").value_or(std::string());
  return true;
}

// When a file or directory was made, where the system says (statx on
// Linux, st_birthtime on macOS).
std::optional<std::int64_t> BirthMs(const std::string& path) {
#if defined(__linux__) && defined(STATX_BTIME)
  struct statx sx {};
  if (::statx(AT_FDCWD, path.c_str(), 0, STATX_BTIME, &sx) == 0 && (sx.stx_mask & STATX_BTIME) != 0)
    return static_cast<std::int64_t>(sx.stx_btime.tv_sec) * 1000 + sx.stx_btime.tv_nsec / 1000000;
#elif defined(__APPLE__)
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0)
    return static_cast<std::int64_t>(st.st_birthtimespec.tv_sec) * 1000 +
           st.st_birthtimespec.tv_nsec / 1000000;
#endif
  (void)path;
  return std::nullopt;
}

// The earliest the file system says a transcript may have begun: the
// birth times of the file and of its directory, and the directory's
// modification time (a transcript made in it changed it), when earlier
// than the file's modification time.
std::int64_t BeganMs(const std::string& file, std::int64_t mtime_ms) {
  std::int64_t began = mtime_ms;
  const std::string dir(file.substr(0, file.rfind('/')));
  for (const std::string& p : {file, dir})
    if (std::optional<std::int64_t> b = BirthMs(p); b && *b > 0) began = std::min(began, *b);
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) began = std::min(began, MtimeNs(st) / 1000000);
  return began;
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
  // transcripts/<slug>/<id>/<id>.jsonl, transcripts/<slug>/<id>/subagents/<sub>.jsonl
  const std::vector<std::string_view> p = SplitPath(stream.key);
  const bool whole = p.size() == 4;  // the conversation's transcript, not a sub-agent's
  // The conversation's name and workspace, when the IDE lists it (keeping
  // its messages elsewhere).
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
  // Else the workspace is the folder the project directory's slug names:
  // an IDE workspace's folder with that slug, else a path the transcript
  // names whose leading folders have that slug.
  const std::string key = p.size() >= 2 ? SlugKey(p[1]) : std::string();
  if (cwd.empty() && !key.empty())
    for (const auto& [dir, folder] : Workspaces(ide_user_))
      if (SlugKey(folder) == key) cwd = folder;
  // No times in a transcript (docs/architecture.md, Cursor): the items of
  // a look are dated between where the transcript began (the first look)
  // or the last item out (later looks) and the file's modification time;
  // each turn (a user's message) at its share of that span, in order, and
  // the items of a turn 1 ms apart.
  const std::int64_t mtime = stream.mtime_ns / 1000000;
  std::optional<std::int64_t> prev;
  if (!last_line.empty()) {  // an item line, or its cursor (CursorOf)
    rapidjson::Document d;
    ParseObject(last_line, d);
    const Json* ts = Member(d, "ts");
    if (ts == nullptr || !ts->IsInt64()) throw ParseError("a transcript line without its ts");
    prev = ts->GetInt64();
  }
  std::vector<std::int64_t> times;
  auto plan = [&](const std::vector<std::string_view>& items, std::size_t start) {
    times.assign(items.size(), 0);
    std::vector<bool> turn(items.size(), false);
    std::string first_query;
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::optional<rapidjson::Document> d = ParseItem(items[i]);
      if (!d) continue;
      std::string query;
      turn[i] = StartsTurn(*d, &query);
      if (first_query.empty() && !query.empty()) first_query = query;
      if (cwd.empty() && !key.empty())
        if (auto f = FolderInJson(*d, key)) cwd = *f;
    }
    // A conversation no one named is named by its first query.
    if (title.empty() && whole)
      if (std::optional<std::string> name = PromptName(first_query)) title = *name;
    std::vector<std::size_t> starts;
    for (std::size_t i = start; i < items.size(); ++i)
      if (i == start || turn[i]) starts.push_back(i);
    const std::int64_t lower = prev ? *prev + 1 : BeganMs(stream.abs_path, mtime);
    const std::int64_t span = std::max<std::int64_t>(0, mtime - lower);
    const auto k = static_cast<std::int64_t>(starts.size());
    std::int64_t t = lower - 1;
    std::size_t next = 0;
    for (std::size_t i = start; i < items.size(); ++i) {
      if (next < starts.size() && starts[next] == i) {
        const auto j = static_cast<std::int64_t>(next++);
        // The first look: the first turn when the transcript began, the
        // last at its mtime; a later look: up to its mtime.
        const std::int64_t at = prev     ? lower + span * (j + 1) / k
                                : k == 1 ? lower
                                         : lower + span * j / (k - 1);
        t = std::max(t + 1, at);
      } else {
        ++t;
      }
      times[i] = t;
    }
  };
  return GenerateItems(
      stream.abs_path, last_line, max_bytes,
      [&](JsonWriter& w, std::size_t i) {
        w.Key("ts");
        w.Int64(times[i]);
        if (!cwd.empty()) WriteMember(w, "cwd", cwd);
        if (!title.empty()) WriteMember(w, "title", title);
      },
      plan);
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
