// SPDX-License-Identifier: MIT
#include "core/query/events.hpp"

#include <algorithm>
#include <functional>

#include "core/store/sessions.hpp"
#include "core/store/visible.hpp"
#include "core/util/op_error.hpp"
#include "core/util/text.hpp"

namespace origin {

// The columns ReadEvent reads, of the table `event`.  The project is the
// one the event's session has where its cwd lies (EventProjectSql).  A tool
// result's tool is its call's (joined by call_id, within its source,
// through event_call), read when the result is: a result stored without it
// (every one so far, and one written before its call) names it too.  A
// hidden call names none (invariant 2).
const std::string& EventCols() {
  static const std::string cols =
      "seq, id, source, session, ts, " + EventProjectSql("event") +
      ", cwd, git_branch, role, kind, text, "
      "coalesce(tool_name, CASE WHEN kind = 'tool_result' AND call_id IS NOT NULL THEN "
      "(SELECT c.tool_name FROM event c WHERE c.call_id = event.call_id AND c.source = "
      "event.source AND c.kind = 'tool_call' AND " +
      VisibleEventSql("c.seq") +
      " ORDER BY c.seq LIMIT 1) END), "
      "call_id, agent, model, is_error, file_id, line";
  return cols;
}

EventRow ReadEvent(const Stmt& st) {
  EventRow e;
  e.seq = st.Int(0);
  e.id = std::string(st.Text(1));
  e.source = std::string(st.Text(2));
  e.session = st.OptText(3);
  e.ts = st.Int(4);
  e.project = st.OptText(5);
  e.cwd = st.OptText(6);
  e.git_branch = st.OptText(7);
  e.role = std::string(st.Text(8));
  e.kind = std::string(st.Text(9));
  e.text = std::string(st.Text(10));
  e.tool_name = st.OptText(11);
  e.call_id = st.OptText(12);
  e.agent = st.OptText(13);
  e.model = st.OptText(14);
  e.is_error = st.Int(15) != 0;
  e.file_id = st.Int(16);
  e.line = st.Int(17);
  return e;
}

namespace {

constexpr const char* kSessionCols =
    "id, source, project, cwd, git_branch, coalesce(first_ts, 0), coalesce(last_ts, 0), "
    "event_count, message_count, title, title_manual, parent";

SessionRow ReadSession(const Stmt& st) {
  SessionRow s;
  s.id = std::string(st.Text(0));
  s.source = std::string(st.Text(1));
  s.project = st.OptText(2);
  s.cwd = st.OptText(3);
  s.git_branch = st.OptText(4);
  s.first_ts = st.Int(5);
  s.last_ts = st.Int(6);
  s.events = st.Int(7);
  s.messages = st.Int(8);
  s.title = st.OptText(9);
  s.title_manual = st.Int(10) != 0;
  s.parent = st.OptText(11);
  return s;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  return s;
}

// Skips one leading element <tag ...>...</tag> (or <tag .../>); returns false
// when the text does not start with one.  `tag` and `inner` get its name and
// content.
bool SkipElement(std::string_view& s, std::string& tag, std::string_view& inner) {
  if (s.size() < 3 || s[0] != '<') return false;
  std::size_t i = 1;
  auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == ':' || c == '.';
  };
  if (!((s[1] >= 'a' && s[1] <= 'z') || (s[1] >= 'A' && s[1] <= 'Z'))) return false;
  while (i < s.size() && name_char(s[i])) ++i;
  tag.assign(s.substr(1, i - 1));
  std::size_t gt = s.find('>', i);
  if (gt == std::string_view::npos) return false;
  if (s[gt - 1] == '/') {  // <tag ... />
    inner = {};
    s.remove_prefix(gt + 1);
    return true;
  }
  std::size_t close = s.find("</" + tag + ">", gt + 1);
  if (close == std::string_view::npos) return false;
  inner = s.substr(gt + 1, close - gt - 1);
  s.remove_prefix(close + tag.size() + 3);
  return true;
}

// `text` with its whitespace collapsed (runs become one space, none at
// either end).
std::string Collapse(std::string_view text) {
  std::string collapsed;
  bool space = false;
  for (char c : text) {
    if (IsSpace(c)) {
      space = !collapsed.empty();
      continue;
    }
    if (space) collapsed.push_back(' ');
    space = false;
    collapsed.push_back(c);
  }
  return collapsed;
}

}  // namespace

std::optional<std::string> PromptName(std::string_view text) {
  text = TrimLeft(text);
  // A slash command given with arguments (Claude Code's echo:
  // <command-name>/review</command-name> ... <command-args>the parser
  // change</command-args>) is what the person asked for: it names the
  // session by the command and its arguments.  A command without any
  // (/clear, /model) is passed over as the other elements are.
  std::string tag, command;
  std::string_view inner, args;
  while (SkipElement(text, tag, inner)) {
    if (tag == "command-name") command = Collapse(inner);
    if (tag == "command-args") args = inner;
    text = TrimLeft(text);
  }
  std::string collapsed = Collapse(args);
  if (!command.empty() && !collapsed.empty()) {
    if (command.front() != '/') command.insert(command.begin(), '/');
    return std::string(TruncateChars(command + " " + collapsed, 80));
  }
  collapsed = Collapse(text);
  if (collapsed.empty()) return std::nullopt;
  // Only a bracketed notice, such as [Request interrupted by user].
  if (collapsed.front() == '[' && collapsed.back() == ']' &&
      collapsed.find(']') == collapsed.size() - 1)
    return std::nullopt;
  return std::string(TruncateChars(collapsed, 80));
}

std::optional<CommandEcho> CommandEchoOf(std::string_view text) {
  // Elements alone, one of them <command-name>: Claude Code's echo of a
  // slash command, whose arguments are in <command-args>.
  text = TrimLeft(text);
  std::string tag;
  std::string_view inner;
  std::optional<CommandEcho> out;
  std::string name;
  std::string_view args;
  while (SkipElement(text, tag, inner)) {
    if (tag == "command-name") name = Collapse(inner);
    if (tag == "command-args") args = inner;
    text = TrimLeft(text);
  }
  if (!text.empty() || name.empty()) return std::nullopt;
  if (name.front() != '/') name.insert(name.begin(), '/');
  return CommandEcho{name, Collapse(args)};
}

bool ElementsOnly(std::string_view text) {
  text = TrimLeft(text);
  std::string tag;
  std::string_view inner;
  bool any = false;
  while (SkipElement(text, tag, inner)) {
    any = true;
    text = TrimLeft(text);
  }
  return any && text.empty();
}

namespace {

// One event by `where` (one parameter); OpError kForgotten when it is hidden
// (invariant 2).
std::optional<EventRow> OneEvent(Db& db, const char* where, auto key) {
  auto st = db.Prepare(std::string("SELECT ") + EventCols() +
                       ", (SELECT tombstone FROM excluded_event x WHERE x.seq = event.seq) "
                       "FROM event WHERE " + where);
  st.Bind(1, key);
  std::optional<EventRow> out;
  std::string hidden_by;  // the forget that hides it: an id, never a text
  if (st.Step()) {
    out = ReadEvent(st);
    if (!st.IsNull(18)) hidden_by = std::string(st.Text(18));
  }
  if (!hidden_by.empty())
    throw OpError(OpError::Code::kForgotten, "event " + out->id + " is forgotten (" + hidden_by + ")");
  return out;
}

}  // namespace

std::optional<EventRow> GetEvent(Db& db, std::string_view id) { return OneEvent(db, "id = ?", id); }

std::optional<EventRow> GetEventBySeq(Db& db, std::int64_t seq) {
  return OneEvent(db, "seq = ?", seq);
}

std::optional<SourceLine> EventSource(Db& db, MirrorStore& mirrors, std::string_view id,
                                      bool whole_line) {
  auto ev = GetEvent(db, id);
  if (!ev) return std::nullopt;
  SourceLine s;
  {
    auto st = db.Prepare("SELECT path, mirror, generation, source, key FROM raw_file WHERE id = ?");
    st.Bind(1, ev->file_id);
    if (!st.Step()) throw std::runtime_error("event " + ev->id + " has no raw_file");
    s.path = std::string(st.Text(0));
    s.mirror = std::string(st.Text(1));
    s.generation = st.Int(2);
    s.source = std::string(st.Text(3));
    s.key = std::string(st.Text(4));
  }
  s.line = ev->line;
  if (!whole_line && LineHoldsHidden(db, ev->seq, ev->file_id, ev->line)) {
    s.withheld = true;
    return s;
  }
  auto raw = mirrors.ReadLine(db, ev->file_id, ev->line);
  if (!raw) throw MirrorBroken("the mirror " + s.mirror + " has no line " + std::to_string(s.line));
  s.raw = std::move(*raw);
  return s;
}

std::optional<std::string> FirstPrompt(Db& db, std::string_view session) {
  // event_user_message: the user messages of one session, by time.  A
  // sub-agent's (sidechain) are its task, written by the agent, never the
  // person's: they name no session.
  auto st = db.Prepare(
      "SELECT text FROM event INDEXED BY event_user_message "
      "WHERE session = ? AND kind = 'message' AND role = 'user' AND agent IS NULL AND " +
      VisibleEventSql("seq") + " ORDER BY ts, seq LIMIT 200");
  st.Bind(1, session);
  std::optional<std::string> out;
  while (!out && st.Step()) out = PromptName(st.Text(0));
  return out;
}

namespace {
// ListSessions' condition; binds its parameters from 1 and returns the next.
std::string SessionWhere(const SessionFilter& f) {
  std::string sql = " FROM session WHERE event_count > 0 AND last_ts >= ? AND first_ts <= ?";
  if (f.source) sql += " AND source = ?";
  // A session is found by a project it has, now or earlier (session_cwd),
  // as its events are.
  if (f.project)
    sql +=
        " AND (project = :project OR id IN (SELECT session FROM session_cwd "
        "WHERE project = :project))";
  return sql;
}
int BindSessionWhere(StmtLease& st, const SessionFilter& f) {
  int i = 1;
  st.Bind(i++, f.from_ms);
  st.Bind(i++, f.to_ms);
  if (f.source) st.Bind(i++, *f.source);
  if (f.project) st.Bind(i++, *f.project);
  return i;
}
}  // namespace

namespace {
// The sessions of `f` in ListSessions' order, each with its first prompt when
// it has no title, to `each` until it returns false.  The name is not in a
// column (a first prompt is found among the session's messages), so with
// `f.name` every session of the range is read and named here.
void ForEachSession(Db& db, const SessionFilter& f, const std::function<bool(SessionRow&)>& each) {
  std::string sql = std::string("SELECT ") + kSessionCols + SessionWhere(f) + " ORDER BY last_ts DESC, id";
  if (!f.name) sql += " LIMIT ?";
  auto st = db.Prepare(sql);
  const int next = BindSessionWhere(st, f);
  if (!f.name) st.Bind(next, f.limit);
  while (st.Step()) {
    SessionRow s = ReadSession(st);
    if (!s.title) s.prompt = FirstPrompt(db, s.id);
    // The name people see (an erased title is empty: the id shows then).
    const std::string& name = s.title && !s.title->empty() ? *s.title : s.prompt ? *s.prompt : s.id;
    if (f.name && !HasEveryWord(name, *f.name)) continue;
    if (!each(s)) return;
  }
}
}  // namespace

std::vector<SessionRow> ListSessions(Db& db, const SessionFilter& f, std::int64_t* named_total) {
  std::vector<SessionRow> out;
  std::int64_t n = 0;
  const bool count_all = f.name && named_total != nullptr;
  ForEachSession(db, f, [&](SessionRow& s) {
    if (static_cast<int>(out.size()) < f.limit) out.push_back(std::move(s));
    ++n;
    return count_all || static_cast<int>(out.size()) < f.limit;
  });
  if (count_all) *named_total = n;
  return out;
}

std::int64_t CountSessions(Db& db, const SessionFilter& f) {
  if (f.name) {
    std::int64_t n = 0;
    ForEachSession(db, f, [&](SessionRow&) { return ++n, true; });
    return n;
  }
  auto st = db.Prepare("SELECT count(*)" + SessionWhere(f));
  BindSessionWhere(st, f);
  return st.Step() ? st.Int(0) : 0;
}

std::optional<SessionRow> GetSession(Db& db, std::string_view id, bool prompt) {
  auto st = db.Prepare(std::string("SELECT ") + kSessionCols + " FROM session WHERE id = ?");
  st.Bind(1, id);
  std::optional<SessionRow> out;
  if (st.Step()) out = ReadSession(st);
  if (out && out->events == 0) {
    // A session whose every event is hidden is forgotten as a whole (its
    // title events count in no aggregate: a session they alone name is not).
    auto any =
        db.Prepare("SELECT 1 FROM event WHERE session = ? AND NOT " + TitleEventSql() + " LIMIT 1");
    any.Bind(1, id);
    bool has = any.Step();
    if (has) throw OpError(OpError::Code::kForgotten, "session " + out->id + " is forgotten");
  }
  if (prompt && out && !out->title) out->prompt = FirstPrompt(db, out->id);
  return out;
}

std::vector<ProjectRow> ListProjects(Db& db) {
  auto st = db.Prepare(
      "SELECT project, group_concat(DISTINCT source), count(*), sum(event_count), max(last_ts) "
      "FROM session WHERE project IS NOT NULL AND event_count > 0 "
      "GROUP BY project ORDER BY max(last_ts) DESC, project");
  std::vector<ProjectRow> out;
  while (st.Step())
    out.push_back(
        {std::string(st.Text(0)), std::string(st.Text(1)), st.Int(2), st.Int(3), st.Int(4)});
  return out;
}

namespace {
// SessionEvents' condition: the session's visible events, tool events only
// when asked.
std::string SessionEventsWhere(bool include_tools) {
  return " FROM event WHERE session = ? AND " + VisibleEventSql("seq") +
         (include_tools ? "" : " AND kind NOT IN ('tool_call', 'tool_result')");
}
}  // namespace

std::vector<EventRow> SessionEvents(Db& db, std::string_view session, bool include_tools, int limit,
                                    std::int64_t offset) {
  auto st = db.Prepare(std::string("SELECT ") + EventCols() + SessionEventsWhere(include_tools) +
                       " ORDER BY ts, seq LIMIT ? OFFSET ?");
  st.Bind(1, session).Bind(2, limit).Bind(3, offset);
  std::vector<EventRow> out;
  while (st.Step()) out.push_back(ReadEvent(st));
  return out;
}

std::int64_t CountSessionEvents(Db& db, std::string_view session, bool include_tools) {
  auto st = db.Prepare("SELECT count(*)" + SessionEventsWhere(include_tools));
  st.Bind(1, session);
  return st.Step() ? st.Int(0) : 0;
}

EventsAround SessionEventsAround(Db& db, const EventRow& e, bool include_tools, int n) {
  EventsAround out;
  if (!e.session || n <= 0) return out;
  for (const bool before : {true, false}) {
    auto st = db.Prepare(std::string("SELECT ") + EventCols() + SessionEventsWhere(include_tools) +
                         (before ? " AND (ts, seq) < (?, ?) ORDER BY ts DESC, seq DESC"
                                 : " AND (ts, seq) > (?, ?) ORDER BY ts, seq") +
                         " LIMIT ?");
    st.Bind(1, *e.session).Bind(2, e.ts).Bind(3, e.seq).Bind(4, n);
    auto& list = before ? out.before : out.after;
    while (st.Step()) list.push_back(ReadEvent(st));
  }
  std::reverse(out.before.begin(), out.before.end());
  return out;
}

}  // namespace origin
