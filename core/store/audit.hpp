// SPDX-License-Identifier: MIT
#pragma once
// The audit log (spec: Admin UI, "Audit log"): administrative actions,
// appended to audit_log, whose triggers refuse updates and deletes.  Details
// are ids and counts only, never a text, a reason or a password, so that
// what a forget hides stays hidden here too.  Every writer of audit_log goes
// through AppendAudit.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "core/c/sqlite.hpp"

namespace origin {

/// One field of a record's details: an id (a string) or a count.
using AuditValue = std::variant<std::string_view, std::int64_t>;
using AuditDetails = std::initializer_list<std::pair<std::string_view, AuditValue>>;

/// Who an action is recorded as: "local" for origin ui on a device (channel
/// "ui"); otherwise the author (<agent>@<device>, user@<device>).
std::string AuditActor(std::string_view author, std::string_view channel);

/// Appends one record (the caller's transaction).  `details` become a JSON
/// object, each id escaped as a JSON string.
void AppendAudit(Db& db, std::int64_t at, std::string_view actor, std::string_view channel,
                 std::string_view action, AuditDetails details);

/// An entry written from origin ui (channel "ui") is recorded, with actor
/// local; from the CLI or MCP, nothing is.  The caller's transaction.
void AuditUiWrite(Db& db, std::int64_t at, std::string_view author, std::string_view channel,
                  std::string_view action, AuditDetails details);

}  // namespace origin
