// SPDX-License-Identifier: MIT
#include "daemon/hub/relay.hpp"

#include <algorithm>
#include <rapidjson/document.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

#include "core/hub/relay.hpp"
#include "core/ingest/content.hpp"
#include "core/ingest/ingester.hpp"
#include "core/ingest/raw_file.hpp"
#include "core/util/hash.hpp"
#include "daemon/hub/wire.hpp"
#include "daemon/operations/operations.hpp"
#include "daemon/workers.hpp"

namespace origin::hub {

namespace {

// Whole lines of at most this much a chunk (the hub's limit), or one line.
constexpr std::size_t kChunkBytes = 1 << 20;
// 409s in a row on one file before it is left for the next sync: another
// process sending the same file at the same time.
constexpr int kMostConflicts = 8;

// A file the hub refuses, or that cannot be read: reported, and the other
// files still go.
struct FileRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a look at a file that finds nothing more to send records: a file's
// size and modification time, a generated stream's token.
std::string Stamp(const SourceFile& f) {
  return f.generated ? "t:" + f.token
                     : std::to_string(f.size) + ":" + std::to_string(f.mtime_ns);
}

// The hub's cursors of this relay's files: (source, key) -> generation ->
// bytes.
using Generations = std::map<std::int64_t, std::int64_t>;
using HubFiles = std::map<std::pair<std::string, std::string>, Generations>;

std::int64_t BytesOf(const Generations& g, std::int64_t generation) {
  auto it = g.find(generation);
  return it == g.end() ? 0 : it->second;
}

// The <= 4 KiB of content before `at`, when the content holds `at` bytes
// and a line ends there; nullopt otherwise.
std::optional<std::string> WindowAt(Content& content, std::int64_t at) {
  const std::int64_t from = std::max<std::int64_t>(0, at - static_cast<std::int64_t>(kHashWindow));
  std::string w(static_cast<std::size_t>(at - from), '\0');
  if (content.ReadAt(from, w.data(), w.size()) != w.size()) return std::nullopt;
  if (!w.empty() && w.back() != '\n') return std::nullopt;
  return w;
}

// A length the hub gave, which cannot be negative.
std::int64_t NonNegative(std::int64_t bytes) {
  if (bytes < 0) throw Stopped("the hub answered a negative length");
  return bytes;
}

std::string LastLine(std::string_view data) {
  data.remove_suffix(1);  // its line break
  const std::size_t nl = data.rfind('\n');
  return std::string(nl == std::string_view::npos ? data : data.substr(nl + 1));
}

// The files every adapter discovers, oldest first, each with its adapter.
std::vector<std::pair<const SourceAdapter*, SourceFile>> Discover(
    const std::vector<std::unique_ptr<SourceAdapter>>& adapters) {
  std::vector<std::pair<const SourceAdapter*, SourceFile>> files;
  for (const auto& a : adapters)
    for (SourceFile& f : a->Discover().files) files.emplace_back(a.get(), std::move(f));
  std::stable_sort(files.begin(), files.end(), [](const auto& x, const auto& y) {
    return x.second.mtime_ns < y.second.mtime_ns;
  });
  return files;
}

class RelayRun {
 public:
  RelayRun(Context& ctx, Http& http, std::string store, SyncReport& report)
      : ctx_(ctx), http_(http), store_(std::move(store)), r_(report) {}

  void Run() {
    const HubFiles hub = HubCursors();
    static const Generations kNone;
    for (const auto& [adapter, f] : Discover(ctx_.adapters)) {
      auto it = hub.find({std::string(adapter->id()), f.key});
      try {
        Send(*adapter, f, it == hub.end() ? kNone : it->second);
      } catch (const FileRefused& e) {
        r_.refused.push_back(f.abs_path + ": " + e.what());
      }
    }
  }

 private:
  HubFiles HubCursors() {
    rapidjson::Document d = Expect(http_.Get("/v1/cursors"), 200, "GET /v1/cursors");
    HubFiles out;
    if (const rapidjson::Value* list = hub_wire::Member(d, "cursors"); list && list->IsArray())
      for (const rapidjson::Value& c : list->GetArray())
        if (c.IsObject() && c.HasMember("source") && c["source"].IsString() &&
            c.HasMember("relPath") && c["relPath"].IsString())
          out[{c["source"].GetString(), c["relPath"].GetString()}][IntOf(c, "generation")] =
              NonNegative(IntOf(c, "bytes"));
    return out;
  }

  void Send(const SourceAdapter& adapter, const SourceFile& f, const Generations& hub) {
    if (!SafeKey(f.key)) throw FileRefused("an unsafe file name: not sent");
    const std::string source(adapter.id());
    std::optional<RelayCursor> saved = OnDb(ctx_.readers, [&source, &f](Db& db) {
      return LoadRelayCursor(db, source, f.key);
    });
    // A stream whose session another one holds is not started (Dedup).
    if (!saved && f.dedup && f.dedup->held) return;
    RelayCursor c;
    if (saved) {
      c = *saved;
    } else {
      c.source = source;
      c.key = f.key;
      // A file the hub holds already (a new relay store under a device
      // name it knows): from its latest generation, where the hub stands.
      if (!hub.empty()) c.generation = hub.rbegin()->first;
    }
    const std::int64_t at_hub = BytesOf(hub, c.generation);
    if (saved && saved->seen == Stamp(f) && at_hub == c.bytes) return;  // nothing new
    latest_ = hub.empty() ? 0 : hub.rbegin()->first;
    hub_ = &hub;
    if (f.generated)
      SendGenerated(adapter, f, c, at_hub);
    else
      SendFile(f, c, saved.has_value(), at_hub);
  }

  void SendFile(const SourceFile& f, RelayCursor& c, bool saved, std::int64_t at_hub) {
    std::unique_ptr<Content> content = OpenContent(f.abs_path, f.zstd);
    if (!content) {
      if (errno == ENOENT) return;  // deleted since discovery
      throw FileRefused(std::strerror(errno));
    }
    std::string window;  // the <= 4 KiB before c.bytes
    if (saved && c.bytes > 0) {
      // Rewritten: shorter than the cursor, or other bytes before it.
      std::optional<std::string> w = WindowAt(*content, c.bytes);
      if (w && Sha256Hex(*w) == c.hash) {
        window = std::move(*w);
      } else if (latest_ > c.generation) {
        // The hub holds a later generation already (the answer to its
        // first chunk was lost): on in that one, where the hub stands.
        c.generation = latest_;
        c.bytes = 0;
        at_hub = BytesOf(*hub_, latest_);
      } else {
        NextGeneration(c);
        at_hub = 0;
      }
    }
    if (at_hub != c.bytes) GoOnFrom(*content, c, at_hub, window);
    for (int conflicts = 0;;) {
      Chunk chunk;
      try {
        chunk = ReadChunk(*content, c.bytes, kChunkBytes, kMaxLineBytes);
      } catch (const std::runtime_error& e) {
        throw FileRefused(e.what());
      }
      if (chunk.data.empty()) {
        c.seen = Stamp(f);
        Save(c);
        return;
      }
      const std::optional<std::int64_t> moved = Post(f, c, chunk.data, conflicts);
      if (!moved || *moved != c.bytes + static_cast<std::int64_t>(chunk.data.size())) {
        GoOnFrom(*content, c, moved.value_or(hub_at_), window);
        continue;
      }
      window += chunk.data;
      if (window.size() > kHashWindow) window.erase(0, window.size() - kHashWindow);
      c.bytes = *moved;
      c.hash = Sha256Hex(window);
      c.seen = chunk.at_eof ? Stamp(f) : std::string();
      Save(c);
      if (chunk.at_eof) return;
    }
  }

  // The hub holds `at` bytes of c's generation, not c.bytes: from there
  // when a line of the file ends there, else the file as a new generation.
  void GoOnFrom(Content& content, RelayCursor& c, std::int64_t at, std::string& window) {
    if (at == 0) {
      c.bytes = 0;
      window.clear();
      return;
    }
    if (std::optional<std::string> w = WindowAt(content, at)) {
      c.bytes = at;
      window = std::move(*w);
      c.hash = Sha256Hex(window);
      return;
    }
    NextGeneration(c);
    window.clear();
  }

  void SendGenerated(const SourceAdapter& adapter, const SourceFile& f, RelayCursor& c,
                     std::int64_t at_hub) {
    if (at_hub != c.bytes && !GoOnGenerated(adapter, f, c, at_hub)) return;  // busy
    for (int conflicts = 0;;) {
      std::string data;
      try {
        data = adapter.Generate(f, c.last_line, kChunkBytes, ctx_.clock.NowMs());
      } catch (const SourceBusy&) {
        return;  // tried again at the next sync
      } catch (const std::exception& e) {
        throw FileRefused(e.what());
      }
      if (data.empty()) {
        c.seen = Stamp(f);
        Save(c);
        return;
      }
      if (data.back() != '\n') throw FileRefused("its adapter gave a line without its end");
      const std::optional<std::int64_t> moved = Post(f, c, data, conflicts);
      if (!moved || *moved != c.bytes + static_cast<std::int64_t>(data.size())) {
        if (!GoOnGenerated(adapter, f, c, moved.value_or(hub_at_))) return;  // busy
        continue;
      }
      c.bytes = *moved;
      c.last_line = LastLine(data);
      c.seen.clear();
      Save(c);
    }
  }

  // The hub holds `at` bytes of a generated stream: the adapter's lines
  // from the start until they reach `at`, or a new generation when no
  // line ends there.  False when the stream's data is busy (the next sync
  // tries again).
  bool GoOnGenerated(const SourceAdapter& adapter, const SourceFile& f, RelayCursor& c,
                     std::int64_t at) {
    std::string last;
    std::int64_t reached = 0;
    while (reached < at) {
      std::string data;
      try {
        data = adapter.Generate(f, last, kChunkBytes, ctx_.clock.NowMs());
      } catch (const SourceBusy&) {
        return false;
      } catch (const std::exception& e) {
        throw FileRefused(e.what());
      }
      if (data.empty() || data.back() != '\n') break;  // no more lines, or not whole ones
      for (std::size_t from = 0; from < data.size() && reached < at;) {
        const std::size_t nl = data.find('\n', from);
        last = data.substr(from, nl - from);
        reached += static_cast<std::int64_t>(nl + 1 - from);
        from = nl + 1;
      }
    }
    if (reached == at) {
      c.bytes = at;
      c.last_line = at == 0 ? std::string() : last;
      return true;
    }
    NextGeneration(c);
    return true;
  }

  // The file sent again from its start, as a generation the hub does not
  // hold yet (it keeps the ones before).
  void NextGeneration(RelayCursor& c) {
    c.generation = std::max(c.generation, latest_) + 1;
    latest_ = c.generation;
    c.bytes = 0;
    c.hash.clear();
    c.last_line.clear();
  }

  // Sends `data` at c.bytes; the hub's cursor after it, or nullopt when it
  // refused the offset (409; its cursor in hub_at_).  FileRefused for a
  // file it will not take, Stopped when it cannot be reached.
  std::optional<std::int64_t> Post(const SourceFile& f, const RelayCursor& c, std::string data,
                                   int& conflicts) {
    const std::int64_t size = static_cast<std::int64_t>(data.size());
    RemoteChunk chunk;
    chunk.device = store_;
    chunk.path = f.abs_path;
    chunk.rel_path = f.key;
    chunk.generation = c.generation;
    chunk.offset = c.bytes;
    chunk.mtime_ms = f.mtime_ns / 1'000'000;
    chunk.data = std::move(data);
    const Response resp = http_.Post("/v1/ingest", hub_wire::IngestBody(c.source, chunk));
    if (resp.error.empty() && resp.status == 409) {
      if (++conflicts > kMostConflicts)
        throw FileRefused("the hub's cursor of this file kept moving: left for the next sync");
      hub_at_ = NonNegative(IntOf(ParseBody(resp), "bytes"));
      return std::nullopt;
    }
    if (resp.error.empty() && (resp.status == 400 || resp.status == 413)) {
      rapidjson::Document d = ParseBody(resp);
      const rapidjson::Value* why = d.IsObject() ? hub_wire::Member(d, "error") : nullptr;
      throw FileRefused("the hub refused it (" + std::to_string(resp.status) + ")" +
                        (why != nullptr && why->IsString() ? std::string(": ") + why->GetString()
                                                           : std::string()));
    }
    rapidjson::Document ok = Expect(resp, 200, "POST /v1/ingest of " + f.key);
    const std::int64_t moved = IntOf(ok, "bytes");
    if (moved <= c.bytes)  // it took nothing: sending it again would never end
      throw Stopped("the hub took a chunk of " + f.key + " without moving its cursor");
    // It holds another length than this chunk gives: counted as a 409 is.
    if (moved != c.bytes + size && ++conflicts > kMostConflicts)
      throw FileRefused("the hub's cursor of this file kept moving: left for the next sync");
    ++r_.chunks;
    r_.bytes += size;
    return moved;
  }

  void Save(RelayCursor& c) {
    c.changed_ms = ctx_.clock.NowMs();
    OnDb(ctx_.writer, [&c](Db& db) { SaveRelayCursor(db, c); });
  }

  Context& ctx_;
  Http& http_;
  const std::string store_;
  SyncReport& r_;
  std::int64_t latest_ = 0;  // the latest generation of the file the hub holds
  const Generations* hub_ = nullptr;  // the hub's generations of the file
  std::int64_t hub_at_ = 0;  // the hub's cursor a 409 named
};

}  // namespace

void SendRelayFiles(Context& ctx, Http& http, const std::string& store, SyncReport& report) {
  RelayRun(ctx, http, store, report).Run();
}

std::vector<RelayBacklog> ReadRelayBacklog(
    const std::vector<std::unique_ptr<SourceAdapter>>& adapters, Db& db) {
  std::map<std::string, RelayBacklog> by_source;
  for (const auto& [adapter, f] : Discover(adapters)) {
    const std::string source(adapter->id());
    RelayBacklog& b = by_source[source];
    b.source = source;
    const std::optional<RelayCursor> c = LoadRelayCursor(db, source, f.key);
    if (!c && f.dedup && f.dedup->held) continue;
    if (c && c->seen == Stamp(f)) continue;
    // A plain file's bytes past the cursor; the others count whole.
    // (A file shorter than its cursor was rewritten: all of it is unsent.)
    const std::int64_t left = f.generated                          ? 0
                              : f.zstd || !c || f.size < c->bytes ? f.size
                                                                   : f.size - c->bytes;
    if (!f.generated && left <= 0) continue;
    ++b.files;
    b.bytes += left;
    const std::int64_t mtime_ms = f.mtime_ns / 1'000'000;
    if (b.oldest_mtime_ms == 0 || mtime_ms < b.oldest_mtime_ms) {
      b.oldest_mtime_ms = mtime_ms;
      b.oldest_path = f.abs_path;
    }
  }
  std::vector<RelayBacklog> out;
  for (auto& [source, b] : by_source) out.push_back(std::move(b));
  return out;
}

namespace {

constexpr std::int64_t kDayMs = 24 * 3600 * 1000;

// Claude Code's cleanupPeriodDays, from settings.json in its configuration
// directory (the parent of the projects directory it reads); 30 when it is
// not set or cannot be read.
std::int64_t ClaudeRetentionDays(const SourceAdapter& a) {
  const std::string& root = a.root();
  const std::size_t slash = root.rfind('/');
  std::int64_t days = 30;
  if (slash == std::string::npos) return days;
  std::FILE* f = std::fopen((root.substr(0, slash) + "/settings.json").c_str(), "rb");
  if (f == nullptr) return days;
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0 && text.size() < (1 << 20);)
    text.append(buf, n);
  std::fclose(f);
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  if (!d.HasParseError() && d.IsObject())
    if (auto it = d.FindMember("cleanupPeriodDays");
        it != d.MemberEnd() && it->value.IsInt64() && it->value.GetInt64() > 0)
      days = it->value.GetInt64();
  return days;
}

}  // namespace

std::vector<std::string> RelayWarnings(const std::vector<std::unique_ptr<SourceAdapter>>& adapters,
                                       const std::vector<RelayBacklog>& backlog,
                                       std::int64_t now_ms, std::int64_t last_sync_ms) {
  std::vector<std::string> out;
  for (const RelayBacklog& b : backlog) {
    if (b.files == 0 || b.oldest_mtime_ms == 0) continue;
    const SourceAdapter* adapter = nullptr;
    for (const auto& a : adapters)
      if (a->id() == b.source) adapter = a.get();
    if (adapter == nullptr) continue;
    const std::int64_t age_days = (now_ms - b.oldest_mtime_ms) / kDayMs;
    const std::string name(adapter->display_name());
    if (b.source == "claude-code") {
      const std::int64_t keeps = ClaudeRetentionDays(*adapter);
      const std::int64_t warn_at = keeps < 14 ? keeps / 2 : keeps - 7;
      if (age_days < warn_at) continue;
      out.push_back(name + " deletes logs after " + std::to_string(keeps) +
                    " days (cleanupPeriodDays), and this relay has not sent all of " +
                    b.oldest_path + ", " + std::to_string(age_days) +
                    " days old: once it is deleted, what the hub has not received is lost. "
                    "Let this relay reach its hub (origin sync), or raise cleanupPeriodDays.");
    } else if (age_days >= 7 && now_ms - last_sync_ms >= 7 * kDayMs) {
      out.push_back("this relay has not reached its hub for a week or more, and has not sent "
                    "all of " + b.oldest_path + " (" + name + ", " + std::to_string(age_days) +
                    " days old): if the agent deletes its old logs, what the hub has not "
                    "received is lost. Let this relay reach its hub (origin sync).");
    }
  }
  return out;
}

std::vector<std::string> RelayWarningsNow(const Context& ctx, Db& db) {
  return RelayWarnings(ctx.adapters, ReadRelayBacklog(ctx.adapters, db), ctx.clock.NowMs(),
                       ReadLastSync(db).last_sync_ms);
}

}  // namespace origin::hub
