// SPDX-License-Identifier: MIT
#include "daemon/indexer.hpp"

#include "daemon/log.hpp"

namespace origin {

Indexer::Indexer(std::unique_ptr<EventIndex> index, std::function<std::int64_t()> now_ms,
                 std::chrono::milliseconds check_after)
    : index_(std::move(index)),
      now_ms_(std::move(now_ms)),
      check_(check_after.count() <= 0),
      check_after_(check_after) {
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

void Indexer::EraseEvents(const std::vector<std::int64_t>& seqs) {
  std::packaged_task<void()> task([this, &seqs] { index_->EraseEvents(seqs); });
  std::future<void> done = task.get_future();
  {
    std::lock_guard lock(mu_);
    if (stopping_) throw std::runtime_error("the search index is stopping");
    jobs_.push_back(std::move(task));
    jobs_waiting_ = true;
  }
  cv_.notify_one();
  done.get();  // a task dropped unrun (the indexer stopped) throws broken_promise
}

void Indexer::RunJobs() {
  for (;;) {
    std::packaged_task<void()> job;
    {
      std::lock_guard lock(mu_);
      if (jobs_.empty()) {
        jobs_waiting_ = false;
        return;
      }
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();  // its exception goes to the waiting caller
  }
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
  jobs_.clear();  // their callers get broken_promise
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

bool Indexer::Damaged(const std::string& what) {
  const auto now = Clock::now();
  if (last_rebuild_ && now - *last_rebuild_ < kRebuildAgainAfter) {
    // Damaged again right after a rebuild: something keeps breaking it (a
    // failing disk?).  No loop of rebuilds: a check again later.
    LOG_ERROR("search index damaged again soon after a rebuild (%s): checking again in %lld min",
              what.c_str(),
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::minutes>(kRebuildAgainAfter).count()));
    Problem("damaged again after a rebuild: " + what);
    SetState("failing");
    next_check_ = *last_rebuild_ + kRebuildAgainAfter;
    return false;
  }
  LOG_ERROR("search index damaged (%s): rebuilding it from the events", what.c_str());
  Problem("damaged: " + what);
  index_->Rebuild();
  last_rebuild_ = now;
  std::lock_guard lock(mu_);
  health_.state = "rebuilding";
  ++health_.rebuilds;
  return true;
}

bool Indexer::CheckNow(const std::string& why) {
  const std::int64_t started = now_ms_();
  std::string problems = index_->Check();
  {
    std::lock_guard lock(mu_);
    health_.checked_at_ms = now_ms_();
  }
  if (!problems.empty()) return Damaged(problems);
  last_check_passed_ = Clock::now();
  if (!why.empty())
    LOG_WARN("search index: reported damaged (%s), but the check found nothing wrong",
             why.c_str());
  LOG_INFO("search index: integrity check passed in %lld ms",
           static_cast<long long>(now_ms_() - started));
  return false;
}

void Indexer::Run() {
  next_check_ = Clock::now() + check_after_;  // at start, or a minute after it
  auto retry = Clock::time_point::max();  // after a failure, catch up again then
  for (;;) {
    bool check = false;
    std::string why;
    {
      std::unique_lock lock(mu_);
      cv_.wait_until(lock, std::min(next_check_, retry),
                     [this] { return WorkWaiting(); });
      if (stopping_) return;
      const auto now = Clock::now();
      if (now >= next_check_) check_ = true;
      if (now >= retry) pending_ = true;
      retry = Clock::time_point::max();
      check = std::exchange(check_, false);
      why = std::exchange(suspicion_, {});
      if (pending_) health_.merged = false;
      pending_ = false;
      if (check) next_check_ = now + kCheckEvery;
      // A search's report soon after a check that passed: that check stands
      // (a report per search would be a check per search).
      if (check && !why.empty() && last_check_passed_ &&
          now - *last_check_passed_ < kRebuildAgainAfter)
        check = false;
    }
    try {
      RunJobs();
      if (check) CheckNow(why);
      // A job waiting ends the catch-up between two transactions; it runs
      // next, and the catch-up goes on after it.
      index_->CatchUp(4u << 20, [&] { return stopping_.load() || jobs_waiting_.load(); });
      if (jobs_waiting_) {
        std::lock_guard lock(mu_);
        pending_ = true;
        continue;
      }
      {
        std::lock_guard lock(mu_);
        if (health_.state != "ok" && !stopping_) {
          if (health_.state == "rebuilding") LOG_INFO("search index: rebuilt");
          health_.state = "ok";
        }
      }
      // Idle: once no event has come for kQuietBeforeMerge, merge the
      // index's segments, a step at a time, until new events arrive or
      // nothing is left to merge.  Not sooner: events that come in a
      // stream of small transactions (a hub taking a device's first sync,
      // chunk after chunk) would otherwise have the segments merged between
      // every two, for a fifth more CPU (docs/performance.md, The hub).
      {
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, kQuietBeforeMerge, [this] { return WorkWaiting(); });
      }
      auto idle = [&] {
        std::lock_guard lock(mu_);
        return !WorkWaiting();
      };
      bool merging = true;
      while (merging && idle()) merging = index_->MergeStep(kMergePages);
      if (!merging) {
        std::lock_guard lock(mu_);
        health_.merged = !WorkWaiting();
      }
    } catch (const std::exception& e) {
      if (stopping_) return;  // interrupted by Stop()
      const auto* sq = dynamic_cast<const SqliteError*>(&e);
      bool rebuilt = false;
      if (sq != nullptr && IsCorruption(*sq)) {
        // Damage met while indexing: index.db's, or origin.db's (which the
        // indexer reads)?  The check says; only then is it rebuilt.
        try {
          rebuilt = CheckNow(e.what());
        } catch (const std::exception& e2) {
          LOG_ERROR("search index: checking it: %s", e2.what());
        }
      }
      if (rebuilt) {
        std::lock_guard lock(mu_);
        pending_ = true;  // build it again now
        continue;
      }
      // Disk full, I/O error, damage elsewhere...: tried again in a while;
      // searches read the events the index has not reached.
      LOG_ERROR("search index: %s", e.what());
      Problem(e.what());
      SetState("failing");
      retry = Clock::now() + std::chrono::seconds(10);
    }
  }
}

}  // namespace origin
