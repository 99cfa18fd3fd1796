// SPDX-License-Identifier: MIT
// The operations of the web UI (docs/architecture.md, "Operations of the web
// UI"): overview, turns and tombstone, whose answers the pages of origin ui
// render (daemon/ui/).  None is an MCP tool; tombstone, the only answer
// that carries hidden text, is the owner's alone (the UI and the CLI).
#include "core/forget/forget.hpp"
#include "core/query/ids.hpp"
#include "core/ui/hidden.hpp"
#include "core/ui/overview.hpp"
#include "core/ui/turns.hpp"
#include "daemon/operations/operations.hpp"
#include "core/util/text.hpp"

namespace origin {
namespace ops {

namespace {

void Count(rpc::Writer& w, const char* key, std::int64_t n) {
  w.Key(key);
  w.Int64(n);
}

void Time(rpc::Writer& w, const char* ms_key, const char* iso_key,
          std::optional<std::int64_t> ms) {
  w.Key(ms_key);
  if (ms)
    w.Int64(*ms);
  else
    w.Null();
  w.Key(iso_key);
  if (ms)
    w.String(FormatIsoLocal(*ms));
  else
    w.Null();
}

void WriteDays(rpc::Writer& w, const origin::Overview& o) {
  w.Key("days");
  w.StartArray();
  for (const OverviewDay& d : o.days) {
    w.StartObject();
    w.Key("day");
    w.String(d.day);
    Count(w, "start_ts", d.start_ts);
    Count(w, "total", d.total);
    w.Key("by_source");
    w.StartObject();
    for (const auto& [source, n] : d.by_source) Count(w, source.c_str(), n);
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.Key("sources_in_days");
  w.StartArray();
  for (const std::string& s : o.sources_in_days) w.String(s);
  w.EndArray();
}

void WriteSources(rpc::Writer& w, const origin::Overview& o) {
  w.Key("sources");
  w.StartArray();
  for (const OverviewSource& s : o.sources) {
    w.StartObject();
    w.Key("source");
    w.String(s.source);
    w.Key("agent_version");
    if (s.agent_version)
      w.String(*s.agent_version);
    else
      w.Null();
    Count(w, "sessions", s.sessions);
    Time(w, "last_ingestion_ts", "last_ingestion", s.last_ingestion);
    Count(w, "parse_errors_7d", s.parse_errors_7d);
    Count(w, "files", s.files);
    w.EndObject();
  }
  w.EndArray();
}

void WriteItem(rpc::Writer& w, const TurnItem& it) {
  w.StartObject();
  w.Key("type");
  switch (it.type) {
    case TurnItem::Type::kMessage:
      w.String("message");
      w.Key("event");
      rpc::WriteEvent(w, *it.event);
      break;
    case TurnItem::Type::kNote:
      w.String("note");
      w.Key("note");
      w.String(it.note);
      w.Key("event");
      rpc::WriteEvent(w, *it.event);
      break;
    case TurnItem::Type::kTool:
      w.String("tool");
      w.Key("call");
      if (it.call)
        rpc::WriteEvent(w, *it.call);
      else
        w.Null();
      w.Key("result");
      if (it.result)
        rpc::WriteEvent(w, *it.result);
      else
        w.Null();
      w.Key("outcome");
      w.String(it.outcome());
      break;
  }
  w.EndObject();
}

void WriteTurn(rpc::Writer& w, const Turn& t) {
  w.StartObject();
  Count(w, "index", t.index);
  w.Key("kind");
  w.String(t.kind);
  Count(w, "events", t.events);
  w.Key("prompt");
  if (t.prompt)
    rpc::WriteEvent(w, *t.prompt);
  else
    w.Null();
  w.Key("command");
  if (t.command) {
    w.StartObject();
    w.Key("name");
    w.String(t.command->name);
    w.Key("args");
    w.String(t.command->args);
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("items");
  w.StartArray();
  for (const TurnItem& it : t.items) WriteItem(w, it);
  w.EndArray();
  w.Key("reply");
  if (t.reply)
    rpc::WriteEvent(w, *t.reply);
  else
    w.Null();
  w.Key("summary");
  w.StartObject();
  Count(w, "messages", t.summary.messages);
  Count(w, "tool_calls", t.summary.tool_calls);
  Count(w, "errors", t.summary.errors);
  Count(w, "notes", t.summary.notes);
  w.EndObject();
  w.EndObject();
}

}  // namespace

void Overview(Context& ctx, Db& db, const proto::NoRequest&, rpc::Writer& w) {
  const origin::Overview o = BuildOverview(db, ctx.clock.NowMs(), {ctx.paths.db, ctx.paths.index});
  w.StartObject();
  Count(w, "now_ts", o.now_ts);
  w.Key("counts");
  w.StartObject();
  Count(w, "sessions", o.counts.sessions);
  Count(w, "events", o.counts.events);
  Count(w, "entries", o.counts.entries);
  Count(w, "forgets_in_effect", o.counts.forgets_in_effect);
  Count(w, "tombstones", o.counts.tombstones);
  Count(w, "sources", o.counts.sources);
  w.EndObject();
  WriteDays(w, o);
  w.Key("recent_sessions");
  w.StartArray();
  for (const SessionRow& s : o.recent_sessions) rpc::WriteSession(w, s);
  w.EndArray();
  w.Key("projects");
  w.StartArray();
  for (const OverviewProject& p : o.projects) {
    w.StartObject();
    w.Key("project");
    w.String(p.project);
    Count(w, "events", p.events);
    Count(w, "sessions", p.sessions);
    Time(w, "last_ts", "last_time", p.last_ts);
    w.EndObject();
  }
  w.EndArray();
  WriteSources(w, o);
  w.Key("entries");
  w.StartArray();
  for (const EntryRow& e : o.entries) rpc::WriteEntry(w, e);
  w.EndArray();
  w.Key("tombstones");
  w.StartArray();
  for (const TombstoneRow& t : o.tombstones) rpc::WriteTombstone(w, t);
  w.EndArray();
  w.Key("storage");
  w.StartObject();
  Count(w, "database_bytes", o.storage.database_bytes);
  Count(w, "index_bytes", o.storage.index_bytes);
  Count(w, "mirror_bytes", o.storage.mirror_bytes);
  Count(w, "mirror_files", o.storage.mirror_files);
  w.EndObject();
  w.EndObject();
}

void Turns(Context&, Db& db, const proto::TurnsRequest& r, rpc::Writer& w) {
  TurnsQuery q;
  q.session = r.session;  // resolved by the table (kSessionIds)
  q.page = r.page;
  q.part = r.part;
  if (r.at) q.at = ResolveId(db, *r.at, kEventIds);
  const TurnsPage p = SessionTurns(db, q);
  w.StartObject();
  w.Key("session");
  rpc::WriteSession(w, p.session);
  Count(w, "page", p.page);
  Count(w, "pages", p.pages);
  Count(w, "turns_total", p.turns_total);
  Count(w, "turns_per_page", kTurnsPerPage);
  Count(w, "part", p.part);
  Count(w, "parts", p.parts);
  w.Key("at");
  if (p.at)
    w.String(*p.at);
  else
    w.Null();
  w.Key("turns");
  w.StartArray();
  for (const Turn& t : p.turns) WriteTurn(w, t);
  w.EndArray();
  w.EndObject();
}

namespace {

// The record, the forget or restore paired with it, and what a forget in
// effect hides: every member of the answer but restore_preview.  `preview`:
// whether a restore preview follows.
std::string TombstoneView(Db& db, const std::string& id, std::int64_t page, bool* preview) {
  std::optional<TombstoneRow> t = GetTombstone(db, id);
  if (!t) throw OpError(OpError::Code::kNotFound, "no tombstone " + id);
  *preview = t->kind == "forget" && t->in_effect && !t->erasure;
  std::optional<ForgetHides> hides;
  if (*preview) hides = WhatForgetHides(db, t->id, page);
  return rpc::Json([&](rpc::Writer& w) {
    w.UseRefs(&db);
    auto record = [&](const char* key, const std::optional<std::string>& other) {
      w.Key(key);
      std::optional<TombstoneRow> row = other ? GetTombstone(db, *other) : std::nullopt;
      if (row)
        rpc::WriteTombstone(w, *row);
      else
        w.Null();
    };
    w.StartObject();
    w.Key("tombstone");
    rpc::WriteTombstone(w, *t);
    record("forget", t->kind == "restore" ? std::optional(t->target) : std::nullopt);
    record("restore", t->kind == "forget" ? t->restored_by : std::nullopt);
    w.Key("hidden");
    if (hides) {
      w.StartObject();
      w.Key("entries");
      w.StartArray();
      for (const EntryRow& e : hides->entries) rpc::WriteEntry(w, e);
      w.EndArray();
      Count(w, "entries_total", static_cast<std::int64_t>(hides->entries.size()));
      w.Key("events");
      w.StartArray();
      for (const EventRow& e : hides->events) rpc::WriteEvent(w, e);
      w.EndArray();
      Count(w, "events_total", hides->events_total);
      Count(w, "page", hides->page);
      Count(w, "pages", hides->pages);
      Count(w, "events_per_page", kHiddenEventsPerPage);
      w.EndObject();
    } else {
      w.Null();
    }
    w.EndObject();
  });
}

}  // namespace

void StartTombstone(Operations& o, const Operation& op, const rapidjson::Value* params,
                    Caller caller, Reply reply) {
  proto::TombstoneViewRequest req;
  std::string error;
  if (!DecodeFor(op, params, &req, &error))
    return reply(Answer::Fail(OpError::Code::kInvalidArgument, error));
  o.AfterFirstSync(op, [&o, req, caller = std::move(caller), reply] {
    // The record and what it hides on a reader; then what a restore would
    // bring back, a dry run of it on the writer (rolled back there).
    struct View {
      std::string id, json;
      bool preview = false;
    };
    auto view = std::make_shared<View>();
    o.OnWorker(
        Thread::kReader, Caller{},
        [req, view](Db& db, rpc::Writer& w) {
          view->id = ResolveId(db, req.id, kTombstoneIds);
          view->json = TombstoneView(db, view->id, req.page, &view->preview);
          w.Null();
        },
        [&o, caller, reply, view](Answer a) {
          if (a.error) return reply(std::move(a));
          Context& ctx = o.ctx();
          o.OnWorker(
              Thread::kWriter, caller,
              [&ctx, caller, view](Db& db, rpc::Writer& w) {
                // view->json is an object: restore_preview joins its members.
                std::string json = view->json;
                json.pop_back();
                json += ",\"restore_preview\":";
                if (view->preview) {
                  TombstoneInput in;
                  in.target = view->id;
                  in.reason = "preview";
                  in.author =
                      caller.author.empty() ? "user@" + ctx.store_name.Get() : caller.author;
                  in.channel = caller.channel;
                  in.dry_run = true;
                  json += rpc::Json([&](rpc::Writer& p) {
                    rpc::WriteOutcome(p, origin::Restore(db, ctx.clock, ctx.store_name.Get(), in),
                                      true);
                  });
                } else {
                  json += "null";
                }
                json += "}";
                w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
              },
              reply);
        });
  });
}

}  // namespace ops
}  // namespace origin
