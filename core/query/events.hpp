// SPDX-License-Identifier: MIT
#pragma once
// Core operations over events and sessions (spec: Search and timeline,
// Session names; invariant 5: every interface calls these, none writes SQL
// of its own): one event by id, the original log line behind it, sessions in
// a time range with their title or provisional name, and a session's events
// in order.
//
// Read-only; any thread with its own connection.  Hidden events (invariant
// 2) are left out of every list, and asking for one by id throws OpError
// kForgotten.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/store/mirror.hpp"

namespace origin {

struct EventRow {
  std::int64_t seq = 0;
  std::string id, source;
  std::optional<std::string> session;
  std::int64_t ts = 0;
  std::optional<std::string> project, cwd, git_branch;
  std::string role, kind, text;
  std::optional<std::string> tool_name, call_id, agent, model;
  bool is_error = false;
  std::int64_t file_id = 0;
  std::int64_t line = 0;
};

/// The original log line behind an event (invariant 1).
struct SourceLine {
  std::string source;  // the adapter's id
  std::string key;     // the stream's key under the source's root
  std::string path;    // the agent's file, as last read
  std::string mirror;  // the mirror under raw/
  std::int64_t generation = 0;
  std::int64_t line = 0;  // 1-based, in the mirror's content
  std::string raw;        // the line's bytes, without its newline
  /// The line also gives an event that is hidden, whose text its bytes
  /// hold: `raw` is left empty (LineHoldsHidden).
  bool withheld = false;
  // For a generated line that copies the agent's own line (the daemon
  // asks the adapter, SourceAdapter::Original): `line` and `raw` are then
  // the agent's, and these the generated line's.
  std::optional<std::int64_t> generated_line;
  std::string generated_raw;
};

struct SessionRow {
  std::string id, source;
  std::optional<std::string> project, cwd, git_branch;
  std::int64_t first_ts = 0, last_ts = 0;
  std::int64_t events = 0, messages = 0;
  std::optional<std::string> title;
  bool title_manual = false;
  std::optional<std::string> parent;  // the session it was forked from (a Codex sub-agent's)
  std::optional<std::string> prompt;  // the provisional name, when there is no title
};

/// The columns of `event` that ReadEvent reads (from column 0), for core
/// queries of their own (core/ui); every such query adds VisibleEventSql
/// unless it shows hidden events to their owner.
const std::string& EventCols();
EventRow ReadEvent(const Stmt& st);

/// nullopt when no event has this id; OpError kForgotten when it is hidden.
std::optional<EventRow> GetEvent(Db& db, std::string_view id);
/// The same by arrival (seq).
std::optional<EventRow> GetEventBySeq(Db& db, std::int64_t seq);
/// nullopt when no event has this id; throws MirrorBroken if its mirror lost the line.
/// A line that also gives a hidden event is withheld (SourceLine::withheld)
/// unless `whole_line`: for a caller that parses the line for this event's
/// own text and shows nothing else of it.
std::optional<SourceLine> EventSource(Db& db, MirrorStore& mirrors, std::string_view id,
                                      bool whole_line = false);

struct SessionFilter {
  std::int64_t from_ms = 0, to_ms = INT64_MAX;  // sessions active in [from, to]
  std::optional<std::string> source, project;
  /// Words the session's name holds, each anywhere and in any case: its
  /// title, else its first prompt (FirstPrompt), else its id, as people see
  /// it named.
  std::optional<std::string> name;
  int limit = 50;
};
/// Sessions whose activity overlaps the range, latest activity first.
/// With `f.name` and `named_total`, every session whose name holds the words
/// is counted there in the same pass (the names are not in a column).
std::vector<SessionRow> ListSessions(Db& db, const SessionFilter& f,
                                     std::int64_t* named_total = nullptr);
/// OpError kForgotten when every event of the session is hidden.  Its
/// first prompt (SessionRow::prompt, read among its messages) only with
/// `prompt`.
std::optional<SessionRow> GetSession(Db& db, std::string_view id, bool prompt = true);
/// A session's events in time order (then arrival); tool events only when asked.
std::vector<EventRow> SessionEvents(Db& db, std::string_view session, bool include_tools, int limit,
                                    std::int64_t offset = 0);
/// How many events SessionEvents has for the session, every page together.
std::int64_t CountSessionEvents(Db& db, std::string_view session, bool include_tools);
/// The `n` events of `e`'s session just before it and the `n` just after
/// it, in the order of SessionEvents (time, then arrival), with its filter.
struct EventsAround {
  std::vector<EventRow> before, after;
};
EventsAround SessionEventsAround(Db& db, const EventRow& e, bool include_tools, int n);
/// How many sessions ListSessions would list without its limit.
std::int64_t CountSessions(Db& db, const SessionFilter& f);

struct ProjectRow {
  std::string project;
  std::string sources;  // comma-separated, e.g. "claude-code,codex"
  std::int64_t sessions = 0, events = 0;
  std::int64_t last_ts = 0;
};
/// Every project with sessions, latest activity first.
std::vector<ProjectRow> ListProjects(Db& db);

/// The provisional name of a session from its first typed prompt (spec:
/// Session names): leading XML-style elements skipped, empty messages and
/// bracketed notices passed over, whitespace collapsed, cut to 80 characters.
/// A slash command with arguments is a prompt (its command and arguments);
/// sub-agents' messages (agent set) name no session.
std::optional<std::string> FirstPrompt(Db& db, std::string_view session);
/// The same rule on one message's text; nullopt when it is not a prompt.
std::optional<std::string> PromptName(std::string_view text);

/// A command echo: a message of elements alone, one of them Claude Code's
/// <command-name> (spec: Sessions by turns); its name with a leading slash
/// and its arguments, whitespace collapsed.
struct CommandEcho {
  std::string name, args;
};
std::optional<CommandEcho> CommandEchoOf(std::string_view text);
/// Whether `text` is XML-style elements alone (a command echo, a shell
/// command's echo, injected context).
bool ElementsOnly(std::string_view text);

}  // namespace origin
