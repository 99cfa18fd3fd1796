// SPDX-License-Identifier: MIT
#include "daemon/watch/ingestion.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cassert>
#include <cstdio>

#include "core/c/faults.hpp"
#include "core/ingest/walk.hpp"
#include "daemon/log.hpp"

namespace origin {

Ingestion::Ingestion(const std::vector<std::unique_ptr<SourceAdapter>>& adapters,
                     MirrorStore& mirrors, const Clock& clock, const ThreadRole& loop_thread,
                     int live_delay_ms, Discovered discovered)
    : adapters_(adapters),
      mirrors_(mirrors),
      clock_(clock),
      loop_thread_(loop_thread),
      live_delay_ms_(live_delay_ms),
      discovered_(std::move(discovered)),
      found_(adapters.size()),
      live_paths_(adapters.size()),
      known_(adapters.size()),
      refused_(adapters.size(), false),
      import_(std::make_unique<ImportProgress[]>(adapters.size())) {}

void Ingestion::Attach(DbWorkers* writer, Indexer* indexer, LoopPoster* poster, Timers* timers) {
  writer_ = writer;
  indexer_ = indexer;
  poster_ = poster;
  timers_ = timers;
}

std::size_t Ingestion::IndexOf(const SourceAdapter& a) const {
  for (std::size_t i = 0; i < adapters_.size(); ++i)
    if (adapters_[i].get() == &a) return i;
  return adapters_.size();
}

SyncOptions Ingestion::WriterSync(Db& db, const std::string& reason) {
  SyncOptions so;
  so.reason = reason;
  // After each transaction: the indexer catches up, waiting writes go
  // through, and a shutdown ends the sync (a value, not an exception
  // through core: the sync's report says it stopped).
  so.between = [this, &db] {
    // Never inside an import's group: the waiting writes commit on their own.
    assert(!db.InTransaction());
    indexer_->Notify();
    writer_->RunUrgent(db);
    return !(cancelled_ || writer_->stopping());
  };
  // An import's group of transactions ends as soon as a write waits, or a
  // shutdown: that write then waits for one transaction, as without groups.
  so.waiting = [this] { return cancelled_ || writer_->stopping() || writer_->UrgentWaiting(); };
  so.discovered = [this](const SourceAdapter& a, const Discovery& d) {
    if (std::size_t i = IndexOf(a); i < adapters_.size()) PostDiscovery(i, d);
  };
  return so;
}

void Ingestion::PostDiscovery(std::size_t source, const Discovery& d) {
  KnowFiles(source, d);
  // Watched from now on, not after the sync: a live file changing during a
  // long import is read at once (Live).
  poster_->Post([this, source, dirs = d.dirs, problems = d.problems, exists = d.root_exists] {
    SourceFound& f = found_[source];
    f.looked = true;
    f.root_exists = exists;
    f.problems = problems;
    discovered_(source, dirs);
  });
}

void Ingestion::SyncSource(std::size_t source, const std::string& reason,
                           std::function<void(bool)> done) {
  ORIGIN_ASSERT_INSIDE(loop_thread_);
  const SourceAdapter* adapter = adapters_[source].get();
  writer_->Post([this, source, adapter, reason, done = std::move(done)](Db& db) {
    ORIGIN_ASSERT_INSIDE(*writer_);
    if (cancelled_) return;  // the loop ends: `done` would not run
    if (Relay()) {
      PostDiscovery(source, adapter->Discover());
      import_[source].done = true;
      poster_->Post([this, done] {
        done(false);
        if (grew_) grew_();
      });
      return;
    }
    SyncOptions so = WriterSync(db, reason);
    // The import: the first sync, and its retries until one went through.
    if (!import_[source].done)
      so.progress = [this, source](const SyncProgress& p) {
        ImportProgress& ip = import_[source];
        if (p.bytes_done > ip.bytes_done)  // status shows the import going on
          health_.Ingested(std::string(adapters_[source]->id()), clock_.NowMs());
        ip.files_done = p.files_done;
        ip.files_total = p.files_total;
        ip.bytes_done = p.bytes_done;
        ip.bytes_total = p.bytes_total;
      };
    const std::string name(adapter->id());
    bool retry = false;
    try {
      // Inside the try: whatever fails, `done` runs, or the scheduler would
      // think this source's sync runs for ever.
      Ingester ing(db, mirrors_, clock_);
      SyncReport r = ing.Sync({adapter}, so);
      Note(r);
      if (r.stopped) {
        LOG_INFO("%s: sync interrupted by shutdown", name.c_str());
        return;
      }
      if (r.files_changed > 0)
        LOG_INFO("%s: %lld new events from %lld files (%s)", name.c_str(),
                 static_cast<long long>(r.events), static_cast<long long>(r.files_changed),
                 reason.c_str());
      for (const auto& src : r.sources)
        for (const auto& e : src.errors) LOG_WARN("%s: %s", src.source.c_str(), e.c_str());
      retry = r.store_fault;
      if (retry)
        LOG_WARN(
            "%s: the store refused a write: that step was rolled back, and the sync is "
            "retried by itself",
            name.c_str());
      else if (refused_[source])
        LOG_INFO("%s: the store takes writes again: the sync went through", name.c_str());
    } catch (const std::exception& e) {
      // The store itself failed (disk full, I/O error): retried.
      Failed({adapter}, e);
      LOG_ERROR("%s: sync failed: %s", name.c_str(), e.what());
      retry = true;
    }
    refused_[source] = retry;
    if (!retry) import_[source].done = true;
    poster_->Post([done, retry] { done(retry); });
  });
}

void Ingestion::SyncNow(std::vector<std::size_t> which,
                        std::function<void(const SyncProgress&)> progress,
                        std::function<void(SyncOutcome)> done) {
  ORIGIN_ASSERT_INSIDE(loop_thread_);
  std::vector<const SourceAdapter*> all;
  for (std::size_t i = 0; i < adapters_.size(); ++i)
    if (which.empty() || std::find(which.begin(), which.end(), i) != which.end())
      all.push_back(adapters_[i].get());
  writer_->Post([this, all, progress = std::move(progress), done = std::move(done)](Db& db) {
    ORIGIN_ASSERT_INSIDE(*writer_);
    SyncOutcome out;
    if (Relay()) {  // nothing to ingest: the hub is sent the new lines
      poster_->Post([done, out = std::move(out)]() mutable { done(std::move(out)); });
      return;
    }
    try {
      Ingester ing(db, mirrors_, clock_);
      SyncOptions so = WriterSync(db, "request");
      so.progress = progress;
      out.report = ing.Sync(all, so);
      Note(out.report);
      RetryRefused(out.report);
      if (out.report.stopped) out.end = SyncOutcome::End::kCancelled;
    } catch (const std::exception& e) {
      Failed(all, e);
      out.end = SyncOutcome::End::kFailed;
      out.failure = e.what();
    }
    poster_->Post([done, out = std::move(out)]() mutable { done(std::move(out)); });
  });
}

void Ingestion::Freshen(int wait_ms, std::function<void()> then) {
  ORIGIN_ASSERT_INSIDE(loop_thread_);
  // `then` runs once: when the sync is done or when the wait is over.
  auto run = AtMostAfter(*timers_, wait_ms, std::move(then));
  SyncNow({}, nullptr, [run](const SyncOutcome& o) {
    if (o.end == SyncOutcome::End::kFailed)
      LOG_WARN("sync before a write: %s", o.failure.c_str());  // the write goes on
    run();
  });
}

void Ingestion::Live(std::size_t source, std::string path, bool busy) {
  ORIGIN_ASSERT_INSIDE(loop_thread_);
  // Only while a sync keeps the writer busy: otherwise the sync just
  // scheduled comes at once, and reads the file anyway.
  if (!busy || cancelled_) return;
  auto& waiting = live_paths_[source];
  if (waiting.size() < kMaxLivePaths) waiting.insert(std::move(path));
  if (live_armed_) return;
  live_armed_ = true;
  timers_->After(live_delay_ms_, [this] {
    live_armed_ = false;
    auto paths = std::exchange(live_paths_, std::vector<std::set<std::string>>(adapters_.size()));
    writer_->Post([this, paths = std::move(paths)](Db& db) { LiveSync(db, paths); },
                  /*urgent=*/true);
  });
}

void Ingestion::KnowFiles(std::size_t source, const Discovery& d) {
  // Files changed in the last week: where a session goes on.
  const std::int64_t since = (clock_.NowMs() - kLiveFileAgeMs) * 1000000;
  auto& known = known_[source];
  known.clear();
  for (const SourceFile& f : d.files)
    if (!f.generated && f.mtime_ns >= since) known.emplace(f.abs_path, f);
}

void Ingestion::LiveSync(Db& db, const std::vector<std::set<std::string>>& paths) {
  ORIGIN_ASSERT_INSIDE(*writer_);
  if (Relay()) return;
  Ingester ing(db, mirrors_, clock_);
  SyncReport report;
  int transactions = 0;
  auto between = [&] {
    indexer_->Notify();
    return ++transactions < kLiveTransactions;  // its share of the writer
  };
  bool spent = false;
  for (std::size_t i = 0; i < paths.size() && !spent; ++i) {
    SourceSummary sum;
    sum.source = std::string(adapters_[i]->id());
    for (const std::string& path : paths[i]) {
      auto it = known_[i].find(path);
      if (it == known_[i].end()) continue;  // new, or old: the sync reads it
      SourceFile f = it->second;
      struct stat st;
      if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      f.size = st.st_size;
      f.mtime_ns = MtimeNs(st);
      const FileOutcome o = ing.IngestFile(*adapters_[i], f, between);
      sum.Add(o);
      // What the file in progress committed is in; the rest waits for the
      // sync, which was scheduled with this.
      if ((spent = o.stopped)) break;
    }
    if (sum.files_changed > 0 || !sum.errors.empty()) report.sources.push_back(std::move(sum));
  }
  for (const SourceSummary& sum : report.sources) report.Add(sum);
  if (report.files_changed > 0) indexer_->Notify();
  Note(report, /*partial=*/true);
  RetryRefused(report);
}

void Ingestion::RetryRefused(const SyncReport& r) {
  for (const SourceSummary& s : r.sources) {
    if (s.store_fault.empty()) continue;
    for (std::size_t i = 0; i < adapters_.size(); ++i)
      if (adapters_[i]->id() == s.source)
        poster_->Post([this, i] {
          if (retry_) retry_(i);
        });
  }
}

void Ingestion::Note(const SyncReport& r, bool partial) {
  totals_.files += r.files_changed;
  totals_.lines += r.lines;
  totals_.bytes += r.bytes;
  totals_.events += r.events;
  health_.Note(r, clock_.NowMs(), partial);
  if (r.bytes > 0 && grew_ && poster_ != nullptr) poster_->Post(grew_);
}

void Ingestion::Failed(const std::vector<const SourceAdapter*>& which, const std::exception& e) {
  std::vector<std::string> sources;
  for (const SourceAdapter* a : which) sources.emplace_back(a->id());
  health_.Failed(sources, e.what(), IsStoreWriteFailure(e), clock_.NowMs());
}

IngestTotals Ingestion::Totals() const {
  return {totals_.files.load(), totals_.lines.load(), totals_.bytes.load(), totals_.events.load()};
}

std::string Ingestion::ImportNote() const {
  std::int64_t files_done = 0, files_total = 0, bytes_done = 0, bytes_total = 0;
  std::size_t left = 0;
  for (std::size_t i = 0; i < adapters_.size(); ++i) {
    const ImportProgress& ip = import_[i];
    if (ip.done.load()) continue;
    ++left;
    files_done += ip.files_done.load();
    files_total += ip.files_total.load();
    bytes_done += ip.bytes_done.load();
    bytes_total += ip.bytes_total.load();
  }
  if (left == 0) return "";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "an import of the agents' logs is under way (%lld of %lld files, %.0f%% of the "
                "bytes; %zu source%s still to sync): this answer holds what is stored so far",
                static_cast<long long>(files_done), static_cast<long long>(files_total),
                bytes_total > 0 ? 100.0 * static_cast<double>(bytes_done) /
                                      static_cast<double>(bytes_total)
                                : 0.0,
                left, left == 1 ? "" : "s");
  return buf;
}

}  // namespace origin
