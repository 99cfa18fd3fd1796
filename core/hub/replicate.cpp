// SPDX-License-Identifier: MIT
#include "core/hub/replicate.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "core/forget/forget.hpp"
#include "core/forget/replica.hpp"
#include "core/ingest/ingester.hpp"
#include "core/util/hash.hpp"
#include "core/util/op_error.hpp"

namespace origin {

std::vector<DeviceSummary> DeviceSummaries(Db& db) {
  // A device's keys are "@<device>:<key>" (RemoteKey; no name holds ':'),
  // all between '@' and 'A'; the files a store holds are thousands, read
  // whole.  A token of the name, active or every one revoked, beside.
  auto st = db.Prepare(
      "SELECT d.name, d.files, d.bytes, d.lines, d.errors, d.grown, "
      "(SELECT CASE max(t.revoked_at IS NULL) WHEN 1 THEN 'active' WHEN 0 THEN 'revoked' "
      "ELSE '' END FROM api_token t WHERE t.name = d.name) "
      "FROM (SELECT substr(key, 2, instr(key, ':') - 2) AS name, "
      "count(DISTINCT source || ' ' || key) AS files, sum(bytes_ingested) AS bytes, "
      "sum(lines_ingested) AS lines, sum(parse_errors) AS errors, max(grown_at) AS grown "
      "FROM raw_file WHERE key >= '@' AND key < 'A' AND instr(key, ':') > 2 GROUP BY 1) d "
      "ORDER BY d.name");
  std::vector<DeviceSummary> out;
  while (st.Step()) {
    DeviceSummary d;
    d.name = std::string(st.Text(0));
    d.files = st.Int(1);
    d.bytes = st.Int(2);
    d.lines = st.Int(3);
    d.parse_errors = st.Int(4);
    if (!st.IsNull(5)) d.last_received_ms = st.Int(5);
    d.token = std::string(st.Text(6));
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<RemoteCursor> DeviceCursors(Db& db, std::string_view device) {
  // The keys "@<device>:..." sort between "@<device>:" and "@<device>;"
  // (';' follows ':'), a range of raw_file's (source, key, generation)
  // index for each source.
  const std::string from = RemoteKey(device, "");
  const std::string to = from.substr(0, from.size() - 1) + ";";
  auto st = db.Prepare(
      "SELECT r.source, substr(r.key, ?3), r.path, r.generation, r.bytes_ingested, "
      "r.lines_ingested FROM (SELECT DISTINCT source FROM raw_file) s "
      "JOIN raw_file r ON r.source = s.source AND r.key >= ?1 AND r.key < ?2 "
      "ORDER BY r.source, r.key, r.generation");
  st.Bind(1, from).Bind(2, to).Bind(3, static_cast<std::int64_t>(from.size()) + 1);
  std::vector<RemoteCursor> out;
  while (st.Step()) {
    RemoteCursor c;
    c.source = std::string(st.Text(0));
    c.rel_path = std::string(st.Text(1));
    c.path = std::string(st.Text(2));
    c.generation = st.Int(3);
    c.bytes = st.Int(4);
    c.lines = st.Int(5);
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

using Code = OpError::Code;

// Whether two versions say the same: every field a device sends.
// The same version.  One an erasure took on either side (its text and
// quotes gone there; no version has an empty text otherwise, and a store
// may keep one it received erased before the erasure) is the same without
// them: a store that erased it sends it without, one that has not heard of
// the erasure yet with them.
bool SameBody(const EntryRow& a, const EntryRow& b) {
  const bool erased = a.erased || b.erased || a.text.empty() || b.text.empty();
  auto sources = [erased](const EntryRow& e) {
    std::set<std::pair<std::string, std::string>> out;
    for (const EntrySource& s : e.sources)
      out.insert({s.event_id.value_or(""), erased ? "" : s.quote.value_or("")});
    return out;
  };
  return a.kind == b.kind && (erased || a.text == b.text) && a.confidence == b.confidence &&
         a.author == b.author && a.project == b.project && a.supersedes == b.supersedes &&
         a.valid_from == b.valid_from && a.valid_to == b.valid_to && a.created_at == b.created_at &&
         a.origin == b.origin && sources(a) == sources(b);
}

void Check(const EntryRow& e, std::string_view device) {
  if (!IdShaped(e.id, "ent_"))
    throw OpError(Code::kInvalidArgument, "an entry's id is ent_ and letters or digits: " + e.id);
  if (e.origin != device)
    throw OpError(Code::kInvalidArgument,
                  "entry " + e.id + " was written by " + e.origin + ", not by " + std::string(device));
  if (e.author.empty() || e.author.size() > 200)
    throw OpError(Code::kInvalidArgument, "entry " + e.id + " needs an author");
  if (e.supersedes && !IdShaped(*e.supersedes, "ent_"))
    throw OpError(Code::kInvalidArgument, "entry " + e.id + " supersedes no entry's id");
  if (e.sources.empty())  // invariant 1
    throw OpError(Code::kInvalidArgument, "entry " + e.id + " cites no event (invariant 1)");
  for (const EntrySource& s : e.sources)
    if (!s.event_id || s.event_id->empty() || s.event_id->size() > 512)
      throw OpError(Code::kInvalidArgument, "entry " + e.id + " cites a source without an event id");
  if (e.erased && (!IdShaped(*e.erased, "ers_", 64) || !e.text.empty()))
    throw OpError(Code::kInvalidArgument,
                  "entry " + e.id + ": an erased version has no text, and its erasure's id");
  try {
    EntryRow fields = e;
    if (e.erased) fields.text = "(erased)";  // its other fields are checked as any version's
    CheckEntryFields(fields);
  } catch (const OpError& x) {
    throw OpError(Code::kInvalidArgument, "entry " + e.id + ": " + x.what());
  }
}

}  // namespace

PushedEntries ApplyPushedEntries(Db& db, std::string_view device,
                                 const std::vector<EntryRow>& entries) {
  if (entries.size() > kMaxPushRecords)
    throw OpError(Code::kInvalidArgument, "at most 1000 entries a request");
  for (const EntryRow& e : entries) Check(e, device);
  PushedEntries out;
  Transaction tx(db);
  // Their search index is written once they are all in: one segment.
  const std::int64_t before = LastEntrySeq(db);
  for (const EntryRow& pushed : entries) {
    if (std::optional<EntryRow> held = LoadEntryToSend(db, pushed.id)) {
      if (!SameBody(*held, pushed))
        throw OpError(Code::kConflict, "entry " + pushed.id + " is here with another body");
      ++out.applied;
      continue;
    }
    // What it needs here first: its events (invariant 1) and the version it
    // supersedes.  The device pushes its mirrors before its entries, so
    // they are missing only when a push is under way.
    std::vector<std::string> missing;
    auto ev = db.Prepare("SELECT 1 FROM event WHERE id = ?");
    for (const EntrySource& s : pushed.sources) {
      ev.Reset();
      ev.Bind(1, *s.event_id);
      if (!ev.Step()) missing.push_back(*s.event_id);
    }
    EntryRow e = pushed;
    e.root = e.id;
    if (e.supersedes) {
      if (std::optional<EntryRow> prev = LoadVersion(db, *e.supersedes))
        e.root = prev->root;
      else
        missing.push_back(*e.supersedes);
    }
    // A version sent erased waits for its erasure, which the device's
    // tombstones bring (or the hub made): none is taken on its word.
    if (e.erased && !db.Prepare("SELECT 1 FROM erasure WHERE id = ?").Bind(1, *e.erased).Step())
      missing.push_back(*e.erased);
    if (!missing.empty()) {
      out.pending = PushedEntries::Pending{e.id, std::move(missing)};
      break;
    }
    if (e.erased)  // without its quotes; its erasure's, when that is here
      for (EntrySource& s : e.sources) s.quote.reset();
    InsertVersion(db, e, false);
    CoverArrival(db, e.id);  // hidden on arrival when forgotten here (invariant 2)
    // Taken by that erasure here when its forget covers it here.
    if (e.erased)
      db.Prepare(
            "INSERT OR IGNORE INTO erased_entry(seq, erasure) SELECT e.seq, r.seq FROM entry e, "
            "erasure r WHERE e.id = ?1 AND r.id = ?2 AND EXISTS (SELECT 1 FROM tombstone_effect "
            "te WHERE te.tombstone = r.forget AND te.item = e.id)")
          .Bind(1, e.id)
          .Bind(2, *e.erased)
          .Run();
    ++out.applied;
  }
  IndexEntriesAfter(db, before);
  tx.Commit();
  return out;
}

std::optional<EntryRow> LoadEntryToSend(Db& db, const std::string& id) {
  std::optional<EntryRow> e = LoadVersion(db, id);
  if (!e) return e;
  // Its sources as stored, hidden ones included (LoadVersion has none).
  auto src = db.Prepare("SELECT event_id, quote FROM entry_source WHERE entry_id = ?");
  src.Bind(1, id);
  while (src.Step()) e->sources.push_back({std::string(src.Text(0)), src.OptText(1)});
  auto erased = db.Prepare(
      "SELECT r.id FROM entry e JOIN erased_entry x ON x.seq = e.seq JOIN erasure r ON r.seq = "
      "x.erasure WHERE e.id = ?");
  erased.Bind(1, id);
  if (erased.Step()) e->erased = std::string(erased.Text(0));
  return e;
}

std::vector<LocalMirror> LocalMirrors(Db& db) {
  auto st = db.Prepare(
      "SELECT id, source, key, path, generation, bytes_ingested, "
      "coalesce(file_mtime_ns / 1000000, grown_at, created_at) FROM raw_file "
      "WHERE substr(key, 1, 1) != '@' AND bytes_ingested > 0 "
      "ORDER BY coalesce(grown_at, created_at), id");
  std::vector<LocalMirror> out;
  while (st.Step()) {
    LocalMirror m;
    m.file_id = st.Int(0);
    m.source = std::string(st.Text(1));
    m.rel_path = std::string(st.Text(2));
    m.path = std::string(st.Text(3));
    m.generation = st.Int(4);
    m.bytes = st.Int(5);
    m.mtime_ms = st.Int(6);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<OwnChange> OwnChangesAfter(Db& db, std::string_view store, std::int64_t after,
                                       std::size_t limit, std::int64_t* through) {
  // Read first: one writer, so every row up to it is committed, and a row
  // logged after has a larger seq.
  const std::int64_t last = db.QueryInt("SELECT coalesce(max(seq), 0) FROM change_log");
  // A forget another store made, logged here (received, or what it covers
  // here changed), when it covers here what the hub has not listed.
  auto st = db.Prepare(
      "SELECT c.seq, CASE WHEN c.origin = ?2 THEN c.kind ELSE 'report' END, c.id FROM "
      "change_log c WHERE c.seq > ?1 AND c.seq <= ?4 AND ((c.origin = ?2 AND (c.kind <> 'entry' OR "
      "(NOT EXISTS "
      "(SELECT 1 FROM forgotten_entry f WHERE f.entry_id = c.id) AND NOT EXISTS (SELECT 1 FROM "
      "imported_entry i WHERE i.entry_id = c.id)))) OR (c.kind = 'tombstone' AND c.origin <> ?2 "
      "AND EXISTS (SELECT 1 FROM tombstone t, tombstone_effect d WHERE t.id = c.id AND " +
      UnlistedCoverage() + "))) ORDER BY c.seq LIMIT ?3");
  st.Bind(1, after)
      .Bind(2, std::string(store))
      .Bind(3, static_cast<std::int64_t>(limit))
      .Bind(4, last);
  std::vector<OwnChange> out;
  while (st.Step()) {
    const std::string_view kind = st.Text(1);
    out.push_back({st.Int(0),
                   kind == "entry"       ? OwnChange::Kind::kEntry
                   : kind == "tombstone" ? OwnChange::Kind::kTombstone
                   : kind == "erasure"   ? OwnChange::Kind::kErasure
                                         : OwnChange::Kind::kReport,
                   std::string(st.Text(2))});
  }
  if (through != nullptr) *through = out.size() >= limit ? out.back().seq : std::max(after, last);
  return out;
}

}  // namespace origin
