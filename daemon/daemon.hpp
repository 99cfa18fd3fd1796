// SPDX-License-Identifier: MIT
#pragma once
// originsd's parts, wired together.  The Daemon owns them and connects each
// to the others; what each does is in its own header:
//
//   server.hpp               the Unix socket, connections, framing, and the
//                            socket protocol's front-end
//   mcp/server.hpp, tools    the MCP server (transport-agnostic) and its tools
//   operations/              the table of operations every front-end calls,
//                            and their handlers (queries, writes, service)
//   watch/scheduler.hpp      when each source syncs: the first sync, the
//                            debounce, the rescan, WhenSynced
//   watch/watcher.hpp        the uv_fs_event of every directory watched
//   watch/ingestion.hpp      the syncs on the writer, live files, import progress
//   indexer.hpp, workers.hpp the indexer thread, the writer and the readers
//   http/                    the HTTP server: origin ui's sign-in and routes,
//                            and the hub's /mcp (hub_service.hpp)
//
// Threads (design.md section 2): the parts above run on the loop thread and
// check it (thread_check.hpp); their work on SQLite runs on the writer, the
// readers or the indexer, which reach the loop back through the LoopPoster.
// The loop never blocks on SQLite, on reading logs, or on zstd.

#include <uv.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ingest/adapter.hpp"
#include "core/store/event_index.hpp"
#include "core/store/message_stamps.hpp"
#include "core/store/mirror.hpp"
#include "core/util/clock.hpp"
#include "daemon/http/hub_service.hpp"
#include "daemon/http/ui_service.hpp"
#include "daemon/hub/asker.hpp"
#include "daemon/hub/sync.hpp"
#include "daemon/indexer.hpp"
#include "daemon/mcp/server.hpp"
#include "daemon/operations/operations.hpp"
#include "daemon/server.hpp"
#include "daemon/thread_check.hpp"
#include "daemon/timers.hpp"
#include "daemon/watch/ingestion.hpp"
#include "daemon/watch/scheduler.hpp"
#include "daemon/watch/watcher.hpp"
#include "daemon/workers.hpp"
#include "proto/paths.hpp"

namespace origin {

struct DaemonOptions {
  proto::Paths paths;
  std::string store_name;
  int rescan_ms = 60000;
  int debounce_ms = 30;
  /// The first retry of a sync the store refused (SyncScheduler::Options).
  int retry_ms = 1000;
  /// How long a query waits for the first sync after a start, at most.
  int first_sync_wait_ms = 3000;
  int readers = 2;
  /// How long a shutdown waits for the requests in flight to be answered.
  int drain_ms = 5000;
  /// origin ui: a request's deadline and an idle connection's (daemon/http/).
  int http_timeout_ms = 10000;
  /// origin serve: the hub's HTTP side (daemon/http/hub_service.hpp).
  std::optional<http::HubOptions> hub;
  /// The store is a relay (core/hub/relay.hpp).
  bool relay = false;
};

class Daemon {
 public:
  /// Takes the writer connection (already migrated) and the adapters.
  Daemon(uv_loop_t* loop, DaemonOptions opts, std::unique_ptr<Db> writer_db,
         std::unique_ptr<EventIndex> index, std::vector<std::unique_ptr<SourceAdapter>> adapters);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  /// Binds the socket (throws UvError), starts the threads, the watcher,
  /// the timers and the first sync.  Call on the thread that runs the loop.
  void Start();
  /// Shuts down in h2o's order: stops accepting and watching, ends the
  /// syncs at their next transaction, lets the requests in flight finish
  /// and be answered (at most DaemonOptions::drain_ms), then closes the
  /// connections and stops the threads; the loop then ends.
  void BeginShutdown();
  /// The MCP server, for a transport in this process (the fuzz harness,
  /// tests/fuzz/mcp.cpp); loop thread.
  McpServer& mcp() { return mcp_; }
  /// The operations, for a front-end in this process (the HTTP fuzz
  /// harness, tests/fuzz/http.cpp); loop thread.
  Operations& ops() { return ops_; }

 private:
  void Finish();
  /// A sync with the hub every ORIGIN_HUB_SYNC_MS (60 s; 0: never) on a
  /// device, from now on: a no-op while it is not connected.
  void ScheduleHubSync(int interval_ms);

  uv_loop_t* loop_;
  DaemonOptions opts_;
  ThreadRole loop_thread_;
  SystemClock clock_;
  MirrorStore mirrors_;
  /// The events' timestamps and lengths, for the readers' searches (made by
  /// one at the start, then extended by each search as the store grows).
  MessageStamps stamps_;
  std::vector<std::unique_ptr<SourceAdapter>> adapters_;
  std::unique_ptr<Db> writer_db_;      // handed to the writer thread in Start()
  std::unique_ptr<EventIndex> index_;  // handed to the indexer thread in Start()
  LoopTimers timers_;
  Ingestion ingestion_;
  SyncScheduler scheduler_;
  DirWatcher watcher_;
  Context ctx_;
  Operations ops_;
  McpServer mcp_;
  Server server_;
  http::UiService ui_;
  std::unique_ptr<http::HubService> hub_;  // under origin serve
  std::unique_ptr<hub::Syncer> hub_sync_;  // on a device: its sync with a hub
  std::unique_ptr<hub::Asker> hub_ask_;    // on a device: its questions to the hub's /mcp
  /// How soon after its ingests a device syncs with its hub, at most.
  static constexpr int kHubSyncAfterIngestMs = 5'000;
  bool hub_sync_soon_ = false;  // a sync after ingests is due (loop)
  int hub_sync_after_ingest_ms_ = 0;  // that sync's delay; 0: none (a hub, or no automatic sync)
  std::unique_ptr<LoopPoster> poster_;
  std::unique_ptr<DbWorkers> writer_;
  std::unique_ptr<DbWorkers> readers_;
  std::unique_ptr<Indexer> indexer_;
  bool shutting_down_ = false;
  bool finished_ = false;
};

}  // namespace origin
