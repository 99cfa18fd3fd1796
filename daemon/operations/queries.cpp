// SPDX-License-Identifier: MIT
// The reading operations: each runs on a reader, on one read snapshot of
// the store, and writes its result with the JSON helpers of rpc_json.hpp.
#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/query/events.hpp"
#include "core/query/search.hpp"
#include "core/query/terms.hpp"
#include "core/util/text.hpp"
#include "daemon/operations/operations.hpp"

namespace origin::ops {

namespace {

constexpr std::int64_t kDayMs = 24LL * 3600 * 1000;


[[noreturn]] void NotFound(const std::string& id) {
  throw OpError(OpError::Code::kNotFound, "no event or entry " + id);
}

bool IsEntry(const std::string& id) { return id.rfind("ent_", 0) == 0; }

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
  if (r.session) {
    auto row = GetSession(db, *r.session);
    if (!row) throw OpError(OpError::Code::kNotFound, "no session " + *r.session);
    w.StartObject();
    w.Key("session");
    rpc::WriteSession(w, *row);
    w.Key("events");
    w.StartArray();
    for (const EventRow& e : SessionEvents(db, *r.session, r.include_tools, limit, r.offset.value_or(0)))
      rpc::WriteEvent(w, e);
    w.EndArray();
    w.EndObject();
    return;
  }
  SessionFilter f;
  f.to_ms = r.until.value_or(ctx.clock.NowMs());
  f.from_ms = r.since.value_or(f.to_ms - r.days.value_or(7) * kDayMs);
  if (f.from_ms > f.to_ms) throw OpError(OpError::Code::kInvalidArgument, "since is after until");
  f.source = r.source;
  f.project = r.project;
  f.limit = limit;
  w.StartObject();
  w.Key("since");
  w.Int64(f.from_ms);
  w.Key("until");
  w.Int64(f.to_ms);
  w.Key("sessions");
  w.StartArray();
  for (const SessionRow& s : ListSessions(db, f)) rpc::WriteSession(w, s);
  w.EndArray();
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
    if (!e) NotFound(r.id);
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
    if (!e) NotFound(r.id);
    w.Key("event");
    rpc::WriteEvent(w, *e);
  }
  w.EndObject();
}

void Sources(Context& ctx, Db& db, const proto::IdRequest& r, rpc::Writer& w) {
  // An entry's sources are the lines of the events it cites (invariant 1).
  std::vector<std::string> events;
  if (IsEntry(r.id)) {
    auto e = GetEntry(db, r.id, ctx.clock.NowMs());
    if (!e) NotFound(r.id);
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
    if (!line) NotFound(ev);
    // A generated line that copies the agent's own: the agent's line first.
    for (const auto& a : ctx.adapters)
      if (a->id() == line->source)
        if (std::optional<OriginalLine> o = a->Original(line->key, line->raw)) {
          line->generated_line = line->line;
          line->generated_raw = std::move(line->raw);
          line->line = o->line;
          line->raw = std::move(o->raw);
        }
    rpc::WriteSource(w, *line);
  }
  w.EndArray();
  w.EndObject();
}

void Entries(Context& ctx, Db& db, const proto::EntriesRequest& r, rpc::Writer& w) {
  const EntryFilter f = EntriesOf(r);
  w.StartObject();
  w.Key("entries");
  w.StartArray();
  for (const EntryRow& e : ListEntries(db, f, ctx.clock.NowMs())) rpc::WriteEntry(w, e);
  w.EndArray();
  w.EndObject();
}

void Search(Context& ctx, Db& db, const proto::SearchRequest& r, rpc::Writer& w) {
  const EntryFilter ef = EntriesOf(r);
  EventQuery eq;
  eq.query = r.query;
  eq.include_tools = r.include_tools;
  eq.recent = r.recent;
  eq.source = r.source;
  eq.project = r.project;
  eq.from_ms = r.since;
  eq.to_ms = r.until;
  eq.limit = static_cast<int>(r.limit);
  // A damaged index: the search answers from the events, the indexer
  // checks it and rebuilds it.
  Indexer* indexer = ctx.indexer;
  eq.index_failed = [indexer](const std::string& what) { indexer->Suspect(what); };
  // Events are searched with terms only; without any, the answer lists entries.
  const bool entries = r.scope != "events",
             events = r.scope != "entries" && !ParseTerms(r.query).empty();
  w.StartObject();
  w.Key("entries");
  w.StartArray();
  if (entries)
    for (const EntryHit& h : SearchEntries(db, eq.query, ef, ctx.clock.NowMs()))
      rpc::WriteEntry(w, h.entry, [&](rpc::Writer& x) {
        x.Key("snippet");
        x.String(h.snippet);
      });
  w.EndArray();
  w.Key("events");
  w.StartArray();
  if (events)
    for (const EventHit& h : SearchEvents(db, eq))
      rpc::WriteEvent(w, h.event, [&](rpc::Writer& x) {
        x.Key("snippet");
        x.String(h.snippet);
        x.Key("score");
        if (h.score)
          x.Double(*h.score);
        else
          x.Null();
      });
  w.EndArray();
  w.EndObject();
}

void Forgotten(Context&, Db& db, const proto::ForgottenRequest& r, rpc::Writer& w) {
  w.StartObject();
  w.Key("tombstones");
  w.StartArray();
  for (const TombstoneRow& t : ListTombstones(db, static_cast<int>(r.limit)))
    rpc::WriteTombstone(w, t);
  w.EndArray();
  w.EndObject();
}

}  // namespace origin::ops
