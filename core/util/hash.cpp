// SPDX-License-Identifier: MIT
#include "core/util/hash.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace origin {

Sha256Digest Sha256(std::string_view data) {
  Sha256Digest out{};
  unsigned int n = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &n, EVP_sha256(), nullptr) != 1)
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

std::string RandomId(std::string_view prefix) {
  unsigned char b[12];
  if (RAND_bytes(b, sizeof b) != 1) throw std::runtime_error("no random bytes for an id");
  return std::string(prefix) + Hex({reinterpret_cast<const char*>(b), sizeof b});
}

}  // namespace origin
