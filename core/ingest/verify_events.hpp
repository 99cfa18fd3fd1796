// SPDX-License-Identifier: MIT
#pragma once
// origin verify's check of provenance (invariant 1): an event resolves to
// its mirror line, and that line, parsed by its source's adapter, gives the
// event's id again.  A line is first parsed alone; when that does not give
// the id (an adapter that carries state from earlier lines, as Codex does
// with its session_meta, or a message joined from the chunks of several
// lines, emitted at a later line), the mirror is parsed from its first line,
// as the ingester parsed it, and the id must come out attributed to the
// line the event records.  Reads go through MirrorStore (a seal on a live
// store may move lines from the tail into frames meanwhile).  The rest of
// verify is core/store/verify.hpp.

#include <cstdint>
#include <memory>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/ingest/adapter.hpp"
#include "core/store/mirror.hpp"
#include "core/store/verify.hpp"

namespace origin {

/// The events checked: `sample` of them spread evenly over the store's
/// arrival order, or every one when `all`.
VerifyCheck VerifyEvents(Db& db, MirrorStore& mirrors,
                         const std::vector<std::unique_ptr<SourceAdapter>>& adapters, bool all,
                         std::int64_t sample = 1000);

}  // namespace origin
