// SPDX-License-Identifier: MIT
// hub_connect, hub_status and hub_disconnect: a device's connection to its
// hub (spec: Using a hub from a device), and the hub part of `sync`.  The
// hub is asked on the hub thread (daemon/hub/sync.hpp); these only start
// and answer on the loop.
#include "core/hub/relay.hpp"
#include "core/hub/tokens.hpp"
#include "daemon/hub/connection.hpp"
#include "daemon/hub/sync.hpp"
#include "daemon/operations/operations.hpp"

namespace origin::ops {

namespace {

using Code = OpError::Code;

hub::Syncer* SyncerOf(Context& ctx) {
  if (ctx.hub_sync == nullptr)
    throw OpError(Code::kInvalidArgument,
                  "this store is a hub (origin serve): a hub connects to no other hub");
  return ctx.hub_sync;
}

void WriteCheck(rpc::Writer& w, const hub::CheckReport& r) {
  w.Key("url");
  w.String(r.url);
  w.Key("store");
  w.String(r.store);
  // Whose token it is, as the hub said: unknown (null) when the check failed.
  rpc::Opt(w, "device", r.device.empty() ? std::nullopt : std::optional(r.device));
  w.Key("hub");
  w.String(r.hub);
  rpc::Opt(w, "error", r.error.empty() ? std::nullopt : std::optional(r.error));
}

// The URL of the hub this store is connected to (hub.json or the
// environment), "" when none.
std::string ConnectedTo(const Context& ctx) {
  const std::optional<hub::Connection> c = hub::LoadConnection(ctx.paths.home);
  return c ? c->url : "";
}

}  // namespace

void WriteHubSync(rpc::Writer& w, const hub::SyncReport& r) {
  w.StartObject();
  w.Key("url");
  w.String(r.url);
  w.Key("chunks");
  w.Int64(r.chunks);
  w.Key("bytes");
  w.Int64(r.bytes);
  w.Key("entries");
  w.Int64(r.entries);
  w.Key("tombstones_up");
  w.Int64(r.tombstones_up);
  w.Key("tombstones_down");
  w.Int64(r.tombstones_down);
  w.Key("reports");
  w.Int64(r.reports);
  rpc::Opt(w, "pending", r.pending);
  if (!r.refused.empty()) {  // a relay's files the hub would not take
    w.Key("refused");
    w.StartArray();
    for (const std::string& f : r.refused) w.String(f);
    w.EndArray();
  }
  rpc::Opt(w, "error", r.error.empty() ? std::nullopt : std::optional(r.error));
  w.EndObject();
}

void HubConnect(Operations& o, const proto::HubConnectRequest& r, const Caller&, Reply reply) {
  hub::Syncer* syncer = SyncerOf(o.ctx());
  hub::Connection c;
  try {
    c.url = hub::CanonicalUrl(r.url, /*user_allowed=*/false);
  } catch (const std::invalid_argument& e) {
    throw OpError(Code::kInvalidArgument, e.what());
  }
  if (!r.token.starts_with("ogn_"))
    throw OpError(Code::kInvalidArgument,
                  "a hub's token starts with ogn_ (origin token create NAME on the hub)");
  c.token = r.token;
  if (r.ca_file) {
    if (!r.ca_file->starts_with("/"))
      throw OpError(Code::kInvalidArgument, "--ca-file takes an absolute path");
    c.ca_file = *r.ca_file;
  }
  Context& ctx = o.ctx();
  const bool make_relay = r.relay && !ctx.relay;
  // Once the hub has said whose token it is: the store renamed (--device)
  // and made a relay (--relay) in one transaction, the daemon told, then
  // hub.json written and the first sync started.  A refusal anywhere
  // changes nothing.
  auto become = [&o, &ctx, syncer, c, make_relay, device = r.device,
                 reply](hub::CheckReport check) {
    if (!check.error.empty())
      return reply(Answer::Fail(
          check.device.empty() ? Code::kUnavailable : Code::kInvalidArgument,
          check.error + (ctx.relay ? " (this store is a relay, not connected to a hub yet: "
                                     "connect it again with the hub's URL and this "
                                     "device's token)"
                                   : "")));
    o.OnWorker(
        Thread::kWriter, Caller{},
        [&ctx, c, make_relay, device](Db& db, rpc::Writer& w) {
          Transaction tx(db);
          // Every part of the daemon reads the name from ctx, so the new
          // one counts at once, without a restart.
          if (device) RenameStore(db, *device, ConnectedTo(ctx), true);
          // An empty store becomes a relay (spec: Relays, Choosing it);
          // one that holds something is refused.
          if (make_relay) MakeRelay(db, ctx.paths.home);
          tx.Commit();
          if (device) ctx.store_name.Set(*device);
          // On the writer, before hub.json exists: no sync ingests into
          // the relay.
          if (make_relay) ctx.relay = true;
          hub::SaveConnection(ctx.paths.home, c);
          w.Null();
        },
        [&ctx, syncer, check, reply](Answer a) {
          if (a.error) return reply(std::move(a));
          syncer->Request(nullptr);  // the first sync starts now
          reply(Answer{rpc::Json([&](rpc::Writer& w) {
                         w.StartObject();
                         WriteCheck(w, check);
                         w.Key("relay");
                         w.Bool(ctx.relay);
                         w.EndObject();
                       }),
                       std::nullopt,
                       {}});
        });
  };
  if (!r.device) return syncer->Check(c, "", become);
  // A store that cannot take the name is told so before the hub is asked
  // (spec: Using a hub from a device).
  o.OnWorker(
      Thread::kReader, Caller{},
      [&ctx, device = *r.device](Db& db, rpc::Writer& w) {
        RenameStore(db, device, ConnectedTo(ctx), false);
        w.Null();
      },
      [syncer, c, device = *r.device, become, reply](Answer a) {
        if (a.error) return reply(std::move(a));
        syncer->Check(c, device, become);
      });
}

void HubStatus(Operations& o, const proto::NoRequest&, const Caller&, Reply reply) {
  SyncerOf(o.ctx())->CheckStored([reply](std::optional<hub::CheckReport> check) {
    reply(Answer{rpc::Json([&](rpc::Writer& w) {
                   w.StartObject();
                   w.Key("connected");
                   w.Bool(check.has_value());
                   if (check) {
                     WriteCheck(w, *check);
                     w.Key("from_env");
                     w.Bool(check->from_env);
                     const bool failed = !check->last_error.empty();
                     rpc::Opt(w, "last_sync",
                              check->last_sync_ms > 0 ? std::optional(check->last_sync_ms)
                                                      : std::nullopt);
                     rpc::Opt(w, "last_error", failed ? std::optional(check->last_error)
                                                      : std::nullopt);
                     rpc::Opt(w, "last_error_at", failed ? std::optional(check->last_error_ms)
                                                         : std::nullopt);
                   }
                   w.EndObject();
                 }),
                 std::nullopt,
                 {}});
  });
}

void HubDisconnect(Operations& o, const proto::NoRequest&, const Caller&, Reply reply) {
  SyncerOf(o.ctx())->Disconnect([reply](bool removed, bool from_env, std::string error) {
    if (!error.empty()) return reply(Answer::Fail(Code::kInternal, error));
    reply(Answer{rpc::Json([&](rpc::Writer& w) {
                   w.StartObject();
                   w.Key("removed");
                   w.Bool(removed);
                   w.Key("from_env");  // the daemon's environment still names a hub
                   w.Bool(from_env);
                   w.EndObject();
                 }),
                 std::nullopt,
                 {}});
  });
}

}  // namespace origin::ops
