// SPDX-License-Identifier: MIT
#pragma once
// What the commands of the CLI's table share: reading the daemon's answer
// (a missing or mistyped member reads as empty, never as a crash), printing
// it as JSON or made terminal-safe, reading numbers and dates from options
// (the requests themselves are proto/requests.hpp structs), and the options
// several commands take.  Each command's entry is in its own
// file beside this one; commands.hpp lists them.

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>

#include "client/command_table.hpp"
#include "client/render.hpp"

namespace origin::client {

/// o[k] when it is a string, else `dflt`.
std::string Str(const rapidjson::Value& o, const char* k, const std::string& dflt = "");
/// o[k] when it is a number, else 0.
std::int64_t Int(const rapidjson::Value& o, const char* k);

/// With --json, prints the daemon's answer as it came, and says it did.
/// Otherwise makes every string of the answer safe to print (TerminalSafe):
/// every command renders what this returns false for, so stored content
/// reaches the terminal only through here.
bool PrintedJson(rapidjson::Document& r, bool json);

/// --NAME's value as a whole number above 0, when it was given; throws
/// UsageError when it is not one.
std::optional<std::int64_t> PositiveOption(const Invocation& a, const std::string& name);
/// --NAME's DATE in ms since the epoch, as the daemon takes it, when it was
/// given; throws UsageError when it is not a date.
std::optional<std::int64_t> DateOption(const Invocation& a, const std::string& name);

/// An entry's first line (id, kind, confidence, project, time, author) and its text.
std::string EntryLine(const rapidjson::Value& e, const Style& st);

// Options several commands take, with the same meaning in each.
inline constexpr Option kJsonOption{"json", "", "print the daemon's answer as JSON, for scripts"};
inline constexpr Option kSourceOption{"source", "S",
                                      "one agent's: claude-code, codex, cursor, zcode or grok",
                                      false, "claude-code codex cursor zcode grok"};
inline constexpr Option kProjectOption{"project", "P", "one project's"};
inline constexpr Option kSinceOption{
    "since", "DATE", "from DATE: YYYY-MM-DD[THH:MM[:SS]], local, or with Z or +HH:MM"};
inline constexpr Option kUntilOption{"until", "DATE", "up to DATE"};
inline constexpr Option kLimitOption{"limit", "N", "at most N"};
inline constexpr Option kReasonOption{
    "reason", "R", "why: kept with the record, listed by origin forgotten", true};
inline constexpr Option kYesOption{"yes", "",
                                   "do it; without --yes it only shows what it would do"};

}  // namespace origin::client
