// SPDX-License-Identifier: MIT
#pragma once
// The table of operations: every method the daemon answers, in one list
// (table.cpp), each with its typed request (proto/requests.hpp, decoded and
// checked there), the thread its work runs on, whether it waits for the
// first sync after a start, whether it writes (and so takes a request key),
// and its handler.  Every front-end calls operations through Call(): the
// socket protocol (daemon/server.cpp), MCP (daemon/mcp/, whose tools name
// the operation they call), and later HTTP.  Adding an operation is one
// entry in the table and its handler.
//
// An answer is a JSON value or an OpError, handed to the front-end's reply
// on the loop thread; each front-end turns an error into its own reply in
// one place.  An exception out of a handler is caught where the handler
// runs (the worker, or the loop) and becomes an OpError: nothing is thrown
// through libuv or across a thread.
//
// Writes are answered once per request key (invariant: a retried request
// never writes twice): the key and the first answer are kept in the store
// for a day (core/store/request_keys.hpp).

#include <rapidjson/document.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/entries/entries.hpp"
#include "core/ingest/adapter.hpp"
#include "core/store/message_stamps.hpp"
#include "core/store/mirror.hpp"
#include "core/util/clock.hpp"
#include "core/util/op_error.hpp"
#include "daemon/indexer.hpp"
#include "daemon/rpc_json.hpp"
#include "daemon/thread_check.hpp"
#include "daemon/timers.hpp"
#include "daemon/uv.hpp"
#include "daemon/watch/ingestion.hpp"
#include "daemon/watch/scheduler.hpp"
#include "daemon/workers.hpp"
#include "proto/paths.hpp"
#include "proto/requests.hpp"

namespace origin {

/// Where an operation's work runs (design.md section 2).
enum class Thread {
  kLoop,    // on the loop thread: it only looks at the daemon's state or starts other work
  kReader,  // a reader of the pool, on its read-only connection
  kWriter,  // the writer, as an urgent job (between an import's transactions)
};

/// Who asks, as the front-end knows it.
struct Caller {
  /// Who writes: user@<device> for the CLI, <agent>@<device> on MCP.
  std::string author;
  /// Where a forget came from (spec: Forgetting): "cli" or "mcp".
  std::string channel = "cli";
  /// A long operation's progress (a JSON object), on the loop thread; null
  /// when the front-end takes none.
  std::function<void(const std::string& json)> progress;
  /// Shapes the result on the worker thread, on its connection, before it
  /// is handed back (MCP's answers for a context window); null keeps it as
  /// it is.
  std::function<std::string(Db&, std::string)> shape;
  /// The socket connection asking (its id, 0 elsewhere), and a way to run
  /// a function once when it closes (null elsewhere): what lives as long
  /// as a client does (origin ui, daemon/http/ui_service.hpp).
  std::uint64_t connection = 0;
  std::function<void(std::function<void()>)> when_closed;
};

/// An operation's answer: the result as JSON text, or the error; `notice`
/// goes beside the result (an import under way: what the answer holds).
struct Answer {
  std::string result;
  std::optional<OpError> error;
  std::string notice;
  static Answer Fail(OpError::Code code, std::string message) {
    return Answer{{}, OpError(code, std::move(message)), {}};
  }
};
using Reply = std::function<void(Answer)>;  // called once, on the loop thread

/// The protocol's name of an error code (proto::code), for every front-end.
const char* CodeName(OpError::Code code);
/// The code a CodeName names (kInternal for one it does not know).
OpError::Code CodeNamed(std::string_view name);

/// The operations a hub runs for its relays' CLI (POST /v1/call; spec:
/// Relays): the queries and curation commands, never restore, erase or
/// what manages the hub.
bool HubRunsForRelay(std::string_view method);

class Operations;
namespace http {
class UiService;
}
namespace hub {
class Asker;
class Syncer;
struct SyncReport;
}

/// The store's name (spec: Storage, Store names), read on every thread:
/// fixed at the start, and changed only by `origin hub connect --device`
/// on a store that has written nothing under its name (RenameStore).
class StoreName {
 public:
  // NOLINTNEXTLINE(google-explicit-constructor): implicit, for Context's braces
  StoreName(std::string name) : name_(std::move(name)) {}
  std::string Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return name_;
  }
  void Set(std::string name) {
    std::lock_guard<std::mutex> lock(mu_);
    name_ = std::move(name);
  }

 private:
  mutable std::mutex mu_;
  std::string name_;
};

/// What the handlers use: the store's threads and the daemon's parts.
struct Context {
  const Clock& clock;
  StoreName store_name;
  proto::Paths paths;
  MirrorStore& mirrors;
  const std::vector<std::unique_ptr<SourceAdapter>>& adapters;
  const ThreadRole& loop_thread;
  Timers& timers;
  SyncScheduler& scheduler;
  Ingestion& ingestion;
  DbWorkers* readers = nullptr;  // set once they run (Daemon::Start)
  DbWorkers* writer = nullptr;
  Indexer* indexer = nullptr;
  /// The events' timestamps and lengths, shared by the readers' searches
  /// (EventQuery::stamps); null: each search reads them from the store.
  MessageStamps* stamps = nullptr;
  LoopPoster* poster = nullptr;
  /// How long a request waits for the first sync after a start, at most.
  int first_sync_wait_ms = 3000;
  std::int64_t started_ms = 0;
  /// The watched directories (status), and the way to stop (shutdown).
  std::function<std::int64_t()> watched_dirs;
  std::function<void()> shutdown;
  /// origin ui's web server (daemon/http/ui_service.hpp).
  http::UiService* ui = nullptr;
  /// A hub's address while it serves (http://ADDR:PORT), and its public
  /// URL when given (loop thread; status); empty elsewhere.
  std::string hub_serving, hub_public_url;
  /// A device's sync with its hub (daemon/hub/sync.hpp); null on a hub.
  hub::Syncer* hub_sync = nullptr;
  /// A device's questions to its hub's /mcp (daemon/hub/asker.hpp); null
  /// on a hub.
  hub::Asker* hub_ask = nullptr;
  /// This store is a relay (core/hub/relay.hpp): it ingests nothing, sends
  /// its agents' logs to its hub, and asks the hub every question.  Set at
  /// the start, or by origin hub connect --relay (a relay stays one).
  std::atomic<bool> relay{false};
  /// RunErasuresLater's run to come (loop thread): its timer, and when the
  /// first of the triggers it gathers came.
  std::optional<std::uint64_t> erasure_timer;
  std::int64_t erasure_due_since_ms = 0;
  /// A filter's source: none for nullopt or "" (every source, as sync
  /// reads it); OpError `invalid_argument` naming the sources there are
  /// for one no adapter has, which would find nothing, silently.
  std::optional<std::string> SourceFilter(const std::optional<std::string>& source) const {
    if (!source || source->empty()) return std::nullopt;
    std::string known;
    for (const auto& a : adapters) {
      if (a->id() == *source) return source;
      known += (known.empty() ? "" : ", ") + std::string(a->id());
    }
    throw OpError(OpError::Code::kInvalidArgument,
                  "unknown source " + *source + " (" + known + ")");
  }
  /// The adapter of `source` (an adapter's id), or null for an unknown one.
  const SourceAdapter* adapter(std::string_view source) const {
    for (const auto& a : adapters)
      if (a->id() == source) return a.get();
    return nullptr;
  }
};

struct Operation {
  using Start = void (*)(Operations& ops, const Operation& op, const rapidjson::Value* params,
                         Caller caller, Reply reply);
  std::string_view method;
  Thread thread;
  bool after_first_sync;  // answers from the logs as they are (a bounded wait)
  bool writes;            // takes a request key
  Start start;            // decodes the request and runs the handler
  /// What its id names (a mask of core/query/ids.hpp's IdKinds): the id a
  /// request gives (its `id`, `session` or `target`) is resolved to a full id
  /// on a reader before the handler runs, as are the events an entry cites.
  unsigned ids = 0;
  /// A read answered from one snapshot of the store: the handler's
  /// statements and the front-end's shaping of its answer in one read
  /// transaction (not the long reads, verify and check, which would keep
  /// the WAL from being checkpointed while they run).
  bool one_snapshot = false;
  /// A write whose entry cites what was said a moment ago: every front-end
  /// has what the watcher has not ingested yet ingested first (at most 2 s;
  /// spec: MCP server, Freshness), so that a quote of the line just
  /// written resolves to its event.  Not on a relay, which has nothing of
  /// its own to ingest.
  bool cites_fresh = false;
};

/// The table (table.cpp).
std::span<const Operation> AllOperations();

class Operations {
 public:
  explicit Operations(Context& ctx) : ctx_(ctx) {}
  Operations(const Operations&) = delete;
  Operations& operator=(const Operations&) = delete;

  /// Runs `method` for `caller` (loop thread); `reply` runs once, on the
  /// loop thread, with the answer or the error (unknown_method for a
  /// method not in the table, unavailable once the daemon stops).
  void Call(std::string_view method, const rapidjson::Value* params, Caller caller, Reply reply);
  static const Operation* Find(std::string_view method);
  /// Requests answered no more: the daemon is stopping.
  void Refuse() { refusing_ = true; }
  /// Calls not yet answered (the shutdown waits for them).
  std::size_t in_flight() const { return in_flight_; }
  /// `fn` once no call is in flight (at once when none is).
  void WhenIdle(std::function<void()> fn);
  /// Counts a call that a front-end holds before it calls (MCP's freshness
  /// wait) as in flight, until the returned function runs (once).
  std::function<void()> Hold();

  Context& ctx() { return ctx_; }

  // For the table's helpers: run `fn` where `thread` says, answer with what
  // it writes (or the error it throws), with the import's notice.
  using Job = std::function<void(Db&, rpc::Writer&)>;
  /// `one_snapshot` (readers): the job and the caller's shape in one read
  /// transaction (Operation::one_snapshot).
  void OnWorker(Thread thread, const Caller& caller, Job job, Reply reply,
                bool one_snapshot = false);
  /// `fn` after the first sync (at most ctx.first_sync_wait_ms), when `op` waits for it.
  void AfterFirstSync(const Operation& op, std::function<void()> fn);

 private:
  Context& ctx_;
  bool refusing_ = false;
  std::size_t in_flight_ = 0;
  std::vector<std::function<void()>> when_idle_;
  void Finished();
  /// On a relay: `op` run by the hub (relay_calls.cpp).
  void CallHub(const Operation& op, const rapidjson::Value* params, Reply reply);
};

/// Decodes `params` into the request `op` takes; false with the message.
template <class Request>
bool DecodeFor(const Operation&, const rapidjson::Value* params, Request* out,
               std::string* error) {
  return proto::Decode(params, out, error);
}
/// remember or correct (which needs the id of the version it supersedes).
bool DecodeFor(const Operation& op, const rapidjson::Value* params, proto::EntryRequest* out,
               std::string* error);
/// forget (of a `target`) or restore (of an `id`).
bool DecodeFor(const Operation& op, const rapidjson::Value* params, proto::TombstoneRequest* out,
               std::string* error);

/// An entry's sources as core takes them, and back (writes.cpp).
std::vector<EntrySource> ToEntrySources(const std::vector<proto::SourceRef>& refs);
std::vector<proto::SourceRef> ToSourceRefs(const std::vector<EntrySource>& sources);

// The handlers (queries.cpp, writes.cpp, service.cpp).
namespace ops {
void Timeline(Context&, Db&, const proto::TimelineRequest&, rpc::Writer&);
void Projects(Context&, Db&, const proto::NoRequest&, rpc::Writer&);
void Show(Context&, Db&, const proto::IdRequest&, rpc::Writer&);
void Sources(Context&, Db&, const proto::IdRequest&, rpc::Writer&);
void Entries(Context&, Db&, const proto::EntriesRequest&, rpc::Writer&);
void Search(Context&, Db&, const proto::SearchRequest&, rpc::Writer&);
void Forgotten(Context&, Db&, const proto::ForgottenRequest&, rpc::Writer&);
void Check(Context&, Db&, const proto::NoRequest&, rpc::Writer&);  // check.cpp
void Remember(Context&, Db&, const proto::EntryRequest&, const Caller&, rpc::Writer&);
void Correct(Context&, Db&, const proto::EntryRequest&, const Caller&, rpc::Writer&);
void Forget(Context&, Db&, const proto::TombstoneRequest&, const Caller&, rpc::Writer&);
void Restore(Context&, Db&, const proto::TombstoneRequest&, const Caller&, rpc::Writer&);
void Erase(Context&, Db&, const proto::TombstoneRequest&, const Caller&, rpc::Writer&);
void Ping(Operations&, const proto::NoRequest&, const Caller&, Reply);
void Status(Operations&, const proto::NoRequest&, const Caller&, Reply);
void Sync(Operations&, const proto::SyncRequest&, const Caller&, Reply);
void Shutdown(Operations&, const proto::NoRequest&, const Caller&, Reply);
void Backup(Operations&, const proto::BackupRequest&, const Caller&, Reply);  // backup.cpp
void Verify(Context&, Db&, const proto::VerifyRequest&, rpc::Writer&);        // backup.cpp
// The web UI's (ui_ops.cpp); tombstone runs on a reader, then the writer.
void Overview(Context&, Db&, const proto::NoRequest&, rpc::Writer&);
// tokens.cpp: a hub's access tokens, the owner's alone.
// A device's hub (daemon/operations/hub_ops.cpp).
void HubConnect(Operations&, const proto::HubConnectRequest&, const Caller&, Reply);
void HubStatus(Operations&, const proto::NoRequest&, const Caller&, Reply);
void HubDisconnect(Operations&, const proto::NoRequest&, const Caller&, Reply);
/// `hub` of a sync's answer: what a sync with the hub did.
void WriteHubSync(rpc::Writer& w, const hub::SyncReport& r);

void TokenCreate(Context&, Db&, const proto::TokenRequest&, const Caller&, rpc::Writer&);
void TokenRevoke(Context&, Db&, const proto::TokenRequest&, const Caller&, rpc::Writer&);
void TokenList(Context&, Db&, const proto::NoRequest&, rpc::Writer&);
void Turns(Context&, Db&, const proto::TurnsRequest&, rpc::Writer&);
void StartTombstone(Operations&, const Operation&, const rapidjson::Value* params, Caller, Reply);
/// Runs, on the writer, what erasures have left to do here (RunErasures:
/// one received from another store, one stopped midway, one whose forget
/// came to cover more): after a push to a hub, a page of a hub's feed, an
/// ingest that mirrored new lines, and at the start.  The triggers are
/// gathered: one run once none came for kErasureQuietMs, or
/// kErasureLongestWaitMs after the first, so that a device's backlog of
/// chunks or a busy agent leads to one run (and one VACUUM), not one each.
/// Nothing but one query on a store that never erased.  Any thread.
/// writes.cpp.
void RunErasuresLater(Context& ctx);
}  // namespace ops

}  // namespace origin
