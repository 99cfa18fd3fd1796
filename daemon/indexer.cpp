// SPDX-License-Identifier: MIT
#include "daemon/indexer.hpp"

#include "daemon/log.hpp"

namespace origin {

Indexer::Indexer(std::unique_ptr<EventIndex> index, std::function<std::int64_t()> now_ms)
    : index_(std::move(index)), now_ms_(std::move(now_ms)) {
  thread_ = std::thread([this] { Run(); });
}

void Indexer::Notify() {
  {
    std::lock_guard lock(mu_);
    pending_ = true;
  }
  cv_.notify_one();
}

void Indexer::Suspect(const std::string& what) {
  {
    std::lock_guard lock(mu_);
    check_ = true;
    if (suspicion_.empty()) suspicion_ = what;
  }
  cv_.notify_one();
}

Indexer::Health Indexer::GetHealth() const {
  std::lock_guard lock(mu_);
  return health_;
}

void Indexer::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    if (index_) index_->Interrupt();  // a long integrity-check ends now
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mu_);
  index_.reset();  // close the connections after the indexer's last use
}

void Indexer::SetState(const char* state) {
  std::lock_guard lock(mu_);
  health_.state = state;
}

void Indexer::Problem(const std::string& what) {
  std::lock_guard lock(mu_);
  health_.problem = what;
  health_.problem_at_ms = now_ms_();
}

void Indexer::Damaged(const std::string& what) {
  LOG_ERROR("search index damaged (%s): rebuilding it from the events", what.c_str());
  Problem("damaged: " + what);
  index_->Rebuild();
  std::lock_guard lock(mu_);
  health_.state = "rebuilding";
  ++health_.rebuilds;
}

void Indexer::CheckNow(const std::string& why) {
  const std::int64_t started = now_ms_();
  std::string problems = index_->Check();
  {
    std::lock_guard lock(mu_);
    health_.checked_at_ms = now_ms_();
  }
  if (!problems.empty()) {
    Damaged(problems);
  } else {
    if (!why.empty())
      LOG_WARN("search index: a search reported damage (%s), but the check found none",
               why.c_str());
    LOG_INFO("search index: integrity check passed in %lld ms",
             static_cast<long long>(now_ms_() - started));
  }
}

void Indexer::Run() {
  using Clock = std::chrono::steady_clock;
  auto next_check = Clock::now();
  auto retry = Clock::time_point::max();  // after a failure, catch up again then
  for (;;) {
    bool check = false;
    std::string why;
    {
      std::unique_lock lock(mu_);
      cv_.wait_until(lock, std::min(next_check, retry),
                     [&] { return pending_ || check_ || stopping_; });
      if (stopping_) return;
      const auto now = Clock::now();
      if (now >= next_check) check_ = true;
      if (now >= retry) pending_ = true;
      retry = Clock::time_point::max();
      check = std::exchange(check_, false);
      why = std::exchange(suspicion_, {});
      pending_ = false;
      if (check) next_check = now + kCheckEvery;
    }
    try {
      if (check) CheckNow(why);
      index_->CatchUp(4u << 20, [&] { return stopping_.load(); });
      {
        std::lock_guard lock(mu_);
        if (health_.state != "ok" && !stopping_) {
          if (health_.state == "rebuilding") LOG_INFO("search index: rebuilt");
          health_.state = "ok";
        }
      }
      // Idle: merge the index's segments, a step at a time, until new
      // events arrive or nothing is left to merge.
      auto idle = [&] {
        std::lock_guard lock(mu_);
        return !pending_ && !stopping_ && !check_;
      };
      while (idle() && index_->MergeStep(kMergePages)) {
      }
    } catch (const SqliteError& e) {
      if (stopping_) return;  // interrupted by Stop()
      try {
        if (IsCorruption(e)) {
          Damaged(e.what());
          std::lock_guard lock(mu_);
          pending_ = true;  // build it again now
          continue;
        }
      } catch (const std::exception& e2) {
        LOG_ERROR("search index: rebuild failed: %s", e2.what());
      }
      // Disk full, I/O error...: the next notification tries again, and
      // searches read the events the index has not reached.
      LOG_ERROR("search index: %s", e.what());
      Problem(e.what());
      SetState("failing");
      retry = Clock::now() + std::chrono::seconds(10);
    } catch (const std::exception& e) {
      LOG_ERROR("search index: %s", e.what());
      Problem(e.what());
      SetState("failing");
      retry = Clock::now() + std::chrono::seconds(10);
    }
  }
}

}  // namespace origin
