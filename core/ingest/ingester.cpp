// SPDX-License-Identifier: MIT
#include "core/ingest/ingester.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "core/c/faults.hpp"
#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/ingest/content.hpp"
#include "core/ingest/import_writes.hpp"
#include "core/ingest/leaf_titles.hpp"
#include "core/ingest/memories.hpp"
#include "core/ingest/raw_file.hpp"
#include "core/store/schema.hpp"
#include "core/store/sessions.hpp"
#include "core/util/hash.hpp"
#include "core/util/text.hpp"

namespace origin {

Ingester::Ingester(Db& db, MirrorStore& mirrors, const Clock& clock)
    : db_(db), mirrors_(mirrors), clock_(clock) {
  StageEvents(db_);
}

void StageEvents(Db& db) {
  // Events are inserted a transaction's batch at a time, from this staging
  // table, with one INSERT ... SELECT: one statement for the triggers on
  // event (event_block, scope_block) rather than one per row.  (It was
  // chosen when FTS5 triggers fed the search indexes there, which wrote out
  // their pending terms at every statement: about twice as slow then,
  // docs/performance.md.)
  db.Exec("PRAGMA temp_store = MEMORY");
  db.Exec(
      "CREATE TEMP TABLE IF NOT EXISTS event_stage ("
      "n INTEGER PRIMARY KEY, id TEXT, source TEXT, session TEXT, ts INTEGER, project TEXT, "
      "cwd TEXT, git_branch TEXT, role TEXT, kind TEXT, text TEXT, tool_name TEXT, call_id TEXT, "
      "is_error INTEGER, agent TEXT, model TEXT, file_id INTEGER, line INTEGER)");
}

FileOutcome Ingester::IngestFile(const SourceAdapter& adapter, const SourceFile& file,
                                 const std::function<bool()>& between) {
  FileOutcome out;  // what was committed before a failure still counts
  try {
    Ingest(adapter, file, between, out);
    return out;
  } catch (const std::exception& e) {
    // The transaction of the failed step has rolled back (Transaction's
    // destructor, or SQLite itself: sqlite3_get_autocommit(3)), and the
    // mirror's bytes past what the store records are dropped by the next
    // append: taking the step again redoes it exactly.
    out.error = file.abs_path + ": " + e.what();
    out.store_fault = IsStoreWriteFailure(e);
    if (const auto* mb = dynamic_cast<const MirrorBroken*>(&e)) {
      // Record it, so that status shows it and no later look appends.
      try {
        if (auto row = LoadLatest(db_, adapter.id(), file.key)) {
          db_.Prepare("UPDATE raw_file SET broken = ? WHERE id = ?")
              .Bind(1, std::string(mb->what()))
              .Bind(2, row->id)
              .Run();
        }
      } catch (...) {
      }
    }
    return out;
  }
}

std::string SourceAdapter::Generate(const SourceFile& stream, std::string_view, std::size_t,
                                    std::int64_t) const {
  throw std::logic_error(std::string(id()) + " generates no stream " + stream.key);
}

bool Ingester::HeldElsewhere(std::string_view source, const SourceFile& f) {
  if (!f.dedup) return false;
  if (f.dedup->held) return true;
  auto held = db_.Prepare(
      "SELECT EXISTS (SELECT 1 FROM session WHERE id = ?) AND NOT EXISTS (SELECT 1 FROM "
      "raw_file WHERE source = ? AND substr(key, 1, length(?3)) = ?3)");
  held.Bind(1, std::string(source) + ":" + f.dedup->session).Bind(2, source);
  held.Bind(3, f.dedup->group);
  const bool elsewhere = held.Step() && held.Int(0) != 0;
  return elsewhere;
}

void Ingester::IngestGenerated(const SourceAdapter& adapter, const SourceFile& f,
                               const std::function<bool()>& between, FileOutcome& out) {
  const std::string_view source = adapter.id();
  // The token recorded after the last complete look: nothing to ask.
  std::optional<RawRow> row = LoadLatest(db_, source, f.key);
  if (!row && HeldElsewhere(source, f)) return;
  if (row && row->path == f.abs_path && row->tail_hash == f.token) return;
  std::unique_ptr<FileState> state;
  for (;;) {
    Transaction tx(db_);
    const std::int64_t now = clock_.NowMs();
    if (!LoadUnbroken(db_, source, f.key, row, out.error)) return;
    if (!row) {
      row = CreateGeneration(db_, source, f, 1, now);
      out.changed = true;
    }
    if (!state) state = adapter.LoadState(f.key, row->parse_state);
    // Where to go on: the stream's last line, read back from its mirror, or
    // the cursor kept for it when it is erased (a filler says nothing).
    std::string last;
    if (row->mirror.lines > 0) {
      if (auto cursor = ErasedLineCursor(db_, row->id, row->mirror.lines)) {
        last = std::move(*cursor);
      } else {
        auto l = mirrors_.ReadLine(db_, row->id, row->mirror.lines);
        if (!l) throw MirrorBroken("mirror " + row->mirror.mirror + " has lost its last line");
        last = std::move(*l);
      }
    }
    std::string data;
    try {
      data = adapter.Generate(f, last, kMaxTransactionBytes, now);
    } catch (const SourceBusy&) {
      return;  // tried again at the next look; what was committed stays
    }
    std::int64_t lines = 0;
    for (char c : data) lines += c == '\n';
    if (!data.empty() && data.back() != '\n')
      throw std::logic_error(std::string(source) + " generated an incomplete line for " + f.key);
    if (data.empty()) {
      // Up to date: the token says so until the stream changes again.
      db_.Prepare("UPDATE raw_file SET tail_hash = ?, path = ? WHERE id = ?")
          .BindBlob(1, f.token.data(), f.token.size())
          .Bind(2, f.abs_path)
          .Bind(3, row->id)
          .Run();
      tx.Commit();
      return;
    }
    // Parsed first, as a file's chunk is: a generated line giving an erased
    // event (a stream generated again from its start, such as a history
    // whose items were replaced) is mirrored as its filler (core/erase).
    std::vector<ErasedLine> erased;
    const std::int64_t events_before = out.events;
    const std::int64_t parse_errors = InsertLines(adapter, f, data, row->mirror.lines, row->id,
                                                  state.get(), out, &erased);
    const std::int64_t events_added = std::exchange(out.events, events_before) - events_before;
    // Only erased lines came (an erased title generated again, a stream
    // written again from its start whose new lines are all erased): the
    // next look would generate them again, so the stream is up to date
    // until it changes.
    const bool only_erased = erased.size() == static_cast<std::size_t>(lines);
    if (!erased.empty()) {
      // The stream's last line a filler: where it went on from, kept.
      const ErasedLine& tail = erased.back();
      if (tail.offset + tail.length + 1 == data.size())
        KeepErasedLineCursor(db_, row->id, row->mirror.lines + lines,
                             adapter.CursorOf(f.key, std::string_view(data).substr(tail.offset, tail.length)));
      data = WithFillers(data, erased);
    }
    // At kTailLimit even in a group: the next transaction reads the
    // stream's last line back from the tail (ReadLine reads it whole).
    AppendResult appended = mirrors_.Append(row->mirror, data, lines, /*seal=*/false);
    MirrorStore::RecordAppend(db_, appended);
    out.events += events_added;
    auto cur = db_.Prepare(
        "UPDATE raw_file SET path = ?, grown_at = ?, parse_state = ?, "
        "parse_errors = parse_errors + ? WHERE id = ?");
    cur.Bind(1, f.abs_path).Bind(2, now).Bind(3, SavedState(state.get()));
    cur.Bind(4, parse_errors).Bind(5, row->id).Run();
    if (only_erased)
      db_.Prepare("UPDATE raw_file SET tail_hash = ? WHERE id = ?")
          .BindBlob(1, f.token.data(), f.token.size())
          .Bind(2, row->id)
          .Run();
    tx.Commit();
    Committed(tx, appended);
    out.changed = true;
    out.lines += lines;
    out.bytes += static_cast<std::int64_t>(data.size());
    read_ += static_cast<std::int64_t>(data.size());
    out.parse_errors += parse_errors;
    if (only_erased) return;
    if (between && !between()) {
      out.stopped = true;
      return;
    }
  }
}

void Ingester::Ingest(const SourceAdapter& adapter, const SourceFile& f,
                      const std::function<bool()>& between, FileOutcome& out) {
  const std::string_view source = adapter.id();
  if (!SafeKey(f.key)) {
    out.error = f.abs_path + ": unsafe file name, not mirrored";
    return;
  }
  if (f.generated) {
    IngestGenerated(adapter, f, between, out);
    return;
  }
  // Unchanged since the last look: skipped without taking the write lock.
  std::optional<RawRow> row = LoadLatest(db_, source, f.key);
  if (!row && HeldElsewhere(source, f)) return;
  if (row && row->path == f.abs_path && row->file_size == f.size && row->mtime_ns == f.mtime_ns)
    return;
  if (row && row->broken) {
    out.error = *row->broken;
    return;
  }
  std::unique_ptr<Content> content = OpenContent(f.abs_path, f.zstd);
  if (!content) {
    if (errno == ENOENT) return;  // deleted since discovery: nothing to read
    out.error = f.abs_path + ": " + std::strerror(errno);
    return;
  }

  std::int64_t expected_pos = -1;  // where the previous transaction left the cursor
  std::int64_t expected_id = -1;   // and in which generation
  std::string window;              // the last <= 4 KiB of content before the cursor
  std::unique_ptr<FileState> state;
  for (;;) {
    Transaction tx(db_);
    const std::int64_t now = clock_.NowMs();
    if (!LoadUnbroken(db_, source, f.key, row, out.error)) return;
    if (!row || row->mirror.bytes != expected_pos || row->id != expected_id) {
      // First transaction, or another process (or a live sync between our
      // transactions) moved the cursor: check the bytes before the cursor
      // still hash to what was ingested.
      window.clear();
      bool rewritten = false;
      if (row && row->mirror.bytes > 0) {
        std::int64_t ws = std::max<std::int64_t>(0, row->mirror.bytes - kHashWindow);
        window.resize(static_cast<std::size_t>(row->mirror.bytes - ws));
        std::size_t got = content->ReadAt(ws, window.data(), window.size());
        Sha256Digest d = Sha256(window);
        rewritten = got != window.size() ||
                    row->tail_hash != std::string_view(reinterpret_cast<char*>(d.data()), d.size());
      }
      if (!row || rewritten) {
        row = CreateGeneration(db_, source, f, row ? row->generation + 1 : 1, now);
        window.clear();
        out.rewritten = rewritten;
        out.changed = true;
      }
      state = adapter.LoadState(f.key, row->parse_state);
    }
    Chunk chunk = ReadChunk(*content, row->mirror.bytes, kMaxTransactionBytes, max_line_);
    if (chunk.data.empty()) {
      db_.Prepare("UPDATE raw_file SET path = ?, file_size = ?, file_mtime_ns = ? WHERE id = ?")
          .Bind(1, f.abs_path)
          .Bind(2, f.size)
          .Bind(3, f.mtime_ns)
          .Bind(4, row->id)
          .Run();
      tx.Commit();
      return;
    }

    // Parsed first: a line giving an erased event (a rewritten file read
    // again into a new generation) is mirrored as its filler (core/erase).
    std::vector<ErasedLine> erased;
    const std::int64_t events_before = out.events;
    const std::int64_t parse_errors = InsertLines(adapter, f, chunk.data, row->mirror.lines,
                                                  row->id, state.get(), out, &erased);
    // A mirror that refuses the append rolls the transaction back: its
    // events were never added.
    const std::int64_t events_added = std::exchange(out.events, events_before) - events_before;
    AppendResult appended =
        erased.empty()
            ? mirrors_.Append(row->mirror, chunk.data, chunk.lines, /*seal=*/false, TailLimit(tx))
            : mirrors_.Append(row->mirror, WithFillers(chunk.data, erased), chunk.lines,
                              /*seal=*/false, TailLimit(tx));
    MirrorStore::RecordAppend(db_, appended);
    out.events += events_added;

    // Advance the cursor: tail hash over the last 4 KiB of the content.
    window += chunk.data;
    if (window.size() > kHashWindow) window.erase(0, window.size() - kHashWindow);
    Sha256Digest d = Sha256(window);
    auto cur = db_.Prepare(
        "UPDATE raw_file SET tail_hash = ?, path = ?, grown_at = ?, parse_state = ?, "
        "parse_errors = parse_errors + ?, file_size = ?, file_mtime_ns = ? WHERE id = ?");
    cur.BindBlob(1, d.data(), d.size()).Bind(2, f.abs_path).Bind(3, now);
    cur.Bind(4, SavedState(state.get())).Bind(5, parse_errors);
    // The stat of this look is recorded only once every complete line of it
    // is in, so that an interrupted import is taken up again.
    if (chunk.at_eof)
      cur.Bind(6, f.size).Bind(7, f.mtime_ns);
    else
      cur.Bind(6, nullptr).Bind(7, nullptr);
    cur.Bind(8, row->id).Run();
    tx.Commit();
    Committed(tx, appended);

    out.changed = true;
    out.lines += chunk.lines;
    out.bytes += static_cast<std::int64_t>(chunk.data.size());
    read_ += static_cast<std::int64_t>(chunk.data.size());
    out.parse_errors += parse_errors;
    expected_pos = appended.after.bytes;
    expected_id = row->id;
    if (between && !between()) {
      out.stopped = true;
      return;
    }
    if (chunk.at_eof) return;
  }
}

std::int64_t Ingester::InsertLines(const SourceAdapter& adapter, const SourceFile& f,
                                   std::string_view data, std::int64_t lines_before,
                                   std::int64_t file_id, FileState* state, FileOutcome& out,
                                   std::vector<ErasedLine>* erased) {
  const std::string_view source = adapter.id();
  // Parse into the staging table, then insert the whole batch with one
  // statement (see StageEvents for why).
  auto stage = db_.Prepare(
      "INSERT INTO temp.event_stage(id, source, session, ts, project, cwd, git_branch, role, "
      "kind, text, tool_name, call_id, is_error, agent, model, file_id, line) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  std::optional<std::string> agent_version;
  std::map<std::string, std::string> session_versions;
  std::int64_t parse_errors = 0;
  std::int64_t line_no = lines_before;
  std::string id, session_key;
  struct MemoryLine {
    std::string event_id, prev_event_id;
    ParsedMemory memory;
  };
  std::vector<MemoryLine> memories;
  std::vector<ParsedTitle> leaf_titles;
  const bool any_erased = erased != nullptr && AnyErased(db_);
  std::vector<std::string> ids;
  std::size_t pos = 0;
  while (pos < data.size()) {
    std::size_t nl = data.find('\n', pos);
    std::string_view line(data.data() + pos, nl - pos);
    const std::size_t line_at = pos;
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    ParsedLine parsed;
    ParseContext ctx{f.abs_path, f.key, line_no, state};
    try {
      parsed = adapter.ParseLine(line, ctx);
    } catch (const std::exception&) {
      ++parse_errors;
      continue;
    }
    if (any_erased) {
      ids.clear();
      for (const ParsedEvent& ev : parsed.events) ids.push_back(std::string(source) + ":" + ev.native_id);
      for (const ParsedTitle& t : parsed.titles) ids.push_back(std::string(source) + ":" + t.native_id);
      if (auto hit = ErasedEventIds(db_, ids); !hit.empty()) {
        erased->push_back({line_at, nl - line_at, hit.begin()->second});
        continue;  // its events are here, their text erased: nothing to add
      }
    }
    if (parsed.memory && parsed.events.size() == 1)
      memories.push_back({std::string(source) + ":" + parsed.events[0].native_id,
                          parsed.memory->prev_native_id.empty()
                              ? std::string()
                              : std::string(source) + ":" + parsed.memory->prev_native_id,
                          std::move(*parsed.memory)});
    if (parsed.agent_version) agent_version = parsed.agent_version;
    // Titles are events of their own (spec: Session names): meta, tool_name
    // "title", role user for the user's, assistant for generated ones.
    for (ParsedTitle& t : parsed.titles) {
      std::string title_session = std::string(source) + ":" + t.session;
      if (t.leaf) {
        // The title of the session that holds its leaf (leaf_titles.hpp):
        // staged in its place when the store or this batch holds the leaf,
        // else placed once the batch is in.
        auto held = LeafSession(db_, source, *t.leaf, /*staged=*/true);
        if (!held) {
          if (!t.line) t.line = line_no;
          leaf_titles.push_back(std::move(t));
          continue;
        }
        title_session = std::move(*held);
      }
      if (t.session.empty() || t.text.empty()) continue;
      std::string text = SanitizeUtf8(t.text);
      stage.Reset();
      stage.Bind(1, std::string(source) + ":" + t.native_id).Bind(2, source);
      stage.Bind(3, title_session).Bind(4, t.ts);
      stage.Bind(5, nullptr).Bind(6, nullptr).Bind(7, nullptr);
      stage.Bind(8, t.manual ? "user" : "assistant").Bind(9, "meta");
      stage.BindStatic(10, text).Bind(11, "title").Bind(12, nullptr);
      stage.Bind(13, 0).Bind(14, nullptr).Bind(15, nullptr);
      stage.Bind(16, file_id).Bind(17, t.line.value_or(line_no));
      stage.Run();
    }
    for (ParsedEvent& ev : parsed.events) {
      id.assign(source).append(":").append(ev.native_id);
      session_key.clear();
      if (!ev.session.empty()) session_key.assign(source).append(":").append(ev.session);
      if (!session_key.empty() && parsed.agent_version)
        session_versions[session_key] = *parsed.agent_version;
      std::string text = SanitizeUtf8(ev.text);
      stage.Reset();
      stage.Bind(1, id).Bind(2, source);
      if (session_key.empty())
        stage.Bind(3, nullptr);
      else
        stage.Bind(3, session_key);
      stage.Bind(4, ev.ts);
      if (ev.cwd)
        stage.Bind(5, LastPathSegment(*ev.cwd));
      else
        stage.Bind(5, nullptr);
      stage.Bind(6, ev.cwd).Bind(7, ev.git_branch).Bind(8, ev.role).Bind(9, ev.kind);
      stage.BindStatic(10, text).Bind(11, ev.tool_name).Bind(12, ev.call_id);
      stage.Bind(13, ev.is_error ? 1 : 0).Bind(14, ev.agent).Bind(15, ev.model);
      stage.Bind(16, file_id).Bind(17, ev.line.value_or(line_no));
      stage.Run();
    }
  }
  // INSERT OR IGNORE: a line already here (a replay) adds nothing; the
  // events that were new are those after the last seq.
  const std::int64_t last_seq = db_.QueryInt("SELECT max(seq) FROM event");
  db_.Prepare(
         "INSERT OR IGNORE INTO event(id, source, session, ts, project, cwd, git_branch, role, "
         "kind, text, tool_name, call_id, is_error, agent, model, file_id, line) "
         "SELECT id, source, session, ts, project, cwd, git_branch, role, kind, text, tool_name, "
         "call_id, is_error, agent, model, file_id, line FROM temp.event_stage ORDER BY n")
      .Run();
  db_.Prepare("DELETE FROM temp.event_stage").Run();
  // Titles that name the session holding a line, once that line's event is
  // here (core/ingest/leaf_titles.hpp): this batch's, and those that waited.
  PlaceLeafTitles(db_, source, leaf_titles, file_id, line_no);
  ApplyArrivedLeafTitles(db_, source);
  // The sessions of the new events, before their memories derive entries.
  out.events += AddArrivals(db_, source, last_seq, session_versions);
  // A line that arrives in a forgotten session is hidden on arrival.
  CoverSessionArrivals(db_, last_seq);
  // Memory lines derive their entries' versions once their events are in.
  if (!memories.empty()) {
    // Read for each batch: origin hub connect --device may rename the store.
    const std::string store_name = StoreNameOf(db_);
    for (const MemoryLine& m : memories)
      DeriveMemory(db_, std::string(source), store_name, m.event_id, m.prev_event_id, m.memory);
  }
  if (agent_version) {
    PutSetting(db_, "agent_version." + std::string(source), *agent_version);
  }

  return parse_errors;
}

std::int64_t Ingester::SealIdle(std::string_view source, std::int64_t idle_ms) {
  std::vector<std::int64_t> ids;
  {
    auto st = db_.Prepare(
        "SELECT id FROM raw_file WHERE source = ? AND bytes_ingested > tail_offset "
        "AND coalesce(file_mtime_ns / 1000000, grown_at) <= ? AND broken IS NULL");
    st.Bind(1, source).Bind(2, clock_.NowMs() - idle_ms);
    while (st.Step()) ids.push_back(st.Int(0));
  }
  std::int64_t sealed = 0;
  for (std::int64_t id : ids) {
    try {
      Transaction tx(db_);
      MirrorState m = MirrorStore::Load(db_, id);
      AppendResult r = mirrors_.Append(m, {}, 0, /*seal=*/true);
      if (!r.sealed) continue;
      MirrorStore::RecordAppend(db_, r);
      tx.Commit();
      mirrors_.AfterCommit(r);
      ++sealed;
    } catch (const MirrorBroken& e) {
      db_.Prepare("UPDATE raw_file SET broken = ? WHERE id = ?")
          .Bind(1, e.what())
          .Bind(2, id)
          .Run();
    }
  }
  return sealed;
}

bool Ingester::InGroup(const Transaction& tx) const {
  return tx.nested() && group_ != nullptr && group_->open();
}

std::size_t Ingester::TailLimit(const Transaction& tx) const {
  return InGroup(tx) ? group_->tail_limit() : kTailLimit;
}

void Ingester::Committed(const Transaction& tx, const AppendResult& r) {
  if (!r.sealed) return;
  if (InGroup(tx))
    group_->Defer(r);  // the tail is emptied once the group is in
  else
    mirrors_.AfterCommit(r);
}

SyncReport Ingester::Sync(const std::vector<const SourceAdapter*>& adapters,
                          const SyncOptions& opts) {
  SyncReport report;
  const std::int64_t started = clock_.NowMs();
  struct Item {
    const SourceAdapter* adapter;
    SourceFile file;
    std::size_t summary;
  };
  std::vector<Item> items;
  for (const SourceAdapter* a : adapters) {
    Discovery d = a->Discover();
    if (opts.discovered) opts.discovered(*a, d);
    SourceSummary s;
    s.source = std::string(a->id());
    s.files_seen = static_cast<std::int64_t>(d.files.size());
    s.problems = std::move(d.problems);
    s.root_exists = d.root_exists;
    report.sources.push_back(std::move(s));
    for (SourceFile& f : d.files) items.push_back({a, std::move(f), report.sources.size() - 1});
  }
  // Oldest first, so that arrival order follows time as far as it can.
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& x, const Item& y) { return x.file.mtime_ns < y.file.mtime_ns; });
  SyncProgress progress;
  progress.files_total = static_cast<std::int64_t>(items.size());
  for (const Item& it : items) progress.bytes_total += it.file.size;
  // Looked at after every transaction, outside any: a single large file
  // gets the larger cache too.
  BulkCache bulk(db_);
  const std::int64_t read_before = read_;
  // Past bulk_bytes, the import's transactions are also nested in a group:
  // one enclosing transaction, so that the random leaves of event.id's
  // index and of ref that consecutive transactions dirty are written to
  // the WAL once per group, not once per transaction (docs/performance.md,
  // "An import's transactions in groups").  A group ends once it has read
  // group_bytes, when other writes wait (they then wait for one
  // transaction, as without groups), after a transaction that sealed a
  // tail (the tail is emptied after the commit: the file's next append
  // must find it so), and with the sync.  `opts.between` and the indexer's
  // notice come at the end of each group.
  ImportGroup group(db_, mirrors_, opts.group_tail_limit);
  group_ = &group;
  struct Unset {
    ImportGroup*& p;
    ~Unset() { p = nullptr; }
  } unset{group_};
  // A group rolled back takes the files of every source it held: each is
  // a store fault, so that the daemon syncs each again.
  const auto lost = [&](const std::string& what) {
    for (SourceSummary& s : report.sources)
      if (s.store_fault.empty()) s.AddError(what, /*is_store_fault=*/true);
    report.store_fault = true;
  };
  auto between = [&] {
    const bool bulk_now = read_ - read_before >= opts.bulk_bytes;
    if (bulk_now) bulk.Begin();
    if (group.open() && read_ - group.from() < opts.group_bytes && !group.sealed() &&
        !(opts.waiting && opts.waiting()))
      return true;
    group.End();
    if (opts.between && !opts.between()) return false;
    if (bulk_now && opts.group_bytes > 0) group.Open(read_);
    return true;
  };
  for (const Item& it : items) {
    FileOutcome o = IngestFile(*it.adapter, it.file, between);
    report.sources[it.summary].Add(o);
    if (group.Lost()) {
      // What the group's earlier transactions wrote went with it: the
      // database is as it was before the group, its mirrors' extra bytes
      // are dropped by their next append, and the next sync reads it all
      // again.  Counted as read by this sync's report all the same.
      lost("the store rolled back the import's last transactions (" +
           (o.error.empty() ? std::string("a failed statement") : o.error) +
           "); the next sync reads them again");
      break;
    }
    if (o.store_fault) {
      // The store refuses writes (a full disk): every file after would fail
      // the same way.  The sync ends here; its record is attempted below.
      report.store_fault = true;
      break;
    }
    if (o.stopped) {
      // Stopped between two transactions: what was committed stands; the
      // rest, sealing and the sync's record wait for the next sync.
      report.stopped = true;
      for (const SourceSummary& s : report.sources) report.Add(s);
      return report;
    }
    ++progress.files_done;
    progress.bytes_done += it.file.size;
    if (opts.progress) opts.progress(progress);
  }
  try {
    // The last group's events to the indexer, as every group's.
    if (group.End() && opts.between) opts.between();
  } catch (const std::exception& e) {
    lost(std::string("committing the import's last transactions: ") + e.what());
  }
  for (SourceSummary& s : report.sources) {
    // A store that cannot be written (a full disk) fails these steps too:
    // each source reports it, and the next look tries again.
    if (!report.store_fault) {
      try {
        s.sealed = SealIdle(s.source);
      } catch (const std::exception& e) {
        s.AddError(std::string("sealing idle mirrors: ") + e.what(), IsStoreWriteFailure(e));
        report.store_fault |= IsStoreWriteFailure(e);
      }
    }
    report.Add(s);
    if (s.files_changed == 0 && s.errors.empty() && s.sealed == 0) continue;
    try {
      db_.Prepare(
             "INSERT INTO sync_log(source, started_at, finished_at, reason, files, lines, bytes, "
             "events, parse_errors, error) VALUES (?,?,?,?,?,?,?,?,?,?)")
          .Bind(1, s.source)
          .Bind(2, started)
          .Bind(3, clock_.NowMs())
          .Bind(4, opts.reason)
          .Bind(5, s.files_changed)
          .Bind(6, s.lines)
          .Bind(7, s.bytes)
          .Bind(8, s.events)
          .Bind(9, s.parse_errors)
          .Bind(10, s.errors.empty() ? std::optional<std::string>() : s.errors.front())
          .Run();
    } catch (const std::exception& e) {
      s.AddError(std::string("recording the sync in sync_log: ") + e.what(),
                 IsStoreWriteFailure(e));
      report.store_fault |= IsStoreWriteFailure(e);
    }
  }
  return report;
}

}  // namespace origin
