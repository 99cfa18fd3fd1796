// SPDX-License-Identifier: MIT
#include "daemon/workers.hpp"

#include <algorithm>

#include "daemon/log.hpp"
#include "daemon/uv.hpp"

namespace origin {

LoopPoster::LoopPoster(uv_loop_t* loop)
    : async_(UvHandle<uv_async_t>::Make(
          [&](uv_async_t* a) { return uv_async_init(loop, a, &LoopPoster::OnAsync); })) {
  async_.get()->data = this;
}

void LoopPoster::Post(std::function<void()> fn) {
  std::lock_guard lock(mu_);
  if (closed_) return;
  pending_.push_back(std::move(fn));
  uv_async_send(async_.get());
}

void LoopPoster::Close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    pending_.clear();
  }
  async_.Close();
}

void LoopPoster::OnAsync(uv_async_t* h) noexcept {
  auto* self = static_cast<LoopPoster*>(h->data);
  if (self == nullptr) return;
  std::vector<std::function<void()>> run;
  {
    std::lock_guard lock(self->mu_);
    run.swap(self->pending_);
  }
  for (auto& fn : run) {
    try {
      fn();
    } catch (const std::exception& e) {
      LOG_ERROR("loop task failed: %s", e.what());
    } catch (...) {
      LOG_ERROR("loop task failed");
    }
  }
}

DbWorkers::DbWorkers(std::string name, int threads, Opener open) : name_(std::move(name)) {
  for (int i = 0; i < threads; ++i) {
    std::unique_ptr<Db> db = open();
    threads_.emplace_back([this, d = std::move(db)]() mutable { Run(std::move(d)); });
    ids_.push_back(threads_.back().get_id());
  }
}

bool DbWorkers::Inside() const noexcept {
  return std::find(ids_.begin(), ids_.end(), std::this_thread::get_id()) != ids_.end();
}

DbWorkers::~DbWorkers() { Stop(); }

void DbWorkers::Post(Job job, bool urgent) {
  {
    std::lock_guard lock(mu_);
    (urgent ? urgent_ : normal_).push_back(std::move(job));
  }
  cv_.notify_one();
}

DbWorkers::Forked DbWorkers::Fork(Job job) {
  Forked f;
  f.state_ = std::make_shared<Forked::State>();
  f.state_->job = std::move(job);
  Post(
      [s = f.state_](Db& db) {
        {
          std::lock_guard lock(s->mu);
          if (s->taken) return;  // the caller joined first and ran it
          s->taken = true;
        }
        try {
          s->job(db);
        } catch (...) {
          s->error = std::current_exception();
        }
        {
          std::lock_guard lock(s->mu);
          s->done = true;
        }
        s->cv.notify_all();
      },
      /*urgent=*/true);
  return f;
}

void DbWorkers::Forked::Join(Db& db) {
  State& s = *state_;
  std::unique_lock lock(s.mu);
  if (!s.taken) {
    s.taken = true;
    lock.unlock();
    s.job(db);
    return;
  }
  s.cv.wait(lock, [&] { return s.done; });
  if (s.error) std::rethrow_exception(s.error);
}

void DbWorkers::RunUrgent(Db& db) {
  for (;;) {
    Job job;
    {
      std::lock_guard lock(mu_);
      if (urgent_.empty()) return;
      job = std::move(urgent_.front());
      urgent_.pop_front();
    }
    try {
      job(db);
    } catch (const std::exception& e) {
      LOG_ERROR("%s: job failed: %s", name_.c_str(), e.what());
    }
  }
}

bool DbWorkers::UrgentWaiting() {
  std::lock_guard lock(mu_);
  return !urgent_.empty();
}

void DbWorkers::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void DbWorkers::Run(std::unique_ptr<Db> db) {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !urgent_.empty() || !normal_.empty(); });
      if (stopping_) break;
      auto& q = !urgent_.empty() ? urgent_ : normal_;
      job = std::move(q.front());
      q.pop_front();
    }
    try {
      job(*db);
    } catch (const std::exception& e) {
      LOG_ERROR("%s: job failed: %s", name_.c_str(), e.what());
    }
  }
  db.reset();  // close the connection on its own thread
}

}  // namespace origin
