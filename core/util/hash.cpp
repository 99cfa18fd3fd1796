// SPDX-License-Identifier: MIT
#include "core/util/hash.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <mutex>
#include <random>
#include <stdexcept>

namespace origin {

namespace {
// SHA-256 fetched from OpenSSL's default provider once: EVP_sha256() makes
// EVP_Digest fetch it again at every call, under the provider's locks (300
// ns a short digest against 120; a search's answer hashes each of its ids'
// short references).  Kept for the process's life; EVP_sha256() if the
// fetch failed.
const EVP_MD* Sha256Md() {
  static const EVP_MD* const md = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA2-256", nullptr);
    return fetched != nullptr ? fetched : EVP_sha256();
  }();
  return md;
}
}  // namespace

Sha256Digest Sha256(std::string_view data) {
  Sha256Digest out{};
  unsigned int n = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &n, Sha256Md(), nullptr) != 1)
    throw std::runtime_error("sha256 failed");
  return out;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::optional<std::string> Unhex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = nib(hex[i]), lo = nib(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

namespace {
std::mutex seeded_mu;
std::optional<std::mt19937_64> seeded;  // SeedRandomIdsForTest's
}  // namespace

void SeedRandomIdsForTest(std::optional<std::uint64_t> seed) {
  std::lock_guard<std::mutex> lock(seeded_mu);
  seeded.reset();
  if (seed) seeded.emplace(*seed);
}

std::string RandomId(std::string_view prefix, std::size_t bytes) {
  std::string b(bytes, '\0');
  {
    std::lock_guard<std::mutex> lock(seeded_mu);
    if (seeded) {
      for (char& c : b) c = static_cast<char>((*seeded)() & 0xff);
      return std::string(prefix) + Hex(b);
    }
  }
  if (RAND_bytes(reinterpret_cast<unsigned char*>(b.data()), static_cast<int>(bytes)) != 1)
    throw std::runtime_error("no random bytes for an id");
  return std::string(prefix) + Hex(b);
}

bool IdShaped(std::string_view id, std::string_view prefix, std::size_t max) {
  return id.size() > prefix.size() && id.size() <= max && id.starts_with(prefix) &&
         std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-';
         });
}

}  // namespace origin
