// SPDX-License-Identifier: MIT
// The operations about the daemon itself: ping, status, sync, shutdown.
// They start on the loop thread, where the daemon's state is, and hand what
// reads the store to a reader or the writer.
#include <unistd.h>

#include <chrono>

#include "core/hub/replicate.hpp"
#include "core/store/event_index.hpp"
#include "core/store/status.hpp"
#include "core/util/text.hpp"
#include "daemon/hub/relay.hpp"
#include "daemon/hub/sync.hpp"
#include "daemon/operations/operations.hpp"
#include "origin_config.h"

namespace origin::ops {

namespace {

// A string, or null when empty; a time or count, or null when 0.
void OptStr(rpc::Writer& w, std::string_view s) {
  if (s.empty())
    w.Null();
  else
    w.String(s);
}
void OptInt(rpc::Writer& w, std::int64_t v) {
  if (v == 0)
    w.Null();
  else
    w.Int64(v);
}

// A hub's part of status: where it serves (`url` empty while it does not)
// and each device whose logs it holds.
void WriteServing(rpc::Writer& w, Db& db, const std::string& url, const std::string& public_url) {
  w.StartObject();
  w.Key("url");
  OptStr(w, url);
  w.Key("public_url");
  OptStr(w, public_url);
  w.Key("devices");
  w.StartArray();
  for (const DeviceSummary& d : DeviceSummaries(db)) {
    w.StartObject();
    w.Key("name");
    w.String(d.name);
    w.Key("files");
    w.Int64(d.files);
    w.Key("bytes");
    w.Int64(d.bytes);
    w.Key("lines");
    w.Int64(d.lines);
    w.Key("parse_errors");
    w.Int64(d.parse_errors);
    w.Key("last_received_at");
    OptInt(w, d.last_received_ms.value_or(0));
    w.Key("token");  // active, revoked, or null when none was ever made
    OptStr(w, d.token);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// What status says of the store refusing writes: the earliest lasting
// store fault of a source, and the names of the sources it holds up.
struct StoreFault {
  std::string error, names;
  std::int64_t since_ms = 0;
};

template <typename Roots>
StoreFault StoreFaultOf(const Roots& roots, const std::map<std::string, SourceHealth>& health) {
  StoreFault f;
  for (const auto& r : roots) {
    auto it = health.find(r.source);
    if (it == health.end() || !it->second.store_fault || it->second.error.empty()) continue;
    const SourceHealth& h = it->second;
    if (f.error.empty() || h.error_since_ms < f.since_ms) {
      f.error = h.error;
      f.since_ms = h.error_since_ms;
    }
    f.names += (f.names.empty() ? "" : ", ") + r.name;
  }
  return f;
}

}  // namespace

void Ping(Operations&, const proto::NoRequest&, const Caller&, Reply reply) {
  reply(Answer{"{\"pong\":true}", std::nullopt, {}});
}

void Shutdown(Operations& o, const proto::NoRequest&, const Caller&, Reply reply) {
  reply(Answer{"{\"stopping\":true}", std::nullopt, {}});
  // After the answer is on its way: the shutdown waits for calls in flight.
  o.ctx().timers.After(0, o.ctx().shutdown);
}

void Status(Operations& o, const proto::NoRequest&, const Caller& caller, Reply reply) {
  Context& ctx = o.ctx();
  // The daemon's state, taken on the loop thread; the store's, on a reader.
  struct Root {
    std::string source, name, root;
    SourceFound found;
  };
  std::vector<Root> roots;
  for (std::size_t i = 0; i < ctx.adapters.size(); ++i)
    roots.push_back({std::string(ctx.adapters[i]->id()),
                     std::string(ctx.adapters[i]->display_name()), ctx.adapters[i]->root(),
                     ctx.ingestion.found()[i]});
  const std::int64_t watched = ctx.watched_dirs();
  const std::map<std::string, SourceHealth> health = ctx.ingestion.health().Snapshot();
  const Indexer::Health index = ctx.indexer->GetHealth();
  std::vector<int> retry_ms;  // per source: the delay of the retry due, 0 when none
  for (std::size_t i = 0; i < ctx.adapters.size(); ++i)
    retry_ms.push_back(ctx.scheduler.RetryDelayMs(i));
  const bool hub = !ctx.relay && ctx.hub_sync == nullptr;
  const std::string serving = ctx.hub_serving, public_url = ctx.hub_public_url;
  o.OnWorker(
      Thread::kReader, caller,
      [&ctx, roots, watched, health, index, retry_ms, hub, serving, public_url](Db& db,
                                                                                rpc::Writer& w) {
        const proto::Paths& paths = ctx.paths;
        StoreStatus st = ReadStatus(db, paths.db, ctx.clock.NowMs());
        // What needs the user, in one list that every front-end shows
        // (and `origin status` exits 5 for).
        std::vector<std::string> attention;
        w.StartObject();
        w.Key("daemon");
        w.StartObject();
        w.Key("version");
        w.String(ORIGIN_VERSION);
        w.Key("pid");
        w.Int64(::getpid());
        w.Key("started_at");
        w.Int64(ctx.started_ms);
        w.Key("home");
        w.String(paths.home);
        w.Key("socket");
        w.String(paths.socket);
        w.Key("store");
        w.String(ctx.store_name.Get());
        w.Key("mode");  // device, hub (origin serve) or relay
        w.String(ctx.relay ? "relay" : hub ? "hub" : "device");
        w.Key("watched_dirs");
        w.Int64(watched);
        w.EndObject();
        w.Key("store");
        w.StartObject();
        w.Key("db_bytes");
        w.Int64(st.db_bytes);
        w.Key("mirror_disk_bytes");
        w.Int64(st.mirror_disk_bytes);
        w.Key("mirror_content_bytes");
        w.Int64(st.mirror_content_bytes);
        w.Key("compression_ratio");
        w.Double(st.mirror_disk_bytes > 0
                     ? static_cast<double>(st.mirror_content_bytes) / st.mirror_disk_bytes
                     : 0.0);
        w.Key("sessions");
        w.Int64(st.sessions);
        w.Key("events");
        w.Int64(st.events);
        w.Key("max_seq");
        w.Int64(st.max_seq);
        const std::int64_t indexed = IndexedUpto(db);
        w.Key("search_indexed_upto");
        w.Int64(indexed);
        // The store refusing writes (a full disk, an I/O error), while it
        // lasts: the earliest such problem of a source, and the sources it holds up.
        const StoreFault fault = StoreFaultOf(roots, health);
        w.Key("write_error");
        OptStr(w, fault.error);
        w.Key("write_error_since");
        OptInt(w, fault.since_ms);
        w.EndObject();
        if (!fault.error.empty())
          attention.push_back("the store cannot be written (" + fault.error + "): ingestion of " +
                              fault.names +
                              " was rolled back and is retried by itself; free space on the disk "
                              "of " +
                              paths.home);
        w.Key("search_index");
        w.StartObject();
        w.Key("state");
        w.String(index.state);
        w.Key("indexed_upto");
        w.Int64(indexed);
        w.Key("problem");
        OptStr(w, index.problem);
        w.Key("problem_at");
        OptInt(w, index.problem_at_ms);
        w.Key("rebuilds");
        w.Int64(index.rebuilds);
        w.Key("checked_at");
        OptInt(w, index.checked_at_ms);
        w.Key("merged");
        w.Bool(index.merged);
        w.EndObject();
        if (index.state == "failing")
          attention.push_back("the search index cannot be written: " + index.problem);
        w.Key("sources");
        w.StartArray();
        for (const Root& r : roots) {
          SourceStatus ss;
          for (const SourceStatus& s : st.sources)
            if (s.source == r.source) ss = s;
          // What this daemon saw wins over what the store could record.
          SourceHealth h;
          if (auto it = health.find(r.source); it != health.end()) h = it->second;
          if (h.last_ingest_ms > ss.last_ingest_ms.value_or(0))
            ss.last_ingest_ms = h.last_ingest_ms;
          if (h.last_error_ms >= ss.last_error_ms && !h.last_error.empty()) {
            ss.last_error = h.last_error;
            ss.last_error_ms = h.last_error_ms;
          }
          // A store fault is in the store's line above.
          if (!h.error.empty() && !h.store_fault) attention.push_back(r.name + ": " + h.error);
          if (ss.broken_mirrors > 0)
            attention.push_back(r.name + ": " + std::to_string(ss.broken_mirrors) +
                                " mirror(s) shorter than the store records");
          for (const auto& p : r.found.problems)
            attention.push_back(r.name + ": " + p.path + ": " + p.message);
          w.StartObject();
          w.Key("source");
          w.String(r.source);
          w.Key("name");
          w.String(r.name);
          w.Key("root");
          w.String(r.root);
          w.Key("root_exists");
          w.Bool(r.found.root_exists);
          w.Key("looked");  // false while the first sync has not reached it
          w.Bool(r.found.looked);
          w.Key("files");
          w.Int64(ss.files);
          w.Key("sessions");
          w.Int64(ss.sessions);
          w.Key("events");
          w.Int64(ss.events);
          w.Key("parse_errors_7d");
          w.Int64(ss.parse_errors_7d);
          w.Key("broken_mirrors");
          w.Int64(ss.broken_mirrors);
          w.Key("last_ingest_at");
          if (ss.last_ingest_ms)
            w.Int64(*ss.last_ingest_ms);
          else
            w.Null();
          w.Key("agent_version");
          if (ss.agent_version)
            w.String(*ss.agent_version);
          else
            w.Null();
          w.Key("error");  // the latest sync's problem, while it lasts
          OptStr(w, h.error);
          w.Key("error_since");
          OptInt(w, h.error_since_ms);
          w.Key("retry_in_ms");  // a retry is due (the store refused a write): its delay
          OptInt(w, retry_ms[&r - roots.data()]);
          w.Key("last_error");  // the latest problem, lasting or not
          OptStr(w, ss.last_error.value_or(""));
          w.Key("last_error_at");
          OptInt(w, ss.last_error_ms);
          w.Key("problems");
          w.StartArray();
          for (const auto& p : r.found.problems) {
            w.StartObject();
            w.Key("path");
            w.String(p.path);
            w.Key("message");
            w.String(p.message);
            w.EndObject();
          }
          w.EndArray();
          w.EndObject();
        }
        w.EndArray();
        // A device's hub: its URL and how the last syncs ended; null when not
        // connected (and on a hub).
        w.Key("hub");
        std::optional<hub::Connection> conn;
        std::string conn_error;
        if (ctx.hub_sync != nullptr) {
          try {
            conn = hub::LoadConnection(paths.home);
          } catch (const std::exception& e) {
            conn_error = e.what();
          }
        }
        if (conn || !conn_error.empty()) {
          const hub::LastSync last = hub::ReadLastSync(db);
          const std::string error = conn_error.empty() ? last.last_error : conn_error;
          w.StartObject();
          w.Key("url");
          OptStr(w, conn ? conn->url : "");
          w.Key("last_sync_at");
          OptInt(w, last.last_sync_ms);
          w.Key("error");  // the last sync's, when it failed
          OptStr(w, error);
          w.Key("error_at");
          OptInt(w, conn_error.empty() ? last.last_error_ms : 0);
          w.EndObject();
          if (!error.empty())
            attention.push_back(
                "hub: " + error +
                " (the device works alone meanwhile and retries; origin hub status)");
        } else {
          w.Null();
        }
        // A relay: what it has not sent yet, by source, and the warnings
        // before an agent's cleanup can lose it; null on other stores.
        w.Key("relay");
        if (ctx.relay) {
          const std::vector<hub::RelayBacklog> backlog = hub::ReadRelayBacklog(ctx.adapters, db);
          w.StartObject();
          w.Key("connected");
          w.Bool(conn.has_value());
          w.Key("unsent");
          w.StartArray();
          for (const hub::RelayBacklog& b : backlog) {
            w.StartObject();
            w.Key("source");
            w.String(b.source);
            w.Key("files");
            w.Int64(b.files);
            w.Key("bytes");
            w.Int64(b.bytes);
            w.Key("oldest_at");
            OptInt(w, b.oldest_mtime_ms);
            w.Key("oldest_path");
            OptStr(w, b.oldest_path);
            w.EndObject();
          }
          w.EndArray();
          w.EndObject();
          if (!conn && conn_error.empty())
            attention.push_back(
                "this store is a relay, and no hub is connected: it sends and answers nothing "
                "(origin hub connect URL --token T)");
          for (std::string& warning : hub::RelayWarnings(ctx.adapters, backlog, ctx.clock.NowMs(),
                                                         hub::ReadLastSync(db).last_sync_ms))
            attention.push_back(std::move(warning));
        } else {
          w.Null();
        }
        // A hub: where it serves (empty while it does not) and the devices
        // whose logs it holds; null on other stores.
        w.Key("serving");
        if (hub) {
          WriteServing(w, db, serving, public_url);
        } else {
          w.Null();
        }
        w.Key("attention");
        w.StartArray();
        for (const std::string& a : attention) w.String(a);
        w.EndArray();
        w.EndObject();
      },
      reply);
}

void Sync(Operations& o, const proto::SyncRequest& r, const Caller& caller, Reply reply) {
  Context& ctx = o.ctx();
  // `source`: one agent's logs only (origin sync --source NAME).
  std::vector<std::size_t> which;
  if (const std::optional<std::string> source = ctx.SourceFilter(r.source))
    for (std::size_t i = 0; i < ctx.adapters.size(); ++i)
      if (ctx.adapters[i]->id() == *source) which.push_back(i);
  const IngestTotals before = ctx.ingestion.Totals();
  std::function<void(const SyncProgress&)> progress;
  if (caller.progress) {
    // On the writer: at most one progress every 100 ms, and the last one.
    auto last = std::make_shared<std::int64_t>(0);
    LoopPoster* poster = ctx.poster;
    auto sink = caller.progress;
    progress = [last, poster, sink](const SyncProgress& p) {
      const std::int64_t now = SteadyMs();
      if (now - *last < 100 && p.files_done != p.files_total) return;
      *last = now;
      std::string json = "{\"files_done\":" + std::to_string(p.files_done) +
                         ",\"files_total\":" + std::to_string(p.files_total) +
                         ",\"bytes_done\":" + std::to_string(p.bytes_done) +
                         ",\"bytes_total\":" + std::to_string(p.bytes_total) + "}";
      poster->Post([sink, json] { sink(json); });
    };
  }
  ctx.ingestion.SyncNow(std::move(which), std::move(progress),
                        [&o, &ctx, before, reply](SyncOutcome out) {
    if (out.end == SyncOutcome::End::kCancelled)
      return reply(Answer::Fail(OpError::Code::kUnavailable, "the daemon is shutting down"));
    if (out.end == SyncOutcome::End::kFailed)
      return reply(Answer::Fail(OpError::Code::kInternal, "sync failed: " + out.failure));
    const IngestTotals now = ctx.ingestion.Totals();
    std::string json = rpc::Json([&](rpc::Writer& w) {
                   w.StartObject();
                   // Everything ingested since the request came, by this sync
                   // or one that was under way; the sources below are this
                   // sync's own.
                   w.Key("files_changed");
                   w.Int64(now.files - before.files);
                   w.Key("lines");
                   w.Int64(now.lines - before.lines);
                   w.Key("bytes");
                   w.Int64(now.bytes - before.bytes);
                   w.Key("events");
                   w.Int64(now.events - before.events);
                   w.Key("sources");
                   w.StartArray();
                   for (const SourceSummary& s : out.report.sources) {
                     w.StartObject();
                     w.Key("source");
                     w.String(s.source);
                     w.Key("files_seen");
                     w.Int64(s.files_seen);
                     w.Key("files_changed");
                     w.Int64(s.files_changed);
                     w.Key("lines");
                     w.Int64(s.lines);
                     w.Key("events");
                     w.Int64(s.events);
                     w.Key("parse_errors");
                     w.Int64(s.parse_errors);
                     w.Key("errors");
                     w.StartArray();
                     for (const auto& e : s.errors) w.String(e);
                     w.EndArray();
                     w.EndObject();
                   }
                   w.EndArray();
                   if (ctx.relay) {  // it ingests nothing: the hub's part is all
                     w.Key("relay");
                     w.Bool(true);
                   }
                   w.EndObject();
                 });
    if (ctx.hub_sync == nullptr) return reply(Answer{std::move(json), std::nullopt, {}});
    // On a device, the hub's part follows (spec: Replication): `hub` when
    // it is connected to one.
    ctx.hub_sync->Request([&o, &ctx, json = std::move(json), reply](hub::SyncReport report) mutable {
      if (report.connected) {
        json.pop_back();  // the closing brace
        json += ",\"hub\":" + rpc::Json([&](rpc::Writer& w) { WriteHubSync(w, report); }) + "}";
      }
      // A relay that could not send everything: `warnings`, before an
      // agent's own cleanup loses what the hub has not received (spec:
      // Relays, Warning before cleanup).
      if (!ctx.relay || (report.connected && report.error.empty() && report.refused.empty()))
        return reply(Answer{std::move(json), std::nullopt, {}});
      o.OnWorker(
          Thread::kReader, Caller{},
          [&ctx](Db& db, rpc::Writer& w) {
            w.StartArray();
            for (const std::string& warning : hub::RelayWarningsNow(ctx, db)) w.String(warning);
            w.EndArray();
          },
          [json = std::move(json), reply](Answer a) mutable {
            if (!a.error) {
              json.pop_back();
              json += ",\"warnings\":" + a.result + "}";
            }
            reply(Answer{std::move(json), std::nullopt, {}});
          });
    });
  });
}

}  // namespace origin::ops
