// SPDX-License-Identifier: MIT
#pragma once
// The dates and times people and agents give Origin (the CLI's --since, the
// MCP tools' since, until, valid_from and valid_to): one parser, so both
// accept the same.  ISO 8601, extended format:
//   YYYY-MM-DD                       that day's start, local time
//   YYYY-MM-DDTHH:MM[:SS[.fff]]      local time
//   ... followed by Z or +HH:MM / -HH:MM (or +HHMM)   that instant
// Fractions beyond milliseconds are dropped.  Anything else, trailing text
// included, is refused.

#include <cstdint>
#include <optional>
#include <string_view>

namespace origin::proto {

/// Milliseconds since the epoch (UTC), or nothing when `s` is not such a
/// date or time (or names a day that does not exist, such as 2026-02-30).
std::optional<std::int64_t> ParseDateTime(std::string_view s);

/// What people type (the CLI's DATE): ParseDateTime's forms, or one
/// relative to `now_ms`: `now`; `today` and `yesterday` (that day's start,
/// local time); a time ago, a whole number and a unit: `30s`, `30m`, `12h`,
/// `2d`, `1w`.
std::optional<std::int64_t> ParseWhen(std::string_view s, std::int64_t now_ms);

}  // namespace origin::proto
