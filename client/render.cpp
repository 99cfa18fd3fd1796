// SPDX-License-Identifier: MIT
#include "client/render.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace origin::client {

OutputMode& Output() {
  static OutputMode mode;
  return mode;
}

void DetectTerminal() {
  OutputMode& o = Output();
  o.stdout_tty = ::isatty(1) != 0;
  o.width = 0;
  if (!o.stdout_tty) return;
  winsize ws{};
  if (::ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    o.width = ws.ws_col;
    return;
  }
  const char* cols = std::getenv("COLUMNS");
  char* end = nullptr;
  const long n = cols != nullptr ? std::strtol(cols, &end, 10) : 0;
  o.width =
      cols != nullptr && *cols != '\0' && *end == '\0' && n > 0 ? static_cast<std::size_t>(n) : 80;
}

bool UseColor(std::FILE* f) {
  const OutputMode& o = Output();
  if (o.color == OutputMode::Color::kNever) return false;
  if (o.color == OutputMode::Color::kAlways) return true;
  const char* no = std::getenv("NO_COLOR");
  if (no != nullptr && *no != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
  if (f == stdout) return o.stdout_tty;
  return ::isatty(::fileno(f)) != 0;
}

std::string Plural(std::int64_t n, std::string_view one, std::string_view many) {
  return Thousands(n) + " " + std::string(n == 1 ? one : many);
}

std::string HumanBytes(std::int64_t n) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(n));
  else
    std::snprintf(buf, sizeof buf,
                  v < 10    ? "%.2f %s"
                  : v < 100 ? "%.1f %s"
                            : "%.0f %s",
                  v, kUnits[u]);
  return buf;
}

std::string Thousands(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out = n < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string LocalTime(std::int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

namespace {
// The code point of the UTF-8 sequence at s[i] and its length in bytes;
// length 0 when no valid sequence starts there (a stray continuation byte,
// an overlong form, a surrogate, past U+10FFFF, or cut short).
struct Utf8Char {
  char32_t cp = 0;
  std::size_t len = 0;
};
Utf8Char NextUtf8(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1};
  const std::size_t len = b0 >= 0xC2 && b0 <= 0xDF   ? 2
                          : b0 >= 0xE0 && b0 <= 0xEF ? 3
                          : b0 >= 0xF0 && b0 <= 0xF4 ? 4
                                                     : 0;
  if (len == 0 || i + len > s.size()) return {};
  char32_t cp = b0 & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return {};
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {};
  return {cp, len};
}

bool Escaped(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}
}  // namespace

std::string TerminalSafe(std::string_view s, bool multiline) {
  std::string out;
  out.reserve(s.size());
  auto escape = [&](const char* format, unsigned v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, format, v);
    out += buf;
  };
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0x20 && b < 0x7F) {
      out += static_cast<char>(b);
      ++i;
    } else if (b < 0x80) {
      ++i;
      if (multiline && (b == '\n' || b == '\t'))
        out += static_cast<char>(b);
      else if (multiline && b == '\r' && i < s.size() && s[i] == '\n')
        out += "\r\n", ++i;
      else if (b == '\n')
        out += "\\n";
      else if (b == '\r')
        out += "\\r";
      else if (b == '\t')
        out += "\\t";
      else
        escape("\\x%02x", b);
    } else if (Utf8Char c = NextUtf8(s, i); c.len == 0) {
      escape("\\x%02x", b);
      ++i;
    } else {
      if (Escaped(c.cp))
        escape("\\u%04x", static_cast<unsigned>(c.cp));
      else
        out.append(s.substr(i, c.len));
      i += c.len;
    }
  }
  return out;
}

void MakeTerminalSafe(rapidjson::Value& v, rapidjson::Document::AllocatorType& alloc) {
  // Iterative: an answer may nest (entries in a search in a result).
  std::vector<std::pair<rapidjson::Value*, bool>> stack = {{&v, false}};
  while (!stack.empty()) {
    auto [x, multiline] = stack.back();
    stack.pop_back();
    if (x->IsString()) {
      std::string safe = TerminalSafe({x->GetString(), x->GetStringLength()}, multiline);
      if (safe != std::string_view(x->GetString(), x->GetStringLength()))
        x->SetString(safe.data(), static_cast<rapidjson::SizeType>(safe.size()), alloc);
    } else if (x->IsObject()) {
      for (auto& m : x->GetObject()) {
        const std::string_view key(m.name.GetString(), m.name.GetStringLength());
        stack.push_back({&m.value, key == "text" || key == "prompt"});
      }
    } else if (x->IsArray()) {
      for (auto& e : x->GetArray()) stack.push_back({&e, false});
    }
  }
}

namespace {
// Whether a code point takes two columns on a terminal (East Asian Wide and
// Fullwidth: CJK, kana, Hangul, fullwidth forms; most emoji).
bool Wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) ||
         (c >= 0x3041 && c <= 0xA4CF) || (c >= 0xAC00 && c <= 0xD7A3) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) ||
         (c >= 0x1F300 && c <= 0x1F64F) || (c >= 0x1F680 && c <= 0x1F6FF) ||
         (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x1FA70 && c <= 0x1FAFF) ||
         (c >= 0x20000 && c <= 0x3FFFD);
}

// Combining marks and zero-width characters: drawn over the one before.
bool ZeroWidth(char32_t c) {
  return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
         (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) ||
         (c >= 0xFE20 && c <= 0xFE2F) || (c >= 0xFE00 && c <= 0xFE0F) ||
         (c >= 0x200B && c <= 0x200F) || (c >= 0x2060 && c <= 0x2064) || c == 0xFEFF;
}

// The length of the escape sequence at s[i] (ESC, 0x1B): a CSI (ESC [ ...
// final byte), an OSC (ESC ] ... BEL or ESC \), or ESC and one byte.
std::size_t EscapeLength(std::string_view s, std::size_t i) {
  std::size_t j = i + 1;
  if (j >= s.size()) return 1;
  if (s[j] == '[') {
    for (++j; j < s.size(); ++j)
      if (s[j] >= 0x40 && s[j] <= 0x7E) return j + 1 - i;
    return s.size() - i;
  }
  if (s[j] == ']') {
    for (++j; j < s.size(); ++j) {
      if (s[j] == '\a') return j + 1 - i;
      if (s[j] == 0x1B && j + 1 < s.size() && s[j + 1] == '\\') return j + 2 - i;
    }
    return s.size() - i;
  }
  return 2;
}

// One step through `s`: an escape sequence (width 0, escape true) or a
// character, or a byte that is not UTF-8 (width 1).
struct Step {
  std::size_t len = 0, width = 0;
  bool escape = false;
};
Step StepAt(std::string_view s, std::size_t i) {
  if (s[i] == 0x1B) return {EscapeLength(s, i), 0, true};
  const Utf8Char c = NextUtf8(s, i);
  if (c.len == 0) return {1, 1, false};
  return {c.len, Wide(c.cp) ? 2u : ZeroWidth(c.cp) ? 0u : 1u, false};
}
}  // namespace

std::size_t DisplayWidth(std::string_view s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    const Step st = StepAt(s, i);
    w += st.width;
    i += st.len;
  }
  return w;
}

std::string FitWidth(std::string_view s, std::size_t columns) {
  if (columns == 0 || DisplayWidth(s) <= columns) return std::string(s);
  const std::size_t budget = columns - 1;  // and "…"
  std::string out;
  std::size_t used = 0;
  bool styled = false;  // a colour or style set and not reset
  for (std::size_t i = 0; i < s.size();) {
    const Step st = StepAt(s, i);
    const std::string_view piece = s.substr(i, st.len);
    if (st.escape) {
      out.append(piece);
      if (piece.back() == 'm') styled = piece != "\033[0m" && piece != "\033[m";
    } else {
      if (used + st.width > budget) break;
      out.append(piece);
      used += st.width;
    }
    i += st.len;
  }
  out += "…";
  if (styled) out += "\033[0m";
  return out;
}

std::string Table(const std::vector<std::vector<std::string>>& rows,
                  const std::vector<Column>& columns, std::size_t width) {
  std::vector<std::size_t> w;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (w.size() <= i) w.resize(i + 1, 0);
      w[i] = std::max(w[i], DisplayWidth(r[i]));
    }
  auto column = [&](std::size_t i) { return i < columns.size() ? columns[i] : Column{}; };
  if (width > 0 && !w.empty()) {
    std::size_t total = 2 * (w.size() - 1);
    for (std::size_t x : w) total += x;
    // The columns that may shrink, the lowest `shrink` first, each the
    // widest of its level first, down to its minimum.
    std::vector<int> levels;
    for (std::size_t i = 0; i < w.size(); ++i)
      if (column(i).shrink > 0) levels.push_back(column(i).shrink);
    std::sort(levels.begin(), levels.end());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    for (int level : levels) {
      while (total > width) {
        std::size_t pick = w.size();
        for (std::size_t i = 0; i < w.size(); ++i)
          if (column(i).shrink == level && w[i] > std::max<std::size_t>(column(i).min, 1) &&
              (pick == w.size() || w[i] > w[pick]))
            pick = i;
        if (pick == w.size()) break;
        --w[pick];
        --total;
      }
    }
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::string cell = FitWidth(r[i], w[i]);
      std::string pad(w[i] - DisplayWidth(cell), ' ');
      bool last = i + 1 == r.size();
      if (column(i).right)
        line += pad + cell;
      else
        line += cell + (last ? "" : pad);
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += FitWidth(line, width) + "\n";
  }
  return out;
}

std::string Table(const std::vector<std::vector<std::string>>& rows,
                  const std::vector<bool>& right) {
  std::vector<Column> columns;
  for (bool r : right) columns.push_back({r, 0, 0});
  return Table(rows, columns, 0);
}

void ProgressBar::Update(std::int64_t done, std::int64_t total, const std::string& label) {
  if (!enabled_) return;
  constexpr int kWidth = 30;
  double frac = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  if (frac > 1) frac = 1;
  int filled = static_cast<int>(frac * kWidth);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(kWidth - filled), '-');
  std::fprintf(stderr, "\r[%s] %3d%% %s\033[K", bar.c_str(), static_cast<int>(frac * 100),
               label.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::Finish() {
  if (drawn_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
  }
}

}  // namespace origin::client
