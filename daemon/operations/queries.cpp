// SPDX-License-Identifier: MIT
// The reading operations: each runs on a reader, on one read snapshot of
// the store, and writes its result with the JSON helpers of rpc_json.hpp.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "adapters/common/whole_texts.hpp"
#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/ingest/ingester.hpp"
#include "core/query/events.hpp"
#include "core/query/search.hpp"
#include "core/query/terms.hpp"
#include "core/store/visible.hpp"
#include "core/util/text.hpp"
#include "daemon/hub/connection.hpp"
#include "daemon/operations/operations.hpp"
#include "daemon/workers.hpp"

namespace origin::ops {

namespace {

constexpr std::int64_t kDayMs = 24LL * 3600 * 1000;

// `id` is neither an event nor an entry here: a session's id (one that
// is visible, invariant 2) is told apart, with where its events are.
[[noreturn]] void NotFound(Db& db, const std::string& id) {
  if (SessionVisible(db, id))
    throw OpError(OpError::Code::kInvalidArgument,
                  id + " is a session: an event or an entry is needed here, and timeline lists "
                       "the session's events");
  throw OpError(OpError::Code::kNotFound, "no event or entry " + id);
}

bool IsEntry(const std::string& id) { return id.rfind("ent_", 0) == 0; }

// A tool event's whole text, which ingestion cut (2,000 and 4,000
// characters): its line parsed again by its adapter with nothing cut.  The
// event is the one of the line with its id, else the first of its kind
// whose text begins with the stored one (an id that depends on the file's
// earlier lines).  Nothing when the line does not give the stored text
// again, or the event is not a tool event.
std::optional<std::string> WholeText(Context& ctx, Db& db, const EventRow& e) {
  if (e.kind != "tool_call" && e.kind != "tool_result") return std::nullopt;
  const SourceAdapter* adapter = ctx.adapter(e.source);
  if (adapter == nullptr) return std::nullopt;
  std::optional<SourceLine> line;
  try {
    line = EventSource(db, ctx.mirrors, e.id, /*whole_line=*/true);
  } catch (const std::exception&) {
    return std::nullopt;  // a mirror that lost the line: the stored text is all there is
  }
  if (!line) return std::nullopt;
  const std::string key(AdapterKey(line->key));  // a device's own, on a hub
  std::unique_ptr<FileState> state = adapter->LoadState(key, "");
  ParseContext pc{line->path, key, line->line, state.get()};
  ParsedLine parsed;
  {
    adapters::WholeTexts whole;
    try {
      parsed = adapter->ParseLine(line->raw, pc);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  const std::string native = e.id.substr(std::min(e.id.size(), e.source.size() + 1));
  std::optional<std::string> found;
  for (const ParsedEvent& p : parsed.events)
    if (!found && p.kind == e.kind && p.native_id == native) found = SanitizeUtf8(p.text);
  for (const ParsedEvent& p : parsed.events) {
    if (found) break;
    std::string text = SanitizeUtf8(p.text);
    if (p.kind == e.kind && text.starts_with(e.text)) found = std::move(text);
  }
  if (!found || !found->starts_with(e.text)) return std::nullopt;
  return found;
}

// A list read with one more than `limit` (which says whether the limit cut
// it), brought back to `limit`: whether it was cut.
template <class T>
bool CutToLimit(std::vector<T>& list, std::int64_t limit) {
  if (static_cast<std::int64_t>(list.size()) <= limit) return false;
  list.resize(static_cast<std::size_t>(limit));
  return true;
}

// Which entries: `entries` lists them, `search` finds among them.
template <class Request>
EntryFilter EntriesOf(const Request& r) {
  EntryFilter f;
  f.history = r.history;
  f.kind = r.kind;
  f.project = r.project;
  f.limit = static_cast<int>(r.limit);
  return f;
}

}  // namespace

void Timeline(Context& ctx, Db& db, const proto::TimelineRequest& r, rpc::Writer& w) {
  const int limit = static_cast<int>(*r.limit);
  // Checked whatever the request lists: a filter that would be ignored
  // (a session's timeline) is refused alike.  Since would win over days.
  const std::optional<std::string> source = ctx.SourceFilter(r.source);
  if (r.days && r.since)
    throw OpError(OpError::Code::kInvalidArgument, "days and since go apart: give one of them");
  if (r.session) {
    auto row = GetSession(db, *r.session);
    if (!row) throw OpError(OpError::Code::kNotFound, "no session " + *r.session);
    w.StartObject();
    w.Key("session");
    rpc::WriteSession(w, *row);
    const std::int64_t offset = r.offset.value_or(0);
    const std::vector<EventRow> events =
        SessionEvents(db, *r.session, r.include_tools, limit, offset);
    const std::int64_t total = CountSessionEvents(db, *r.session, r.include_tools);
    w.Key("events");
    w.StartArray();
    for (const EventRow& e : events) rpc::WriteEvent(w, e);
    w.EndArray();
    // What this page leaves out: the events before `offset` and after it.
    w.Key("offset");
    w.Int64(offset);
    w.Key("events_total");
    w.Int64(total);
    w.Key("truncated");
    w.Bool(offset > 0 || offset + static_cast<std::int64_t>(events.size()) < total);
    w.EndObject();
    return;
  }
  SessionFilter f;
  f.to_ms = r.until.value_or(ctx.clock.NowMs());
  f.from_ms = r.since.value_or(f.to_ms - r.days.value_or(7) * kDayMs);
  if (f.from_ms > f.to_ms) throw OpError(OpError::Code::kInvalidArgument, "since is after until");
  f.source = source;
  f.project = r.project;
  f.name = r.name;
  f.limit = limit;
  w.StartObject();
  w.Key("since");
  w.Int64(f.from_ms);
  w.Key("until");
  w.Int64(f.to_ms);
  std::int64_t named_total = 0;
  const std::vector<SessionRow> sessions = ListSessions(db, f, &named_total);
  w.Key("sessions");
  w.StartArray();
  for (const SessionRow& s : sessions) rpc::WriteSession(w, s);
  w.EndArray();
  const std::int64_t total = f.name ? named_total
                             : static_cast<std::int64_t>(sessions.size()) < limit
                                 ? static_cast<std::int64_t>(sessions.size())
                                 : CountSessions(db, f);
  w.Key("sessions_total");
  w.Int64(total);
  w.Key("truncated");
  w.Bool(total > static_cast<std::int64_t>(sessions.size()));
  w.EndObject();
}

void Projects(Context&, Db& db, const proto::NoRequest&, rpc::Writer& w) {
  w.StartObject();
  w.Key("projects");
  w.StartArray();
  for (const ProjectRow& row : ListProjects(db)) {
    w.StartObject();
    w.Key("project");
    w.String(row.project);
    w.Key("sources");
    w.String(row.sources);
    w.Key("sessions");
    w.Int64(row.sessions);
    w.Key("events");
    w.Int64(row.events);
    w.Key("last_ts");
    w.Int64(row.last_ts);
    w.Key("last_time");
    w.String(FormatIsoLocal(row.last_ts));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void Show(Context& ctx, Db& db, const proto::IdRequest& r, rpc::Writer& w) {
  w.StartObject();
  if (IsEntry(r.id)) {
    auto e = GetEntry(db, r.id, ctx.clock.NowMs());
    if (!e) NotFound(db, r.id);
    w.Key("entry");
    rpc::WriteEntry(w, *e);
    w.Key("history");
    w.StartArray();
    for (const EntryRow& v : EntryHistory(db, e->root, ctx.clock.NowMs())) rpc::WriteEntry(w, v);
    w.EndArray();
    w.Key("cited");
    w.StartArray();
    for (const EntrySource& src : e->sources)
      if (auto ev = GetEvent(db, *src.event_id)) rpc::WriteEvent(w, *ev);
    w.EndArray();
  } else {
    auto e = GetEvent(db, r.id);
    if (!e) NotFound(db, r.id);
    // Whether ingestion cut the text, and how long it is whole.
    const std::optional<std::string> whole = WholeText(ctx, db, *e);
    const bool cut = whole && whole->size() > e->text.size();
    const std::size_t stored_chars = CountChars(e->text);
    if (cut && r.full) e->text = *whole;
    w.Key("event");
    rpc::WriteEvent(w, *e, [&](rpc::Writer& x) {
      x.Key("truncated");
      x.Bool(cut && !r.full);
      x.Key("text_chars");
      x.Uint64(CountChars(e->text));
      if (cut) {
        x.Key("stored_chars");  // what ingestion kept
        x.Uint64(stored_chars);
        x.Key("full_chars");
        x.Uint64(CountChars(*whole));
      }
    });
  }
  w.EndObject();
}

void Sources(Context& ctx, Db& db, const proto::IdRequest& r, rpc::Writer& w) {
  // An entry's sources are the lines of the events it cites (invariant 1).
  std::vector<std::string> events;
  if (IsEntry(r.id)) {
    auto e = GetEntry(db, r.id, ctx.clock.NowMs());
    if (!e) NotFound(db, r.id);
    for (const EntrySource& src : e->sources) events.push_back(*src.event_id);
  } else {
    events.push_back(r.id);
  }
  w.StartObject();
  w.Key("id");
  w.String(r.id);
  w.Key("sources");
  w.StartArray();
  for (const std::string& ev : events) {
    auto line = EventSource(db, ctx.mirrors, ev);
    if (!line) NotFound(db, ev);
    // A generated line that copies the agent's own: the agent's line first.
    // Withheld, its place in the agent's file is said all the same, from
    // the bytes read for that alone.
    if (const SourceAdapter* a = ctx.adapter(line->source)) {
      const std::string raw =
          line->withheld ? EventSource(db, ctx.mirrors, ev, /*whole_line=*/true)->raw : line->raw;
      if (std::optional<OriginalLine> o = a->Original(AdapterKey(line->key), raw)) {
        line->generated_line = line->line;
        line->line = o->line;
        if (!line->withheld) {
          line->generated_raw = std::move(line->raw);
          line->raw = std::move(o->raw);
        }
      }
    }
    rpc::WriteSource(w, *line);
  }
  w.EndArray();
  w.EndObject();
}

void Entries(Context& ctx, Db& db, const proto::EntriesRequest& r, rpc::Writer& w) {
  EntryFilter f = EntriesOf(r);
  ++f.limit;  // one more says whether the limit cut the list
  std::vector<EntryRow> entries = ListEntries(db, f, ctx.clock.NowMs());
  const bool truncated = CutToLimit(entries, r.limit);
  w.StartObject();
  w.Key("entries");
  w.StartArray();
  for (const EntryRow& e : entries) rpc::WriteEntry(w, e);
  w.EndArray();
  w.Key("truncated");
  w.Bool(truncated);
  w.EndObject();
}

void Search(Context& ctx, Db& db, const proto::SearchRequest& r, rpc::Writer& w) {
  EntryFilter ef = EntriesOf(r);
  EventQuery eq;
  eq.query = r.query;
  eq.include_tools = r.include_tools;
  eq.recent = r.recent;
  eq.source = ctx.SourceFilter(r.source);
  eq.project = r.project;
  eq.from_ms = r.since;
  eq.to_ms = r.until;
  eq.limit = static_cast<int>(r.limit);
  eq.stamps = ctx.stamps;
  if (r.totals) {
    eq.count_upto = kTotalsUpto;
    ef.limit = std::max(ef.limit, kTotalsUpto);
  }
  // A damaged index: the search answers from the events, the indexer
  // checks it and rebuilds it.
  Indexer* indexer = ctx.indexer;
  eq.index_failed = [indexer](const std::string& what) { indexer->Suspect(what); };
  // Events are searched with terms only; without any, the answer lists entries.
  const bool entries = r.scope != "events",
             events = r.scope != "entries" && !ParseTerms(r.query).empty();
  // The matches in tool calls and results (and meta events), which --all
  // would add: one count of the events that are not messages, up to
  // kToolMatchesUpto (CountEvents: no ranking and no order, in whatever
  // order reads least).  It is counted beside the search, by another reader when one is
  // free (what it needs is copied: the job may outlive this call when it
  // throws).
  auto tool_count = std::make_shared<std::int64_t>(-1);
  std::optional<DbWorkers::Forked> counting;
  if (r.totals && events && !r.include_tools) {
    auto count = [q = eq, tool_count](Db& d) mutable {
      q.tools_only = true;
      *tool_count = CountEvents(d, q, kToolMatchesUpto);
    };
    if (ctx.readers != nullptr)
      counting = ctx.readers->Fork(std::move(count));
    else
      count(db);
  }
  std::vector<EntryHit> entry_hits;
  if (entries) entry_hits = SearchEntries(db, eq.query, ef, ctx.clock.NowMs());
  const auto entries_total = static_cast<std::int64_t>(entry_hits.size());
  if (entries_total > r.limit) entry_hits.resize(static_cast<std::size_t>(r.limit));
  std::int64_t events_total = 0;
  std::vector<EventHit> event_hits;
  // Counted only when asked: a count checks every candidate's text that
  // the answer's page alone would not.
  if (events) event_hits = SearchEvents(db, eq, r.totals ? &events_total : nullptr);
  std::optional<std::int64_t> tools;
  bool tools_at_least = false;
  if (counting) counting->Join(db);
  if (*tool_count >= 0) {
    tools = std::min<std::int64_t>(*tool_count, kToolMatchesUpto);
    tools_at_least = *tool_count >= kToolMatchesUpto;
  }
  // Each hit's session title (or first prompt), read once a session.
  std::map<std::string, std::optional<std::string>> titles;
  auto title_of = [&](const std::optional<std::string>& session) -> std::optional<std::string> {
    if (!session) return std::nullopt;
    auto it = titles.find(*session);
    if (it == titles.end()) {
      std::optional<std::string> t;
      if (auto s = GetSession(db, *session)) t = s->title ? s->title : s->prompt;
      it = titles.emplace(*session, std::move(t)).first;
    }
    return it->second;
  };
  w.StartObject();
  w.Key("entries");
  w.StartArray();
  // Where a snippet's matches are (for a client that shows them in colour).
  auto marks = [&](rpc::Writer& x, const SnippetMarks& m) {
    if (!r.marks) return;
    x.Key("marks");
    x.StartArray();
    for (auto [b, e] : m) {
      x.StartArray();
      x.Uint64(b);
      x.Uint64(e);
      x.EndArray();
    }
    x.EndArray();
  };
  for (const EntryHit& h : entry_hits)
    rpc::WriteEntry(w, h.entry, [&](rpc::Writer& x) {
      x.Key("snippet");
      x.String(h.snippet);
      marks(x, h.marks);
    });
  w.EndArray();
  w.Key("events");
  w.StartArray();
  for (const EventHit& h : event_hits)
    rpc::WriteEvent(w, h.event, [&](rpc::Writer& x) {
      x.Key("snippet");
      x.String(h.snippet);
      marks(x, h.marks);
      x.Key("score");
      if (h.score)
        x.Double(*h.score);
      else
        x.Null();
      if (auto t = title_of(h.event.session)) {
        x.Key("session_title");
        x.String(*t);
      }
      if (r.context > 0) {
        const EventsAround around =
            SessionEventsAround(db, h.event, r.include_tools, static_cast<int>(r.context));
        for (const auto& [key, list] :
             {std::pair{"before", &around.before}, std::pair{"after", &around.after}}) {
          x.Key(key);
          x.StartArray();
          for (const EventRow& e : *list) rpc::WriteEvent(x, e);
          x.EndArray();
        }
      }
    });
  w.EndArray();
  if (r.totals) {
    // What the limit left out: each section's matches, counted up to
    // kTotalsUpto (`totals_at_least`: there may be more).
    w.Key("entries_total");
    w.Int64(std::min<std::int64_t>(entries_total, kTotalsUpto));
    w.Key("events_total");
    w.Int64(std::min<std::int64_t>(events_total, kTotalsUpto));
    w.Key("totals_at_least");
    w.Bool(entries_total >= kTotalsUpto || events_total >= kTotalsUpto);
    if (tools) {
      w.Key("tool_matches");
      w.Int64(*tools);
      w.Key("tool_matches_at_least");
      w.Bool(tools_at_least);
    }
    w.Key("truncated");
    w.Bool(entries_total > static_cast<std::int64_t>(entry_hits.size()) ||
           events_total > static_cast<std::int64_t>(event_hits.size()));
    // A person's search (the CLI's, with totals) reads this device's store
    // alone (spec: Using a hub from a device); the hub it is connected to,
    // which holds what other devices synced, is named beside the answer.
    if (ctx.hub_sync != nullptr) {
      std::optional<hub::Connection> c;
      try {
        c = hub::LoadConnection(ctx.paths.home);
      } catch (const std::exception&) {  // origin hub status says what is wrong with it
      }
      if (c) {
        w.Key("hub");
        w.String(c->url);
      }
    }
  }
  w.EndObject();
}

void Forgotten(Context&, Db& db, const proto::ForgottenRequest& r, rpc::Writer& w) {
  std::vector<TombstoneRow> list = ListTombstones(db, static_cast<int>(r.limit) + 1);
  const bool truncated = CutToLimit(list, r.limit);
  w.StartObject();
  w.Key("tombstones");
  w.StartArray();
  for (const TombstoneRow& t : list) rpc::WriteTombstone(w, t);
  w.EndArray();
  w.Key("truncated");
  w.Bool(truncated);
  w.EndObject();
}

}  // namespace origin::ops
