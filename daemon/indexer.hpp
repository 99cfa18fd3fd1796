// SPDX-License-Identifier: MIT
#pragma once
// The thread that keeps event_fts (index.db) up with the store: the writer
// calls Notify() after each transaction that added events, and the indexer
// catches up in transactions of its own, on the second core.  Stop() lets
// the transaction in progress finish.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "core/store/event_index.hpp"

namespace origin {

class Indexer {
 public:
  /// Pages of work per merge step of event_fts (FTS5 'merge').
  static constexpr int kMergePages = 64;
  /// Takes an opened index; starts the thread, which catches up at once.
  explicit Indexer(std::unique_ptr<EventIndex> index);
  ~Indexer() { Stop(); }
  Indexer(const Indexer&) = delete;
  Indexer& operator=(const Indexer&) = delete;
  /// Thread-safe: new events were committed.
  void Notify();
  void Stop();

 private:
  void Run();
  std::unique_ptr<EventIndex> index_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool pending_ = true;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace origin
