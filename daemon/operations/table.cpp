// SPDX-License-Identifier: MIT
// The table of operations: every method of the socket protocol, the one
// place that says what each takes, where it runs and whether it waits for
// the first sync.  MCP's tools (daemon/mcp/tools.cpp) call these by name.
#include <type_traits>

#include "core/entries/entries.hpp"
#include "core/query/ids.hpp"
#include "core/store/request_keys.hpp"
#include "daemon/http/ui_service.hpp"
#include "daemon/log.hpp"
#include "daemon/hub/sync.hpp"
#include "daemon/operations/operations.hpp"

namespace origin {

namespace {

using proto::EntryRequest;
using proto::TombstoneRequest;

Answer Invalid(const std::string& message) {
  return Answer::Fail(OpError::Code::kInvalidArgument, message);
}

// The id a request gives, which the operation's `ids` say the kinds of.
std::string* MainId(proto::IdRequest& r) { return &r.id; }
std::string* MainId(proto::TimelineRequest& r) { return r.session ? &*r.session : nullptr; }
std::string* MainId(proto::EntryRequest& r) { return r.id.empty() ? nullptr : &r.id; }
std::string* MainId(proto::TombstoneRequest& r) { return &r.target; }
std::string* MainId(proto::TurnsRequest& r) { return &r.session; }
template <class Request>
std::string* MainId(Request&) {
  return nullptr;
}

// Whether `req` names ids to resolve (core/query/ids.hpp), or quotes to find.
template <class Request>
bool NeedsReader(const Operation& op, Request& req) {
  if (op.ids != 0 && MainId(req) != nullptr) return true;
  if constexpr (std::is_same_v<Request, EntryRequest>)
    return !req.sources.empty();
  return false;
}

// The one place where ids given to an operation become full ids: its id, by
// the kinds the operation takes, and the events an entry cites; then quotes
// without an event are found.  On a reader (which has index.db).
template <class Request>
void ResolveIds(const Operation& op, Db& db, Request& req) {
  if (std::string* id = MainId(req); id != nullptr && op.ids != 0)
    *id = ResolveId(db, *id, op.ids);
  if constexpr (std::is_same_v<Request, EntryRequest>) {
    bool quotes = false;
    for (proto::SourceRef& s : req.sources) {
      if (s.event_id) *s.event_id = ResolveId(db, *s.event_id, kEventIds);
      quotes = quotes || !s.event_id;
    }
    if (quotes) {
      std::vector<EntrySource> sources = ToEntrySources(req.sources);
      ResolveQuotes(db, sources);
      req.sources = ToSourceRefs(sources);
    }
  }
}

// Work on the loop thread (it may start work elsewhere and reply later).
template <class Request, void (*Handler)(Operations&, const Request&, const Caller&, Reply)>
void StartLoop(Operations& o, const Operation& op, const rapidjson::Value* params, Caller caller,
               Reply reply) {
  Request req;
  std::string error;
  if (!DecodeFor(op, params, &req, &error)) return reply(Invalid(error));
  o.AfterFirstSync(op, [&o, req = std::move(req), caller = std::move(caller), reply] {
    try {
      Handler(o, req, caller, reply);
    } catch (const OpError& e) {  // thrown before it replied
      reply(Answer{{}, e, {}});
    } catch (const std::exception& e) {
      LOG_ERROR("request: %s", e.what());
      reply(Answer::Fail(OpError::Code::kInternal, e.what()));
    }
  });
}

template <class Request, void (*Handler)(Context&, Db&, const Request&, rpc::Writer&)>
void StartRead(Operations& o, const Operation& op, const rapidjson::Value* params, Caller caller,
               Reply reply) {
  Request req;
  std::string error;
  if (!DecodeFor(op, params, &req, &error)) return reply(Invalid(error));
  o.AfterFirstSync(op, [&o, &op, req = std::move(req), caller = std::move(caller), reply] {
    Context& ctx = o.ctx();
    o.OnWorker(
        Thread::kReader, caller,
        [&ctx, &op, req](Db& db, rpc::Writer& w) {
          Request resolved = req;
          ResolveIds(op, db, resolved);
          Handler(ctx, db, resolved, w);
        },
        reply, op.one_snapshot);
  });
}

// A write, answered once per request key: a retry with the key gets the
// first answer, and the store is written once.
template <class Request, void (*Handler)(Context&, Db&, const Request&, const Caller&, rpc::Writer&)>
// `failed`: the request's ids could not be resolved; a retry of a write
// that was done (whose target a forget hid since) still gets its first
// answer, and a new request the error.
void Keyed(Operations& o, const Operation& op, Request req, Caller caller, Reply reply,
           std::optional<OpError> failed = std::nullopt) {
  Context& ctx = o.ctx();
  const std::string method(op.method);
  o.OnWorker(
      Thread::kWriter, caller,
      [&ctx, req = std::move(req), caller, method, failed](Db& db, rpc::Writer& w) {
        ORIGIN_ASSERT_INSIDE(*ctx.writer);
        const std::string json = AnswerOnce(db, ctx.clock, req.request_key, method, [&] {
          if (failed) throw *failed;
          return rpc::Json([&](rpc::Writer& first) {
            first.UseRefs(&db);
            Handler(ctx, db, req, caller, first);
          });
        });
        w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
      },
      [&ctx, reply](Answer a) {
        // On a device connected to a hub, a write is synced right after
        // (spec: Using a hub from a device); without a hub this costs a
        // look for hub.json on the hub thread.
        if (!a.error && ctx.hub_sync != nullptr) ctx.hub_sync->Request(nullptr, true);
        reply(std::move(a));
      });
}

template <class Request, void (*Handler)(Context&, Db&, const Request&, const Caller&, rpc::Writer&)>
void StartWrite(Operations& o, const Operation& op, const rapidjson::Value* params, Caller caller,
                Reply reply) {
  Request req;
  std::string error;
  if (!DecodeFor(op, params, &req, &error)) return reply(Invalid(error));
  o.AfterFirstSync(op, [&o, &op, req = std::move(req), caller = std::move(caller), reply]() mutable {
    if (NeedsReader(op, req)) {
      // Ids and quotes are resolved on a reader; the write follows on the
      // writer, which is then busy only with the write.
      auto resolved = std::make_shared<Request>(std::move(req));
      o.OnWorker(
          Thread::kReader, Caller{},
          [&op, resolved](Db& db, rpc::Writer& w) {
            ResolveIds(op, db, *resolved);
            w.Null();
          },
          [&o, &op, resolved, caller, reply](Answer a) {
            if (a.error && resolved->request_key.empty()) return reply(std::move(a));
            Keyed<Request, Handler>(o, op, std::move(*resolved), caller, reply, a.error);
          });
      return;
    }
    Keyed<Request, Handler>(o, op, std::move(req), caller, reply);
  });
}

// A write whose answer is not kept (no request key): a token's text must
// never be stored (daemon/operations/tokens.cpp).
template <class Request, void (*Handler)(Context&, Db&, const Request&, const Caller&, rpc::Writer&)>
void StartUnkeyedWrite(Operations& o, const Operation& op, const rapidjson::Value* params,
                       Caller caller, Reply reply) {
  Request req;
  std::string error;
  if (!DecodeFor(op, params, &req, &error)) return reply(Invalid(error));
  Context& ctx = o.ctx();
  o.OnWorker(
      Thread::kWriter, caller,
      [&ctx, req = std::move(req), caller](Db& db, rpc::Writer& w) {
        Handler(ctx, db, req, caller, w);
      },
      reply);
}

template <class Request, void (*Handler)(Operations&, const Request&, const Caller&, Reply)>
constexpr Operation OnLoop(std::string_view method, bool after_first_sync) {
  return {method, Thread::kLoop, after_first_sync, false, &StartLoop<Request, Handler>};
}
// A read answered from one snapshot of the store (Operation::one_snapshot).
template <class Request, void (*Handler)(Context&, Db&, const Request&, rpc::Writer&)>
constexpr Operation Read(std::string_view method, unsigned ids = 0) {
  return {method, Thread::kReader, true, false, &StartRead<Request, Handler>, ids, true};
}
// A read of the whole store (its mirrors too), which may take minutes: its
// own read transactions, as short as it makes them.
template <class Request, void (*Handler)(Context&, Db&, const Request&, rpc::Writer&)>
constexpr Operation LongRead(std::string_view method) {
  return {method, Thread::kReader, true, false, &StartRead<Request, Handler>, 0, false};
}
template <class Request, void (*Handler)(Context&, Db&, const Request&, const Caller&, rpc::Writer&)>
constexpr Operation Write(std::string_view method, unsigned ids = 0) {
  return {method, Thread::kWriter, true, true, &StartWrite<Request, Handler>, ids};
}

// A write citing what was said a moment ago (Operation::cites_fresh).
template <class Request,
          void (*Handler)(Context&, Db&, const Request&, const Caller&, rpc::Writer&)>
constexpr Operation CitingWrite(std::string_view method, unsigned ids = 0) {
  Operation op = Write<Request, Handler>(method, ids);
  op.cites_fresh = true;
  return op;
}

template <class Request, void (*Handler)(Context&, Db&, const Request&, const Caller&, rpc::Writer&)>
constexpr Operation UnkeyedWrite(std::string_view method) {
  return {method, Thread::kWriter, false, false, &StartUnkeyedWrite<Request, Handler>};
}

constexpr Operation kTable[] = {
    OnLoop<proto::NoRequest, ops::Ping>("ping", false),
    OnLoop<proto::NoRequest, ops::Status>("status", true),
    OnLoop<proto::SyncRequest, ops::Sync>("sync", false),
    OnLoop<proto::NoRequest, ops::Shutdown>("shutdown", false),
    Read<proto::TimelineRequest, ops::Timeline>("timeline", kSessionIds),
    Read<proto::NoRequest, ops::Projects>("projects"),
    Read<proto::IdRequest, ops::Show>("show", kEventIds | kEntryIds),
    Read<proto::IdRequest, ops::Sources>("sources", kEventIds | kEntryIds),
    Read<proto::EntriesRequest, ops::Entries>("entries"),
    Read<proto::SearchRequest, ops::Search>("search"),
    Read<proto::ForgottenRequest, ops::Forgotten>("forgotten"),
    LongRead<proto::NoRequest, ops::Check>("check"),
    CitingWrite<EntryRequest, ops::Remember>("remember"),
    CitingWrite<EntryRequest, ops::Correct>("correct", kEntryIds),
    Write<TombstoneRequest, ops::Forget>("forget", kEventIds | kEntryIds | kSessionIds),
    Write<TombstoneRequest, ops::Restore>("restore", kTombstoneIds),
    // The owner's alone: the CLI, never an MCP tool (core/erase/erase.hpp).
    Write<TombstoneRequest, ops::Erase>("erase", kTombstoneIds),
    OnLoop<proto::BackupRequest, ops::Backup>("backup", false),
    LongRead<proto::VerifyRequest, ops::Verify>("verify"),
    // origin ui's own (daemon/http/ui_service.hpp): on its socket connection only.
    {"ui", Thread::kLoop, false, false, &http::StartUi},
    // The web UI's (origin ui), none an MCP tool; tombstone, which shows
    // what a forget hides, is the owner's alone (the UI and the CLI).
    Read<proto::NoRequest, ops::Overview>("overview"),
    Read<proto::TurnsRequest, ops::Turns>("turns", kSessionIds),
    {"tombstone", Thread::kWriter, true, false, &ops::StartTombstone, kTombstoneIds},
    // A hub's access tokens (core/hub/tokens.hpp): the owner's, on the socket only.
    UnkeyedWrite<proto::TokenRequest, ops::TokenCreate>("token_create"),
    UnkeyedWrite<proto::TokenRequest, ops::TokenRevoke>("token_revoke"),
    Read<proto::NoRequest, ops::TokenList>("token_list"),
    // A device's connection to its hub (daemon/hub/sync.hpp): the owner's.
    OnLoop<proto::HubConnectRequest, ops::HubConnect>("hub_connect", false),
    OnLoop<proto::NoRequest, ops::HubStatus>("hub_status", false),
    OnLoop<proto::NoRequest, ops::HubDisconnect>("hub_disconnect", false),
};

}  // namespace

std::span<const Operation> AllOperations() { return kTable; }

}  // namespace origin
