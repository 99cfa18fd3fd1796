// SPDX-License-Identifier: MIT
#pragma once
// Entries derived from agents' memory files (spec: Native memories).  Each
// line of a memory stream says what happened to one file; its adapter reads
// the memory in the file's new version (ParsedMemory), and DeriveMemory
// turns the line into a version of the file's entry, in the transaction that
// inserts the line's event:
//   - a file's first version (or the first after a line that derived
//     nothing) starts an entry;
//   - a later version supersedes the version derived from the file's
//     previous line, dated by the file's modification time and after it;
//   - a deletion, or a version without a memory, ends the entry: its last
//     version is written again with valid_to at the deletion's time; a file
//     that comes back supersedes that version, and is current again;
//   - a deletion with nothing to end derives nothing.
// Ids come from the line's event (ent_ + 24 hex of its SHA-256), the author
// is <source>@<store>, and every version cites the line's event (invariant
// 1), so the same stream derives the same versions on every store.  A
// version that arrives into a chain a forget hides is hidden on arrival
// (invariant 2, core/forget: CoverArrival).  Here in core/ingest, the top
// layer of core, since it needs both entries and forgetting, and only
// ingestion calls it (core/ingest/ingester.hpp lists the layers).

#include <cstdint>
#include <optional>
#include <string>

#include "core/c/sqlite.hpp"
#include "core/ingest/adapter.hpp"

namespace origin {

/// The entry id derived from a memory line's event.
std::string MemoryEntryId(const std::string& event_id);

/// Derives the entry version of one memory line whose event `event_id` has
/// just been inserted; `prev_event_id` is the event of the file's previous
/// line ("" for its first).  Idempotent: a version already derived is left
/// as it is.  In the caller's transaction.
void DeriveMemory(Db& db, const std::string& source, const std::string& store_name,
                  const std::string& event_id, const std::string& prev_event_id,
                  const ParsedMemory& memory);

}  // namespace origin
