// SPDX-License-Identifier: MIT
#pragma once
// One-shot timers on the loop thread, and the bounded waits built on them.
// The scheduler (daemon/watch/scheduler.hpp) takes the Timers interface, so
// that its unit tests drive it with a fake clock (FakeTimers in the tests);
// the daemon runs it on LoopTimers, whose timers are libuv handles owned
// like the others: each is closed by CloseAll() at shutdown or when it
// fired, and freed in its close callback.

#include <uv.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>

#include "daemon/thread_check.hpp"

namespace origin {

class Timers {
 public:
  using Id = std::uint64_t;
  virtual ~Timers() = default;
  /// Runs `fn` on the loop thread after `ms`, once, unless cancelled; an
  /// exception out of `fn` is logged, never thrown through the loop.
  virtual Id After(int ms, std::function<void()> fn) = 0;
  virtual void Cancel(Id id) = 0;
  /// Whether `id` is still due (started, not fired, not cancelled).
  virtual bool Due(Id id) const = 0;
};

/// The steady clock in ms: for waits and intervals, which the wall clock's
/// jumps must not change.
inline std::int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// `then`, to run once: by the returned function or after `wait_ms`,
/// whichever comes first (the bounded waits: the first sync, WhenSynced,
/// Freshen).
std::function<void()> AtMostAfter(Timers& timers, int wait_ms, std::function<void()> then);

class LoopTimers final : public Timers {
 public:
  LoopTimers(uv_loop_t* loop, const ThreadRole& loop_thread) : loop_(loop), thread_(loop_thread) {}
  ~LoopTimers() override { CloseAll(); }
  LoopTimers(const LoopTimers&) = delete;
  LoopTimers& operator=(const LoopTimers&) = delete;

  Id After(int ms, std::function<void()> fn) override;
  void Cancel(Id id) override;
  bool Due(Id id) const override { return timers_.count(id) != 0; }
  /// Closes every timer not fired yet, and refuses new ones (shutdown:
  /// what they would do no longer matters, and they would keep the loop
  /// running).
  void CloseAll();

 private:
  struct OneShot;
  static void OnFire(uv_timer_t* h) noexcept;
  static void Close(OneShot* t) noexcept;
  uv_loop_t* loop_;
  const ThreadRole& thread_;
  std::map<Id, OneShot*> timers_;
  Id next_ = 1;
  bool closed_ = false;
};

}  // namespace origin
