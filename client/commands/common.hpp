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
#include <string_view>

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

/// `path` made absolute (from the working directory) and normal, since the
/// daemon's working directory is another; throws UsageError, naming
/// `what`, when it cannot be.
std::string AbsolutePath(const std::string& path, const std::string& what);

/// --NAME's value as a whole number above 0, when it was given; throws
/// UsageError when it is not one.
std::optional<std::int64_t> PositiveOption(const Invocation& a, const std::string& name);
/// --NAME's DATE in ms since the epoch, as the daemon takes it, when it was
/// given; throws UsageError when it is not a date.
std::optional<std::int64_t> DateOption(const Invocation& a, const std::string& name);

/// The short reference of an event, entry, session or tombstone of the
/// answer (its `ref`), as rows show it before the full id: what people type
/// (docs/cli.md, Ids).  Empty when the answer has none.
std::string RefCell(const rapidjson::Value& o, const Style& st);

/// An entry's first line (ref, id, kind, confidence, project, time, author) and its text.
std::string EntryLine(const rapidjson::Value& e, const Style& st);

/// `text` (one line, no colour) broken between words so that each line
/// fits `columns`, the lines after the first indented by `indent` spaces;
/// ends in a newline.  A word wider than a line is cut (FitWidth).
std::string Wrapped(std::string_view text, std::size_t columns, std::size_t indent);
/// Each line of `text` cut to `columns` (FitWidth); 0: as it is.
std::string FitLines(std::string_view text, std::size_t columns);

/// What an event is, for people: "user", "assistant", "tool call Bash",
/// "tool result Bash", "title", "system (meta)".
std::string EventWhat(const rapidjson::Value& e);

/// `text` on one line: every run of whitespace one space.
std::string OneLine(std::string_view text);
/// A slash command as Claude Code echoes it in a user line
/// (<command-name>/review</command-name><command-message>review
/// </command-message><command-args>the parser</command-args>) as the person
/// typed it: "/review the parser"; any other text as it is.
std::string CommandEcho(std::string_view text);
/// A one-line preview of `text` (a command echo as typed) in `columns` (the rest of the terminal's
/// line); on a pipe (no width) at most kPreviewColumns.  Cut with "…".
std::string Preview(std::string_view text, std::size_t columns);
inline constexpr std::size_t kPreviewColumns = 200;
/// The columns left on a line of the terminal after `used`, at least 20; 0
/// (no bound) when stdout is not a terminal.
std::size_t ColumnsLeft(std::size_t used);

/// `snippet` made terminal-safe with its matches (`marks`: [begin, end) byte
/// offsets into it, brackets around each) shown by st.Match: in colour, or
/// in brackets without.  Without marks, the snippet as it is.
std::string Highlight(std::string_view snippet, const rapidjson::Value& hit, const Style& st);

/// The line that says what a limit left out, or "" when nothing: "… 12 more
/// events: --limit 32" (`at_least`: "1,000+ more").
std::string MoreLine(std::int64_t shown, std::int64_t total, bool at_least, std::string_view one,
                     std::string_view many, std::string_view how, const Style& st);

// Options several commands take, with the same meaning in each.
inline constexpr Option kJsonOption{"json", "", "print the daemon's answer as JSON, for scripts"};
inline constexpr Option kSourceOption{"source", "S",
                                      "one agent's: claude-code, codex, cursor, zcode or grok",
                                      false, "claude-code codex cursor zcode grok"};
inline constexpr Option kProjectOption{"project", "P", "one project's"};
inline constexpr Option kSinceOption{
    "since", "DATE",
    "from DATE: YYYY-MM-DD[THH:MM[:SS]], local, or with Z or +HH:MM; or 2d, 12h, yesterday"};
inline constexpr Option kUntilOption{"until", "DATE", "up to DATE"};
inline constexpr Option kLimitOption{"limit", "N", "at most N"};
inline constexpr Option kReasonOption{
    "reason", "R", "why: kept with the record, listed by origin forgotten", true};
inline constexpr Option kYesOption{"yes", "",
                                   "do it; without --yes it only shows what it would do"};
inline constexpr Option kDryRunOption{"dry-run", "",
                                      "only show what it would do (the default without --yes)"};

}  // namespace origin::client
