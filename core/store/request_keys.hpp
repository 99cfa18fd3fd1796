// SPDX-License-Identifier: MIT
#pragma once
// Request keys: writes that cannot be doubled (issue 12).  A client (the
// CLI, origin-mcp, later HTTP) sends one key with each write (remember,
// correct, forget, restore) and sends the same key again when it retries or
// replays the request, e.g. after a daemon stopped before answering.  The
// store keeps each key with the operation it came with and the answer given,
// in request_key, for kRequestKeyTtlMs: a repeat within that time gets the
// first answer and writes nothing.  The key and the write it answers commit
// in one transaction, so a write is never kept without its key, nor a key
// without its write.
//
// Thread affinity: the writer's connection.  Left out on purpose: keys are
// not replicated (another store never sees the same request), and a key
// names no client; two clients that pick the same key share its answer.

#include <cstdint>
#include <functional>
#include <string>

#include "core/c/sqlite.hpp"
#include "core/util/clock.hpp"

namespace origin {

/// How long a request key is remembered: a retry within a day gets the first answer.
inline constexpr std::int64_t kRequestKeyTtlMs = 24LL * 3600 * 1000;
/// The longest key accepted, in bytes.
inline constexpr std::size_t kRequestKeyMaxBytes = 200;

/// Runs `answer` once per `key`: in one write transaction, a key seen within
/// kRequestKeyTtlMs returns the answer stored with it (without running
/// `answer`); else `answer()` runs (its own Transaction nests as a savepoint), its
/// result is stored under the key, and returned. Keys older than the TTL are purged.
/// The same key with another `op` is OpError kConflict. An empty key just runs answer().
/// A key longer than 200 bytes is OpError kInvalidArgument.
/// When `answer` throws, nothing is stored, the transaction rolls back and
/// the exception goes on to the caller.
std::string AnswerOnce(Db& db, const Clock& clock, const std::string& key, const std::string& op,
                       const std::function<std::string()>& answer);

}  // namespace origin
