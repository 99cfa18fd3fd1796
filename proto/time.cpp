// SPDX-License-Identifier: MIT
#include "proto/time.hpp"

#include <ctime>

namespace origin::proto {

namespace {

// `n` decimal digits of `s` at `pos` into `out`.
bool Digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

bool LeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && LeapYear(y) ? 29 : kDays[m - 1];
}

// Days from 1970-01-01 to y-m-d (proleptic Gregorian).
std::int64_t DaysFromCivil(int y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace

std::optional<std::int64_t> ParseDateTime(std::string_view s) {
  int y, mo, d, h = 0, mi = 0, sec = 0, ms = 0;
  if (!Digits(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, mo) || s[7] != '-' ||
      !Digits(s, 8, 2, d))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > DaysInMonth(y, mo)) return std::nullopt;
  std::size_t i = 10;
  if (i < s.size()) {
    if (s[i] != 'T' || !Digits(s, i + 1, 2, h) || i + 3 >= s.size() || s[i + 3] != ':' ||
        !Digits(s, i + 4, 2, mi))
      return std::nullopt;
    i += 6;
    if (i < s.size() && s[i] == ':') {
      if (!Digits(s, i + 1, 2, sec)) return std::nullopt;
      i += 3;
      if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
        std::size_t digits = 0;
        for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits)
          if (digits < 3) ms = ms * 10 + (s[i] - '0');
        if (digits == 0) return std::nullopt;
        for (; digits < 3; ++digits) ms *= 10;
      }
    }
    if (h > 23 || mi > 59 || sec > 59) return std::nullopt;
  }
  if (i == s.size()) {
    // No offset: local time.
    std::tm tm{};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    tm.tm_isdst = -1;
    std::time_t t = std::mktime(&tm);
    if (t == static_cast<std::time_t>(-1)) return std::nullopt;
    return static_cast<std::int64_t>(t) * 1000 + ms;
  }
  int offset_min = 0;
  if (s[i] == 'Z') {
    if (i + 1 != s.size()) return std::nullopt;
  } else if (s[i] == '+' || s[i] == '-') {
    int oh, om;
    std::size_t j = i + 1;
    if (!Digits(s, j, 2, oh)) return std::nullopt;
    j += 2;
    if (j < s.size() && s[j] == ':') ++j;
    if (!Digits(s, j, 2, om) || j + 2 != s.size() || oh > 23 || om > 59) return std::nullopt;
    offset_min = (oh * 60 + om) * (s[i] == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  const std::int64_t secs = DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
                            static_cast<std::int64_t>(offset_min) * 60;
  return secs * 1000 + ms;
}

std::optional<std::int64_t> ParseWhen(std::string_view s, std::int64_t now_ms) {
  if (auto t = ParseDateTime(s)) return t;
  if (s == "now") return now_ms;
  if (s == "today" || s == "yesterday") {
    std::time_t t = static_cast<std::time_t>(now_ms / 1000);
    std::tm tm{};
    ::localtime_r(&t, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    if (s == "yesterday") tm.tm_mday -= 1;  // mktime carries into the month before
    tm.tm_isdst = -1;
    const std::time_t day = std::mktime(&tm);
    if (day == static_cast<std::time_t>(-1)) return std::nullopt;
    return static_cast<std::int64_t>(day) * 1000;
  }
  // N and a unit.
  std::size_t i = 0;
  std::int64_t n = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (n > 1'000'000'000) return std::nullopt;
    n = n * 10 + (s[i] - '0');
  }
  if (i == 0 || i + 1 != s.size()) return std::nullopt;
  std::int64_t unit = 0;
  switch (s[i]) {
    case 's':
      unit = 1000;
      break;
    case 'm':
      unit = 60'000;
      break;
    case 'h':
      unit = 3'600'000;
      break;
    case 'd':
      unit = 86'400'000;
      break;
    case 'w':
      unit = 7 * 86'400'000LL;
      break;
    default:
      return std::nullopt;
  }
  return now_ms - n * unit;
}

}  // namespace origin::proto
