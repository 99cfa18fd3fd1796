// SPDX-License-Identifier: MIT
#pragma once
// A hub's access tokens (spec: Personal hub, Access): every request to its
// /mcp (and later /v1/*) carries one as `Authorization: Bearer ogn_...`.  A
// token is created on the hub by its owner (`origin token create NAME`),
// shown once, and kept only as the SHA-256 of its text, in api_token; it is
// bound to the device it is named after (a cloud agent's token names no
// device: `ci`), and revocable.  A revoked token stays listed, and a new
// one may then take its name, so a device that lost its token keeps its
// name; a name has at most one active token.  Creating and revoking are
// recorded in the audit log (names only).
//
// The caller's transaction for the writes; OpError for bad input.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

inline constexpr std::string_view kTokenPrefix = "ogn_";

/// Whether `name` is a device's name, and so a token's:
/// [a-z0-9][a-z0-9._-]{0,62}.
bool ValidDeviceName(std::string_view name);

/// Gives the store the device name `name` (`origin hub connect --device`;
/// spec: Storage, Store names) and fixes it, and returns the name it had.
/// `connected` is the URL of the hub the store is connected to, "" when
/// none.  Refused (OpError kConflict, nothing changed) once the store has
/// written an entry or a tombstone under its name, or is connected to a
/// hub, or has synced (or tried to) with one; kInvalidArgument for a name
/// that is not a device's.  Renaming to its own name only fixes it.  With
/// `apply` false it only checks, and writes nothing.
std::string RenameStore(Db& db, std::string_view name, std::string_view connected, bool apply);

/// Whether `text` has the shape of a token (the prefix, then 48 lower-case
/// hex digits): anything else is refused without a look at the store.
bool LooksLikeToken(std::string_view text);

struct TokenRow {
  std::string name;
  std::int64_t created_at = 0;                // ms UTC
  std::optional<std::int64_t> revoked_at;     // ms UTC
};

/// A new token for `name`, its text (the one time it exists outside the
/// caller): OpError kInvalidArgument for a name that is not a device's,
/// kConflict when `name` has an active token.  Audit: `actor` on
/// `channel`, action token_create.
std::string CreateToken(Db& db, std::int64_t now_ms, std::string_view name,
                        std::string_view actor, std::string_view channel);

/// Revokes the active token of `name` (OpError kNotFound without one).
/// Audit: action token_revoke.
void RevokeToken(Db& db, std::int64_t now_ms, std::string_view name, std::string_view actor,
                 std::string_view channel);

/// Every token, active or revoked, by name, then newest first.
std::vector<TokenRow> ListTokens(Db& db);

/// The name `token` belongs to while it is active; nothing for a token
/// that is unknown, revoked, or not shaped like one.
std::optional<std::string> TokenOwner(Db& db, std::string_view token);

}  // namespace origin
