// SPDX-License-Identifier: MIT
#pragma once
// Terminal rendering for the CLI: aligned tables, sizes and counts people
// read at a glance, local times, colour only on a terminal and only when
// NO_COLOR is unset, and a progress bar on stderr.

#include <rapidjson/document.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace origin::client {

/// How the CLI's human output looks, settled once by origin_main.cpp from
/// --color and the terminal before any output (and before a pager takes
/// stdout, so that what is paged keeps the terminal's colour and width).
struct OutputMode {
  enum class Color { kAuto, kAlways, kNever };
  Color color = Color::kAuto;
  bool stdout_tty = false;  // stdout was a terminal (it may be a pager's pipe now)
  /// The terminal's columns, lines are fitted to; 0 when stdout is not a
  /// terminal: nothing is cut to a width then (docs/cli.md).
  std::size_t width = 0;
};
OutputMode& Output();
/// Reads stdout's terminal (isatty, TIOCGWINSZ, else COLUMNS, else 80) into Output().
void DetectTerminal();

/// Whether to colour what goes to `f`: --color=always; else, with auto, a
/// terminal, NO_COLOR unset (or empty) and TERM not dumb.
bool UseColor(std::FILE* f);

struct Style {
  bool color = false;
  std::string Bold(const std::string& s) const { return color ? "\033[1m" + s + "\033[0m" : s; }
  std::string Dim(const std::string& s) const { return color ? "\033[2m" + s + "\033[0m" : s; }
  std::string Red(const std::string& s) const { return color ? "\033[31m" + s + "\033[0m" : s; }
  std::string Yellow(const std::string& s) const { return color ? "\033[33m" + s + "\033[0m" : s; }
  std::string Green(const std::string& s) const { return color ? "\033[32m" + s + "\033[0m" : s; }
  /// A match in a text: bold yellow with colour, [in brackets] without.
  std::string Match(const std::string& s) const {
    return color ? "\033[1;33m" + s + "\033[0m" : "[" + s + "]";
  }
};

/// `s` made harmless to print: stored content (a log message, a cwd, a
/// title, a file name) must never drive the terminal (set its title, clear
/// it, move the cursor, reverse the text), so every control character is
/// shown as an escape instead: C0 controls as \xNN (\n, \r, \t by name), DEL as
/// \x7f, C1 controls (U+0080 to U+009F) and the bidirectional embeddings,
/// overrides and isolates (U+202A to U+202E, U+2066 to U+2069) as \uNNNN, and
/// a byte that is not UTF-8 as \xNN.  With `multiline`, newlines, tabs and
/// CR LF pairs stay as they are (a text of several lines).
std::string TerminalSafe(std::string_view s, bool multiline = false);

/// Every string in `v` made TerminalSafe, in place: the one place the CLI's
/// human output gets its safety (origin_main.cpp calls it on every answer
/// it renders).  The members that hold a text of several lines (`text`,
/// `prompt`) keep their newlines; every other string is one line.
void MakeTerminalSafe(rapidjson::Value& v, rapidjson::Document::AllocatorType& alloc);

/// Columns `s` takes on a terminal: escape sequences take none, East Asian
/// wide characters (CJK, kana, Hangul, fullwidth forms, emoji) two,
/// combining marks and zero-width characters none, anything else one.
std::size_t DisplayWidth(std::string_view s);
/// `s` cut to at most `columns` columns, ending in "…" when cut: never inside
/// an escape sequence or a UTF-8 sequence, and with the colour reset after
/// the cut when a colour was set before it.  `columns` 0: `s` as it is.
std::string FitWidth(std::string_view s, std::size_t columns);

/// "1 event", "2 events", "1,234 events".
std::string Plural(std::int64_t n, std::string_view one, std::string_view many);

std::string HumanBytes(std::int64_t n);  // 12.3 MiB
std::string Thousands(std::int64_t n);   // 12,345
std::string LocalTime(std::int64_t ms);  // 2026-11-29 20:01 (local)
/// A table's column: aligned right (numbers), and whether it may be cut
/// to fit the width (`shrink` > 0: the columns of the lowest `shrink` are cut
/// first, each down to `min` columns).
struct Column {
  bool right = false;
  int shrink = 0;
  std::size_t min = 0;
};
/// Columns padded to their widest cell (cells may hold colour escapes), two
/// spaces apart.  With `width` > 0, the shrinkable columns are cut (with "…")
/// until each line fits, and a line still wider is cut at `width`.
std::string Table(const std::vector<std::vector<std::string>>& rows,
                  const std::vector<Column>& columns, std::size_t width = 0);
/// `right` marks the columns aligned right; nothing is cut.
std::string Table(const std::vector<std::vector<std::string>>& rows,
                  const std::vector<bool>& right);

/// A one-line progress bar redrawn in place on stderr.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled) {}
  ~ProgressBar() { Finish(); }
  void Update(std::int64_t done, std::int64_t total, const std::string& label);
  void Finish();

 private:
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace origin::client
