// SPDX-License-Identifier: MIT
#pragma once
// The rules of forgetting as forget.cpp applies them, shared with
// replica.cpp, which applies tombstones from other stores by the same
// rules.  Internal to core/forget: nothing else includes this.

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "core/c/sqlite.hpp"
#include "core/forget/forget.hpp"

namespace origin::forget_rules {

using Ids = std::set<std::string>;

inline constexpr const char* kInEffect = kForgetInEffect;

/// The first column of each row of `sql`, given one parameter.
Ids Column(Db& db, const std::string& sql, const std::string& arg);
/// The forgets in effect covering `item`: by the rules from their target,
/// as a hub listed it, or as a device reported it.
Ids Covering(Db& db, const std::string& item);

/// The chain of the entry version `version`; "" when it is not here.
std::string RootOf(Db& db, const std::string& version);
/// What `forget` covers here, in any way: its events and the chains of its
/// entry versions, added to `events` and `roots` (decided again when it
/// leaves effect).
void CoveredBy(Db& db, const std::string& forget, Ids& events, Ids& roots);

/// What rules 1 and 2 cover from a forget's target on this store's data.
struct Targets {
  std::string kind;  // entry | event | session; "" when the target is not here
  Ids events;        // covered directly
  Ids roots;         // chains covered directly, every version
};
Targets RulesFrom(Db& db, const std::string& target);
/// Records `t` as what `forget` covers directly.
void CoverDirect(Db& db, const std::string& forget, const Targets& t, Ids* touched);
/// Records that `tombstone` covers `item` (entry | event) by `how`; adds
/// the forget to `touched` when that is new.
void AddEffect(Db& db, const std::string& tombstone, const std::string& item, const char* kind,
               const char* how, Ids* touched);

/// Decides `events`, then the chains of `roots` and those citing one of
/// the events, and fills `o` with what changed.  The forgets whose
/// coverage that changed are added to `touched`.
void Decide(Db& db, const std::string& origin, const Ids& events, Ids roots, ForgetOutcome& o,
            Ids* touched);

void Record(Db& db, const std::string& id, const char* kind, const std::string& target,
            const std::string& reason, std::int64_t at, const std::string& origin,
            const std::optional<std::string>& author);

/// The last sequence number of change_log.
std::int64_t LastChange(Db& db);
/// Logs each forget in effect of `forgets` again in change_log, unless it
/// was logged after `since` already: what it covers here changed, so a hub
/// sends every device the new list (spec: Replication, step 3).
void RelogCoverage(Db& db, const Ids& forgets, std::int64_t since);

}  // namespace origin::forget_rules
