// SPDX-License-Identifier: MIT
#include "daemon/hub/changes.hpp"

#include <algorithm>

#include "core/entries/entries.hpp"
#include "core/forget/replica.hpp"
#include "daemon/hub/wire.hpp"
#include "daemon/rpc_json.hpp"
#include "daemon/workers.hpp"

namespace origin::hub {

namespace {

void MakeEntries(DbWorkers* readers, const Http& http, const std::string& store, ChangeRun& run) {
  std::vector<EntryRow> rows = OnDb(readers, [&run](Db& db) {
    std::vector<EntryRow> out;
    for (const OwnChange& c : run.changes)
      if (std::optional<EntryRow> e = LoadEntryToSend(db, c.id)) out.push_back(std::move(*e));
    return out;
  });
  if (rows.size() != run.changes.size()) throw Stopped("an entry to send could not be read");
  run.body = http.Encode(rpc::Json([&](rpc::Writer& w) {
    w.StartObject();
    w.Key("device");
    w.String(store);
    w.Key("entries");
    w.StartArray();
    for (const EntryRow& e : rows) hub_wire::WriteEntry(w, e);
    w.EndArray();
    w.EndObject();
  }));
}

// A run of tombstones, of erasures (each after its forget, which
// change_log holds before it), or of reports of forgets made elsewhere.
void MakeTombstones(DbWorkers* readers, const Http& http, const std::string& store,
                    ChangeRun& run) {
  std::vector<ReplicaTombstone> rows;
  std::vector<ReplicaErasure> erasures;
  std::vector<CoverageReport> reports;
  OnDb(readers, [&run, &rows, &erasures, &reports](Db& db) {
    for (const OwnChange& c : run.changes)
      if (c.kind == OwnChange::Kind::kErasure) {
        if (std::optional<ReplicaErasure> e = LoadErasure(db, c.id))
          erasures.push_back(std::move(*e));
      } else if (c.kind == OwnChange::Kind::kReport) {
        // Once a forget; what it covers may have been listed since the
        // scan: then nothing to say.
        if (std::any_of(reports.begin(), reports.end(),
                        [&c](const CoverageReport& r) { return r.forget == c.id; }))
          continue;
        if (std::optional<CoverageReport> r = LoadCoverageReport(db, c.id))
          reports.push_back(std::move(*r));
      } else if (std::optional<ReplicaTombstone> t = LoadTombstone(db, c.id)) {
        rows.push_back(std::move(*t));
      }
  });
  if (rows.empty() && erasures.empty() && reports.empty()) return;
  run.records = static_cast<std::int64_t>(rows.size() + erasures.size());
  run.reports = static_cast<std::int64_t>(reports.size());
  run.body = http.Encode(rpc::Json([&](rpc::Writer& w) {
    w.StartObject();
    w.Key("device");
    w.String(store);
    w.Key("tombstones");
    w.StartArray();
    for (const ReplicaTombstone& t : rows) hub_wire::WriteTombstone(w, t);
    w.EndArray();
    if (!erasures.empty()) hub_wire::WriteErasures(w, erasures);
    if (!reports.empty()) hub_wire::WriteReports(w, reports);
    w.EndObject();
  }));
}

}  // namespace

ChangeBatch ReadChanges(DbWorkers* readers, const Http& http, const std::string& store,
                        std::int64_t after, bool entries, const std::atomic<bool>& stop) {
  ChangeBatch b;
  b.through = after;
  const std::vector<OwnChange> changes = OnDb(readers, [&store, after, &b](Db& db) {
    return OwnChangesAfter(db, store, after, kMaxPushRecords, &b.through);
  });
  for (std::size_t i = 0; i < changes.size() && !stop;) {
    std::size_t end = i;
    while (end < changes.size() && changes[end].kind == changes[i].kind) ++end;
    ChangeRun run;
    run.entries = changes[i].kind == OwnChange::Kind::kEntry;
    run.changes.assign(changes.begin() + static_cast<std::ptrdiff_t>(i),
                       changes.begin() + static_cast<std::ptrdiff_t>(end));
    i = end;
    if (!run.entries)
      MakeTombstones(readers, http, store, run);
    else if (entries)
      MakeEntries(readers, http, store, run);
    b.runs.push_back(std::move(run));
  }
  return b;
}

}  // namespace origin::hub
