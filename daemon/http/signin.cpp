// SPDX-License-Identifier: MIT
#include "daemon/http/signin.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <stdexcept>
#include <vector>

namespace origin::http {

namespace {

bool Ended(const SignIn::Session& s, std::int64_t now) { return now >= s.expires_ms || now >= s.idle_ms; }

}  // namespace

std::string RandomToken(std::size_t n) {
  std::vector<unsigned char> bytes(n);
  if (RAND_bytes(bytes.data(), static_cast<int>(n)) != 1)
    throw std::runtime_error("no randomness from OpenSSL");
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (unsigned char b : bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
  return out;
}

bool SameSecret(std::string_view a, std::string_view b) {
  const Sha256Digest ha = Sha256(a), hb = Sha256(b);
  return CRYPTO_memcmp(ha.data(), hb.data(), ha.size()) == 0;
}

std::string SignIn::NewSecret() {
  std::string secret = RandomToken();
  secret_ = Sha256(secret);
  secret_expires_ms_ = clock_.NowMs() + kSecretMs;
  return secret;
}

std::optional<std::string> SignIn::Exchange(std::string_view secret) {
  if (!secret_) return std::nullopt;
  const Sha256Digest given = Sha256(secret);
  if (CRYPTO_memcmp(given.data(), secret_->data(), given.size()) != 0) return std::nullopt;
  secret_.reset();  // once, even when it came too late
  const std::int64_t now = clock_.NowMs();
  if (now >= secret_expires_ms_) return std::nullopt;
  expired_ += static_cast<std::int64_t>(
      std::erase_if(sessions_, [now](const auto& s) { return Ended(s.second, now); }));
  std::string id = RandomToken();
  sessions_[Sha256(id)] = Session{RandomToken(), now + kSessionMs, now + kIdleMs};
  return id;
}

const SignIn::Session* SignIn::Find(std::span<const std::string> ids, std::string* found) {
  const std::int64_t now = clock_.NowMs();
  for (const std::string& id : ids) {
    if (id.empty()) continue;
    auto it = sessions_.find(Sha256(id));  // a lookup by hash: no timing of the id itself
    if (it == sessions_.end()) continue;
    if (Ended(it->second, now)) {
      sessions_.erase(it);
      ++expired_;
      continue;
    }
    it->second.idle_ms = now + kIdleMs;
    if (found != nullptr) *found = id;
    return &it->second;
  }
  return nullptr;
}

void SignIn::End(std::string_view id) { sessions_.erase(Sha256(id)); }

std::int64_t SignIn::Clear() {
  const std::int64_t now = clock_.NowMs();
  std::int64_t live = 0;
  for (const auto& [id, session] : sessions_) (Ended(session, now) ? expired_ : live) += 1;
  sessions_.clear();
  secret_.reset();
  return live;
}

}  // namespace origin::http
