// SPDX-License-Identifier: MIT
// `backup` and `verify` (issue 18): a consistent copy of the live store into
// a directory (core/store/backup.hpp), and a check of the store end to end
// that changes nothing (core/store/verify.hpp, core/ingest/verify_events.hpp).
// Both run on a reader: only the daemon opens the store, and neither writes
// it (a backup writes only under its directory).
#include "core/store/backup.hpp"

#include <chrono>

#include "core/ingest/verify_events.hpp"
#include "core/store/verify.hpp"
#include "daemon/operations/operations.hpp"

namespace origin::ops {

namespace {

std::int64_t MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

void Count(rpc::Writer& w, const char* key, std::int64_t v) {
  w.Key(key);
  w.Int64(v);
}

}  // namespace

void Backup(Operations& o, const proto::BackupRequest& r, const Caller& caller, Reply reply) {
  Context& ctx = o.ctx();
  std::function<void(const BackupProgress&)> progress;
  if (caller.progress) {
    LoopPoster* poster = ctx.poster;
    auto sink = caller.progress;
    auto last = std::make_shared<std::chrono::steady_clock::time_point>();
    progress = [poster, sink, last](const BackupProgress& p) {
      const auto now = std::chrono::steady_clock::now();
      if (now - *last < std::chrono::milliseconds(100) && p.mirrors_done != p.mirrors_total) return;
      *last = now;
      // The CLI's bar counts files (sync's fields): mirrors here.
      std::string json = "{\"files_done\":" + std::to_string(p.mirrors_done) +
                         ",\"bytes_done\":" + std::to_string(p.mirrors_done) +
                         ",\"bytes_total\":" + std::to_string(p.mirrors_total) +
                         ",\"files_total\":" + std::to_string(p.mirrors_total) + "}";
      poster->Post([sink, json] { sink(json); });
    };
  }
  o.OnWorker(
      Thread::kReader, caller,
      [&ctx, dir = r.dir, progress](Db& db, rpc::Writer& w) {
        const auto start = std::chrono::steady_clock::now();
        const BackupReport rep = origin::Backup(db, ctx.mirrors, ctx.paths.home, dir, progress);
        w.StartObject();
        w.Key("dir");
        w.String(rep.dir);
        w.Key("incremental");
        w.Bool(rep.incremental);
        Count(w, "events", rep.events);
        Count(w, "max_seq", rep.max_seq);
        Count(w, "db_bytes", rep.db_bytes);
        Count(w, "mirrors", rep.mirrors);
        Count(w, "mirrors_changed", rep.mirrors_changed);
        Count(w, "frames_copied", rep.frames_copied);
        Count(w, "frame_bytes", rep.frame_bytes);
        Count(w, "tails_written", rep.tails_written);
        Count(w, "tail_bytes", rep.tail_bytes);
        Count(w, "files_written", rep.files_written);
        Count(w, "bytes_written", rep.bytes_written);
        w.Key("problems");
        w.StartArray();
        for (const std::string& p : rep.problems) w.String(p);
        w.EndArray();
        Count(w, "ms", MsSince(start));
        w.EndObject();
      },
      reply);
}

void Verify(Context& ctx, Db& db, const proto::VerifyRequest& r, rpc::Writer& w) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<VerifyCheck> checks;
  checks.push_back(VerifySchema(db));
  checks.push_back(VerifyDatabase(db));
  checks.push_back(VerifyNoInterruptedBackup(ctx.paths.home));
  checks.push_back(VerifyMirrors(db, ctx.mirrors));
  checks.push_back(VerifyEvents(db, ctx.mirrors, ctx.adapters, r.all, r.sample));
  if (r.all) checks.push_back(VerifyIndex(db));
  bool ok = true;
  for (const VerifyCheck& c : checks) ok = ok && c.ok();
  w.StartObject();
  w.Key("ok");
  w.Bool(ok);
  w.Key("all");
  w.Bool(r.all);
  w.Key("checks");
  w.StartArray();
  for (const VerifyCheck& c : checks) {
    w.StartObject();
    w.Key("name");
    w.String(c.name);
    w.Key("ok");
    w.Bool(c.ok());
    Count(w, "checked", c.checked);
    Count(w, "problem_count", c.problem_count);
    w.Key("problems");
    w.StartArray();
    for (const std::string& p : c.problems) w.String(p);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  Count(w, "ms", MsSince(start));
  w.EndObject();
}

}  // namespace origin::ops
