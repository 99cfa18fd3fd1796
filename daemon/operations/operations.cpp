// SPDX-License-Identifier: MIT
#include "daemon/operations/operations.hpp"

#include <rapidjson/stringbuffer.h>

#include "daemon/log.hpp"
#include "proto/protocol.hpp"

namespace origin {

const char* CodeName(OpError::Code code) {
  switch (code) {
    case OpError::Code::kInvalidArgument:
      return proto::code::kInvalidArgument;
    case OpError::Code::kNotFound:
      return proto::code::kNotFound;
    case OpError::Code::kAmbiguous:
      return proto::code::kAmbiguous;
    case OpError::Code::kForgotten:
      return proto::code::kForgotten;
    case OpError::Code::kConflict:
      return proto::code::kConflict;
    case OpError::Code::kUnavailable:
      return proto::code::kUnavailable;
    case OpError::Code::kUnknownMethod:
      return proto::code::kUnknownMethod;
    case OpError::Code::kProtocol:
      return proto::code::kProtocol;
    case OpError::Code::kInternal:
      return proto::code::kInternal;
  }
  return proto::code::kInternal;
}

OpError::Code CodeNamed(std::string_view name) {
  for (OpError::Code c :
       {OpError::Code::kInvalidArgument, OpError::Code::kNotFound, OpError::Code::kAmbiguous,
        OpError::Code::kForgotten, OpError::Code::kConflict, OpError::Code::kUnavailable,
        OpError::Code::kUnknownMethod, OpError::Code::kProtocol})
    if (name == CodeName(c)) return c;
  return OpError::Code::kInternal;
}

bool HubRunsForRelay(std::string_view method) {
  for (std::string_view m : {"search", "timeline", "show", "sources", "entries", "projects",
                             "remember", "correct", "forget"})
    if (m == method) return true;
  return false;
}

bool DecodeFor(const Operation& op, const rapidjson::Value* params, proto::EntryRequest* out,
               std::string* error) {
  return proto::Decode(params, out, error, /*correct=*/op.method == "correct");
}

bool DecodeFor(const Operation& op, const rapidjson::Value* params, proto::TombstoneRequest* out,
               std::string* error) {
  return proto::Decode(params, out, error, op.method == "forget" ? "target" : "id");
}

const Operation* Operations::Find(std::string_view method) {
  for (const Operation& op : AllOperations())
    if (op.method == method) return &op;
  return nullptr;
}

namespace {

// What a relay answers itself (spec: Relays): its own state, its sync and
// its connection; every other operation reads or writes a store, which a
// relay does not have.
bool OnRelay(std::string_view method) {
  for (std::string_view m : {"ping", "status", "sync", "shutdown", "check", "verify",
                             "hub_connect", "hub_status", "hub_disconnect"})
    if (m == method) return true;
  return false;
}

}  // namespace

void Operations::Call(std::string_view method, const rapidjson::Value* params, Caller caller,
                      Reply reply) {
  ORIGIN_ASSERT_INSIDE(ctx_.loop_thread);
  if (refusing_)
    return reply(Answer::Fail(OpError::Code::kUnavailable, "the daemon is shutting down"));
  const Operation* op = Find(method);
  if (op == nullptr)
    return reply(
        Answer::Fail(OpError::Code::kUnknownMethod, "unknown method: " + std::string(method)));
  if (ctx_.relay && !OnRelay(method)) {
    if (HubRunsForRelay(method)) return CallHub(*op, params, std::move(reply));
    return reply(Answer::Fail(
        OpError::Code::kInvalidArgument,
        "this store is a relay of its hub, and keeps no memory of its own: " +
            std::string(method) +
            " is done on the hub (its admin UI); here, the agents' MCP tools and origin "
            "search, timeline, show, sources, entries, projects, remember, correct and forget "
            "ask the hub"));
  }
  // Counted until answered: the shutdown waits for the calls in flight.
  ++in_flight_;
  auto once = [this, reply = std::move(reply)](Answer a) {
    struct Done {  // counted out even when the reply throws
      Operations* ops;
      ~Done() { ops->Finished(); }
    } done{this};
    reply(std::move(a));
  };
  op->start(*this, *op, params, std::move(caller), std::move(once));
}

void Operations::Finished() {
  if (--in_flight_ == 0)
    for (auto& fn : std::exchange(when_idle_, {})) fn();
}

std::function<void()> Operations::Hold() {
  ++in_flight_;
  auto held = std::make_shared<bool>(true);
  return [this, held] {
    if (std::exchange(*held, false)) Finished();
  };
}

void Operations::WhenIdle(std::function<void()> fn) {
  if (in_flight_ == 0) return fn();
  when_idle_.push_back(std::move(fn));
}

void Operations::AfterFirstSync(const Operation& op, std::function<void()> fn) {
  // Queries answer from the logs as they are: after the first sync of every
  // source since the start, or after at most first_sync_wait_ms, from what
  // is stored so far (with the import's notice).
  if (!op.after_first_sync) return fn();
  ctx_.scheduler.AfterFirstSync(ctx_.first_sync_wait_ms, std::move(fn));
}

void Operations::OnWorker(Thread thread, const Caller& caller, Job job, Reply reply,
                          bool one_snapshot) {
  DbWorkers::Job run = [this, job = std::move(job), shape = caller.shape, reply = std::move(reply),
                        one_snapshot](Db& db) {
    Answer a;
    try {
      ReadSnapshot snapshot(db, one_snapshot);
      a.result = rpc::Json([&](rpc::Writer& w) {
        w.UseRefs(&db);
        job(db, w);
      });
      if (shape) a.result = shape(db, std::move(a.result));
    } catch (const OpError& e) {
      a.error = e;
    } catch (const std::exception& e) {
      LOG_ERROR("request: %s", e.what());
      a.error = OpError(OpError::Code::kInternal, e.what());
    }
    a.notice = ctx_.ingestion.ImportNote();
    ctx_.poster->Post([reply, a = std::move(a)]() mutable { reply(std::move(a)); });
  };
  if (thread == Thread::kWriter)
    ctx_.writer->Post(std::move(run), /*urgent=*/true);
  else
    ctx_.readers->Post(std::move(run));
}

}  // namespace origin
