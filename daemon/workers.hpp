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
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

class DbWorkers {
 public:
  using Job = std::function<void(Db&)>;
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
  /// Runs the urgent jobs queued now, on the calling worker thread.
  void RunUrgent(Db& db);
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

}  // namespace origin
