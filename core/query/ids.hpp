// SPDX-License-Identifier: MIT
#pragma once
// Ids as people and agents type them (docs/architecture.md, Ids people
// type): the one place where what an operation was given becomes the full id
// of an event, an entry version, a session or a tombstone.  Every operation
// that takes an id resolves it here (the daemon's table of operations does,
// on a reader, before the operation runs), so the CLI, MCP and the socket
// accept the same forms:
//
//   * a full id (exact): taken as it is, whatever its kind and whether it is
//     hidden, so that the operation answers as it always did (a forgotten
//     id is `forgotten`, an id of another kind the operation's own error);
//   * a short reference (core/store/refs.hpp) or a prefix of one;
//   * a prefix of a full id;
//   * a session's native id (a bare UUID), or a prefix of it.
//
// Prefixes need kMinPrefix characters.  Only visible items are matched by
// a prefix or a reference (a hidden item is as absent; invariant 2).  One
// match of a kind the operation takes is the answer; none is `not_found`;
// several are `ambiguous`, with the candidates listed (their references,
// kinds and ids, and a few words of each).

#include <string>
#include <string_view>

#include "core/c/sqlite.hpp"
#include "core/store/refs.hpp"

namespace origin {

/// What an operation takes: a mask of these.
enum IdKinds : unsigned {
  kEventIds = 1u << static_cast<int>(RefKind::kEvent),
  kEntryIds = 1u << static_cast<int>(RefKind::kEntry),
  kSessionIds = 1u << static_cast<int>(RefKind::kSession),
  kTombstoneIds = 1u << static_cast<int>(RefKind::kTombstone),
};

/// The fewest characters a prefix (of a reference or of an id) may have.
inline constexpr std::size_t kMinPrefix = 4;

/// The full id `typed` names among the kinds of `kinds`.  OpError
/// kInvalidArgument for an empty or too short id, kNotFound when nothing
/// matches, kAmbiguous when several do (the message lists them).
std::string ResolveId(Db& db, std::string_view typed, unsigned kinds);

}  // namespace origin
