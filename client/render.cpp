// SPDX-License-Identifier: MIT
#include "client/render.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>

namespace origin::client {

bool UseColor(std::FILE* f) {
  const char* no = std::getenv("NO_COLOR");
  if (no != nullptr && *no != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
  return ::isatty(::fileno(f)) != 0;
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
// Fullwidth: CJK, kana, Hangul, fullwidth forms).
bool Wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) ||
         (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
         (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x20000 && c <= 0x3FFFD);
}

// Width on screen in columns, escape sequences not counted.
std::size_t VisibleWidth(const std::string& s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b == 0x1B) {
      while (i < s.size() && s[i] != 'm') ++i;
      ++i;
      continue;
    }
    const Utf8Char c = NextUtf8(s, i);
    w += c.len > 0 && Wide(c.cp) ? 2 : 1;
    i += c.len > 0 ? c.len : 1;
  }
  return w;
}
}  // namespace

std::string Table(const std::vector<std::vector<std::string>>& rows,
                  const std::vector<bool>& right) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.resize(i + 1, 0);
      width[i] = std::max(width[i], VisibleWidth(r[i]));
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      std::string pad(width[i] - VisibleWidth(r[i]), ' ');
      bool last = i + 1 == r.size();
      if (i < right.size() && right[i])
        line += pad + r[i];
      else
        line += r[i] + (last ? "" : pad);
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
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
