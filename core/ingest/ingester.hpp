// SPDX-License-Identifier: MIT
#pragma once
// Ingestion (spec: Ingestion): reads the new complete lines of each changed
// log file, mirrors them, parses them with the source's adapter and inserts
// their events, in BEGIN IMMEDIATE transactions of at most 1 MiB of lines.
//
//  1. Cursor: raw_file keeps bytes_ingested, lines_ingested and tail_hash
//     (SHA-256 of the last 4 KiB ingested); it is read under the write lock.
//  2. Rewrite detection: a file shorter than the cursor, or whose bytes
//     before the cursor no longer hash to tail_hash, opens a new generation
//     with a fresh mirror; the old mirror stays (invariant 3).
//  3. Complete lines only: a trailing partial line waits for the next look.
//  4. INSERT OR IGNORE under <source>:<native-id>[#<block>]: re-ingesting
//     never doubles an event (invariant 3); each event records its mirror
//     file and line (invariant 1).  Parse failures are counted, never fatal.
//  5. Sessions are re-aggregated, titles derived, the cursor advanced, all
//     in the same transaction.
//
// A file whose size and modification time are those of its last look is
// skipped without taking the write lock.  A generated stream (an agent's
// database, a memory directory) is read through its adapter instead: the
// lines that follow the last one mirrored, until there are none, after
// which its token is recorded in place of the tail hash; an unchanged token
// skips it without asking the adapter.  Thread affinity: the writer
// thread, which owns `db`.  `between` runs after every transaction, so that
// other writes get through during a long import; past
// SyncOptions::bulk_bytes (an import), Sync nests its transactions in
// groups, one enclosing transaction each, and runs `between` after each
// group instead (see Sync, and docs/architecture.md).
//
// The ingest algorithm is here (ingester.cpp); what it reads with is in
// files of its own: the content reader (content.hpp: a file's content, zstd
// or not, and the complete lines one transaction takes) and the raw_file
// cursor (raw_file.hpp: each generation's row, rewrite detection's hash
// window, new generations).
//
// core/ingest is the top layer of core.  The folders of core include only
// the layers before them, with no cycle: c, util -> store (schema, mirrors,
// sessions, what is visible) -> query -> entries -> forget -> ingest, which
// derives entries from memory files (memories.hpp) and adds new events to
// their sessions (core/store/sessions.hpp).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/erase/erase.hpp"
#include "core/c/sqlite.hpp"
#include "core/ingest/adapter.hpp"
#include "core/store/mirror.hpp"
#include "core/util/clock.hpp"

namespace origin {

class ImportGroup;

inline constexpr std::size_t kMaxTransactionBytes = 1 << 20;
/// A longer line stops its file there (reported), so that no log can make
/// the daemon hold more than this in memory for one line.
inline constexpr std::size_t kMaxLineBytes = std::size_t{256} << 20;
inline constexpr std::int64_t kIdleSealMs = 3600 * 1000;
/// A sync that has read this much (an import) gives the writer's connection
/// a page cache of kBulkCacheKib until it ends (docs/performance.md).
inline constexpr std::int64_t kBulkBytes = std::int64_t{16} << 20;
inline constexpr std::int64_t kBulkCacheKib = 32 << 10;
/// Past kBulkBytes, an import's transactions are nested in groups of up to
/// this many bytes read (SyncOptions::group_bytes).
inline constexpr std::int64_t kGroupBytes = std::int64_t{32} << 20;
/// Inside a group, a tail is sealed when an append would bring it to this,
/// not to kTailLimit: a seal ends the group.
inline constexpr std::size_t kGroupTailLimit = std::size_t{8} << 20;

/// What ingesting one file did.
struct FileOutcome {
  bool changed = false;  // something was read or recorded
  std::int64_t lines = 0;
  std::int64_t bytes = 0;
  std::int64_t events = 0;  // events added
  std::int64_t parse_errors = 0;
  bool rewritten = false;  // a new generation was opened
  std::string error;       // why the file could not be ingested
  bool stopped = false;    // `between` said stop: the rest of the file waits
  bool store_fault = false;  // `error` is the store refusing a write (IsStoreWriteFailure)
};

struct SourceSummary {
  std::string source;
  std::int64_t files_seen = 0;
  std::int64_t files_changed = 0;
  std::int64_t lines = 0;
  std::int64_t bytes = 0;
  std::int64_t events = 0;
  std::int64_t parse_errors = 0;
  std::int64_t sealed = 0;  // idle tails sealed
  std::vector<std::string> errors;
  /// The first error that was the store refusing a write (a full disk, an
  /// I/O error): the step was rolled back, and is to be taken again.
  std::string store_fault;
  std::vector<DiscoveryProblem> problems;
  bool root_exists = false;
  /// Counts what ingesting one file of this source did.
  void Add(const FileOutcome& o) {
    if (o.changed) ++files_changed;
    lines += o.lines;
    bytes += o.bytes;
    events += o.events;
    parse_errors += o.parse_errors;
    if (!o.error.empty()) errors.push_back(o.error);
    if (o.store_fault && store_fault.empty()) store_fault = o.error;
  }
  /// An error of a step of its own (sealing, sync_log).
  void AddError(std::string what, bool is_store_fault) {
    if (is_store_fault && store_fault.empty()) store_fault = what;
    errors.push_back(std::move(what));
  }
};

struct SyncProgress {
  std::int64_t files_done = 0, files_total = 0;
  std::int64_t bytes_done = 0, bytes_total = 0;  // bytes of changed files
};

struct SyncOptions {
  std::string reason = "request";  // recorded in sync_log
  std::function<void(const SyncProgress&)> progress;
  /// Runs after every transaction; false stops the sync there (a shutdown,
  /// a live sync's budget): what was committed stands, `stopped` says so.
  std::function<bool()> between;
  /// Directories walked, per source (the watcher watches them).
  std::function<void(const SourceAdapter&, const Discovery&)> discovered;
  /// From the transaction that brings what the sync has read to this many
  /// bytes, the connection's page cache is kBulkCacheKib for the rest of
  /// it, and given back at its end.
  std::int64_t bulk_bytes = kBulkBytes;
  /// From then on, its transactions are nested in groups that end after
  /// this many bytes read (0: none), or earlier: see Sync.
  std::int64_t group_bytes = kGroupBytes;
  std::size_t group_tail_limit = kGroupTailLimit;
  /// True when other writes wait for this thread: a group ends at once.
  std::function<bool()> waiting;
};

struct SyncReport {
  std::vector<SourceSummary> sources;
  bool stopped = false;  // SyncOptions::between said stop
  /// The store refused a write (a full disk, an I/O error): the sync ended
  /// there, with that step rolled back; the rest waits for the next one.
  bool store_fault = false;
  std::int64_t events = 0;
  std::int64_t lines = 0;
  std::int64_t bytes = 0;
  std::int64_t files_changed = 0;
  /// Adds a source's counts to the totals.
  void Add(const SourceSummary& s) {
    events += s.events;
    lines += s.lines;
    bytes += s.bytes;
    files_changed += s.files_changed;
  }
};

/// A chunk of a device's raw mirror, pushed to a hub (spec: Replication,
/// step 1; POST /v1/ingest).  The hub keeps it as generation `generation`
/// of the file (source, "@<device>:<rel_path>"), mirrored under
/// devices/<device>/<source>/<rel_path>, and parses it with the source's
/// adapter, which sees the device's key, so that event ids are the
/// device's (remote.cpp).
struct RemoteChunk {
  std::string device;    // the pushing device's name (checked by the caller)
  std::string path;      // the file's path on the device, for the record
  std::string rel_path;  // its key under the source's root on the device
  std::int64_t generation = 1;
  std::int64_t offset = 0;  // where `data` starts in the mirror's content
  std::optional<std::int64_t> mtime_ms;  // the device's file's, for sealing idle tails
  std::string data;      // complete lines
};

/// What the hub did with a RemoteChunk.
struct RemoteOutcome {
  /// False: `offset` was not the hub's cursor, and nothing was written.
  bool appended = false;
  std::int64_t bytes = 0;  // the hub's cursor of that generation, after
  std::int64_t lines = 0;  // lines appended
  std::int64_t events = 0;  // events added
  std::int64_t parse_errors = 0;
};

/// raw_file's key of a device's file on a hub: "@<device>:<rel_path>".
std::string RemoteKey(std::string_view device, std::string_view rel_path);
/// The key an adapter sees a file by, from its raw_file key: a device's
/// own key for a device's file on a hub (what IngestRemote parses it
/// with, and what ids such as a generated stream's derive from), the key
/// itself otherwise.
std::string_view AdapterKey(std::string_view raw_key);

class Ingester {
 public:
  Ingester(Db& db, MirrorStore& mirrors, const Clock& clock);

  /// Discovers every adapter's files and ingests those that changed, oldest
  /// first by modification time; seals idle tails; writes sync_log.  A step
  /// the store refuses (a full disk, an I/O error) is rolled back, is an
  /// error of its source in the report (`store_fault`), and ends the sync:
  /// taking the same step again later (the daemon retries) goes on from the
  /// last commit, losing and doubling nothing.
  SyncReport Sync(const std::vector<const SourceAdapter*>& adapters, const SyncOptions& opts);
  /// Ingests one file.  Never throws for a problem of that file.
  FileOutcome IngestFile(const SourceAdapter& adapter, const SourceFile& file,
                         const std::function<bool()>& between = {});
  /// Seals the open tails of `source` whose files have not grown for
  /// `idle_ms`: by the file's modification time when the store recorded one
  /// (an old file imported now is finished already), else by when its
  /// content last grew here.
  std::int64_t SealIdle(std::string_view source, std::int64_t idle_ms = kIdleSealMs);
  /// Appends a device's chunk and ingests its lines, in one transaction
  /// (remote.cpp): at the hub's cursor only, so a chunk sent twice, or
  /// sent after another, is refused without writing (`appended` false).
  /// Throws std::invalid_argument for a device name or path that could
  /// name a mirror outside the device's directory, or data that is not
  /// complete lines; a store fault as IngestFile's caller sees it.
  RemoteOutcome IngestRemote(const SourceAdapter& adapter, const RemoteChunk& chunk);
  /// The longest line taken (kMaxLineBytes; smaller in tests).
  void set_max_line(std::size_t bytes) { max_line_ = bytes; }

 private:
  void Ingest(const SourceAdapter& adapter, const SourceFile& file,
              const std::function<bool()>& between, FileOutcome& out);
  /// A stream not started yet whose session another stream holds
  /// (SourceFile::dedup): it is not started.
  bool HeldElsewhere(std::string_view source, const SourceFile& f);
  /// A generated stream: the adapter's lines after the mirror's last one,
  /// a transaction at a time, until it has none; then its token.
  void IngestGenerated(const SourceAdapter& adapter, const SourceFile& stream,
                       const std::function<bool()>& between, FileOutcome& out);
  /// Parses `data` (complete lines, following `lines_before` lines of the
  /// mirror `file_id`), inserts its events, updates sessions and titles.
  /// Inside the caller's transaction; returns the lines that failed to parse.
  /// A line that gives an event an erasure covers (a rewritten file read
  /// again) adds nothing, and its filler goes to `*erased` (core/erase).
  std::int64_t InsertLines(const SourceAdapter& adapter, const SourceFile& file,
                           std::string_view data, std::int64_t lines_before, std::int64_t file_id,
                           FileState* state, FileOutcome& out,
                           std::vector<ErasedLine>* erased = nullptr);
  Db& db_;
  MirrorStore& mirrors_;
  const Clock& clock_;
  std::size_t max_line_ = kMaxLineBytes;
  std::int64_t read_ = 0;  // bytes of lines taken by this ingester (Sync's page cache)
  /// `tx` is nested in Sync's open group.
  bool InGroup(const Transaction& tx) const;
  /// Where an append seals: kTailLimit, or the group's limit inside one.
  std::size_t TailLimit(const Transaction& tx) const;
  /// After `tx` committed `r`: the sealed tail is emptied now, or, when
  /// `tx` was nested in a group, once the group is in (ImportGroup::Defer).
  void Committed(const Transaction& tx, const AppendResult& r);
  ImportGroup* group_ = nullptr;  // Sync's, while it runs
};

/// Creates the connection's temporary staging table for event batches.
void StageEvents(Db& db);

}  // namespace origin
