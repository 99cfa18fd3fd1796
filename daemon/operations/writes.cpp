// SPDX-License-Identifier: MIT
// The writing operations: each runs on the writer, as an urgent job, inside
// AnswerOnce (table.cpp), so that a retry with the same request key gets
// this answer again instead of a second write.
#include "core/entries/entries.hpp"
#include "core/erase/erase.hpp"
#include "core/forget/forget.hpp"
#include "daemon/hub/connection.hpp"
#include "daemon/log.hpp"
#include "daemon/operations/operations.hpp"

namespace origin {

std::vector<EntrySource> ToEntrySources(const std::vector<proto::SourceRef>& refs) {
  std::vector<EntrySource> out;
  for (const proto::SourceRef& s : refs) out.push_back({s.event_id, s.quote});
  return out;
}

std::vector<proto::SourceRef> ToSourceRefs(const std::vector<EntrySource>& sources) {
  std::vector<proto::SourceRef> out;
  for (const EntrySource& s : sources) out.push_back({s.event_id, s.quote});
  return out;
}

namespace ops {

namespace {

// {"entry": <the entry as it is now>, "duplicate": true when it was there already}
void WriteEntryAnswer(Context& ctx, Db& db, const std::string& id, bool duplicate,
                      rpc::Writer& w) {
  auto e = GetEntry(db, id, ctx.clock.NowMs());
  if (!e) throw OpError(OpError::Code::kInternal, "the entry just written is gone: " + id);
  w.StartObject();
  w.Key("entry");
  rpc::WriteEntry(w, *e);
  if (duplicate) {
    w.Key("duplicate");
    w.Bool(true);
  }
  w.EndObject();
}

TombstoneInput Tombstone(const proto::TombstoneRequest& r, const Caller& caller) {
  TombstoneInput in;
  in.author = caller.author;
  in.channel = caller.channel;
  in.target = r.target;
  in.reason = r.reason;
  in.dry_run = r.dry_run;
  return in;
}

}  // namespace

void Remember(Context& ctx, Db& db, const proto::EntryRequest& r, const Caller& caller,
              rpc::Writer& w) {
  RememberInput in;
  in.kind = r.kind.value_or("");
  in.text = r.text.value_or("");
  in.confidence = r.confidence.value_or(-1);
  in.project = r.project;
  in.valid_from = r.valid_from;
  in.valid_to = r.valid_to;
  in.author = caller.author;
  in.sources = ToEntrySources(r.sources);
  in.channel = caller.channel;
  const RememberResult written = origin::Remember(db, ctx.clock, ctx.store_name.Get(), in);
  WriteEntryAnswer(ctx, db, written.id, written.duplicate, w);
}

void Correct(Context& ctx, Db& db, const proto::EntryRequest& r, const Caller& caller,
             rpc::Writer& w) {
  CorrectInput in;
  in.text = r.text;
  in.kind = r.kind;
  in.confidence = r.confidence;
  in.project = r.project;
  in.valid_from = r.valid_from;
  in.valid_to = r.valid_to;
  in.author = caller.author;
  in.add_sources = ToEntrySources(r.sources);
  in.channel = caller.channel;
  WriteEntryAnswer(ctx, db, origin::Correct(db, ctx.clock, ctx.store_name.Get(), r.id, in), false,
                   w);
}

void Forget(Context& ctx, Db& db, const proto::TombstoneRequest& r, const Caller& caller,
            rpc::Writer& w) {
  // A forget given the digest of the plan its preview showed is made only
  // while the plan is still that one (kConflict otherwise).
  const TombstoneInput in = Tombstone(r, caller);
  const ForgetOutcome o =
      r.digest ? ForgetAsPreviewed(db, ctx.clock, ctx.store_name.Get(), in, *r.digest)
               : origin::Forget(db, ctx.clock, ctx.store_name.Get(), in);
  rpc::WriteOutcome(w, o, r.dry_run, r.dry_run ? PlanDigest(o) : "");
}

void Restore(Context& ctx, Db& db, const proto::TombstoneRequest& r, const Caller& caller,
             rpc::Writer& w) {
  rpc::WriteOutcome(w, origin::Restore(db, ctx.clock, ctx.store_name.Get(), Tombstone(r, caller)),
                    r.dry_run);
}

namespace {

// What every erasure on this store is run with: its name, the adapters'
// CursorOf, and the indexer's thread for index.db.
EraseInput ErasingHere(Context& ctx, EraseFromIndex* index) {
  EraseInput in;
  in.origin = ctx.store_name.Get();
  in.cursor_of = [&ctx](const std::string& source, const std::string& key, std::string_view line) {
    const SourceAdapter* a = ctx.adapter(source);
    return a != nullptr ? a->CursorOf(key, line) : std::string();
  };
  if (Indexer* indexer = ctx.indexer; indexer != nullptr)
    *index = [indexer](const std::vector<std::int64_t>& seqs) { indexer->EraseEvents(seqs); };
  return in;
}

}  // namespace

void Erase(Context& ctx, Db& db, const proto::TombstoneRequest& r, const Caller& caller,
           rpc::Writer& w) {
  // Erase commits several transactions and runs VACUUM: never inside the
  // one a request key opens.  Running it again takes it up where it was.
  if (!r.request_key.empty())
    throw OpError(OpError::Code::kInvalidArgument,
                  "erase takes no request key: run it again to take up an interrupted one");
  EraseFromIndex index;
  EraseInput in = ErasingHere(ctx, &index);
  in.forget = r.target;
  in.reason = r.reason;
  in.author = caller.author;
  in.channel = caller.channel;
  in.dry_run = r.dry_run;
  // An erasure replicates like a tombstone (docs/architecture.md,
  // Erasure): the answer says where it goes next.
  std::string elsewhere;
  if (ctx.hub_sync == nullptr)
    elsewhere = "the devices that sync with this hub erase their copies when they next sync";
  else
    try {
      if (std::optional<hub::Connection> c = hub::LoadConnection(ctx.paths.home))
        elsewhere = "the hub " + c->url +
                    " erases its copy once this device syncs (right after the erasure), and "
                    "its other devices theirs when they next sync with it";
    } catch (const std::exception&) {
      // A hub.json that cannot be read: origin status says so.
    }
  rpc::WriteEraseOutcome(w, origin::Erase(db, ctx.mirrors, ctx.clock, in, index), r.dry_run,
                         elsewhere);
}

namespace {
constexpr int kErasureQuietMs = 3'000, kErasureLongestWaitMs = 30'000;

void RunErasuresNow(Context& ctx) {
  ctx.writer->Post([&ctx](Db& db) {
    try {
      if (db.QueryInt("SELECT EXISTS (SELECT 1 FROM erasure)") == 0) return;
      EraseFromIndex index;
      EraseInput how = ErasingHere(ctx, &index);
      how.channel = "hub";
      const ErasureRuns runs = RunErasures(db, ctx.mirrors, ctx.clock, how, index);
      for (const EraseOutcome& o : runs.done)
        LOG_INFO("erasure %s of %s: %lld lines, %zu events, %zu entries erased here",
                 o.erasure->c_str(), o.forget.c_str(), static_cast<long long>(o.lines),
                 o.events.size(), o.entries.size());
      // Left pending (origin forgotten says so): run again at the next
      // trigger, never skipped.
      for (const std::string& error : runs.errors) LOG_ERROR("erasure %s", error.c_str());
    } catch (const std::exception& e) {
      LOG_ERROR("running the erasures left to do: %s", e.what());
    }
  });
}
}  // namespace

void RunErasuresLater(Context& ctx) {
  if (ctx.writer == nullptr || ctx.poster == nullptr) return;
  ctx.poster->Post([&ctx] {
    const std::int64_t now = ctx.clock.NowMs();
    if (ctx.erasure_timer) {
      // Gathered with the run to come, which waits longer unless it has
      // waited long enough already.
      if (now - ctx.erasure_due_since_ms >= kErasureLongestWaitMs - kErasureQuietMs) return;
      ctx.timers.Cancel(*ctx.erasure_timer);
    } else {
      ctx.erasure_due_since_ms = now;
    }
    ctx.erasure_timer = ctx.timers.After(kErasureQuietMs, [&ctx] {
      ctx.erasure_timer.reset();
      RunErasuresNow(ctx);
    });
  });
}

}  // namespace ops
}  // namespace origin
