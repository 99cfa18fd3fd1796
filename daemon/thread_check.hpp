// SPDX-License-Identifier: MIT
#pragma once
// The thread rules of design.md, checked: a part bound to the loop thread
// asserts at the entry of each member that has the rule (as MPD's
// `assert(IsInside())`), in debug and sanitizer builds (NDEBUG unset).  A
// role not bound yet (before Start) accepts any thread: construction and
// wiring happen on the thread that will run the loop anyway.

#include <atomic>
#include <cassert>
#include <thread>

namespace origin {

class ThreadRole {
 public:
  /// From now on, only the calling thread is inside.
  void Bind() noexcept { id_.store(std::this_thread::get_id()); }
  bool Inside() const noexcept {
    const std::thread::id bound = id_.load();
    return bound == std::thread::id() || bound == std::this_thread::get_id();
  }

 private:
  std::atomic<std::thread::id> id_{};
};

}  // namespace origin

/// The caller runs on the thread `role` was bound to.
#define ORIGIN_ASSERT_INSIDE(role) assert((role).Inside())
