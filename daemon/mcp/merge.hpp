// SPDX-License-Identifier: MIT
#pragma once
// A connected device's answer to a read tool, merged from its own and its
// hub's (spec: MCP server, On a device connected to a hub).  Both answers
// are shaped alike (daemon/mcp/answers.cpp) since the hub runs this code
// too; the merge
//   - de-duplicates by id, and labels what it lists origin "local" (this
//     device holds it) or "hub";
//   - never shows what this device hides (invariant 2): an item of the
//     hub's that a forget in effect here covers or targets, or whose
//     session or chain one does, is left out, whatever the hub returns;
//   - lists one version of an entry: the current one of those answered, by
//     the rule for concurrent corrections (the greatest created, then id);
//   - search: the hits of both pages interleaved by rank (the device's
//     first on a tie) and ranked again, event hits grouped by session;
//     `more` when either side has more, and the next page is asked of both
//     from offset + limit;
//   - timeline: the sessions of both, newest first, up to the limit; a
//     session's events from whichever store holds it;
//   - get: an entry's history from both stores, and its current version
//     from either; get and sources of an id the device does not hold, from
//     the hub.
// Runs on a reader, which tells what this device holds and hides.

#include <rapidjson/document.h>

#include <string>

#include "core/c/sqlite.hpp"
#include "daemon/mcp/tools.hpp"

namespace origin::mcp {

/// `local`: the device's answer, or "" when it does not hold the id asked
/// for; `hub`: the hub's.  Throws OpError(kNotFound) when neither may be
/// shown here.
std::string MergeAnswers(const Tool& tool, const rapidjson::Value& args, Db& db,
                         const std::string& local, const std::string& hub);

}  // namespace origin::mcp
