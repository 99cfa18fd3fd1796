// SPDX-License-Identifier: MIT
#pragma once
// The time source of core.  Everything in core that depends on time (idle
// tails sealed after an hour, sync_log times, 7-day windows) asks a Clock,
// so tests drive it with a fake one.

#include <atomic>
#include <chrono>
#include <cstdint>

namespace origin {

class Clock {
 public:
  virtual ~Clock() = default;
  /// Milliseconds since the Unix epoch, UTC.
  virtual std::int64_t NowMs() const = 0;
};

class SystemClock final : public Clock {
 public:
  std::int64_t NowMs() const override {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }
};

/// A clock that moves only when told to (tests).
class FakeClock final : public Clock {
 public:
  explicit FakeClock(std::int64_t start_ms) : now_(start_ms) {}
  std::int64_t NowMs() const override { return now_.load(); }
  void Tick(std::int64_t ms) { now_ += ms; }

 private:
  std::atomic<std::int64_t> now_;
};

}  // namespace origin
