// SPDX-License-Identifier: MIT
#include "core/util/text.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "core/util/hash.hpp"

namespace origin {

char32_t DecodeUtf8(std::string_view s, std::size_t& i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) {
    ++i;
    return c;
  }
  int len = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    ++i;
    return 0xFFFD;
  }
  if (i + static_cast<std::size_t>(len) > s.size()) {
    ++i;
    return 0xFFFD;
  }
  for (int k = 1; k < len; ++k) {
    unsigned char cc = b(i + static_cast<std::size_t>(k));
    if ((cc & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return 0xFFFD;
  }
  i += static_cast<std::size_t>(len);
  return cp;
}

void AppendUtf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

bool ValidUtf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    // Skip ASCII eight bytes at a time.
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & 0x8080808080808080ULL) != 0) break;
      // A zero byte: (w - 0x01..) & ~w & 0x80.. is non-zero.
      if (((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL) != 0) return false;
      i += 8;
    }
    if (i >= n) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c == 0) return false;
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t start = i;
    char32_t cp = DecodeUtf8(s, i);
    if (cp == 0xFFFD && !(i - start == 3 && s.substr(start, 3) == "\xEF\xBF\xBD")) return false;
  }
  return true;
}

std::string SanitizeUtf8(std::string_view s) {
  if (ValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t start = i;
    char32_t c = DecodeUtf8(s, i);
    if (c == 0) continue;
    if (c == 0xFFFD && !(i - start == 3 && s.substr(start, 3) == "\xEF\xBF\xBD")) {
      AppendUtf8(out, 0xFFFD);
    } else {
      out.append(s.substr(start, i - start));
    }
  }
  return out;
}

std::string_view TruncateChars(std::string_view s, std::size_t max_chars) {
  std::size_t i = 0;
  std::size_t n = 0;
  while (i < s.size() && n < max_chars) {
    DecodeUtf8(s, i);
    ++n;
  }
  return s.substr(0, i);
}

std::size_t CountChars(std::string_view s) {
  std::size_t n = 0;
  for (char ch : s)
    if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) ++n;
  return n;
}

bool IsCjkLetter(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) ||    // CJK Unified Ideographs
         (c >= 0x3400 && c <= 0x4DBF) ||    // Extension A
         (c >= 0x20000 && c <= 0x323AF) ||  // Extensions B..H
         (c >= 0xF900 && c <= 0xFAFF) ||    // Compatibility Ideographs
         (c >= 0x3040 && c <= 0x309F) ||    // Hiragana
         (c >= 0x30A0 && c <= 0x30FF) ||    // Katakana
         (c >= 0x31F0 && c <= 0x31FF) ||    // Katakana Phonetic Extensions
         (c >= 0xFF66 && c <= 0xFF9F) ||    // Halfwidth Katakana
         (c >= 0xAC00 && c <= 0xD7AF) ||    // Hangul Syllables
         (c >= 0x1100 && c <= 0x11FF) ||    // Hangul Jamo
         (c >= 0x3130 && c <= 0x318F);      // Hangul Compatibility Jamo
}

std::string CjkTokens(std::string_view text) {
  std::string out;
  // Every letter event_cjk indexes is U+1100 or above: a lead byte of 0xE1 or
  // more.  Most text has none, and is done with in one scan.
  std::size_t first = 0;
  while (first < text.size() && static_cast<unsigned char>(text[first]) < 0xE1) ++first;
  if (first == text.size()) return out;
  auto emit = [&](std::size_t from, std::size_t to) {
    if (!out.empty()) out.push_back(' ');
    out.append(text.substr(from, to - from));
  };
  std::size_t i = 0;
  std::size_t prev_start = 0;  // the previous letter, when it is a CJK one
  bool prev_cjk = false;
  while (i < text.size()) {
    std::size_t start = i;
    bool cjk = IsCjkLetter(DecodeUtf8(text, i));
    if (cjk) {
      if (prev_cjk) emit(prev_start, i);  // the pair
      emit(start, i);                     // the letter
    }
    prev_cjk = cjk;
    prev_start = start;
  }
  return out;
}

namespace {
// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
// (H. Hinnant's days_from_civil).
std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}
bool Digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t k = 0; k < n; ++k) {
    char c = s[pos + k];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  return true;
}
}  // namespace

std::optional<std::int64_t> ParseIsoMs(std::string_view s) {
  int y, mo, d, h, mi, sec;
  if (!Digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !Digits(s, 5, 2, mo) || s[7] != '-' ||
      !Digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
      !Digits(s, 11, 2, h) || s[13] != ':' || !Digits(s, 14, 2, mi) || s[16] != ':' ||
      !Digits(s, 17, 2, sec))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  std::size_t p = 19;
  std::int64_t ms = 0;
  if (p < s.size() && s[p] == '.') {
    ++p;
    int scale = 100;
    std::size_t digits = 0;
    while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
      if (digits < 3) ms += (s[p] - '0') * scale, scale /= 10;
      ++p, ++digits;
    }
    if (digits == 0) return std::nullopt;
  }
  std::int64_t offset_min = 0;
  if (p < s.size() && (s[p] == 'Z' || s[p] == 'z')) {
    ++p;
  } else if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
    int oh, om;
    int sign = s[p] == '-' ? -1 : 1;
    if (!Digits(s, p + 1, 2, oh)) return std::nullopt;
    std::size_t q = p + 3;
    if (q < s.size() && s[q] == ':') ++q;
    if (!Digits(s, q, 2, om)) return std::nullopt;
    offset_min = sign * (oh * 60 + om);
    p = q + 2;
  }
  if (p != s.size()) return std::nullopt;
  std::int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  std::int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60;
  return secs * 1000 + ms;
}

std::string FormatIsoUtc(std::int64_t ms) {
  std::int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  int msec = static_cast<int>(ms - secs * 1000);
  std::int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  std::int64_t rem = secs - days * 86400;
  // civil_from_days
  std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<long long>(y),
                m, d, static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60),
                static_cast<int>(rem % 60), msec);
  return buf;
}

// Where the JSON string opened by the quote at `open` ends: the first
// quote after it with an even run of backslashes before it (an odd run
// escapes it), found by memchr (a hub's push is a string of 1.4 MB of
// base64); npos when it is not closed.
static std::size_t StringEnd(std::string_view json, std::size_t open) {
  for (std::size_t from = open + 1;;) {
    const void* q = std::memchr(json.data() + from, '"', json.size() - from);
    if (q == nullptr) return std::string_view::npos;
    const std::size_t at = static_cast<const char*>(q) - json.data();
    std::size_t slashes = 0;
    while (json[at - 1 - slashes] == '\\') ++slashes;  // stops at the opening quote
    if (slashes % 2 == 0) return at;
    from = at + 1;
  }
}

bool JsonDepthWithin(std::string_view json, int max_depth) {
  int depth = 0;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '"') {
      i = StringEnd(json, i);
      if (i == std::string_view::npos) return true;  // unterminated: the parser's to refuse
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

std::string FormatIsoLocal(std::int64_t ms) {
  std::int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  int msec = static_cast<int>(ms - secs * 1000);
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  int off = static_cast<int>(tm.tm_gmtoff / 60);
  int aoff = (off < 0 ? -off : off) % (24 * 60);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03d%c%02d:%02d",
                (tm.tm_year + 1900) % 10000, (tm.tm_mon + 1) % 100, tm.tm_mday % 100,
                tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100, msec % 1000,
                off < 0 ? '-' : '+', aoff / 60, aoff % 60);
  return buf;
}

std::string_view TrimSpace(std::string_view s, std::string_view space) {
  const std::size_t b = s.find_first_not_of(space);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(space) - b + 1);
}

bool HasEveryWord(std::string_view text, std::string_view words) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  std::size_t from = 0;
  while (from < words.size()) {
    std::size_t end = words.find(' ', from);
    if (end == std::string_view::npos) end = words.size();
    const std::string_view w = words.substr(from, end - from);
    if (!w.empty() && std::search(text.begin(), text.end(), w.begin(), w.end(), [&](char a, char b) {
                        return lower(a) == lower(b);
                      }) == text.end())
      return false;
    from = end + 1;
  }
  return true;
}

std::string LastPathSegment(std::string_view path) {
  while (!path.empty() && (path.back() == '/' || path.back() == '\\')) path.remove_suffix(1);
  std::size_t pos = path.find_last_of("/\\");
  return std::string(pos == std::string_view::npos ? path : path.substr(pos + 1));
}

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> out;
  for (std::size_t pos = 0;;) {
    const std::size_t slash = path.find('/', pos);
    out.push_back(path.substr(pos, slash - pos));
    if (slash == std::string_view::npos) return out;
    pos = slash + 1;
  }
}

std::optional<std::string> PercentDecode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    auto byte = Unhex(s.substr(i + 1, 2));
    if (!byte) return std::nullopt;
    out += *byte;
    i += 2;
  }
  return out;
}

}  // namespace origin
