// SPDX-License-Identifier: MIT
#include "core/ingest/memories.hpp"

#include <algorithm>

#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/util/hash.hpp"

namespace origin {

std::string MemoryEntryId(const std::string& event_id) {
  return "ent_" + Sha256Hex(event_id).substr(0, 24);
}

void DeriveMemory(Db& db, const std::string& source, const std::string& store_name,
                  const std::string& event_id, const std::string& prev_event_id,
                  const ParsedMemory& memory) {
  const std::string id = MemoryEntryId(event_id);
  if (LoadVersion(db, id)) return;  // derived before (the line was ingested again)
  // The version derived from the file's previous line, if it derived one.
  std::optional<EntryRow> prev;
  if (!prev_event_id.empty()) prev = LoadVersion(db, MemoryEntryId(prev_event_id));
  // A deletion, or a version with no memory, ends the entry; with nothing
  // to end it derives nothing.
  const bool ends = memory.deleted || !memory.memory;
  if (ends && (!prev || prev->valid_to)) return;
  EntryRow v;
  v.id = id;
  v.author = source + "@" + store_name;
  v.origin = store_name;
  v.sources.push_back({event_id, std::nullopt});  // invariant 1
  if (ends) {
    // Its last version again, ended at the deletion's time.
    v.kind = prev->kind;
    v.text = prev->text;
    v.confidence = prev->confidence;
    v.project = prev->project;
    v.valid_from = prev->valid_from;
    v.valid_to = std::max(memory.time, prev->valid_from.value_or(memory.time));
  } else {
    v.kind = memory.memory->kind;
    v.text = memory.memory->text;
    v.confidence = memory.memory->confidence;
    v.project = memory.project;
  }
  if (prev) {
    // Supersedes what the file's previous line derived, and is dated after it.
    v.supersedes = prev->id;
    v.root = prev->root;
    v.created_at = std::max(memory.time, prev->created_at + 1);
  } else {
    v.root = id;
    v.created_at = memory.time;
  }
  InsertVersion(db, v);
  db.Prepare("INSERT INTO imported_entry(entry_id, event_id) VALUES (?, ?)")
      .Bind(1, id)
      .Bind(2, event_id)
      .Run();
  // A forgotten entry stays forgotten as its file changes, and one whose id
  // a forget from another store targets is hidden as it is derived
  // (invariant 2).
  CoverArrival(db, id);
}

}  // namespace origin
