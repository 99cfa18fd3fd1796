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

/// Whether to colour what goes to `f`: a terminal, NO_COLOR unset, TERM not dumb.
bool UseColor(std::FILE* f);

struct Style {
  bool color = false;
  std::string Bold(const std::string& s) const { return color ? "\033[1m" + s + "\033[0m" : s; }
  std::string Dim(const std::string& s) const { return color ? "\033[2m" + s + "\033[0m" : s; }
  std::string Red(const std::string& s) const { return color ? "\033[31m" + s + "\033[0m" : s; }
  std::string Yellow(const std::string& s) const { return color ? "\033[33m" + s + "\033[0m" : s; }
  std::string Green(const std::string& s) const { return color ? "\033[32m" + s + "\033[0m" : s; }
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

std::string HumanBytes(std::int64_t n);  // 12.3 MiB
std::string Thousands(std::int64_t n);   // 12,345
std::string LocalTime(std::int64_t ms);  // 2026-11-29 20:01 (local)
/// Columns padded to their widest cell; cells may hold colour escapes.
/// `right` marks the columns aligned right (numbers).
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
