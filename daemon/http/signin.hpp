// SPDX-License-Identifier: MIT
#pragma once
// Signing in to origin ui (spec: "Signing in to origin ui"), in the daemon's
// memory only, never in admin_session:
//   - a one-time secret: 32 random bytes, base64url; only its SHA-256 is
//     kept; it works once, within 5 minutes, and a new one retires the
//     previous one, used or not;
//   - the secret is exchanged for a session: a random id (the cookie
//     origin-ui) and a CSRF token; it ends 30 minutes after its last
//     request (each request it authenticates renews that), 12 hours after
//     the sign-in, on sign-out, or on Clear() (origin ui stops);
//   - a request may carry several origin-ui cookies (cookies are shared by
//     every port of 127.0.0.1, so another local server can plant one with a
//     longer Path, which the browser sends first): each is tried;
//   - secrets and tokens are compared in constant time (CRYPTO_memcmp of
//     their SHA-256: the same length whatever was sent); ids are looked up
//     by their SHA-256, so the lookup's timing says nothing of the id.
// Time comes from the Context's clock, so that tests move it.  Loop thread.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "core/util/clock.hpp"
#include "core/util/hash.hpp"

namespace origin::http {

inline constexpr std::int64_t kSecretMs = 5 * 60 * 1000;
inline constexpr std::int64_t kSessionMs = 12 * 60 * 60 * 1000;
inline constexpr std::int64_t kIdleMs = 30 * 60 * 1000;
inline constexpr char kCookieName[] = "origin-ui";

/// `n` random bytes from OpenSSL's generator, as base64url without padding.
std::string RandomToken(std::size_t n = 32);
/// Whether `a` and `b` are equal, in a time that does not depend on where they differ.
bool SameSecret(std::string_view a, std::string_view b);

class SignIn {
 public:
  struct Session {
    std::string csrf;
    std::int64_t expires_ms = 0;  // 12 hours after the sign-in
    std::int64_t idle_ms = 0;     // 30 minutes after its last request
  };
  explicit SignIn(const Clock& clock) : clock_(clock) {}

  /// A new one-time secret; the previous one stops working.
  std::string NewSecret();
  /// Exchanges `secret` for a new session: its id (the cookie's value), or
  /// nothing when it is not the current secret, was used, or is older than
  /// 5 minutes.
  std::optional<std::string> Exchange(std::string_view secret);
  /// The session whose id is the first of `ids` (the cookie's values, in
  /// the order sent) that names one while it lasts, its idle deadline
  /// renewed, with that id in `*found`; null when none does.
  const Session* Find(std::span<const std::string> ids, std::string* found = nullptr);
  const Session* Find(const std::string& id) { return Find(std::span(&id, 1)); }
  /// Ends session `id` (sign-out).
  void End(std::string_view id);
  /// Ends every session and retires the secret (origin ui stopped); how
  /// many sessions it ended.
  std::int64_t Clear();
  /// How many sessions ran out of time (30 minutes idle, or 12 hours) and
  /// were dropped since the last call: for the audit log.
  std::int64_t TakeExpired() { return std::exchange(expired_, 0); }
  std::size_t sessions() const { return sessions_.size(); }

 private:
  const Clock& clock_;
  std::optional<Sha256Digest> secret_;  // the current secret's hash, until used
  std::int64_t secret_expires_ms_ = 0;
  std::map<Sha256Digest, Session> sessions_;  // by the hash of their id
  std::int64_t expired_ = 0;
};

}  // namespace origin::http
