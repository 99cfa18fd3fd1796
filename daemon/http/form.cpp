// SPDX-License-Identifier: MIT
#include "daemon/http/form.hpp"

#include <algorithm>

#include "core/util/text.hpp"

namespace origin::http {

namespace {

int HexDigit(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

bool Decode(std::string_view in, std::string* out, std::string* error) {
  out->clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    const char ch = in[i];
    if (ch == '+') {
      *out += ' ';
    } else if (ch == '%') {
      const int hi = i + 2 < in.size() ? HexDigit(in[i + 1]) : -1;
      const int lo = i + 2 < in.size() ? HexDigit(in[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        *error = "a broken %-escape in the form or query";
        return false;
      }
      *out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      *out += ch;
    }
  }
  if (!ValidUtf8(*out)) {
    *error = "the form or query is not UTF-8 text";
    return false;
  }
  return true;
}

std::string_view Trim(std::string_view s) { return TrimSpace(s, " \t"); }

}  // namespace

bool ParseUrlEncoded(std::string_view text, ui::Fields* out, std::string* error) {
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find('&', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view pair = text.substr(at, end - at);
    at = end + 1;
    if (pair.empty()) continue;
    const std::size_t eq = pair.find('=');
    std::string name, value;
    if (!Decode(pair.substr(0, eq), &name, error)) return false;
    if (eq != std::string_view::npos && !Decode(pair.substr(eq + 1), &value, error)) return false;
    out->items.emplace_back(std::move(name), std::move(value));
  }
  return true;
}

std::vector<std::string> CookieValues(const Request& r, std::string_view name) {
  std::vector<std::string> out;
  for (const auto& [header, value] : r.headers) {
    if (header != "cookie") continue;
    std::string_view rest = value;
    while (!rest.empty()) {
      std::size_t semi = rest.find(';');
      std::string_view pair = Trim(rest.substr(0, semi));
      rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
      const std::size_t eq = pair.find('=');
      if (eq != std::string_view::npos && Trim(pair.substr(0, eq)) == name)
        out.emplace_back(Trim(pair.substr(eq + 1)));
    }
  }
  return out;
}

std::string MediaType(const Request& r) {
  const std::string* ct = r.Header("content-type");
  if (ct == nullptr) return "";
  return AsciiLower(Trim(std::string_view(*ct).substr(0, ct->find(';'))));
}

}  // namespace origin::http
