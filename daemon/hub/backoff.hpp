// SPDX-License-Identifier: MIT
#pragma once
// When a daemon's own sync with its hub may try again after failures
// (spec: Using a hub from a device: failures are retried with backoff):
// none for `first_ms` after the first failure, the wait doubling with each
// failure in a row, at most `longest_ms`; a success ends it.  Times are
// the caller's clock in ms (the Syncer's steady clock; a test's own), so
// the rule is tested without waiting.  Not thread-safe: the Syncer holds
// its lock around it.

#include <algorithm>
#include <cstdint>

namespace origin::hub {

class Backoff {
 public:
  constexpr Backoff(std::int64_t first_ms, std::int64_t longest_ms)
      : first_ms_(first_ms), longest_ms_(longest_ms) {}

  /// Whether an automatic try may go now.
  bool Allows(std::int64_t now_ms) const { return failures_ == 0 || now_ms >= retry_at_ms_; }
  /// A try ended: `ok`, or failed at `now_ms`.
  void Ended(bool ok, std::int64_t now_ms) {
    if (ok) {
      failures_ = 0;
      return;
    }
    ++failures_;
    // The shift stops growing long before it could overflow.
    const std::int64_t wait = first_ms_ << std::min(failures_ - 1, 30);
    retry_at_ms_ = now_ms + std::min(wait, longest_ms_);
  }
  int failures() const { return failures_; }
  std::int64_t retry_at_ms() const { return retry_at_ms_; }

 private:
  std::int64_t first_ms_, longest_ms_;
  int failures_ = 0;  // tries failed in a row
  std::int64_t retry_at_ms_ = 0;
};

}  // namespace origin::hub
