// SPDX-License-Identifier: MIT
#include "core/entries/entries.hpp"

#include <unistd.h>

#include <cmath>
#include <set>

#include "core/query/search.hpp"
#include "core/query/terms.hpp"
#include "core/store/audit.hpp"
#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "core/store/visible.hpp"
#include "core/util/hash.hpp"
#include "core/util/op_error.hpp"
#include "core/util/text.hpp"

namespace origin {

namespace {

using Code = OpError::Code;

[[noreturn]] void Invalid(const std::string& msg) { throw OpError(Code::kInvalidArgument, msg); }

std::string NewEntryId() { return RandomId("ent_"); }

// The text without whitespace, case folded as search folds it.
std::u32string Normalize(std::string_view s) {
  std::u32string out = FoldCase(s);
  std::erase_if(out, [](char32_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == 0xA0 ||
           c == 0x3000;
  });
  return out;
}

void CheckFields(const std::string& kind, const std::string& text, double confidence,
                 const std::optional<std::int64_t>& from, const std::optional<std::int64_t>& to) {
  if (kind.empty()) Invalid("an entry needs a kind: memory, knowledge or cognition");
  if (kind != "memory" && kind != "knowledge" && kind != "cognition")
    Invalid("kind must be memory, knowledge or cognition, not '" + kind + "'");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) Invalid("an entry needs a text");
  if (!(confidence >= 0 && confidence <= 1) || std::isnan(confidence))
    Invalid("confidence must be between 0 and 1");
  if (from && to && *from > *to) Invalid("valid_from is after valid_to");
}

// Adds `s` unless the list already cites its event.
void AddSource(std::vector<EntrySource>& list, const EntrySource& s) {
  for (const EntrySource& o : list)
    if (o.event_id == s.event_id) return;
  list.push_back(s);
}

// Resolves and checks sources: each cites an existing event, whose text
// holds the quote if one is given.
std::vector<EntrySource> CheckSources(Db& db, const std::vector<EntrySource>& in) {
  std::vector<EntrySource> out;
  for (const EntrySource& s : in) {
    if (!s.event_id) {
      if (s.quote) Invalid("the quote \"" + *s.quote + "\" was not resolved to an event");
      Invalid("a source needs an event id");
    }
    auto st = db.Prepare("SELECT text FROM event WHERE id = ?");
    st.Bind(1, *s.event_id);
    if (!st.Step()) {
      throw OpError(Code::kNotFound, "no event " + *s.event_id);
    }
    std::string text(st.Text(0));
    if (EventHidden(db, *s.event_id))
      throw OpError(Code::kForgotten, "event " + *s.event_id + " is forgotten and cannot be cited");
    if (s.quote) {
      if (Normalize(*s.quote).empty()) Invalid("an empty quote");
      if (!QuoteOccurs(text, *s.quote))
        Invalid("the quote \"" + *s.quote + "\" does not occur in " + *s.event_id);
    }
    AddSource(out, s);
  }
  return out;
}

void Insert(Db& db, const std::string& id, const std::string& kind, const std::string& text,
            double confidence, const std::string& author, const std::optional<std::string>& project,
            const std::optional<std::string>& supersedes, const std::string& root,
            const std::optional<std::int64_t>& from, const std::optional<std::int64_t>& to,
            std::int64_t created_at, const std::string& origin,
            const std::vector<EntrySource>& sources, bool index = true) {
  auto ins = db.Prepare(
      "INSERT INTO entry(id, kind, text, confidence, author, project, supersedes, root, "
      "valid_from, valid_to, created_at, origin) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  ins.Bind(1, id).Bind(2, kind).Bind(3, text).Bind(4, confidence).Bind(5, author).Bind(6, project);
  ins.Bind(7, supersedes).Bind(8, root);
  if (from)
    ins.Bind(9, *from);
  else
    ins.Bind(9, nullptr);
  if (to)
    ins.Bind(10, *to);
  else
    ins.Bind(10, nullptr);
  ins.Bind(11, created_at).Bind(12, origin).Run();
  // Its search index (kEntryFtsInsertVersion), unless the caller indexes
  // a batch of entries at once (IndexEntriesAfter).
  if (index)
    db.Prepare("INSERT INTO entry_fts(rowid, text) VALUES (?, ?)")
        .Bind(1, db.LastInsertRowid())
        .Bind(2, text)
        .Run();
  auto src = db.Prepare("INSERT INTO entry_source(entry_id, event_id, quote) VALUES (?,?,?)");
  for (const EntrySource& s : sources) {
    src.Reset();
    src.Bind(1, id).Bind(2, *s.event_id).Bind(3, s.quote).Run();
  }
}

// The columns ReadRow reads, each after `prefix` (a table alias).
std::string EntryCols(const char* prefix) {
  std::string out;
  for (std::string_view c : {"id", "kind", "text", "confidence", "author", "project", "supersedes",
                             "root", "valid_from", "valid_to", "created_at", "origin"}) {
    if (!out.empty()) out += ", ";
    out += prefix;
    out += c;
  }
  return out;
}

EntryRow ReadRow(const Stmt& st) {
  EntryRow e;
  e.id = std::string(st.Text(0));
  e.kind = std::string(st.Text(1));
  e.text = std::string(st.Text(2));
  e.confidence = st.Double(3);
  e.author = std::string(st.Text(4));
  e.project = st.OptText(5);
  e.supersedes = st.OptText(6);
  e.root = std::string(st.Text(7));
  if (!st.IsNull(8)) e.valid_from = st.Int(8);
  if (!st.IsNull(9)) e.valid_to = st.Int(9);
  e.created_at = st.Int(10);
  e.origin = std::string(st.Text(11));
  return e;
}

void Derive(Db& db, EntryRow& e, std::int64_t now_ms) {
  auto src = db.Prepare(
      "SELECT event_id, quote FROM entry_source WHERE entry_id = ? AND event_id NOT IN "
      "(SELECT event_id FROM excluded_event) ORDER BY rowid");
  src.Bind(1, e.id);
  while (src.Step()) e.sources.push_back({std::string(src.Text(0)), src.OptText(1)});
  std::string current = CurrentVersion(db, e.root);
  e.status = current == e.id ? "active" : "superseded";
  if (current != e.id) {
    e.superseded_by = current;
    auto by = db.Prepare("SELECT 1 FROM entry WHERE supersedes = ? LIMIT 1");
    by.Bind(1, e.id);
    e.concurrent = !by.Step();
  }
  e.ended = e.valid_to && *e.valid_to <= now_ms;
  auto imp = db.Prepare("SELECT 1 FROM imported_entry WHERE entry_id = ?");
  imp.Bind(1, e.id);
  e.imported = imp.Step();
}

}  // namespace

void ResolveQuotes(Db& db, std::vector<EntrySource>& sources) {
  for (EntrySource& s : sources) {
    if (s.event_id || !s.quote) continue;
    if (Normalize(*s.quote).empty()) Invalid("an empty quote");
    for (const char* kind : {"message", "tool_result"}) {
      EventQuery q;
      q.query = *s.quote;
      q.kind = kind;
      q.recent = true;  // most recent by timestamp
      q.limit = kScanLimit;
      for (const EventHit& h : SearchEvents(db, q)) {
        if (QuoteOccurs(h.event.text, *s.quote)) {
          s.event_id = h.event.id;
          break;
        }
      }
      if (s.event_id) break;
    }
    if (!s.event_id)
      throw OpError(Code::kNotFound, "no message or tool result holds the quote \"" + *s.quote +
                                         "\"; cite the event id instead");
  }
}

std::string FixStoreName(Db& db, const std::string& name) {
  // A store keeps the name it had when it first wrote an entry or a tombstone.
  db.Prepare("INSERT OR IGNORE INTO setting(key, value) VALUES ('store.name', ?)")
      .Bind(1, name)
      .Run();
  return GetSetting(db, "store.name").value_or(name);
}

std::string StoreNameOf(Db& db) {
  if (std::optional<std::string> fixed = GetSetting(db, "store.name")) return *fixed;
  if (const char* d = std::getenv("ORIGIN_DEVICE"); d != nullptr && *d != '\0') return d;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') return host;
  return "device";
}

std::string CurrentVersion(Db& db, const std::string& root) {
  auto st =
      db.Prepare("SELECT id FROM entry WHERE root = ? ORDER BY created_at DESC, id DESC LIMIT 1");
  st.Bind(1, root);
  std::string id = st.Step() ? std::string(st.Text(0)) : "";
  return id;
}

bool QuoteOccurs(std::string_view text, std::string_view quote) {
  std::u32string q = Normalize(quote);
  return !q.empty() && Normalize(text).find(q) != std::u32string::npos;
}

namespace {

// The conditions of a listing on `e` (entry): current and unended unless
// history is asked for, and the filter's kind and project.  Binds from `i`.
std::string VisibleWhere(const EntryFilter& f) {
  std::string sql = " AND " + VisibleEntrySql("e.id");  // invariant 2
  if (!f.history) {
    // The current version of its chain, and not ended.
    sql +=
        " AND NOT EXISTS (SELECT 1 FROM entry o WHERE o.root = e.root AND "
        "(o.created_at > e.created_at OR (o.created_at = e.created_at AND o.id > e.id)))"
        " AND (e.valid_to IS NULL OR e.valid_to > ?)";
  }
  if (f.kind) sql += " AND e.kind = ?";
  if (f.project) sql += " AND e.project = ?";
  return sql;
}

int BindVisible(Stmt& st, int i, const EntryFilter& f, std::int64_t now_ms) {
  if (!f.history) st.Bind(i++, now_ms);
  if (f.kind) st.Bind(i++, *f.kind);
  if (f.project) st.Bind(i++, *f.project);
  return i;
}

// A current entry (visible, the current version of its chain, not ended at
// `now_ms`) with this text, kind and project that cites exactly the events
// of `sources`; "" when there is none.  Candidates are found through the
// first source's event (entry_source_event), so the entries are not read.
std::string FindCurrentTwin(Db& db, const std::string& text, const std::string& kind,
                            const std::optional<std::string>& project,
                            const std::vector<EntrySource>& sources, std::int64_t now_ms) {
  std::set<std::string> want;
  for (const EntrySource& s : sources) want.insert(*s.event_id);
  auto st = db.Prepare(
      "SELECT e.id FROM entry_source s JOIN entry e ON e.id = s.entry_id "
      "WHERE s.event_id = ? AND e.text = ? AND e.kind = ? AND e.project IS ?" +
      VisibleWhere(EntryFilter{}) + " ORDER BY e.created_at, e.id");
  st.Bind(1, *sources.front().event_id).Bind(2, text).Bind(3, kind).Bind(4, project);
  BindVisible(st, 5, EntryFilter{}, now_ms);
  std::vector<std::string> candidates;
  while (st.Step()) candidates.emplace_back(st.Text(0));
  for (const std::string& id : candidates) {
    std::set<std::string> cited;
    auto src = db.Prepare("SELECT event_id FROM entry_source WHERE entry_id = ?");
    src.Bind(1, id);
    while (src.Step()) cited.emplace(src.Text(0));
    if (cited == want) return id;
  }
  return "";
}

}  // namespace

RememberResult Remember(Db& db, const Clock& clock, const std::string& store_name,
                        const RememberInput& in) {
  CheckFields(in.kind, in.text, in.confidence, in.valid_from, in.valid_to);
  if (in.author.empty()) Invalid("an entry needs an author");
  if (in.sources.empty())
    Invalid("an entry needs at least one source (invariant 1): cite an event or quote one");
  Transaction tx(db);
  std::vector<EntrySource> sources = CheckSources(db, in.sources);
  std::string text = SanitizeUtf8(in.text);
  const std::int64_t now = clock.NowMs();
  // Without a project of its own, the entry belongs to the project of the
  // first event it cites that has one.
  std::optional<std::string> project = in.project;
  for (std::size_t i = 0; !project && i < sources.size(); ++i)
    if (auto ev = GetEvent(db, *sources[i].event_id)) project = ev->project;
  if (std::string twin = FindCurrentTwin(db, text, in.kind, project, sources, now); !twin.empty()) {
    tx.Commit();
    return {twin, true};
  }
  std::string origin = FixStoreName(db, store_name);
  std::string id = NewEntryId();
  Insert(db, id, in.kind, text, in.confidence, in.author, project, std::nullopt, id, in.valid_from,
         in.valid_to, now, origin, sources);
  AuditUiWrite(db, now, in.author, in.channel, "remember",
               {{"entry", id}, {"sources", static_cast<std::int64_t>(sources.size())}});
  tx.Commit();
  return {id, false};
}

std::string Correct(Db& db, const Clock& clock, const std::string& store_name,
                    const std::string& id, const CorrectInput& in) {
  if (in.author.empty()) Invalid("a correction needs an author");
  Transaction tx(db);
  std::optional<EntryRow> found = LoadVersion(db, id);
  if (!found) throw OpError(Code::kNotFound, "no entry " + id);
  const EntryRow& old = *found;
  if (EntryHidden(db, id)) throw OpError(Code::kForgotten, "entry " + id + " is forgotten");
  std::string current = CurrentVersion(db, old.root);
  if (current != id)
    throw OpError(Code::kConflict,
                  id + " is not the current version of its entry: correct " + current);
  EntryRow next = old;
  if (in.kind) next.kind = *in.kind;
  if (in.text) next.text = SanitizeUtf8(*in.text);
  if (in.confidence) next.confidence = *in.confidence;
  if (in.project) next.project = in.project->empty() ? std::nullopt : in.project;
  if (in.valid_from) next.valid_from = in.valid_from;
  if (in.valid_to) next.valid_to = in.valid_to;
  CheckFields(next.kind, next.text, next.confidence, next.valid_from, next.valid_to);
  // Sources carry over; new ones are added.
  std::vector<EntrySource> sources;
  {
    auto src =
        db.Prepare("SELECT event_id, quote FROM entry_source WHERE entry_id = ? ORDER BY rowid");
    src.Bind(1, id);
    while (src.Step()) sources.push_back({std::string(src.Text(0)), src.OptText(1)});
  }
  const std::size_t carried = sources.size();
  for (const EntrySource& s : CheckSources(db, in.add_sources)) AddSource(sources, s);
  // A version the same as the current one would say nothing new.
  if (sources.size() == carried && next.kind == old.kind && next.text == old.text &&
      next.confidence == old.confidence && next.project == old.project &&
      next.valid_from == old.valid_from && next.valid_to == old.valid_to)
    Invalid("the correction changes nothing of " + id +
            ": give a new text, kind, confidence, project or validity, or an event it does not "
            "cite yet (one it cites keeps its quote)");
  std::string origin = FixStoreName(db, store_name);
  std::string new_id = NewEntryId();
  // Always dated after what it corrects, even with a clock that is behind.
  std::int64_t created = std::max(clock.NowMs(), old.created_at + 1);
  Insert(db, new_id, next.kind, next.text, next.confidence, in.author, next.project, id, old.root,
         next.valid_from, next.valid_to, created, origin, sources);
  AuditUiWrite(db, created, in.author, in.channel, "correct",
               {{"entry", new_id},
                {"supersedes", id},
                {"sources", static_cast<std::int64_t>(sources.size())}});
  tx.Commit();
  return new_id;
}

void CheckEntryFields(const EntryRow& e) {
  CheckFields(e.kind, e.text, e.confidence, e.valid_from, e.valid_to);
}

void InsertVersion(Db& db, const EntryRow& e, bool index) {
  Insert(db, e.id, e.kind, e.text, e.confidence, e.author, e.project, e.supersedes, e.root,
         e.valid_from, e.valid_to, e.created_at, e.origin, e.sources, index);
}

std::int64_t LastEntrySeq(Db& db) { return db.QueryInt("SELECT coalesce(max(seq), 0) FROM entry"); }

void IndexEntriesAfter(Db& db, std::int64_t after) {
  db.Prepare("INSERT INTO entry_fts(rowid, text) SELECT seq, text FROM entry WHERE seq > ?")
      .Bind(1, after)
      .Run();
}

std::optional<EntryRow> LoadVersion(Db& db, const std::string& id) {
  auto st = db.Prepare("SELECT " + EntryCols("") + " FROM entry WHERE id = ?");
  st.Bind(1, id);
  std::optional<EntryRow> out;
  if (st.Step()) out = ReadRow(st);
  return out;
}

std::optional<EntryRow> GetEntry(Db& db, const std::string& id, std::int64_t now_ms) {
  std::optional<EntryRow> out = LoadVersion(db, id);
  if (out && EntryHidden(db, id)) throw OpError(Code::kForgotten, "entry " + id + " is forgotten");
  if (out) Derive(db, *out, now_ms);
  return out;
}

std::vector<EntryRow> EntryHistory(Db& db, const std::string& root, std::int64_t now_ms) {
  if (EntryHidden(db, root)) throw OpError(Code::kForgotten, "entry " + root + " is forgotten");
  auto st =
      db.Prepare("SELECT " + EntryCols("") + " FROM entry WHERE root = ? ORDER BY created_at, id");
  st.Bind(1, root);
  std::vector<EntryRow> out;
  while (st.Step()) out.push_back(ReadRow(st));
  for (EntryRow& e : out) Derive(db, e, now_ms);
  return out;
}

std::vector<EntryRow> ListEntries(Db& db, const EntryFilter& f, std::int64_t now_ms) {
  auto st = db.Prepare("SELECT " + EntryCols("e.") + " FROM entry e WHERE 1" + VisibleWhere(f) +
                        " ORDER BY e.created_at DESC, e.seq DESC LIMIT ?");
  st.Bind(BindVisible(st, 1, f, now_ms), f.limit);
  std::vector<EntryRow> out;
  while (st.Step()) out.push_back(ReadRow(st));
  for (EntryRow& e : out) Derive(db, e, now_ms);
  return out;
}

std::vector<EntryHit> SearchEntries(Db& db, std::string_view query, const EntryFilter& f,
                                    std::int64_t now_ms) {
  std::vector<Term> terms = ParseTerms(query);
  std::vector<EntryHit> out;
  if (terms.empty()) {
    for (EntryRow& e : ListEntries(db, f, now_ms)) out.push_back({std::move(e), ""});
    for (EntryHit& h : out) h.snippet = Snippet(h.entry.text, {});
    return out;
  }
  std::string match = TrigramMatch(terms);
  std::string sql;
  if (!match.empty()) {
    // Ranked by BM25 (lower is better in FTS5), ties newest first.
    sql = "SELECT " + EntryCols("e.") +
          " FROM entry_fts JOIN entry e ON e.seq = entry_fts.rowid WHERE entry_fts MATCH ?" +
          VisibleWhere(f) + " ORDER BY bm25(entry_fts), e.created_at DESC, e.seq DESC";
  } else {
    // Only short terms: entries are few, their text is read, newest first.
    sql = "SELECT " + EntryCols("e.") + " FROM entry e WHERE 1" + VisibleWhere(f) +
          " ORDER BY e.created_at DESC, e.seq DESC";
  }
  auto st = db.Prepare(sql);
  int i = 1;
  if (!match.empty()) st.Bind(i++, match);
  BindVisible(st, i, f, now_ms);
  while (static_cast<int>(out.size()) < f.limit && st.Step()) {
    EntryRow e = ReadRow(st);
    if (!MatchesAll(e.text, terms)) continue;
    out.push_back({std::move(e), ""});
  }
  for (EntryHit& h : out) {
    Derive(db, h.entry, now_ms);
    h.snippet = Snippet(h.entry.text, terms, 200, &h.marks);
  }
  return out;
}

std::string RepairEntryIndex(Db& db) {
  try {
    // With rank 1, against the entries too (external content): without it,
    // FTS5 checks only that the index is consistent with itself, and an
    // entry missing from it (or one it holds with other words) passes.
    db.Exec("INSERT INTO entry_fts(entry_fts, rank) VALUES ('integrity-check', 1)");
    return "";
  } catch (const SqliteError& e) {
    if (!IsCorruption(e)) throw;  // busy, a full disk: no verdict
    std::string what = e.what();
    Transaction tx(db);
    try {
      db.Exec("INSERT INTO entry_fts(entry_fts) VALUES ('rebuild')");
    } catch (const SqliteError& again) {
      if (!IsCorruption(again)) throw;
      // Too damaged to be opened ("vtable constructor failed"): dropped,
      // made again as migration 5 makes it, and filled from the entries.
      DropFts5Table(db, "entry_fts");
      db.Exec(kEntryFtsSql);
      db.Exec("INSERT INTO entry_fts(entry_fts) VALUES ('rebuild')");
    }
    tx.Commit();
    return what;
  }
}

}  // namespace origin
