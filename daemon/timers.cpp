// SPDX-License-Identifier: MIT
#include "daemon/timers.hpp"

#include <memory>
#include <utility>

#include "daemon/log.hpp"

namespace origin {

std::function<void()> AtMostAfter(Timers& timers, int wait_ms, std::function<void()> then) {
  auto once = std::make_shared<std::function<void()>>(std::move(then));
  auto run = [once] {
    if (*once) std::exchange(*once, nullptr)();
  };
  timers.After(wait_ms, run);
  return run;
}

struct LoopTimers::OneShot {
  uv_timer_t handle;
  LoopTimers* owner;
  Id id;
  std::function<void()> fn;
};

Timers::Id LoopTimers::After(int ms, std::function<void()> fn) {
  ORIGIN_ASSERT_INSIDE(thread_);
  if (closed_) return 0;
  auto t = std::make_unique<OneShot>(OneShot{{}, this, next_++, std::move(fn)});
  if (int rc = uv_timer_init(loop_, &t->handle); rc < 0) {
    LOG_ERROR("timer: %s", uv_strerror(rc));
    return 0;
  }
  OneShot* raw = t.release();  // freed by its close callback from here on
  raw->handle.data = raw;
  timers_[raw->id] = raw;
  uv_timer_start(&raw->handle, &LoopTimers::OnFire, static_cast<std::uint64_t>(ms < 0 ? 0 : ms), 0);
  return raw->id;
}

void LoopTimers::OnFire(uv_timer_t* h) noexcept {
  auto* t = static_cast<OneShot*>(h->data);
  t->owner->timers_.erase(t->id);
  std::function<void()> fn = std::move(t->fn);
  Close(t);
  try {
    fn();
  } catch (const std::exception& e) {
    LOG_ERROR("timer: %s", e.what());
  } catch (...) {
    LOG_ERROR("timer: unknown exception");
  }
}

void LoopTimers::Cancel(Id id) {
  ORIGIN_ASSERT_INSIDE(thread_);
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  OneShot* t = it->second;
  timers_.erase(it);
  Close(t);
}

void LoopTimers::CloseAll() {
  closed_ = true;
  for (auto& [id, t] : std::exchange(timers_, {})) Close(t);
}

void LoopTimers::Close(OneShot* t) noexcept {
  uv_close(reinterpret_cast<uv_handle_t*>(&t->handle),
           [](uv_handle_t* p) { delete static_cast<OneShot*>(p->data); });
}

}  // namespace origin
