// SPDX-License-Identifier: MIT
#include "daemon/daemon.hpp"

#include <cstdlib>
#include <filesystem>

#include "core/entries/entries.hpp"
#include "core/forget/replica.hpp"
#include "core/store/schema.hpp"
#include "daemon/log.hpp"

namespace origin {

Daemon::Daemon(uv_loop_t* loop, DaemonOptions opts, std::unique_ptr<Db> writer_db,
               std::unique_ptr<EventIndex> index,
               std::vector<std::unique_ptr<SourceAdapter>> adapters)
    : loop_(loop),
      opts_(std::move(opts)),
      mirrors_(opts_.paths.raw),
      adapters_(std::move(adapters)),
      writer_db_(std::move(writer_db)),
      index_(std::move(index)),
      timers_(loop, loop_thread_),
      // A discovery's directories are watched from then on; one watched
      // only now may have changed between the sync's look and its watch (a
      // line appended during the first sync): one more look.
      ingestion_(adapters_, mirrors_, clock_, loop_thread_, opts_.debounce_ms,
                 [this](std::size_t source, const std::vector<std::string>& dirs) {
                   if (watcher_.Update(source, dirs)) scheduler_.Changed(source);
                 }),
      scheduler_(timers_, loop_thread_, adapters_.size(),
                 SyncScheduler::Options{opts_.debounce_ms, opts_.rescan_ms, opts_.retry_ms},
                 [this](std::size_t source, const std::string& reason, SyncScheduler::Done done) {
                   ingestion_.SyncSource(source, reason, [this, source, done](bool retry) {
                     done(retry);
                     if (int ms = scheduler_.RetryDelayMs(source); ms > 0)
                       LOG_INFO("%s: next try in %d ms",
                                std::string(adapters_[source]->id()).c_str(), ms);
                   });
                 }),
      watcher_(loop, loop_thread_,
               [this](std::size_t source, const std::string& path) {
                 scheduler_.Changed(source);
                 ingestion_.Live(source, path, scheduler_.Running());
               }),
      ctx_{clock_,       opts_.store_name, opts_.paths, mirrors_,  adapters_,
           loop_thread_, timers_,          scheduler_,  ingestion_},
      ops_(ctx_),
      mcp_(ops_, loop_thread_),
      server_(loop, loop_thread_, ops_, mcp_, opts_.paths.socket),
      ui_(loop, ops_, clock_,
          http::ServerLimits{.request_ms = opts_.http_timeout_ms,
                             .idle_ms = opts_.http_timeout_ms}) {
  ctx_.ui = &ui_;
  ctx_.relay = opts_.relay;
  ingestion_.SetRelay(&ctx_.relay);
  if (opts_.hub) {
    // A hub's requests come from other machines' agents: more of them at
    // once than origin ui's, and an MCP message may be larger than a form.
    hub_ = std::make_unique<http::HubService>(
        loop, ops_, mcp_, *opts_.hub,
        http::ServerLimits{.max_body_bytes = http::HubService::kMaxBodyBytes,
                           .request_ms = opts_.http_timeout_ms,
                           .idle_ms = opts_.http_timeout_ms,
                           .max_connections = 256});
    server_.SetMode("hub");
  }
}

Daemon::~Daemon() {
  if (writer_) writer_->Stop();
  if (indexer_) indexer_->Stop();
  if (readers_) readers_->Stop();
}

void Daemon::Start() {
  loop_thread_.Bind();
  ctx_.started_ms = clock_.NowMs();
  ctx_.first_sync_wait_ms = opts_.first_sync_wait_ms;
  poster_ = std::make_unique<LoopPoster>(loop_);
  auto writer_db = std::make_shared<std::unique_ptr<Db>>(std::move(writer_db_));
  writer_ = std::make_unique<DbWorkers>("writer", 1, [writer_db] { return std::move(*writer_db); });
  std::error_code size_error;
  const auto index_bytes = std::filesystem::file_size(opts_.paths.index, size_error);
  const auto check_after =
      Indexer::StartCheckDelay(size_error ? 0 : static_cast<std::int64_t>(index_bytes));
  indexer_ = std::make_unique<Indexer>(std::move(index_), [this] { return clock_.NowMs(); },
                                       check_after);
  if (check_after.count() > 0)
    LOG_INFO("search index: %lld MiB, checked a minute after the start",
             static_cast<long long>(index_bytes >> 20));
  // entry_fts is written with the entries in origin.db: checked before any write.
  writer_->Post([](Db& db) {
    try {
      if (std::string problem = RepairEntryIndex(db); !problem.empty())
        LOG_ERROR("the entries' search index was damaged (%s): rebuilt it", problem.c_str());
    } catch (const std::exception& e) {
      LOG_ERROR("checking the entries' search index: %s", e.what());
    }
  });
  const std::string db_path = opts_.paths.db, index_path = opts_.paths.index;
  readers_ = std::make_unique<DbWorkers>("reader", opts_.readers, [db_path, index_path] {
    auto db = OpenReadConnection(db_path);
    AttachIndex(*db, index_path);
    return db;
  });
  ctx_.readers = readers_.get();
  ctx_.writer = writer_.get();
  ctx_.indexer = indexer_.get();
  ctx_.stamps = &stamps_;
  // Made now rather than by the first search (about 0.4 s at two million
  // events); searches meanwhile read the store.  On a connection of its
  // own, with SQLite's default cache of 2 MiB: the index pages read once
  // here would otherwise stay in a reader's cache (up to 40 MiB, 14 MB more
  // RSS measured).
  readers_->Post([this, db_path](Db&) {
    try {
      Db db(db_path, Db::Mode::kReadOnly);
      db.Exec("PRAGMA busy_timeout = 10000");
      stamps_.Cover(db, db.QueryInt("SELECT coalesce(max(seq), 0) FROM event"));
    } catch (const std::exception& e) {
      LOG_WARN("reading the events' timestamps: %s", e.what());
    }
  });
  ctx_.poster = poster_.get();
  ctx_.watched_dirs = [this] { return static_cast<std::int64_t>(watcher_.size()); };
  ctx_.shutdown = [this] { BeginShutdown(); };
  ingestion_.Attach(writer_.get(), indexer_.get(), poster_.get(), &timers_);
  ingestion_.OnStoreFault([this](std::size_t source) { scheduler_.RetryLater(source); });
  server_.Listen([this] { BeginShutdown(); });
  if (hub_) {
    hub_->Start();
  } else {
    hub_sync_ = std::make_unique<hub::Syncer>(ctx_);
    ctx_.hub_sync = hub_sync_.get();
    // How long a tool waits for the hub's answer (spec: MCP server).
    const char* wait = std::getenv("ORIGIN_HUB_TIMEOUT_MS");
    hub_ask_ = std::make_unique<hub::Asker>(ctx_, wait != nullptr && std::atol(wait) > 0
                                                      ? std::atol(wait)
                                                      : 2000L);
    ctx_.hub_ask = hub_ask_.get();
    const char* every = std::getenv("ORIGIN_HUB_SYNC_MS");
    const int interval_ms = every != nullptr ? std::atoi(every) : 60'000;
    ScheduleHubSync(interval_ms);
    hub_sync_after_ingest_ms_ = interval_ms > 0 ? std::min(interval_ms, kHubSyncAfterIngestMs) : 0;
  }
  ingestion_.OnGrew([this] {
    if (shutting_down_) return;
    // An erased forget may cover what arrived (a session it forgot).
    ops::RunErasuresLater(ctx_);
    // New lines mirrored here go up soon after, at most once in that
    // while, so that a busy agent's log is sent in batches.
    if (hub_sync_after_ingest_ms_ <= 0 || hub_sync_soon_) return;
    hub_sync_soon_ = true;
    timers_.After(hub_sync_after_ingest_ms_, [this] {
      hub_sync_soon_ = false;
      if (!shutting_down_) hub_sync_->Request(nullptr, true);
    });
  });
  // What erasures have left to do (one stopped midway) is taken up, and an
  // erased forget a restore took before erasures won over restores is in
  // effect again.
  writer_->Post([this](Db& db) {
    try {
      HideErasedAgain(db, ctx_.store_name.Get());
    } catch (const std::exception& e) {
      LOG_ERROR("hiding again what erased forgets cover: %s", e.what());
    }
  });
  ops::RunErasuresLater(ctx_);
  scheduler_.Start();
}

void Daemon::ScheduleHubSync(int interval_ms) {
  if (interval_ms <= 0 || shutting_down_) return;
  timers_.After(interval_ms, [this, interval_ms] {
    if (shutting_down_) return;
    hub_sync_->Request(nullptr, true);
    ScheduleHubSync(interval_ms);
  });
}

void Daemon::BeginShutdown() {
  ORIGIN_ASSERT_INSIDE(loop_thread_);
  if (shutting_down_) return;
  shutting_down_ = true;
  LOG_INFO("shutting down");
  server_.StopAccepting();
  ui_.Stop();
  if (hub_) hub_->Stop();
  // A request to the hub under way ends now; its sync resumes next time.
  if (hub_sync_) hub_sync_->Stop();
  if (hub_ask_) hub_ask_->Stop();
  watcher_.Close();
  // A sync ends at its next transaction; the writes queued meanwhile still
  // run, and the requests waiting for a sync are answered from the store.
  ingestion_.Cancel();
  scheduler_.Stop();
  ops_.Refuse();
  auto finish = AtMostAfter(timers_, opts_.drain_ms, [this] { Finish(); });
  ops_.WhenIdle(finish);
}

void Daemon::Finish() {
  if (finished_) return;
  finished_ = true;
  if (ops_.in_flight() > 0)
    LOG_WARN("%zu request(s) still unanswered after %d ms: closing anyway", ops_.in_flight(),
             opts_.drain_ms);
  server_.CloseAll();
  ui_.Stop();
  if (hub_) hub_->Stop();
  if (hub_sync_) hub_sync_->Stop();
  if (hub_ask_) hub_ask_->Stop();
  timers_.CloseAll();
  // The writer finishes its current job; joining waits at most for it.
  if (writer_) writer_->Stop();
  if (indexer_) indexer_->Stop();
  if (readers_) readers_->Stop();
  if (poster_) poster_->Close();
}

}  // namespace origin
