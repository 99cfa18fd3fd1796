// SPDX-License-Identifier: MIT
#include "core/erase/erase.hpp"

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/store/audit.hpp"
#include "core/store/visible.hpp"
#include "core/util/hash.hpp"
#include "core/util/op_error.hpp"

namespace origin {

using Code = OpError::Code;

namespace {

// What an erasure covers, with the seqs its steps work on.
struct Plan {
  EraseOutcome o;
  std::vector<std::int64_t> event_seqs, entry_seqs;
  std::map<std::int64_t, std::set<std::int64_t>> lines;  // file_id -> lines
  /// Of a generated stream whose last line goes: that line and its cursor.
  std::map<std::int64_t, std::pair<std::int64_t, std::string>> cursors;
};

std::int64_t Count(const std::map<std::int64_t, std::set<std::int64_t>>& lines) {
  std::int64_t n = 0;
  for (const auto& [file, set] : lines) n += static_cast<std::int64_t>(set.size());
  return n;
}

// Every line of another generation of the file that is byte for byte one
// of the lines erased in `file_id` (a rewritten file read again from its
// start: its events kept their ids, so no event points there).
void SameLinesElsewhere(Db& db, MirrorStore& mirrors, std::int64_t file_id,
                        const std::set<std::int64_t>& lines,
                        std::map<std::int64_t, std::set<std::int64_t>>* out) {
  std::set<std::string> texts;
  for (std::int64_t line : lines)
    if (auto text = mirrors.ReadLine(db, file_id, line);
        text && text->find_first_not_of(" \t\r") != std::string::npos)
      texts.insert(std::move(*text));
  if (texts.empty()) return;
  std::vector<std::int64_t> others;
  {
    auto st = db.Prepare(
        "SELECT o.id FROM raw_file f JOIN raw_file o ON o.source = f.source AND o.key = f.key "
        "WHERE f.id = ? AND o.id <> f.id");
    st.Bind(1, file_id);
    while (st.Step()) others.push_back(st.Int(0));
  }
  for (std::int64_t other : others) {
    const std::string content = mirrors.ReadContent(db, other);
    std::size_t pos = 0;
    std::int64_t line = 0;
    while (pos < content.size()) {
      std::size_t nl = content.find('\n', pos);
      if (nl == std::string::npos) break;
      ++line;
      if (texts.count(content.substr(pos, nl - pos)) != 0) (*out)[other].insert(line);
      pos = nl + 1;
    }
  }
}

// No bound on the time of what a plan takes.
constexpr std::int64_t kNoCutoff = std::numeric_limits<std::int64_t>::max();
// What an erasure done here comes to cover later is taken when it was said
// (an event's ts, a version's created_at) before the erasure was made, or
// within this much after: the clocks of an agent, a device and the store
// that erased may differ by that.  Not what a forgotten session goes on
// with after it, which would be erased line by line.
constexpr std::int64_t kClockSkewMs = 120'000;

// A new erasure's plan, from what the forget covers now, up to `upto`.
Plan NewPlan(Db& db, MirrorStore& mirrors, const std::string& forget,
             std::int64_t upto = kNoCutoff) {
  Plan p;
  std::set<std::int64_t> seqs;
  {
    auto st = db.Prepare(
        "SELECT e.seq, e.file_id, e.line FROM tombstone_effect te JOIN event e ON e.id = te.item "
        "WHERE te.tombstone = ? AND te.item_kind = 'event' AND e.ts <= ?");
    st.Bind(1, forget).Bind(2, upto);
    while (st.Step()) {
      seqs.insert(st.Int(0));
      p.lines[st.Int(1)].insert(st.Int(2));
    }
  }
  // Every event of those lines: a line gone leaves none of its events
  // their text (one line may give several, e.g. an assistant's blocks).
  {
    std::vector<std::int64_t> covered(seqs.begin(), seqs.end());
    auto st = db.Prepare(
        "SELECT o.seq FROM event e JOIN event o ON o.seq BETWEEN e.seq - ?2 AND e.seq + ?2 "
        "AND o.file_id = e.file_id AND o.line = e.line WHERE e.seq = ?1");
    for (std::int64_t s : covered) {
      st.Reset();
      st.Bind(1, s).Bind(2, kLineSeqWindow);
      while (st.Step()) seqs.insert(st.Int(0));
    }
  }
  std::map<std::int64_t, std::set<std::int64_t>> elsewhere;
  for (const auto& [file, lines] : p.lines) SameLinesElsewhere(db, mirrors, file, lines, &elsewhere);
  for (auto& [file, lines] : elsewhere) p.lines[file].merge(lines);
  // What another erasure took already stays its (another forget covering
  // the same event, erased first here or on another store).
  {
    auto line = db.Prepare("SELECT 1 FROM erased_line WHERE file_id = ? AND line = ?");
    for (auto it = p.lines.begin(); it != p.lines.end();) {
      std::erase_if(it->second, [&](std::int64_t l) {
        line.Reset();
        line.Bind(1, it->first).Bind(2, l);
        return line.Step();
      });
      it = it->second.empty() ? p.lines.erase(it) : std::next(it);
    }
    line.Reset();
    auto event = db.Prepare("SELECT 1 FROM erased_event WHERE seq = ?");
    for (std::int64_t s : seqs) {
      event.Reset();
      event.Bind(1, s);
      if (!event.Step()) p.event_seqs.push_back(s);
    }
  }
  auto st = db.Prepare(
      "SELECT DISTINCT e.seq FROM tombstone_effect te JOIN entry e ON e.id = te.item "
      "WHERE te.tombstone = ? AND te.item_kind = 'entry' AND e.created_at <= ? AND e.seq NOT IN "
      "(SELECT seq FROM erased_entry) ORDER BY e.seq");
  st.Bind(1, forget).Bind(2, upto);
  while (st.Step()) p.entry_seqs.push_back(st.Int(0));
  return p;
}

// A pending erasure's plan, as it was recorded.
Plan RecordedPlan(Db& db, std::int64_t erasure) {
  Plan p;
  auto lines = db.Prepare("SELECT file_id, line FROM erased_line WHERE erasure = ?");
  lines.Bind(1, erasure);
  while (lines.Step()) p.lines[lines.Int(0)].insert(lines.Int(1));
  auto events = db.Prepare("SELECT seq FROM erased_event WHERE erasure = ? ORDER BY seq");
  events.Bind(1, erasure);
  while (events.Step()) p.event_seqs.push_back(events.Int(0));
  auto entries = db.Prepare("SELECT seq FROM erased_entry WHERE erasure = ? ORDER BY seq");
  entries.Bind(1, erasure);
  while (entries.Step()) p.entry_seqs.push_back(entries.Int(0));
  return p;
}

// The ids and files the answer names.
void Describe(Db& db, Plan& p) {
  auto ev = db.Prepare("SELECT id FROM event WHERE seq = ?");
  for (std::int64_t s : p.event_seqs) {
    ev.Reset();
    ev.Bind(1, s);
    if (ev.Step()) p.o.events.emplace_back(ev.Text(0));
  }
  auto en = db.Prepare("SELECT id FROM entry WHERE seq = ?");
  for (std::int64_t s : p.entry_seqs) {
    en.Reset();
    en.Bind(1, s);
    if (en.Step()) p.o.entries.emplace_back(en.Text(0));
  }
  auto f = db.Prepare("SELECT mirror, source, generation, path FROM raw_file WHERE id = ?");
  for (const auto& [file, lines] : p.lines) {
    f.Reset();
    f.Bind(1, file);
    if (!f.Step()) continue;
    ErasedFile e;
    e.file_id = file;
    e.mirror = std::string(f.Text(0));
    e.source = std::string(f.Text(1));
    e.generation = f.Int(2);
    e.path = std::string(f.Text(3));
    e.path_exists = ::access(e.path.c_str(), F_OK) == 0;
    e.lines.assign(lines.begin(), lines.end());
    p.o.files.push_back(std::move(e));
  }
  p.o.lines = Count(p.lines);
}

// What erasure `seq` covers, recorded, with its counts (added to those
// recorded before: an erasure that came to cover more); in the caller's
// transaction.
void RecordPlan(Db& db, const Plan& p, std::int64_t seq) {
  db.Prepare(
        "UPDATE erasure SET lines = lines + ?2, events = events + ?3, entries = entries + ?4, "
        "planned = 1 WHERE seq = ?1")
      .Bind(1, seq)
      .Bind(2, Count(p.lines))
      .Bind(3, static_cast<std::int64_t>(p.event_seqs.size()))
      .Bind(4, static_cast<std::int64_t>(p.entry_seqs.size()))
      .Run();
  auto line = db.Prepare("INSERT INTO erased_line(file_id, line, erasure) VALUES (?,?,?)");
  for (const auto& [file, lines] : p.lines)
    for (std::int64_t l : lines) {
      line.Reset();
      line.Bind(1, file).Bind(2, l).Bind(3, seq).Run();
    }
  auto ev = db.Prepare("INSERT INTO erased_event(seq, erasure) VALUES (?,?)");
  for (std::int64_t s : p.event_seqs) {
    ev.Reset();
    ev.Bind(1, s).Bind(2, seq).Run();
  }
  auto en = db.Prepare("INSERT INTO erased_entry(seq, erasure) VALUES (?,?)");
  for (std::int64_t s : p.entry_seqs) {
    en.Reset();
    en.Bind(1, s).Bind(2, seq).Run();
  }
  for (const auto& [file, cursor] : p.cursors)
    KeepErasedLineCursor(db, file, cursor.first, cursor.second);
}

std::int64_t Record(Db& db, const Plan& p, const std::string& id, const EraseInput& in,
                    std::int64_t now) {
  Transaction tx(db);
  // The name this store keeps for what it writes (its forgets, entries).
  const std::string origin = in.origin.empty() ? "" : FixStoreName(db, in.origin);
  db.Prepare(
        "INSERT INTO erasure(id, forget, reason, author, created_at, lines, events, entries, "
        "origin) VALUES (?,?,?,?,?,0,0,0,NULLIF(?, ''))")
      .Bind(1, id)
      .Bind(2, in.forget)
      .Bind(3, in.reason)
      .Bind(4, in.author)
      .Bind(5, now)
      .Bind(6, origin)
      .Run();
  const std::int64_t seq = db.QueryInt("SELECT last_insert_rowid()");
  RecordPlan(db, p, seq);
  tx.Commit();
  return seq;
}

// A generated stream reads where to go on from its last line
// (SourceAdapter::Generate): when that line goes, what Generate read from
// it is kept first, without its text (SourceAdapter::CursorOf).
void KeepCursors(Db& db, MirrorStore& mirrors, const EraseInput& in, Plan& p) {
  if (!in.cursor_of) return;
  auto st = db.Prepare("SELECT source, key, lines_ingested FROM raw_file WHERE id = ?");
  for (const auto& [file, lines] : p.lines) {
    st.Reset();
    st.Bind(1, file);
    if (!st.Step() || lines.empty() || *lines.rbegin() != st.Int(2)) continue;
    std::optional<std::string> line = mirrors.ReadLine(db, file, st.Int(2));
    if (!line) continue;
    std::string cursor = in.cursor_of(std::string(st.Text(0)), std::string(st.Text(1)), *line);
    if (!cursor.empty()) p.cursors[file] = {st.Int(2), std::move(cursor)};
  }
}

void Audit(Db& db, std::int64_t at, const EraseInput& in, const EraseOutcome& o) {
  // Ids and counts only, as for forgets: never a reason or a text.
  AppendAudit(db, at, AuditActor(in.author, in.channel), in.channel, "erase",
              {{"erasure", *o.erasure},
               {"forget", o.forget},
               {"lines", o.lines},
               {"events", static_cast<std::int64_t>(o.events.size())},
               {"entries", static_cast<std::int64_t>(o.entries.size())}});
}

// Step 4: the texts, in one transaction; secure_delete zeroes what they
// leave in pages and freed pages.
void EraseTexts(Db& db, const Plan& p, std::int64_t erasure, const EraseInput& in,
                std::int64_t now) {
  Transaction tx(db);
  auto entry = db.Prepare("SELECT id, text FROM entry WHERE seq = ?");
  auto fts = db.Prepare("INSERT INTO entry_fts(entry_fts, rowid, text) VALUES ('delete', ?, ?)");
  // The row again, with its text as the entry now holds it (empty): the
  // index keeps one row per entry, as RepairEntryIndex checks.
  auto empty = db.Prepare("INSERT INTO entry_fts(rowid, text) VALUES (?, '')");
  auto clear = db.Prepare("UPDATE entry SET text = '' WHERE seq = ?");
  auto quotes = db.Prepare(
      "UPDATE entry_source SET quote = NULL WHERE entry_id = ? AND quote IS NOT NULL");
  auto answers = db.Prepare("DELETE FROM request_key WHERE instr(answer, ?) > 0");
  for (std::int64_t s : p.entry_seqs) {
    entry.Reset();
    entry.Bind(1, s);
    if (!entry.Step()) continue;
    const std::string id(entry.Text(0)), text(entry.Text(1));
    entry.Reset();
    if (!text.empty()) {
      // External content: FTS5 removes the tokens of the values it is given.
      fts.Reset();
      fts.Bind(1, s).Bind(2, text).Run();
      empty.Reset();
      empty.Bind(1, s).Run();
      clear.Reset();
      clear.Bind(1, s).Run();
    }
    quotes.Reset();
    quotes.Bind(1, id).Run();
    // The answer a remember or correct kept for its retries holds the text.
    answers.Reset();
    answers.Bind(1, id).Run();
  }
  if (!p.entry_seqs.empty()) db.Exec("INSERT INTO entry_fts(entry_fts) VALUES ('optimize')");
  db.Prepare(
        "UPDATE event SET text = '' WHERE text <> '' AND seq IN "
        "(SELECT seq FROM erased_event WHERE erasure = ?)")
      .Bind(1, erasure)
      .Run();
  // A title waiting for its leaf keeps its text apart from its event.
  db.Prepare(
        "DELETE FROM title_wait WHERE id IN (SELECT e.id FROM erased_event x JOIN event e ON "
        "e.seq = x.seq WHERE x.erasure = ?)")
      .Bind(1, erasure)
      .Run();
  db.Prepare(
        "UPDATE erasure SET done_at = ?2, frames = (SELECT count(*) FROM frame_erasure WHERE "
        "erasure = ?1) WHERE seq = ?1")
      .Bind(1, erasure)
      .Bind(2, now)
      .Run();
  // Done: logged once, so that it replicates (the hub's feed, a device's
  // push); what it came to cover later is each store's to erase.
  db.Prepare(
        "INSERT INTO change_log(kind, id, origin, at) SELECT 'erasure', x.id, x.origin, "
        "x.created_at FROM erasure x WHERE x.seq = ? AND x.origin IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM change_log c WHERE c.kind = 'erasure' AND c.id = x.id)")
      .Bind(1, erasure)
      .Run();
  Audit(db, now, in, p.o);
  tx.Commit();
}

// Step 1 of erasure `seq`, received from another store: plan `p`, made
// here, recorded.
void PlanReceived(Db& db, MirrorStore& mirrors, const EraseInput& in, Plan& p, std::int64_t seq) {
  KeepCursors(db, mirrors, in, p);
  Transaction tx(db);
  RecordPlan(db, p, seq);
  tx.Commit();
}

// Steps 2 to 5 of erasure `seq`, whose plan is recorded.
void CarryOut(Db& db, MirrorStore& mirrors, Plan& p, std::int64_t seq, const EraseInput& in,
              std::int64_t now, const EraseFromIndex& index) {
  for (const ErasedFile& f : p.o.files)  // step 2
    p.o.frames += mirrors.EraseLines(db, f.file_id, f.lines, seq, *p.o.erasure);
  if (index) index(p.event_seqs);  // step 3
  {
    SecureDelete secure(db);
    EraseTexts(db, p, seq, in, now);  // step 4
    // Step 5: every page rewritten from what is live, and the WAL, which
    // held the pages as they were, emptied.
    db.Exec("VACUUM");
    auto st = db.Prepare("PRAGMA wal_checkpoint(TRUNCATE)");
    // (busy, WAL frames, frames checkpointed): busy when a reader kept an
    // older snapshot past the busy timeout; the WAL then still holds pages.
    p.o.wal_truncated = st.Step() && st.Int(0) == 0;
  }
  p.o.frames = db.QueryInt("SELECT frames FROM erasure WHERE seq = " + std::to_string(seq));
}

}  // namespace

std::optional<ErasureRef> ErasureOf(Db& db, const std::string& forget) {
  auto st = db.Prepare(
      "SELECT id, created_at, done_at IS NOT NULL, seq, planned FROM erasure WHERE forget = ?");
  st.Bind(1, forget);
  if (!st.Step()) return std::nullopt;
  return ErasureRef{std::string(st.Text(0)), st.Int(1), st.Int(2) != 0, st.Int(3), st.Int(4) != 0};
}

bool AnyErased(Db& db) { return db.QueryInt("SELECT EXISTS (SELECT 1 FROM erased_event)") != 0; }

std::map<std::string, std::string> ErasedEventIds(Db& db, const std::vector<std::string>& ids) {
  std::map<std::string, std::string> out;
  auto st = db.Prepare(
      "SELECT r.id FROM event e JOIN erased_event x ON x.seq = e.seq JOIN erasure r ON "
      "r.seq = x.erasure WHERE e.id = ?");
  for (const std::string& id : ids) {
    st.Reset();
    st.Bind(1, id);
    if (st.Step()) out.emplace(id, std::string(st.Text(0)));
  }
  return out;
}

std::optional<std::string> ErasedLineCursor(Db& db, std::int64_t file_id, std::int64_t line) {
  auto st = db.Prepare("SELECT cursor FROM generated_cursor WHERE file_id = ? AND line = ?");
  st.Bind(1, file_id).Bind(2, line);
  if (!st.Step()) return std::nullopt;
  return std::string(st.Text(0));
}

void KeepErasedLineCursor(Db& db, std::int64_t file_id, std::int64_t line,
                          const std::string& cursor) {
  if (cursor.empty()) return;
  db.Prepare("INSERT OR REPLACE INTO generated_cursor(file_id, line, cursor) VALUES (?,?,?)")
      .Bind(1, file_id)
      .Bind(2, line)
      .Bind(3, cursor)
      .Run();
}

std::string WithFillers(std::string_view data, const std::vector<ErasedLine>& lines) {
  std::string out(data);
  for (const ErasedLine& l : lines) out.replace(l.offset, l.length, ErasedFiller(l.erasure, l.length));
  return out;
}

EraseOutcome Erase(Db& db, MirrorStore& mirrors, const Clock& clock, const EraseInput& in,
                   const EraseFromIndex& index) {
  if (in.reason.find_first_not_of(" \t\r\n") == std::string::npos)
    throw OpError(Code::kInvalidArgument, "a reason is required to erase");
  {
    auto st = db.Prepare("SELECT kind FROM tombstone WHERE id = ?");
    st.Bind(1, in.forget);
    if (!st.Step()) throw OpError(Code::kNotFound, "no forget " + in.forget);
    if (st.Text(0) != "forget")
      throw OpError(Code::kInvalidArgument,
                    in.forget + " is a restore: only what a forget in effect hides can be erased");
  }
  std::optional<ErasureRef> existing = ErasureOf(db, in.forget);
  if (existing && existing->done)
    throw OpError(Code::kConflict, in.forget + " is already erased (" + existing->id + ")");
  if (!existing) {
    // (One that exists keeps its forget in effect whatever restores it.)
    if (const std::set<std::string> by = RestoresOf(db, in.forget); !by.empty())
      throw OpError(Code::kConflict, in.forget + " was restored by " + *by.begin() +
                                         ": only what a forget in effect hides can be erased; "
                                         "forget it again, then erase that forget");
  }

  std::optional<std::int64_t> seq;
  bool planned = true;
  Plan p;
  if (existing) {
    // Stopped midway here, or received from another store and not run
    // yet (RunErasures runs it too): taken up under its id.
    seq = existing->seq;
    planned = existing->planned;
    p = planned ? RecordedPlan(db, *seq) : NewPlan(db, mirrors, in.forget);
    p.o.resumed = true;
    p.o.erasure = existing->id;
  } else {
    p = NewPlan(db, mirrors, in.forget);
  }
  p.o.forget = in.forget;
  Describe(db, p);
  if (in.dry_run) {
    if (!existing) p.o.erasure.reset();
    return p.o;
  }
  const std::int64_t now = clock.NowMs();
  if (!existing) {
    p.o.erasure = RandomId("ers_");
    KeepCursors(db, mirrors, in, p);
    seq = Record(db, p, *p.o.erasure, in, now);  // step 1
  } else if (!planned) {
    PlanReceived(db, mirrors, in, p, *seq);
  }
  CarryOut(db, mirrors, p, *seq, in, now, index);
  return p.o;
}

ErasureRuns RunErasures(Db& db, MirrorStore& mirrors, const Clock& clock, const EraseInput& how,
                        const EraseFromIndex& index) {
  ErasureRuns out;
  // Each once a call, from the oldest: each commits several transactions,
  // and one that fails does not keep the others waiting.
  auto next = db.Prepare(std::string(
      "SELECT x.seq, x.id, x.forget, x.reason, x.author, x.planned, x.done_at IS NOT NULL, "
      "x.created_at FROM "
      "erasure x JOIN tombstone t ON t.id = x.forget AND t.kind = 'forget' WHERE x.seq > ?1 AND "
      "(x.done_at IS NULL OR EXISTS (SELECT 1 FROM tombstone_effect te WHERE te.tombstone = "
      "x.forget AND (te.item_kind = 'event' AND EXISTS (SELECT 1 FROM event e WHERE e.id = "
      "te.item AND e.ts <= x.created_at + ?2 AND e.seq NOT IN (SELECT seq FROM erased_event)) "
      "OR te.item_kind = 'entry' AND EXISTS (SELECT 1 FROM entry e WHERE e.id = te.item AND "
      "e.created_at <= x.created_at + ?2 AND e.seq NOT IN (SELECT seq FROM erased_entry))))) "
      "ORDER BY x.seq LIMIT 1"));
  for (std::int64_t after = 0;;) {
    next.Reset();
    next.Bind(1, after).Bind(2, kClockSkewMs);
    if (!next.Step()) break;
    const std::int64_t seq = after = next.Int(0);
    const std::string id(next.Text(1));
    EraseInput in = how;
    in.forget = std::string(next.Text(2));
    in.reason = std::string(next.Text(3));
    in.author = std::string(next.Text(4));
    const bool planned = next.Int(5) != 0, done = next.Int(6) != 0;
    const std::int64_t upto = next.Int(7) + kClockSkewMs;
    next.Reset();
    try {
      Plan p;
      if (done) {
        // What the forget came to cover since: erased under the same
        // erasure, which is pending again until that is done.
        p = NewPlan(db, mirrors, in.forget, upto);
        KeepCursors(db, mirrors, in, p);
        Transaction tx(db);
        db.Prepare("UPDATE erasure SET done_at = NULL WHERE seq = ?").Bind(1, seq).Run();
        RecordPlan(db, p, seq);
        tx.Commit();
      } else if (planned) {
        p = RecordedPlan(db, seq);  // stopped midway (a crash, a full disk)
        p.o.resumed = true;
      } else {
        // Received from another store: step 1 here, what the forget
        // covers on this store, as the store that made it took (no bound).
        p = NewPlan(db, mirrors, in.forget);
        PlanReceived(db, mirrors, in, p, seq);
      }
      p.o.erasure = id;
      p.o.forget = in.forget;
      Describe(db, p);
      CarryOut(db, mirrors, p, seq, in, clock.NowMs(), index);
      out.done.push_back(std::move(p.o));
    } catch (const std::exception& e) {
      out.errors.push_back(id + " (" + in.forget + "): " + e.what());
    }
  }
  return out;
}

}  // namespace origin
