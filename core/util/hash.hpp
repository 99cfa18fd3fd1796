// SPDX-License-Identifier: MIT
#pragma once
// SHA-256 through OpenSSL's EVP interface, as raw bytes or lower-case hex;
// global random ids (ent_, tmb_) from OpenSSL's generator.

#include <array>
#include <string>
#include <string_view>

namespace origin {

using Sha256Digest = std::array<unsigned char, 32>;
Sha256Digest Sha256(std::string_view data);
std::string Hex(std::string_view bytes);
inline std::string Sha256Hex(std::string_view data) {
  Sha256Digest d = Sha256(data);
  return Hex({reinterpret_cast<const char*>(d.data()), d.size()});
}

/// `prefix` and 24 random hex digits, e.g. ent_3f2a…: ids that are unique
/// on every store, for entries and tombstones.
std::string RandomId(std::string_view prefix);

}  // namespace origin
