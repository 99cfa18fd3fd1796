// SPDX-License-Identifier: MIT
#pragma once
// originsd's loop-thread object: the socket server and its connections,
// the watcher over every agent root, the timers, and the dispatch of
// requests to the writer thread (ingest) and the reader pool (queries).
//
// Thread affinity: every member is touched on the loop thread only; jobs on
// the worker threads reach it back through LoopPoster.  The loop never
// blocks on SQLite, on reading logs, or on zstd.
//
// Watching: libuv does not watch recursively on Linux, so every directory a
// discovery walked gets its own uv_fs_event; an event on one schedules a
// sync of its source after a short debounce, and each sync's discovery
// brings the set of watched directories up to date (new directories are
// picked up).  A rescan every 60 s (sizes and modification times only)
// catches whatever the events missed, such as a root created later.

#include <uv.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/entries/entries.hpp"
#include "core/ingest/adapter.hpp"
#include "core/ingest/ingester.hpp"
#include "core/store/mirror.hpp"
#include "core/util/clock.hpp"
#include "daemon/indexer.hpp"
#include "daemon/instance.hpp"
#include "daemon/rpc_json.hpp"
#include "daemon/source_health.hpp"
#include "daemon/uv.hpp"
#include "daemon/workers.hpp"
#include "proto/paths.hpp"
#include "proto/protocol.hpp"

namespace origin {

struct DaemonOptions {
  proto::Paths paths;
  std::string store_name;
  int rescan_ms = 60000;
  int debounce_ms = 30;
  /// How long a query waits for the first sync after a start, at most.
  int first_sync_wait_ms = 3000;
  int readers = 2;
};

class Daemon {
 public:
  /// Takes the writer connection (already migrated) and the adapters.
  Daemon(uv_loop_t* loop, DaemonOptions opts, std::unique_ptr<Db> writer_db,
         std::unique_ptr<EventIndex> index, std::vector<std::unique_ptr<SourceAdapter>> adapters);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  /// Binds the socket (throws UvError), starts the watcher, the timers and
  /// the first sync.
  void Start();
  /// Stops listening and watching, lets the writer finish its current
  /// transaction, closes every handle; the loop then ends.
  void BeginShutdown();

 private:
  /// Every 2 s, checks that the socket path still names the socket Start()
  /// bound; when it was removed or replaced, no client can reach this
  /// daemon any more (and another may be taking over): it shuts down.
  void WatchSocket();
  std::optional<FileId> socket_id_;  // the socket as bound
  UvHandle<uv_timer_t> socket_watch_;

  struct Connection;
  struct DirWatch;
  struct SourceSync;

  // Socket server.
  static void OnConnection(uv_stream_t* server, int status) noexcept;
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) noexcept;
  void HandleLine(Connection& c, const std::string& line);
  /// `waited`: the request waited for the first sync already.
  void Dispatch(Connection& c, const std::string& line, bool waited = false);
  void Send(std::uint64_t conn_id, std::string line);
  void SendError(std::uint64_t conn_id, const std::string& id_json, const char* code,
                 const std::string& message);
  void CloseConnection(std::uint64_t conn_id);

  // Requests.  Queries run on a reader thread; `answer` writes the result
  // value, or throws rpc::RequestError.
  void Read(std::uint64_t conn_id, std::string id_json,
            std::function<void(Db&, rpc::Writer&)> answer);
  /// The same on the writer thread, as an urgent job: it runs between the
  /// transactions of an import, never behind all of it.
  void Write(std::uint64_t conn_id, std::string id_json,
             std::function<void(Db&, rpc::Writer&)> answer);
  /// Who writes through this connection: user@<device> for the CLI (people),
  /// <clientInfo.name>@<device> for an agent on MCP, <client>@<device> else.
  std::string AuthorOf(std::uint64_t conn_id) const;
  void SetAgent(std::uint64_t conn_id, std::string name);

  // MCP (daemon/mcp.cpp): the lines of an origin-mcp connection.
  void McpLine(std::uint64_t conn, const std::string& line);
  /// Whether `m` gets an answer (a request does; a notification or a
  /// response does not).
  bool McpMessage(std::uint64_t conn, const rapidjson::Value& m);
  /// `fresh`: what changed is in already (Freshen, WhenSynced); `waited`:
  /// the call waited for the first sync already.
  void McpCall(std::uint64_t conn, const std::string& id_json, const rapidjson::Value* params,
               bool fresh = false, bool waited = false);
  /// Runs `fn` on the loop thread after `ms` (a one-shot timer of its own).
  void After(int ms, std::function<void()> fn);
  struct OneShot {
    uv_timer_t handle;
    Daemon* daemon;
    std::function<void()> fn;
  };
  static void CloseOneShot(OneShot* t);
  std::set<OneShot*> one_shots_;  // closed, unfired, by BeginShutdown
  /// `then`, to run once: by the returned function, or after `wait_ms`,
  /// whichever comes first (the bounded waits).
  std::function<void()> AtMostAfter(int wait_ms, std::function<void()> then);
  /// Ingests what changed in every source (a sync that only stats unchanged
  /// files), then runs `then` on the loop thread; after at most `wait_ms`,
  /// `then` runs anyway and the sync goes on by itself.
  void Freshen(int wait_ms, std::function<void()> then);
  /// Runs `then` once no sync is due or running (what the watcher marked
  /// changed is in), or after at most `wait_ms` anyway.
  void WhenSynced(int wait_ms, std::function<void()> then);
  bool SyncsIdle() const;
  /// Whether `conn` (a connection, or a message of a batch on one) is open.
  bool Alive(std::uint64_t conn) const;
  bool IsMcp(std::uint64_t conn_id) const;
  /// A tools/call answer: `text` in one text block, or a tool error.
  static std::string McpToolResult(const std::string& id_json, const std::string& text,
                                   bool is_error, const std::string& note = "");
  /// A tool's answer stays under about 20,000 tokens (rpc::BoundStrings).
  static constexpr std::size_t kMcpMaxAnswer = 80000;
  /// A batch of MCP messages (2025-03-26): each message gets a connection
  /// id of its own, whose answers are gathered here and sent as one array
  /// on `conn` once every message that needs one is answered.
  struct Batch {
    std::uint64_t conn = 0;
    std::size_t expected = SIZE_MAX;  // known once every message was read
    std::vector<std::string> replies;
  };
  std::map<std::uint64_t, std::shared_ptr<Batch>> batch_of_;
  /// The connection a batch message's id stands for, else `conn` itself.
  std::uint64_t RealConn(std::uint64_t conn) const;
  void FlushBatch(const Batch& batch);
  /// remember and correct: resolves quotes without an event id on a reader
  /// first, then runs `write` on the writer and answers with the entry.
  void WriteWithSources(std::uint64_t conn_id, const std::string& id_json,
                        std::vector<EntrySource> sources,
                        std::function<std::string(Db&, std::vector<EntrySource>)> write);
  void Answer(std::uint64_t conn_id, std::string id_json,
              std::function<void(Db&, rpc::Writer&)> answer, bool write);
  /// timeline, projects, show, sources, entries, remember, correct; false
  /// for another method.
  bool DispatchQuery(std::uint64_t conn_id, const std::string& id_json, const std::string& method,
                     const rpc::Params& params);
  void DoStatus(std::uint64_t conn_id, std::string id_json);
  /// Ingests what changed, in every source or in `only`, and answers.
  void DoSync(std::uint64_t conn_id, std::string id_json, const std::string& only = "");

  // Ingestion scheduling and watching.
  void ScheduleSync(std::size_t source, int delay_ms);
  void RunSync(std::size_t source, const char* reason);
  /// Options of a sync on the writer thread (`db` is the writer's).
  SyncOptions WriterSync(Db& db, const std::string& reason);
  /// What a discovery found, on the loop thread: status problems and watches.
  void ApplyDiscovery(std::size_t source, const std::vector<std::string>& dirs,
                      const std::vector<DiscoveryProblem>& problems, bool exists);
  /// What a sync ingested and met (writer thread): the totals and each
  /// source's health.
  /// `partial`: a live sync of a few files, which adds problems and
  /// ingestion times but clears no problem of the source.
  void NoteSync(const SyncReport& r, bool partial = false);
  /// A sync of `which` that failed as a whole (the store refused it).
  void NoteFailure(const std::vector<const SourceAdapter*>& which, const std::string& what);
  /// Watches `dirs` of `source` (and no others of it); true when it added one.
  bool UpdateWatches(std::size_t source, const std::vector<std::string>& dirs);
  static void OnFsEvent(uv_fs_event_t* h, const char* filename, int events, int status) noexcept;

  // Live files during an import.  A sync reads a source's changed files
  // oldest first, one source after another; while one runs (an import of
  // many logs), a line appended to a session still going on would wait for
  // all of it.  So the files the watcher names while the writer is busy are
  // read by an urgent job (LiveSync), between the sync's transactions, at
  // most kLiveTransactions of them; the sync itself still follows.  Only
  // files the last discovery found and that changed within
  // kLiveFileAgeMs (known_files_): a new file, or a stream generated from
  // a database, waits for the sync.
  static constexpr int kLiveTransactions = 4;
  static constexpr std::int64_t kLiveFileAgeMs = 7LL * 24 * 3600 * 1000;
  static constexpr std::size_t kMaxLivePaths = 1000;
  void ScheduleLive(std::size_t source, std::string path);
  void KnowFiles(std::size_t source, const Discovery& d);         // writer thread
  void LiveSync(Db& db, const std::vector<std::set<std::string>>& paths);  // writer thread
  std::vector<std::set<std::string>> live_paths_;  // by source
  bool live_armed_ = false;
  std::vector<std::map<std::string, SourceFile>> known_files_;  // writer thread, by source

  // The first sync after a start: queries wait for it at most
  // opts_.first_sync_wait_ms, then answer from what is stored, with ImportNote().
  struct ImportProgress {
    std::atomic<std::int64_t> files_done{0}, files_total{0}, bytes_done{0}, bytes_total{0};
    std::atomic<bool> done{false};
  };
  std::unique_ptr<ImportProgress[]> import_;  // by source
  std::atomic<bool> importing_{true};
  /// "" once the first sync is done; else how far it is (any thread).
  std::string ImportNote() const;

  uv_loop_t* loop_;
  DaemonOptions opts_;
  SystemClock clock_;
  MirrorStore mirrors_;
  std::vector<std::unique_ptr<SourceAdapter>> adapters_;
  std::unique_ptr<Db> writer_db_;  // handed to the writer thread in Start()
  std::unique_ptr<DbWorkers> writer_;
  std::unique_ptr<DbWorkers> readers_;
  std::unique_ptr<EventIndex> index_;  // handed to the indexer thread in Start()
  std::unique_ptr<Indexer> indexer_;
  std::unique_ptr<LoopPoster> poster_;
  UvHandle<uv_pipe_t> server_;
  UvHandle<uv_timer_t> rescan_;
  std::map<std::uint64_t, std::unique_ptr<Connection>> conns_;
  std::uint64_t next_conn_ = 1;
  std::map<std::string, std::unique_ptr<DirWatch>> watches_;
  std::vector<std::unique_ptr<SourceSync>> syncs_;
  // What the last discovery of each source found wrong (for status).
  std::vector<std::vector<DiscoveryProblem>> problems_;
  std::vector<bool> root_exists_;
  std::vector<bool> looked_;  // a discovery of the source ran since the start
  // Status waits for the first sync of every source, so that what it shows
  // right after a start is the store as the logs are, not an empty one.
  std::size_t first_syncs_left_ = 0;
  std::vector<std::function<void()>> after_first_sync_;
  std::vector<std::function<void()>> when_synced_;  // see WhenSynced
  // What every sync ingested, added up (written by the writer thread), so
  // that `origin sync` reports what came in while it waited, a sync already
  // under way included.
  struct Totals {
    std::atomic<std::int64_t> files{0}, lines{0}, bytes{0}, events{0};
  } totals_;
  SourceHealthBook health_;  // each source's health, as the syncs found it
  bool shutting_down_ = false;
  std::int64_t started_ms_ = 0;
};

}  // namespace origin
