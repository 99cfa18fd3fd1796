// SPDX-License-Identifier: MIT
#pragma once
// Short references (docs/architecture.md, Ids people type): every event,
// entry version, session and tombstone has a short reference, the first
// characters of a hash of its id, like git's abbreviated hashes.
//
// The hash is the first 64 bits of SHA-256 of the full id, so that the same
// id has the same reference on every store and in every version; the
// reference spells its top bits in lower-case Crockford base32
// (0-9 and a-z without i, l, o, u), five bits a character, at most 12
// characters (60 bits).  A reference is as long as it must be to be unique
// among every id this store holds, and at least kMinRef characters: its
// length is one more than the longest prefix it shares with its neighbours
// in hash order, which the table `ref` (migration 8), ordered by hash,
// gives in two index seeks.
//
// `ref` is filled by triggers on event, entry, session and tombstone, which
// call origin_ref() (registered on every connection by RegisterFunctions).
//
// Thread affinity: none; each function works on the connection it is given.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/c/sqlite.hpp"

namespace origin {

/// The shortest reference shown.
inline constexpr int kMinRef = 5;
/// The longest: 60 of the hash's 64 bits.
inline constexpr int kMaxRef = 12;

/// What a reference names; `ref.kind` holds these values.
enum class RefKind : int { kEvent = 0, kEntry = 1, kSession = 2, kTombstone = 3 };

/// The hash of `id` as `ref.h` stores it: the first 64 bits of its SHA-256,
/// big-endian, with the top bit flipped, so that SQLite's signed order of
/// `h` is the unsigned order of the hash (and of its references).
std::int64_t RefHash(std::string_view id);
/// The first `len` characters (1..kMaxRef) of the reference of hash `h`.
std::string RefText(std::int64_t h, int len);
/// The range [lo, hi] of hashes whose reference starts with `prefix`, or
/// nothing when `prefix` is not a reference's spelling (a character outside
/// the alphabet, case aside, or longer than kMaxRef).
std::optional<std::pair<std::int64_t, std::int64_t>> RefRange(std::string_view prefix);

/// The reference of `id` in this store: unique among every id in `ref`, at
/// least kMinRef characters; kMaxRef when another id shares its 60 bits.
std::string ShortRef(Db& db, std::string_view id);

/// Registers origin_ref(id) (RefHash as SQL) on `db`; RegisterFunctions
/// calls it.
void RegisterRefFunction(Db& db);

}  // namespace origin
