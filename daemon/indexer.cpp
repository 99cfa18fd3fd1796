// SPDX-License-Identifier: MIT
#include "daemon/indexer.hpp"

#include "daemon/log.hpp"

namespace origin {

Indexer::Indexer(std::unique_ptr<EventIndex> index) : index_(std::move(index)) {
  thread_ = std::thread([this] { Run(); });
}

void Indexer::Notify() {
  {
    std::lock_guard lock(mu_);
    pending_ = true;
  }
  cv_.notify_one();
}

void Indexer::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  index_.reset();  // close the connections on this thread, after the indexer's last use
}

void Indexer::Run() {
  for (;;) {
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return pending_ || stopping_; });
      if (stopping_) return;
      pending_ = false;
    }
    try {
      index_->CatchUp(4u << 20, [&] { return stopping_.load(); });
      // Idle: merge the index's segments, a step at a time, until new
      // events arrive or nothing is left to merge.
      auto idle = [&] {
        std::lock_guard lock(mu_);
        return !pending_ && !stopping_;
      };
      while (idle() && index_->MergeStep(kMergePages)) {
      }
    } catch (const std::exception& e) {
      // The next notification (or the next start) tries again.
      LOG_ERROR("search index: %s", e.what());
    }
  }
}

}  // namespace origin
