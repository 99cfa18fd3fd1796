// SPDX-License-Identifier: MIT
#pragma once
// Titles that name the conversation holding a line (ParsedTitle::leaf:
// Claude Code's summary lines, whose leafUuid may be a message of another
// session).  Such a title is the title event of the session that holds the
// leaf's event (<source>:<leaf>, or a block of it, <source>:<leaf>#<n>), not
// of the log it was read from.  When the store holds that event, the title
// event is inserted at once with its session; otherwise the title waits in
// title_wait (with its line: invariant 1), and every later batch of its
// source looks whether the leaf has arrived, then inserts it.  A title whose
// leaf never arrives stays in title_wait (and its line in the mirror): never
// put on a session it does not name, never dropped, applied whenever the
// leaf comes (a log restored, read later).
//
// Thread affinity: the writer's connection, inside the ingest transaction,
// after the batch's events are in and before AddArrivals counts them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/ingest/adapter.hpp"

namespace origin {

/// The session (<source>:<native>) of the event <source>:<leaf> or of one of
/// its blocks, in the store or, with `staged`, in the batch being staged
/// (temp.event_stage); nothing when neither holds it yet.
std::optional<std::string> LeafSession(Db& db, std::string_view source, std::string_view leaf,
                                       bool staged = false);

/// Places `titles` (each with a leaf) of `source`, read from mirror file
/// `file_id` at `line_no` (or their own `line`): inserted as title events of
/// the leaf's session, or waiting for it.
void PlaceLeafTitles(Db& db, std::string_view source, const std::vector<ParsedTitle>& titles,
                     std::int64_t file_id, std::int64_t line_no);

/// Inserts the waiting titles of `source` whose leaf's event is now in the
/// store.  Cheap when none waits.
void ApplyArrivedLeafTitles(Db& db, std::string_view source);

}  // namespace origin
