// SPDX-License-Identifier: MIT
#include "daemon/hub/sync.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <tuple>
#include <type_traits>

#include "core/forget/replica.hpp"
#include "core/hub/replicate.hpp"
#include "core/store/mirror.hpp"
#include "core/store/schema.hpp"
#include "daemon/hub/changes.hpp"
#include "daemon/hub/relay.hpp"
#include "daemon/hub/wire.hpp"
#include "daemon/log.hpp"
#include "daemon/operations/operations.hpp"
#include "daemon/timers.hpp"
#include "daemon/uv.hpp"
#include "daemon/workers.hpp"
#include "proto/base64.hpp"

namespace origin::hub {

namespace {

// A request to the hub may take this long (a chunk of 1 MiB on a slow link).
constexpr long kRequestTimeoutMs = 30'000;
// The check of a connection (GET /v1/device, a few bytes each way) this
// long: origin hub connect and status wait for it.
constexpr long kCheckTimeoutMs = 10'000;
// Whole lines of at most this much a chunk (the hub's limit), or one line.
constexpr std::int64_t kChunkBytes = 1 << 20;
// The wait before an automatic sync after a failed one, doubling with
// each failure in a row, at most the longest.
constexpr std::int64_t kFirstRetryMs = 5'000, kLongestRetryMs = 300'000;

// Bytes [from, …) of a mirror: whole lines of at most kChunkBytes, or the
// one line that starts at `from` when it is longer.  The content up to
// `to` ends at a line break (a mirror holds complete lines).
std::string Chunk(MirrorStore& mirrors, Db& db, std::int64_t file, std::int64_t from,
                  std::int64_t to) {
  std::string data = mirrors.ReadRange(db, file, from, std::min(to, from + kChunkBytes));
  if (std::size_t nl = data.rfind('\n'); nl != std::string::npos) {
    data.resize(nl + 1);
    return data;
  }
  // One line longer than a chunk: read on to its end.
  for (std::int64_t at = from + static_cast<std::int64_t>(data.size()); at < to;) {
    std::string more = mirrors.ReadRange(db, file, at, std::min(to, at + kChunkBytes));
    at += static_cast<std::int64_t>(more.size());
    const std::size_t nl = more.find('\n');
    data += nl == std::string::npos ? more : more.substr(0, nl + 1);
    if (nl != std::string::npos) break;
  }
  return data;
}

std::string SettingOr(Db& db, const std::string& key, const std::string& fallback) {
  return GetSetting(db, key).value_or(fallback);
}

std::int64_t ToInt(const std::string& s) {
  try {
    return std::stoll(s);
  } catch (const std::exception&) {
    return 0;
  }
}

// One sync with the hub `http` talks to, as `store`.
class SyncRun {
 public:
  SyncRun(Context& ctx, Http& http, std::string url, std::string store, SyncReport& report)
      : ctx_(ctx), http_(http), url_(std::move(url)), store_(std::move(store)), r_(report) {}

  // Step 1.  Two mirrors go at once, each on a client of its own (the
  // sync's, and one `another` makes), each taking the next mirror to send
  // when it is done with one: the hub decodes one's chunk while its writer
  // stores the other's (docs/performance.md).  A mirror's chunks go one
  // after the other, each from where the hub's answer to the last one
  // says; the next chunk's body (read, base64, zstd) is made on a thread of
  // its own while the hub works on the current one, from where the hub
  // will be if it takes that one whole.  When it answers otherwise (a 409),
  // the body made ahead is dropped.  The first error ends both.
  void Mirrors(const std::function<std::shared_ptr<Http>()>& another) {
    rapidjson::Document d = Expect(http_.Get("/v1/cursors"), 200, "GET /v1/cursors");
    std::map<std::tuple<std::string, std::string, std::int64_t>, std::int64_t> hub;
    if (const rapidjson::Value* list = hub_wire::Member(d, "cursors"); list && list->IsArray())
      for (const rapidjson::Value& c : list->GetArray())
        if (c.IsObject() && c.HasMember("source") && c["source"].IsString() &&
            c.HasMember("relPath") && c["relPath"].IsString())
          hub[{c["source"].GetString(), c["relPath"].GetString(), IntOf(c, "generation")}] =
              IntOf(c, "bytes");
    const std::vector<LocalMirror> mine =
        OnDb(ctx_.readers, [](Db& db) { return LocalMirrors(db); });
    // Where each mirror starts: the hub's cursor, or its beginning; a
    // mirror whose copy on the hub is not a beginning of it is not sent.
    std::vector<std::pair<const LocalMirror*, std::int64_t>> todo;
    for (const LocalMirror& m : mine) {
      auto it = hub.find({m.source, m.rel_path, m.generation});
      const std::int64_t start = it == hub.end() ? 0 : it->second;
      if (!Diverges(m, start) && start < m.bytes) todo.push_back({&m, start});
    }
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    auto lane = [&](Http& http) {
      try {
        for (std::size_t k; !failed && (k = next++) < todo.size();)
          Send(http, *todo[k].first, todo[k].second, failed);
      } catch (...) {
        failed = true;
        throw;
      }
    };
    std::shared_ptr<Http> second = todo.size() > 1 && another ? another() : nullptr;
    std::future<void> other;
    if (second) other = std::async(std::launch::async, [&] { lane(*second); });
    std::exception_ptr error;
    try {
      lane(http_);
    } catch (...) {
      error = std::current_exception();
    }
    if (other.valid()) {
      try {
        other.get();
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
  }

  // Why the mirrors the hub's copies of are not beginnings of this
  // store's were not sent (Diverges), as the sync's error; nullopt when
  // every one was.
  std::optional<std::string> Diverged() const {
    if (diverged_.empty()) return std::nullopt;
    std::string out = diverged_.front();
    if (const std::size_t more = diverged_.size() - 1; more > 0)
      out += " (and " + std::to_string(more) + (more == 1 ? " file" : " files") + " more)";
    return out + ": does another store sync as " + store_ +
           "? Each store needs a name and a token of its own (origin token create NAME on the "
           "hub). Or is this store a copy older than what it sent (a backup restored)? " +
           (diverged_.size() > 1 ? "These files are" : "The file is") + " not sent, the others are";
  }

  // Step 2.  The batches of this store's changes go one after the other,
  // each run of one kind in a request; the next batch is read and its
  // bodies made (ReadChanges: the entries' rows read, JSON, zstd) on a
  // thread of its own while the hub works on this one, as Send makes a mirror's next chunk
  // (docs/performance.md).  A run of entries after one that waits for its
  // events is not sent: its body made ahead is dropped, and once one waits,
  // the batches read ahead make none.  However the loop ends, the batch
  // being read ahead stops at its next step (`stop`), and is dropped.
  void Changes() {
    const std::string key = "hub.push " + url_;
    std::int64_t cursor = OnDb(ctx_.readers, [&key](Db& db) { return ToInt(SettingOr(db, key, "0")); });
    std::atomic<bool> stop{false};
    auto read = [this, &stop](std::int64_t after) {
      const bool entries = !r_.pending;  // read here, on the sync's thread
      return std::async(std::launch::async, [this, &stop, after, entries] {
        return ReadChanges(ctx_.readers, http_, store_, after, entries, stop);
      });
    };
    std::future<ChangeBatch> ahead = read(cursor);
    // Declared after `ahead`, so ended before it: stops the read ahead
    // before ~future waits for it.
    struct StopAhead {
      std::atomic<bool>& stop;
      ~StopAhead() { stop = true; }
    } stop_ahead{stop};
    for (;;) {
      ChangeBatch batch = ahead.get();
      if (batch.runs.empty()) {
        // Past rows it does not send (others' changes, hidden entries): a
        // later sync does not read them again, unless an entry waits.
        if (!r_.pending && batch.through > cursor) Save(key, cursor = batch.through);
        break;
      }
      ahead = read(batch.runs.back().changes.back().seq);
      for (const ChangeRun& run : batch.runs) {
        const bool moves = !r_.pending;  // the cursor stays before a pending entry
        if (!run.entries) {
          SendTombstones(run);
        } else if (!r_.pending) {
          const std::size_t applied = SendEntries(run);
          if (r_.pending) {
            if (applied > 0) Save(key, cursor = run.changes[applied - 1].seq);
            continue;
          }
        } else {
          continue;  // entries after the one that waits
        }
        if (moves) Save(key, cursor = run.changes.back().seq);
      }
    }
  }

  // Step 3.  A relay (`apply` false) holds nothing a tombstone could hide:
  // it only moves its cursor, as a device does.
  void Feed(bool apply) {
    const std::string key = "hub.pull " + url_;
    std::int64_t after = OnDb(ctx_.readers, [&key](Db& db) { return ToInt(SettingOr(db, key, "0")); });
    for (;;) {
      rapidjson::Document d = Expect(http_.Get("/v1/tombstones?after=" + std::to_string(after)),
                                     200, "GET /v1/tombstones");
      auto list = std::make_shared<std::vector<ReplicaTombstone>>();
      auto erasures = std::make_shared<std::vector<ReplicaErasure>>();
      std::string error;
      if (!hub_wire::DecodeTombstones(d, list.get(), &error) ||
          !hub_wire::DecodeErasures(d, erasures.get(), &error))
        throw Stopped("the hub's tombstones: " + error);
      const std::int64_t next = IntOf(d, "next");
      const rapidjson::Value* more = hub_wire::Member(d, "more");
      const std::string store = store_;
      OnDb(ctx_.writer, [list, erasures, &key, next, &store, apply](Db& db) {
        if (apply && (!list->empty() || !erasures->empty()))
          ApplyTombstones(db, store, *list, ListedBy::kHub, *erasures);
        PutSetting(db, key, std::to_string(next));
      });
      // Erased here after this sync's jobs, on the writer (an erasure, or
      // the forget one waited for).
      if (apply && (!list->empty() || !erasures->empty())) ops::RunErasuresLater(ctx_);
      r_.tombstones_down += static_cast<std::int64_t>(list->size() + erasures->size());
      if (more == nullptr || !more->IsBool() || !more->GetBool() || next <= after) break;
      after = next;
    }
  }

 private:
  void Save(const std::string& key, std::int64_t value) {
    OnDb(ctx_.writer, [&key, value](Db& db) { PutSetting(db, key, std::to_string(value)); });
  }

  // Sends a run of entries; how many the hub applied (r_.pending is set
  // when one waits for its events).  Its body is made unless an entry
  // waited when it was read, and then it is not sent (pending stays).
  std::size_t SendEntries(const ChangeRun& run) {
    rapidjson::Document d = Expect(http_.Post("/v1/entries", *run.body), 200, "POST /v1/entries");
    const std::int64_t applied = IntOf(d, "applied");
    r_.entries += applied;
    if (const rapidjson::Value* p = hub_wire::Member(d, "pending"); p && p->IsObject() &&
                                                                    p->HasMember("id") &&
                                                                    (*p)["id"].IsString())
      r_.pending = (*p)["id"].GetString();
    return static_cast<std::size_t>(std::max<std::int64_t>(0, applied));
  }

  void SendTombstones(const ChangeRun& run) {
    if (!run.body) return;
    rapidjson::Document d =
        Expect(http_.Post("/v1/tombstones", *run.body), 200, "POST /v1/tombstones");
    const std::int64_t records = run.records;
    const std::int64_t sent = records + run.reports;
    // A hub older than erasures answers for the tombstones alone: the push
    // cursor stays before them, so that none is lost.  One older than
    // reports only goes on showing what they would have hidden, as before
    // them: that stops nothing.
    if (const std::int64_t applied = IntOf(d, "applied"); applied < sent && applied != records)
      throw Stopped("the hub took " + std::to_string(applied) + " of the " + std::to_string(sent) +
                    " tombstones and erasures sent: it does not know erasures yet (update it)");
    r_.tombstones_up += records;
    r_.reports += run.reports;
  }

  // A chunk ready to send: its request body, encoded, and how many bytes
  // of the mirror it holds.
  struct Body {
    Http::Encoded encoded;
    std::size_t size = 0;
  };

  // The chunks of `m` from `from` on, through `http`, until `stop`.
  void Send(Http& http, const LocalMirror& m, std::int64_t from, const std::atomic<bool>& stop) {
    std::future<Body> ahead;
    std::int64_t ahead_from = -1;  // where `ahead` starts; -1 for none
    while (from < m.bytes && !stop) {
      Body body = ahead_from == from ? ahead.get() : Make(http, m, from);
      ahead_from = from + static_cast<std::int64_t>(body.size);
      if (ahead_from < m.bytes)
        ahead = std::async(std::launch::async,
                           [this, &http, &m, at = ahead_from] { return Make(http, m, at); });
      else
        ahead_from = -1;
      const Response resp = http.Post("/v1/ingest", body.encoded);
      if (resp.error.empty() && resp.status == 409) {
        // The hub holds another length: go on from its cursor, or, with
        // nothing this store can send there, on to the next mirror.
        const std::int64_t cursor = IntOf(ParseBody(resp), "bytes");
        if (cursor == from || Diverges(m, cursor)) return;
        from = cursor;
        continue;
      }
      rapidjson::Document ok = Expect(resp, 200, "POST /v1/ingest of " + m.rel_path);
      const std::int64_t cursor = IntOf(ok, "bytes");
      if (cursor <= from)  // it took nothing: sending it again would never end
        throw Stopped("the hub took a chunk of " + m.rel_path + " without moving its cursor");
      from = cursor;
      std::lock_guard<std::mutex> lock(mu_);
      ++r_.chunks;
      r_.bytes += static_cast<std::int64_t>(body.size);
    }
  }

  // Whether the hub's copy of `m`, `cursor` bytes long, cannot be a
  // beginning of this store's: longer, or ending within a line here.  The
  // hub's copy of a device's mirror is fed by that device alone, so either
  // is another store pushing under this name (its lines appended mid-line,
  // or onto another file's), and this store's lines are not appended to it
  // (recorded for Diverged).  A shorter copy ending at a line break is taken
  // for a beginning of this one: content is not compared, which an
  // erasure made on one side only would make differ.
  bool Diverges(const LocalMirror& m, std::int64_t cursor) {
    if (cursor == 0 || cursor == m.bytes) return false;
    std::string why;
    if (cursor > m.bytes) {
      why = "the hub holds " + std::to_string(cursor) + " bytes of " + m.rel_path + " (" +
            m.source + "), this store " + std::to_string(m.bytes);
    } else {
      MirrorStore& mirrors = ctx_.mirrors;
      const std::string last = OnDb(ctx_.readers, [&mirrors, &m, cursor](Db& db) {
        return mirrors.ReadRange(db, m.file_id, cursor - 1, cursor);
      });
      if (last == "\n") return false;
      why = "the hub's copy of " + m.rel_path + " (" + m.source + ") ends at byte " +
            std::to_string(cursor) + ", within a line of this store's";
    }
    std::lock_guard<std::mutex> lock(mu_);
    diverged_.push_back(std::move(why));
    return true;
  }

  // The request of the chunk of `m` at `from`: read through a reader, on
  // whichever thread calls it (the sync's, or the one making it ahead).
  Body Make(const Http& http, const LocalMirror& m, std::int64_t from) const {
    MirrorStore& mirrors = ctx_.mirrors;
    std::string data = OnDb(ctx_.readers, [&mirrors, &m, from](Db& db) {
      return Chunk(mirrors, db, m.file_id, from, m.bytes);
    });
    RemoteChunk c;
    c.device = store_;
    c.path = m.path;
    c.rel_path = m.rel_path;
    c.generation = m.generation;
    c.offset = from;
    c.mtime_ms = m.mtime_ms;
    c.data = std::move(data);
    const std::string json = hub_wire::IngestBody(m.source, c);
    return {http.Encode(json), c.data.size()};
  }

  Context& ctx_;
  Http& http_;
  const std::string url_, store_;
  SyncReport& r_;
  std::mutex mu_;  // r_'s counts and diverged_, written by both clients of Mirrors
  std::vector<std::string> diverged_;
};

}  // namespace

struct Syncer::UnderWay {
  UnderWay(Syncer& s, Lane& lane, Http& http) : s(s), lane(lane) {
    std::lock_guard<std::mutex> lock(s.mu_);
    lane.current.push_back(&http);
    this->http = &http;
    // A client the sync makes after a disconnect aborted its others (the
    // mirrors' second) is aborted as they were.
    if (s.stopping_ || (&lane == &s.syncs_ && s.syncs_aborted_)) http.Abort();
  }
  ~UnderWay() {
    std::lock_guard<std::mutex> lock(s.mu_);
    std::erase(lane.current, http);
  }
  UnderWay(const UnderWay&) = delete;
  UnderWay& operator=(const UnderWay&) = delete;
  Syncer& s;
  Lane& lane;
  Http* http = nullptr;
};

Syncer::Syncer(Context& ctx) : ctx_(ctx), backoff_(kFirstRetryMs, kLongestRetryMs) {
  for (Lane* lane : {&syncs_, &checks_}) lane->thread = std::thread([this, lane] { Run(*lane); });
}

Syncer::~Syncer() { Stop(); }

void Syncer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (Lane* lane : {&syncs_, &checks_})
      for (Http* http : lane->current) http->Abort();
  }
  cv_.notify_all();
  for (Lane* lane : {&syncs_, &checks_})
    if (lane->thread.joinable()) lane->thread.join();
}

void Syncer::Post(Lane& lane, std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    lane.jobs.push_back(std::move(job));
  }
  cv_.notify_all();
}

void Syncer::Run(Lane& lane) {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this, &lane] { return stopping_ || !lane.jobs.empty(); });
      if (stopping_) return;
      job = std::move(lane.jobs.front());
      lane.jobs.pop_front();
    }
    try {
      job();
    } catch (const std::exception& e) {
      LOG_ERROR("hub: %s", e.what());
    }
  }
}

LastSync ReadLastSync(Db& db) {
  LastSync out;
  out.last_sync_ms = ToInt(SettingOr(db, "hub.last_sync", "0"));
  const std::string failed = SettingOr(db, "hub.last_error", "");
  if (const std::size_t sp = failed.find(' '); sp != std::string::npos) {
    out.last_error_ms = ToInt(failed.substr(0, sp));
    if (out.last_error_ms > out.last_sync_ms) out.last_error = failed.substr(sp + 1);
  }
  return out;
}

void Syncer::Request(std::function<void(SyncReport)> done, bool automatic) {
  bool queue = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (automatic && !backoff_.Allows(SteadyMs())) return;  // backing off
    if (done) waiting_.push_back(std::move(done));
    if (!sync_queued_) queue = sync_queued_ = true;
  }
  if (queue) Post(syncs_, [this] { SyncJob(); });
}

void Syncer::SyncJob() {
  std::vector<std::function<void(SyncReport)>> waiting;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sync_queued_ = false;
    syncs_aborted_ = false;
    waiting.swap(waiting_);
  }
  SyncReport report;
  try {
    std::optional<Connection> c = LoadConnection(ctx_.paths.home);
    if (c) {
      report.connected = true;
      report.url = c->url;
      const std::string store = ctx_.store_name.Get();
      Http http(*c, store, kRequestTimeoutMs);
      const UnderWay under_way(*this, syncs_, http);
      try {
        SyncRun run(ctx_, http, c->url, store, report);
        if (ctx_.relay) {
          SendRelayFiles(ctx_, http, store, report);
          run.Feed(false);
        } else {
          // The mirrors' second client, under way as the first is (Stop
          // and a disconnect abort it too) until the step is done with it.
          struct Client {
            Client(Syncer& s, const Connection& conn, const std::string& as)
                : http(conn, as, kRequestTimeoutMs), marked(s, s.syncs_, http) {}
            Http http;
            UnderWay marked;  // after http: unmarked before it closes
          };
          run.Mirrors([this, &c, &store]() -> std::shared_ptr<Http> {
            auto client = std::make_shared<Client>(*this, *c, store);
            return {client, &client->http};
          });
          run.Changes();
          run.Feed(true);
          if (std::optional<std::string> diverged = run.Diverged()) {
            report.error = *diverged;
            report.diverged = true;
          }
        }
      } catch (const std::exception& e) {
        report.error = e.what();
      }
    }
  } catch (const std::exception& e) {
    report.error = e.what();
  }
  report.finished_ms = ctx_.clock.NowMs();
  if (report.connected) {
    // How it ended, for origin status and origin hub status.
    try {
      const SyncReport r = report;
      OnDb(ctx_.writer, [r](Db& db) {
        if (r.error.empty())
          PutSetting(db, "hub.last_sync", std::to_string(r.finished_ms));
        else
          PutSetting(db, "hub.last_error", std::to_string(r.finished_ms) + " " + r.error);
      });
    } catch (const std::exception& e) {
      LOG_ERROR("hub: recording the sync: %s", e.what());
    }
    // A hub that stays down is logged once, not at every attempt.
    if (!report.error.empty() && report.error != last_error_)
      LOG_WARN("hub: sync with %s failed: %s", report.url.c_str(), report.error.c_str());
    if (report.error.empty() && !last_error_.empty())
      LOG_INFO("hub: synced with %s again", report.url.c_str());
    last_error_ = report.error;
    std::lock_guard<std::mutex> lock(mu_);
    // Mirrors that were not sent (Diverges) stay so until someone acts:
    // the rest of each sync went, so the automatic ones do not back off.
    backoff_.Ended(report.error.empty() || report.diverged, SteadyMs());
  }
  for (auto& done : waiting)
    ctx_.poster->Post([done = std::move(done), report] { done(report); });
}

CheckReport Syncer::CheckOn(const Connection& c, std::string as) {
  CheckReport out;
  out.url = c.url;
  const bool renaming = !as.empty();  // --device
  try {
    out.store = renaming ? std::move(as) : ctx_.store_name.Get();
    Http http(c, out.store, kCheckTimeoutMs);
    const UnderWay under_way(*this, checks_, http);
    rapidjson::Document d = Expect(http.Get("/v1/device"), 200, "GET /v1/device");
    const rapidjson::Value* device = hub_wire::Member(d, "device");
    const rapidjson::Value* hub = hub_wire::Member(d, "hub");
    if (device == nullptr || !device->IsString() || hub == nullptr || !hub->IsString())
      throw Stopped("the hub's answer to GET /v1/device has no device or hub");
    out.device = device->GetString();
    out.hub = hub->GetString();
    if (out.device != out.store && renaming) {
      out.error = "this token is " + out.device + "'s, not " + out.store +
                  "'s: connect with --device " + out.device + ", or with " + out.store +
                  "'s token (origin token create " + out.store + " on the hub)";
    } else if (out.device != out.store) {
      out.error = "this token is " + out.device + "'s, and this store is named " + out.store +
                  ": create a token named " + out.store + " on the hub (origin token create " +
                  out.store + "), or, if no other store syncs as " + out.device +
                  ", give this store the token's name (origin hub connect " + c.url +
                  " --token ... --device " + out.device +
                  ", while it has written no entry or tombstone)";
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

void Syncer::Check(Connection c, std::string as, std::function<void(CheckReport)> done) {
  Post(checks_, [this, c = std::move(c), as = std::move(as), done = std::move(done)] {
    CheckReport r = CheckOn(c, as);
    ctx_.poster->Post([done, r] { done(r); });
  });
}

void Syncer::CheckStored(std::function<void(std::optional<CheckReport>)> done) {
  Post(checks_, [this, done = std::move(done)] {
    std::optional<CheckReport> r;
    try {
      if (std::optional<Connection> c = LoadConnection(ctx_.paths.home)) {
        r = CheckOn(*c, "");
        r->from_env = c->from_env;
        const LastSync last = OnDb(ctx_.readers, [](Db& db) { return ReadLastSync(db); });
        r->last_sync_ms = last.last_sync_ms;
        r->last_error_ms = last.last_error_ms;
        r->last_error = last.last_error;
      }
    } catch (const std::exception& e) {
      r = CheckReport{};
      r->error = e.what();
    }
    ctx_.poster->Post([done, r] { done(r); });
  });
}

void Syncer::Disconnect(std::function<void(bool, bool, std::string)> done) {
  Post(checks_, [this, done = std::move(done)] {
    bool removed = false;
    std::string error;
    try {
      removed = RemoveConnection(ctx_.paths.home);
    } catch (const std::exception& e) {
      error = e.what();
    }
    const bool from_env = HubFromEnv();
    // The sync under way (on the other thread) ends here, unless the
    // environment keeps the store connected.
    if (removed && !from_env) {
      std::lock_guard<std::mutex> lock(mu_);
      syncs_aborted_ = true;
      for (Http* http : syncs_.current) http->Abort();
    }
    ctx_.poster->Post([done, removed, from_env, error] { done(removed, from_env, error); });
  });
}

}  // namespace origin::hub
