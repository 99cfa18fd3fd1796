// SPDX-License-Identifier: MIT
#pragma once
// Terminal rendering for the CLI: aligned tables, sizes and counts people
// read at a glance, local times, colour only on a terminal and only when
// NO_COLOR is unset, and a progress bar on stderr.

#include <cstdint>
#include <cstdio>
#include <string>
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
