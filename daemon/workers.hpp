// SPDX-License-Identifier: MIT
#pragma once
// The threads that touch SQLite (design.md section 2): one writer, owning
// the only write connection, and a pool of readers, each with a read-only
// connection of its own.  Jobs run in order per thread; a job that wants to
// let waiting work through (a long ingest) calls RunUrgent() between its
// transactions, which runs every urgent job queued meanwhile.  Stop() lets
// the current job finish: `stopping()` turns true, and a long job checks it
// between transactions and ends early.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <future>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

class DbWorkers {
 public:
  using Job = std::function<void(Db&)>;

  /// A job started beside the caller's own work (Fork), and joined once
  /// the caller needs what it did.  A pool thread that is free runs it
  /// meanwhile; if none has taken it by Join, the caller runs it then, on
  /// its own connection.  So a job of the pool may fork and join without
  /// ever waiting for a thread that waits for it: a forked job never joins.
  class Forked {
   public:
    /// Runs the job here unless a pool thread has taken it, else waits for
    /// it; rethrows what the job threw.
    void Join(Db& db);

   private:
    friend class DbWorkers;
    struct State {
      std::mutex mu;
      std::condition_variable cv;
      Job job;
      bool taken = false, done = false;
      std::exception_ptr error;
    };
    std::shared_ptr<State> state_;
  };
  using Opener = std::function<std::unique_ptr<Db>()>;

  /// Starts `threads` threads, each with the connection `open` returns
  /// (the writer passes one already opened through a one-shot opener).
  DbWorkers(std::string name, int threads, Opener open);
  ~DbWorkers();
  DbWorkers(const DbWorkers&) = delete;
  DbWorkers& operator=(const DbWorkers&) = delete;

  /// Queues a job; urgent jobs run before the others, and also between the
  /// transactions of a running job that calls RunUrgent.
  void Post(Job job, bool urgent = false);
  /// Queues `job` as urgent work that the caller will Join; see Forked.
  [[nodiscard]] Forked Fork(Job job);
  /// Runs the urgent jobs queued now, on the calling worker thread.
  void RunUrgent(Db& db);
  /// An urgent job is queued (RunUrgent would run it).
  bool UrgentWaiting();
  /// Asks the threads to finish their current job and exit; joins them.
  void Stop();
  bool stopping() const noexcept { return stopping_.load(); }
  /// The caller is one of these threads (ORIGIN_ASSERT_INSIDE(writer)).
  bool Inside() const noexcept;

 private:
  void Run(std::unique_ptr<Db> db);
  std::string name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> urgent_, normal_;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
  std::vector<std::thread::id> ids_;  // set before any job is posted, then read only
};

/// `f(db)` on one of `w`'s threads, waited for here (a thread that may
/// wait: a hub thread, never the loop).  What it throws is thrown here; a
/// job dropped because the workers stopped is a broken promise.
template <class F>
auto OnDb(DbWorkers* w, F f) -> decltype(f(std::declval<Db&>())) {
  using R = decltype(f(std::declval<Db&>()));
  auto p = std::make_shared<std::promise<R>>();
  std::future<R> done = p->get_future();
  w->Post([p, f = std::move(f)](Db& db) mutable {
    try {
      if constexpr (std::is_void_v<R>) {
        f(db);
        p->set_value();
      } else {
        p->set_value(f(db));
      }
    } catch (...) {
      p->set_exception(std::current_exception());
    }
  });
  return done.get();
}

}  // namespace origin
