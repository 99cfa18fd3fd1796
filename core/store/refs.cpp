// SPDX-License-Identifier: MIT
#include "core/store/refs.hpp"

#include <algorithm>
#include <bit>

#include "core/util/hash.hpp"

namespace origin {

namespace {

constexpr char kAlphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";
constexpr std::uint64_t kTop = std::uint64_t{1} << 63;

std::uint64_t Unsigned(std::int64_t h) { return static_cast<std::uint64_t>(h) ^ kTop; }
std::int64_t Signed(std::uint64_t u) { return static_cast<std::int64_t>(u ^ kTop); }

// The value of a reference's character, either case; -1 outside the alphabet.
int Digit(char c) {
  if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  for (int i = 0; i < 32; ++i)
    if (kAlphabet[i] == c) return i;
  return -1;
}

// How many leading characters two hashes' references share.
int SharedChars(std::uint64_t a, std::uint64_t b) {
  if (a == b) return kMaxRef + 1;
  return std::countl_zero(a ^ b) / 5;
}

}  // namespace

std::int64_t RefHash(std::string_view id) {
  const Sha256Digest d = Sha256(id);
  std::uint64_t u = 0;
  for (int i = 0; i < 8; ++i) u = (u << 8) | d[static_cast<std::size_t>(i)];
  return Signed(u);
}

std::string RefText(std::int64_t h, int len) {
  const std::uint64_t u = Unsigned(h);
  std::string out;
  for (int i = 0; i < len && i < kMaxRef; ++i) out += kAlphabet[(u >> (59 - 5 * i)) & 31];
  return out;
}

std::optional<std::pair<std::int64_t, std::int64_t>> RefRange(std::string_view prefix) {
  if (prefix.empty() || prefix.size() > static_cast<std::size_t>(kMaxRef)) return std::nullopt;
  std::uint64_t lo = 0;
  int bits = 0;
  for (char c : prefix) {
    const int d = Digit(c);
    if (d < 0) return std::nullopt;
    lo |= static_cast<std::uint64_t>(d) << (59 - bits);
    bits += 5;
  }
  const std::uint64_t hi = lo | (~std::uint64_t{0} >> bits);
  return std::pair{Signed(lo), Signed(hi)};
}

std::string ShortRef(Db& db, std::string_view id) {
  const std::int64_t h = RefHash(id);
  const std::uint64_t u = Unsigned(h);
  int shared = 0;
  int same = 0;  // rows of these 64 bits: more than one is another id (as likely as a lottery win)
  {
    // The id's own row, then the nearest below it, in one read.
    auto below = db.Prepare("SELECT h FROM ref WHERE h <= ? ORDER BY h DESC LIMIT 3");
    below.Bind(1, h);
    while (below.Step()) {
      if (below.Int(0) == h) {
        ++same;
        continue;
      }
      shared = SharedChars(u, Unsigned(below.Int(0)));
      break;
    }
  }
  {
    auto above = db.Prepare("SELECT h FROM ref WHERE h > ? ORDER BY h LIMIT 1");
    above.Bind(1, h);
    if (above.Step()) shared = std::max(shared, SharedChars(u, Unsigned(above.Int(0))));
  }
  if (same > 1) shared = kMaxRef;
  return RefText(h, std::clamp(shared + 1, kMinRef, kMaxRef));
}

namespace {
void RefFunction(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  if (argc != 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  try {
    const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    const std::string_view id(p, static_cast<std::size_t>(sqlite3_value_bytes(argv[0])));
    sqlite3_result_int64(ctx, RefHash(id));
  } catch (...) {
    sqlite3_result_error_nomem(ctx);
  }
}
}  // namespace

void RegisterRefFunction(Db& db) {
  int rc = sqlite3_create_function_v2(db.get(), "origin_ref", 1,
                                      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                      nullptr, RefFunction, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) throw SqliteError(rc, "register origin_ref");
}

}  // namespace origin
