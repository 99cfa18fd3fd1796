// SPDX-License-Identifier: MIT
#include "proto/base64.hpp"

#include <array>
#include <cstdint>

namespace origin::proto {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The value of each byte as a base64 digit, 0xFF for a byte that is not one.
constexpr std::array<std::uint8_t, 256> kDigits = [] {
  std::array<std::uint8_t, 256> t{};
  t.fill(0xFF);
  for (std::uint8_t i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = i;
  return t;
}();

std::uint32_t Byte(std::string_view s, std::size_t i) {
  return static_cast<unsigned char>(s[i]);
}
}  // namespace

// Both directions write into a string sized once: a hub decodes a device's
// 1 MiB chunks with it, so it runs at memory speed rather than a byte at a
// time through append.
std::string Base64Encode(std::string_view bytes) {
  std::string out((bytes.size() + 2) / 3 * 4, '\0');
  char* o = out.data();
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3, o += 4) {
    const std::uint32_t v = Byte(bytes, i) << 16 | Byte(bytes, i + 1) << 8 | Byte(bytes, i + 2);
    o[0] = kAlphabet[v >> 18];
    o[1] = kAlphabet[(v >> 12) & 0x3F];
    o[2] = kAlphabet[(v >> 6) & 0x3F];
    o[3] = kAlphabet[v & 0x3F];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t v = Byte(bytes, i) << 16;
    if (rest == 2) v |= Byte(bytes, i + 1) << 8;
    o[0] = kAlphabet[v >> 18];
    o[1] = kAlphabet[(v >> 12) & 0x3F];
    o[2] = rest == 2 ? kAlphabet[(v >> 6) & 0x3F] : '=';
    o[3] = '=';
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  if (text.empty()) return std::string();
  const std::size_t pad = text.back() != '=' ? 0 : text[text.size() - 2] == '=' ? 2 : 1;
  std::string out(text.size() / 4 * 3 - pad, '\0');
  char* o = out.data();
  // Every quartet but the last: four digits, three bytes.
  const std::size_t full = text.size() - 4;
  std::uint32_t bad = 0;  // any byte that is not a digit sets 0x80 of a lookup
  for (std::size_t i = 0; i < full; i += 4, o += 3) {
    const std::uint32_t a = kDigits[Byte(text, i)], b = kDigits[Byte(text, i + 1)],
                        c = kDigits[Byte(text, i + 2)], d = kDigits[Byte(text, i + 3)];
    bad |= a | b | c | d;
    const std::uint32_t v = a << 18 | b << 12 | c << 6 | d;
    o[0] = static_cast<char>(v >> 16 & 0xFF);
    o[1] = static_cast<char>(v >> 8 & 0xFF);
    o[2] = static_cast<char>(v & 0xFF);
  }
  if (bad & 0x80) return std::nullopt;
  // The last quartet, with its padding.
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    const std::uint32_t d = k >= 4 - pad ? 0 : kDigits[Byte(text, full + k)];
    if (d & 0x80) return std::nullopt;
    v = v << 6 | d;
  }
  o[0] = static_cast<char>(v >> 16 & 0xFF);
  if (pad < 2) o[1] = static_cast<char>(v >> 8 & 0xFF);
  if (pad < 1) o[2] = static_cast<char>(v & 0xFF);
  return out;
}

}  // namespace origin::proto
