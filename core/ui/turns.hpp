// SPDX-License-Identifier: MIT
#pragma once
// A session by turns (spec: Admin UI, "Sessions by turns"), for the web
// UI's session page.
//
// A turn starts at a prompt: a visible user message of the session's own
// agent (not a sub-agent's) that the rule of provisional names takes for a
// prompt (PromptName), or at a command echo (CommandEchoOf) that the agent
// acts on, with a message or a tool call of its own, before the next prompt
// or command: one look into the (session, ts) index per command.  A command
// it does not act on (/clear, /model) is a note in the turn around it.
// What comes before the first turn is turn 0.  In a turn, tool calls are
// paired with their results by call id, or, without one, with the first
// earlier call that has none and no result yet; the agent's last message
// after which it called no tool is the reply.
//
// Paging: 20 turns a page, or fewer if they would pass 1,500 events; a turn
// of more than 1,500 events is alone on its page, in parts of 1,500.  The
// prompts are read through event_user_message (user messages alone), the
// turns' sizes from the (session, ts) index entries (no row is read), and
// then only the rows of the page's turns (or its part).  Events are in time
// order, then arrival; hidden events are left out (invariant 2).
//
// Read-only; a reader's connection.  OpError kNotFound for an unknown
// session, a page or part past the last, or an `at` event not in the
// session; kForgotten for a hidden session or `at` event.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/query/events.hpp"

namespace origin {

inline constexpr std::int64_t kTurnsPerPage = 20;
inline constexpr std::int64_t kTurnEventsPerPage = 1500;

struct TurnItem {
  enum class Type { kMessage, kTool, kNote };
  Type type = Type::kMessage;
  std::string note;                  // kNote: command, output, context or system
  std::optional<EventRow> event;     // kMessage, kNote
  std::optional<EventRow> call;      // kTool: the call (null for a result without one)
  std::optional<EventRow> result;    // kTool: its result, when one came
  std::string outcome() const;       // kTool: ok, error or pending
};

struct Turn {
  std::int64_t index = 0;            // 0 for what comes before the first prompt
  std::string kind;                  // start, prompt or command
  std::optional<EventRow> prompt;
  std::optional<CommandEcho> command;
  std::int64_t events = 0;           // the turn's visible events, every part
  std::vector<TurnItem> items;       // after the prompt, in order, the reply left out
  std::optional<EventRow> reply;
  struct Summary {
    std::int64_t messages = 0, tool_calls = 0, errors = 0, notes = 0;
  } summary;
};

struct TurnsQuery {
  std::string session;  // a full session id
  std::optional<std::int64_t> page, part;
  std::optional<std::string> at;  // a full event id
};

struct TurnsPage {
  SessionRow session;
  std::int64_t page = 1, pages = 0, turns_total = 0, part = 1, parts = 1;
  std::optional<std::string> at;
  std::vector<Turn> turns;
};

TurnsPage SessionTurns(Db& db, const TurnsQuery& q);

}  // namespace origin
