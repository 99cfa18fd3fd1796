// SPDX-License-Identifier: MIT
#include "core/ui/turns.hpp"

#include <algorithm>
#include <limits>

#include "core/store/visible.hpp"
#include "core/util/op_error.hpp"

namespace origin {

std::string TurnItem::outcome() const {
  if (!result) return "pending";
  return result->is_error ? "error" : "ok";
}

namespace {

using Code = OpError::Code;

// An event's place in its session: time, then arrival.
struct Key {
  std::int64_t ts = 0, seq = 0;
  bool operator<(const Key& o) const { return ts != o.ts ? ts < o.ts : seq < o.seq; }
  bool operator<=(const Key& o) const { return !(o < *this); }
};
constexpr Key kEnd{std::numeric_limits<std::int64_t>::max(),
                   std::numeric_limits<std::int64_t>::max()};

struct Start {
  Key key;
  std::string kind;  // prompt or command
  std::optional<CommandEcho> command;
};

// The user messages that may start a turn (event_user_message), each a
// prompt or a command echo; a command is kept when the agent acts on it.
std::vector<Start> TurnStarts(Db& db, const std::string& session) {
  auto users = db.Prepare(
      "SELECT ts, seq, text FROM event INDEXED BY event_user_message WHERE session = ? AND "
      "kind = 'message' AND role = 'user' AND agent IS NULL AND " +
      VisibleEventSql("seq") + " ORDER BY ts, seq");
  users.Bind(1, session);
  std::vector<Start> candidates;
  while (users.Step()) {
    const std::string_view text = users.Text(2);
    Start s{{users.Int(0), users.Int(1)}, "", std::nullopt};
    if ((s.command = CommandEchoOf(text)))
      s.kind = "command";
    else if (PromptName(text))
      s.kind = "prompt";
    else
      continue;
    candidates.push_back(std::move(s));
  }
  // Whether the agent acts on a command: a message or tool call of its own
  // after the echo and before the next prompt or command.
  auto acts = db.Prepare(
      "SELECT 1 FROM event INDEXED BY event_session_ts WHERE session = ?1 AND ts >= ?2 AND "
      "ts <= ?4 AND (ts, seq) > (?2, ?3) AND (ts, seq) < (?4, ?5) AND role = 'assistant' AND "
      "kind IN ('message', 'tool_call') AND agent IS NULL AND " +
      VisibleEventSql("seq") + " LIMIT 1");
  std::vector<Start> out;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Start& s = candidates[i];
    if (s.kind == "command") {
      const Key next = i + 1 < candidates.size() ? candidates[i + 1].key : kEnd;
      acts.Reset();
      acts.Bind(1, session).Bind(2, s.key.ts).Bind(3, s.key.seq).Bind(4, next.ts).Bind(5, next.seq);
      if (!acts.Step()) continue;
    }
    out.push_back(std::move(s));
  }
  return out;
}

// Every turn's visible event count, from the (session, ts) index entries:
// turn 0 first (what comes before the first start), then one per start.
std::vector<std::int64_t> TurnSizes(Db& db, const std::string& session,
                                    const std::vector<Start>& starts) {
  std::vector<std::int64_t> sizes(starts.size() + 1, 0);
  auto st = db.Prepare(
      "SELECT ts, seq FROM event INDEXED BY event_session_ts WHERE session = ? AND " +
      VisibleEventSql("seq") + " ORDER BY ts, seq");
  st.Bind(1, session);
  std::size_t turn = 0;  // starts[turn - 1] is the current one's
  while (st.Step()) {
    const Key k{st.Int(0), st.Int(1)};
    while (turn < starts.size() && starts[turn].key <= k) ++turn;
    ++sizes[turn];
  }
  return sizes;
}

struct PageSpan {
  std::size_t first = 0, end = 0;  // turns [first, end) of `sizes`
};

// Pages of at most 20 turns and 1,500 events; a longer turn alone.
std::vector<PageSpan> Paginate(const std::vector<std::int64_t>& sizes, std::size_t first_turn) {
  std::vector<PageSpan> pages;
  std::int64_t events = 0;
  for (std::size_t t = first_turn; t < sizes.size(); ++t) {
    const bool fits = !pages.empty() && pages.back().end - pages.back().first < kTurnsPerPage &&
                      events + sizes[t] <= kTurnEventsPerPage;
    if (fits) {
      pages.back().end = t + 1;
      events += sizes[t];
    } else {
      pages.push_back({t, t + 1});
      events = sizes[t];
    }
  }
  return pages;
}

std::string NoteOf(const EventRow& e) {
  if (e.kind == "message") return ElementsOnly(e.text) ? "command" : "system";
  const std::string_view t = std::string_view(e.text).substr(0, 40);
  for (const char* out :
       {"<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>"})
    if (t.rfind(out, 0) == 0) return "output";
  if (e.kind == "meta" && (e.role == "user" || (!t.empty() && t.front() == '<'))) return "context";
  return "system";
}

// The turn's events after its prompt, as items: calls paired with results,
// messages, notes; then the reply taken out when `last_part`.
void Fill(Turn& turn, std::vector<EventRow> events, bool last_part) {
  std::vector<TurnItem>& items = turn.items;
  for (EventRow& e : events) {
    if (e.kind == "tool_call") {
      items.push_back({TurnItem::Type::kTool, "", std::nullopt, std::move(e), std::nullopt});
      continue;
    }
    if (e.kind == "tool_result") {
      // By call id, else the first earlier call without one and no result.
      TurnItem* call = nullptr;
      for (TurnItem& it : items) {
        if (it.type != TurnItem::Type::kTool || !it.call || it.result) continue;
        if (e.call_id ? it.call->call_id == e.call_id : !it.call->call_id) {
          call = &it;
          break;
        }
      }
      if (call != nullptr)
        call->result = std::move(e);
      else
        items.push_back({TurnItem::Type::kTool, "", std::nullopt, std::nullopt, std::move(e)});
      continue;
    }
    const bool said = e.kind == "message" && (e.role == "assistant" || e.agent);
    if (said) {
      items.push_back({TurnItem::Type::kMessage, "", std::move(e), std::nullopt, std::nullopt});
      continue;
    }
    std::string note = NoteOf(e);
    items.push_back({TurnItem::Type::kNote, std::move(note), std::move(e), std::nullopt,
                     std::nullopt});
  }
  if (last_part) {
    // The agent's last message after which it called no tool.
    for (std::size_t i = items.size(); i-- > 0;) {
      const TurnItem& it = items[i];
      if (it.type == TurnItem::Type::kTool && it.call && !it.call->agent) break;
      if (it.type == TurnItem::Type::kMessage && it.event->role == "assistant" && !it.event->agent) {
        turn.reply = std::move(items[i].event);
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
  }
  for (const TurnItem& it : items) {
    if (it.type == TurnItem::Type::kMessage) ++turn.summary.messages;
    if (it.type == TurnItem::Type::kNote) ++turn.summary.notes;
    if (it.type == TurnItem::Type::kTool && it.call) ++turn.summary.tool_calls;
    if (it.type == TurnItem::Type::kTool && it.outcome() == "error") ++turn.summary.errors;
  }
}

// The visible events of the session in [from, to), `limit` from `offset`.
std::vector<EventRow> Between(Db& db, const std::string& session, Key from, Key to,
                              std::int64_t limit, std::int64_t offset) {
  auto st = db.Prepare(std::string("SELECT ") + EventCols() +
                       " FROM event INDEXED BY event_session_ts WHERE session = ?1 AND "
                       "ts >= ?2 AND ts <= ?4 AND (ts, seq) >= (?2, ?3) AND (ts, seq) < (?4, ?5) "
                       "AND " +
                       VisibleEventSql("seq") + " ORDER BY ts, seq LIMIT ?6 OFFSET ?7");
  st.Bind(1, session).Bind(2, from.ts).Bind(3, from.seq).Bind(4, to.ts).Bind(5, to.seq);
  st.Bind(6, limit).Bind(7, offset);
  std::vector<EventRow> out;
  while (st.Step()) out.push_back(ReadEvent(st));
  return out;
}

}  // namespace

TurnsPage SessionTurns(Db& db, const TurnsQuery& q) {
  TurnsPage out;
  std::optional<SessionRow> session = GetSession(db, q.session);
  if (!session) throw OpError(Code::kNotFound, "no session " + q.session);
  out.session = std::move(*session);
  const std::vector<Start> starts = TurnStarts(db, q.session);
  const std::vector<std::int64_t> sizes = TurnSizes(db, q.session, starts);
  // Turn 0 only when something comes before the first start.
  const std::size_t first_turn = sizes[0] > 0 || starts.empty() ? 0 : 1;
  const std::vector<PageSpan> pages = Paginate(sizes, first_turn);
  out.pages = static_cast<std::int64_t>(pages.size());
  out.turns_total = static_cast<std::int64_t>(sizes.size() - first_turn);
  auto start_key = [&](std::size_t turn) { return turn == 0 ? Key{0, 0} : starts[turn - 1].key; };
  auto end_key = [&](std::size_t turn) { return turn < starts.size() ? starts[turn].key : kEnd; };

  std::int64_t page = q.page.value_or(1);
  std::optional<std::int64_t> part = q.part;
  if (q.at) {
    std::optional<EventRow> e = GetEvent(db, *q.at);  // kForgotten when hidden
    if (!e || e->session != q.session)
      throw OpError(Code::kNotFound, "no event " + *q.at + " in session " + q.session);
    out.at = e->id;
    const Key k{e->ts, e->seq};
    std::size_t turn = 0;
    while (turn < starts.size() && starts[turn].key <= k) ++turn;
    for (std::size_t p = 0; p < pages.size(); ++p)
      if (pages[p].first <= turn && turn < pages[p].end) page = static_cast<std::int64_t>(p) + 1;
    if (sizes[turn] > kTurnEventsPerPage) {
      auto before = db.Prepare(
          "SELECT count(*) FROM event INDEXED BY event_session_ts WHERE session = ?1 AND "
          "ts >= ?2 AND ts <= ?4 AND (ts, seq) >= (?2, ?3) AND (ts, seq) < (?4, ?5) AND " +
          VisibleEventSql("seq"));
      const Key from = start_key(turn);
      before.Bind(1, q.session).Bind(2, from.ts).Bind(3, from.seq).Bind(4, k.ts).Bind(5, k.seq);
      part = (before.Step() ? before.Int(0) : 0) / kTurnEventsPerPage + 1;
    }
  }
  out.page = page;
  if (pages.empty()) {
    if (page != 1) throw OpError(Code::kNotFound, "session " + q.session + " has no page " +
                                                      std::to_string(page));
    return out;
  }
  if (page > out.pages)
    throw OpError(Code::kNotFound, "session " + q.session + " has " + std::to_string(out.pages) +
                                       " pages; there is no page " + std::to_string(page));
  const PageSpan span = pages[static_cast<std::size_t>(page - 1)];
  const bool alone = span.end - span.first == 1;
  const std::int64_t size = sizes[span.first];
  out.parts = alone ? std::max<std::int64_t>(1, (size + kTurnEventsPerPage - 1) / kTurnEventsPerPage)
                    : 1;
  out.part = part.value_or(1);
  if (out.part > out.parts)
    throw OpError(Code::kNotFound, "page " + std::to_string(page) + " has " +
                                       std::to_string(out.parts) + " parts; there is no part " +
                                       std::to_string(out.part));
  // Only the rows of the page's turns, or of its part.
  const std::int64_t offset = (out.part - 1) * kTurnEventsPerPage;
  std::vector<EventRow> rows = Between(db, q.session, start_key(span.first), end_key(span.end - 1),
                                       out.parts > 1 ? kTurnEventsPerPage : -1,
                                       out.parts > 1 ? offset : 0);
  std::size_t r = 0;
  for (std::size_t t = span.first; t < span.end; ++t) {
    Turn turn;
    turn.index = static_cast<std::int64_t>(t);
    turn.events = sizes[t];
    turn.kind = t == 0 ? "start" : starts[t - 1].kind;
    if (t > 0) turn.command = starts[t - 1].command;
    const Key end = end_key(t);
    std::vector<EventRow> mine;
    while (r < rows.size() && Key{rows[r].ts, rows[r].seq} < end) mine.push_back(std::move(rows[r++]));
    if (t > 0) {
      const Key first = starts[t - 1].key;
      if (!mine.empty() && mine.front().seq == first.seq) {
        turn.prompt = std::move(mine.front());
        mine.erase(mine.begin());
      } else {
        turn.prompt = GetEventBySeq(db, first.seq);  // a later part's
      }
    }
    Fill(turn, std::move(mine), out.part == out.parts);
    out.turns.push_back(std::move(turn));
  }
  return out;
}

}  // namespace origin
