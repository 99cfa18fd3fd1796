// SPDX-License-Identifier: MIT
#include "daemon/watch/scheduler.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

namespace origin {

SyncScheduler::SyncScheduler(Timers& timers, const ThreadRole& loop_thread, std::size_t sources,
                             Options opts, RunSync run)
    : timers_(timers),
      thread_(loop_thread),
      opts_(opts),
      run_(std::move(run)),
      sources_(sources),
      first_left_(sources) {}

void SyncScheduler::Start() {
  ORIGIN_ASSERT_INSIDE(thread_);
  rescan_ = timers_.After(opts_.rescan_ms, [this] { Rescan(); });
  for (std::size_t i = 0; i < sources_.size(); ++i) Schedule(i, 0, "start");
}

void SyncScheduler::Stop() {
  ORIGIN_ASSERT_INSIDE(thread_);
  stopped_ = true;
  timers_.Cancel(rescan_);
  for (Source& s : sources_) timers_.Cancel(s.timer);
  // Requests waiting for a sync are answered from what is stored.
  for (auto& fn : std::exchange(after_first_sync_, {})) fn();
  for (auto& fn : std::exchange(when_synced_, {})) fn();
}

void SyncScheduler::Rescan() {
  for (std::size_t i = 0; i < sources_.size(); ++i) Schedule(i, 0, "rescan");
  if (!stopped_) rescan_ = timers_.After(opts_.rescan_ms, [this] { Rescan(); });
}

void SyncScheduler::Changed(std::size_t source) {
  ORIGIN_ASSERT_INSIDE(thread_);
  Schedule(source, opts_.debounce_ms, "watch");
}

int SyncScheduler::Backoff(Source& s) const {
  // Doubling, at most a rescan apart: a full disk is not tried in a loop.
  s.backoff_ms =
      s.backoff_ms == 0 ? opts_.retry_ms : std::min(s.backoff_ms * 2, std::max(opts_.rescan_ms, 1));
  return s.backoff_ms;
}

void SyncScheduler::RetryLater(std::size_t source) {
  ORIGIN_ASSERT_INSIDE(thread_);
  Source& s = sources_[source];
  // A sync running or due will meet the fault itself, or go through.
  if (stopped_ || s.running || timers_.Due(s.timer)) return;
  Schedule(source, Backoff(s), "retry");
}

void SyncScheduler::Schedule(std::size_t source, int delay_ms, const char* reason) {
  if (stopped_) return;
  Source& s = sources_[source];
  if (timers_.Due(s.timer)) {
    if (!s.retry_due) return;  // already due: the same sync serves
    // A change during a backoff is synced as soon as any other: a store
    // that failed once may well take it (the backoff goes on if not).
    timers_.Cancel(s.timer);
  }
  s.reason = reason;
  s.retry_due = std::string_view(reason) == "retry";
  s.timer = timers_.After(delay_ms, [this, source] {
    Source& due = sources_[source];
    due.timer = 0;
    due.retry_due = false;
    if (due.running)
      due.pending = true;  // one more after it
    else
      Run(source);
  });
}

void SyncScheduler::Run(std::size_t source) {
  Source& s = sources_[source];
  s.running = true;
  const std::string reason = std::exchange(s.reason, "watch");
  run_(source, reason, [this, source](bool retry) { Ended(source, retry); });
}

void SyncScheduler::Ended(std::size_t source, bool retry) {
  ORIGIN_ASSERT_INSIDE(thread_);
  Source& s = sources_[source];
  s.running = false;
  if (!s.synced_once) {
    s.synced_once = true;
    if (--first_left_ == 0)
      for (auto& fn : std::exchange(after_first_sync_, {})) fn();
  }
  if (s.pending && !stopped_) {
    s.pending = false;
    Run(source);
  } else if (retry) {
    Schedule(source, Backoff(s), "retry");
  } else {
    s.backoff_ms = 0;
  }
  if (Idle())
    for (auto& fn : std::exchange(when_synced_, {})) fn();
}

void SyncScheduler::AfterFirstSync(int wait_ms, std::function<void()> fn) {
  ORIGIN_ASSERT_INSIDE(thread_);
  if (FirstSyncDone() || stopped_) {
    fn();
    return;
  }
  after_first_sync_.push_back(AtMostAfter(timers_, wait_ms, std::move(fn)));
}

bool SyncScheduler::Idle() const {
  // A retry due waits for space to return, which may take long: not what
  // a request waiting for fresh lines should wait for.
  for (const Source& s : sources_)
    if (s.running || s.pending || (timers_.Due(s.timer) && !s.retry_due)) return false;
  return true;
}

int SyncScheduler::RetryDelayMs(std::size_t source) const {
  const Source& s = sources_[source];
  return s.retry_due && timers_.Due(s.timer) ? s.backoff_ms : 0;
}

bool SyncScheduler::Running() const {
  for (const Source& s : sources_)
    if (s.running) return true;
  return false;
}

void SyncScheduler::WhenSynced(int wait_ms, std::function<void()> fn) {
  ORIGIN_ASSERT_INSIDE(thread_);
  if (Idle() || stopped_) {
    fn();
    return;
  }
  when_synced_.push_back(AtMostAfter(timers_, wait_ms, std::move(fn)));
}

}  // namespace origin
