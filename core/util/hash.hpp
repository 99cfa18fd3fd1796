// SPDX-License-Identifier: MIT
#pragma once
// SHA-256 through OpenSSL's EVP interface, as raw bytes or lower-case hex;
// global random ids (ent_, tmb_) from OpenSSL's generator.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace origin {

using Sha256Digest = std::array<unsigned char, 32>;
Sha256Digest Sha256(std::string_view data);
std::string Hex(std::string_view bytes);
/// The bytes `hex` spells (either case); nothing for an odd length or a
/// character that is not a hex digit.
std::optional<std::string> Unhex(std::string_view hex);
inline std::string Sha256Hex(std::string_view data) {
  Sha256Digest d = Sha256(data);
  return Hex({reinterpret_cast<const char*>(d.data()), d.size()});
}

/// `prefix` and `bytes` random bytes in hex (24 digits by default), e.g.
/// ent_3f2a…: ids that are unique on every store, for entries and
/// tombstones; a hub's access tokens take more (core/hub/tokens.hpp).
std::string RandomId(std::string_view prefix, std::size_t bytes = 12);
/// Tests only: RandomId's bytes from a generator seeded with `seed` instead
/// of OpenSSL's, until called with nullopt, so that a test that chooses
/// among ids in their order runs the same way every time.  Never called by
/// the programs (a hub's tokens are RandomId's).
void SeedRandomIdsForTest(std::optional<std::uint64_t> seed);
/// Whether `id` has the shape of such an id from another store: `prefix`,
/// then at least one letter, digit, '_' or '-', `max` bytes at most.  What
/// a hub takes in a device's push (core/hub/replicate, core/forget/replica).
bool IdShaped(std::string_view id, std::string_view prefix, std::size_t max = 128);

}  // namespace origin
