// SPDX-License-Identifier: MIT
// The table of operations: every method of the socket protocol, the one
// place that says what each takes, where it runs and whether it waits for
// the first sync.  MCP's tools (daemon/mcp/tools.cpp) call these by name.
#include <type_traits>

#include "core/entries/entries.hpp"
#include "core/store/request_keys.hpp"
#include "daemon/log.hpp"
#include "daemon/operations/operations.hpp"

namespace origin {

namespace {

using proto::EntryRequest;
using proto::TombstoneRequest;

Answer Invalid(const std::string& message) {
  return Answer::Fail(OpError::Code::kInvalidArgument, message);
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
  o.AfterFirstSync(op, [&o, req = std::move(req), caller = std::move(caller), reply] {
    Context& ctx = o.ctx();
    o.OnWorker(
        Thread::kReader, caller, [&ctx, req](Db& db, rpc::Writer& w) { Handler(ctx, db, req, w); },
        reply);
  });
}

// A write, answered once per request key: a retry with the key gets the
// first answer, and the store is written once.
template <class Request, void (*Handler)(Context&, Db&, const Request&, const Caller&, rpc::Writer&)>
void Keyed(Operations& o, const Operation& op, Request req, Caller caller, Reply reply) {
  Context& ctx = o.ctx();
  const std::string method(op.method);
  o.OnWorker(
      Thread::kWriter, caller,
      [&ctx, req = std::move(req), caller, method](Db& db, rpc::Writer& w) {
        ORIGIN_ASSERT_INSIDE(*ctx.writer);
        const std::string json = AnswerOnce(db, ctx.clock, req.request_key, method, [&] {
          return rpc::Json([&](rpc::Writer& first) { Handler(ctx, db, req, caller, first); });
        });
        w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
      },
      reply);
}

template <class Request, void (*Handler)(Context&, Db&, const Request&, const Caller&, rpc::Writer&)>
void StartWrite(Operations& o, const Operation& op, const rapidjson::Value* params, Caller caller,
                Reply reply) {
  Request req;
  std::string error;
  if (!DecodeFor(op, params, &req, &error)) return reply(Invalid(error));
  o.AfterFirstSync(op, [&o, &op, req = std::move(req), caller = std::move(caller), reply]() mutable {
    if constexpr (std::is_same_v<Request, EntryRequest>) {
      bool quotes = false;
      for (const proto::SourceRef& s : req.sources) quotes = quotes || !s.event_id;
      if (quotes) {
        // A quote without an event id is found by searching, on a reader
        // (which has index.db); the write follows on the writer.
        auto resolved = std::make_shared<EntryRequest>(std::move(req));
        o.OnWorker(
            Thread::kReader, Caller{},
            [resolved](Db& db, rpc::Writer& w) {
              std::vector<EntrySource> sources = ToEntrySources(resolved->sources);
              ResolveQuotes(db, sources);
              resolved->sources = ToSourceRefs(sources);
              w.Null();
            },
            [&o, &op, resolved, caller, reply](Answer a) {
              if (a.error) return reply(std::move(a));
              Keyed<Request, Handler>(o, op, std::move(*resolved), caller, reply);
            });
        return;
      }
    }
    Keyed<Request, Handler>(o, op, std::move(req), caller, reply);
  });
}

template <class Request, void (*Handler)(Operations&, const Request&, const Caller&, Reply)>
constexpr Operation OnLoop(std::string_view method, bool after_first_sync) {
  return {method, Thread::kLoop, after_first_sync, false, &StartLoop<Request, Handler>};
}
template <class Request, void (*Handler)(Context&, Db&, const Request&, rpc::Writer&)>
constexpr Operation Read(std::string_view method) {
  return {method, Thread::kReader, true, false, &StartRead<Request, Handler>};
}
template <class Request, void (*Handler)(Context&, Db&, const Request&, const Caller&, rpc::Writer&)>
constexpr Operation Write(std::string_view method) {
  return {method, Thread::kWriter, true, true, &StartWrite<Request, Handler>};
}

constexpr Operation kTable[] = {
    OnLoop<proto::NoRequest, ops::Ping>("ping", false),
    OnLoop<proto::NoRequest, ops::Status>("status", true),
    OnLoop<proto::SyncRequest, ops::Sync>("sync", false),
    OnLoop<proto::NoRequest, ops::Shutdown>("shutdown", false),
    Read<proto::TimelineRequest, ops::Timeline>("timeline"),
    Read<proto::NoRequest, ops::Projects>("projects"),
    Read<proto::IdRequest, ops::Show>("show"),
    Read<proto::IdRequest, ops::Sources>("sources"),
    Read<proto::EntriesRequest, ops::Entries>("entries"),
    Read<proto::SearchRequest, ops::Search>("search"),
    Read<proto::ForgottenRequest, ops::Forgotten>("forgotten"),
    Read<proto::NoRequest, ops::Check>("check"),
    Write<EntryRequest, ops::Remember>("remember"),
    Write<EntryRequest, ops::Correct>("correct"),
    Write<TombstoneRequest, ops::Forget>("forget"),
    Write<TombstoneRequest, ops::Restore>("restore"),
};

}  // namespace

std::span<const Operation> AllOperations() { return kTable; }

}  // namespace origin
