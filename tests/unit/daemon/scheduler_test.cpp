// SPDX-License-Identifier: MIT
// The sync scheduler on a fake clock: fake timers that fire when the test
// advances time, and a fake sync that ends when the test says so.  No libuv,
// no SQLite, no sleeping.
#include "daemon/watch/scheduler.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace origin;

namespace {

class FakeTimers final : public Timers {
 public:
  Id After(int ms, std::function<void()> fn) override {
    const Id id = next_++;
    due_[id] = {now_ + ms, std::move(fn)};
    return id;
  }
  void Cancel(Id id) override { due_.erase(id); }
  bool Due(Id id) const override { return due_.count(id) != 0; }
  /// Moves the clock on by `ms`, firing what falls due, in order.
  void Advance(int ms) {
    const std::int64_t until = now_ + ms;
    for (;;) {
      auto next = due_.end();
      for (auto it = due_.begin(); it != due_.end(); ++it)
        if (it->second.first <= until && (next == due_.end() || it->second.first < next->second.first))
          next = it;
      if (next == due_.end()) break;
      now_ = next->second.first;
      auto fn = std::move(next->second.second);
      due_.erase(next);
      fn();
    }
    now_ = until;
  }

 private:
  std::map<Id, std::pair<std::int64_t, std::function<void()>>> due_;
  std::int64_t now_ = 0;
  Id next_ = 1;
};

// Syncs started and not yet ended, as the writer would hold them.
struct FakeSyncs {
  struct Run {
    std::size_t source;
    std::string reason;
    SyncScheduler::Done done;
  };
  std::vector<Run> running;
  std::vector<std::pair<std::size_t, std::string>> started;
  SyncScheduler::RunSync Fn() {
    return [this](std::size_t source, const std::string& reason, SyncScheduler::Done done) {
      started.emplace_back(source, reason);
      running.push_back({source, reason, std::move(done)});
    };
  }
  /// Ends the oldest running sync of `source` (`refused`: the store
  /// refused a write in it).
  void End(std::size_t source, bool refused = false) {
    for (auto it = running.begin(); it != running.end(); ++it)
      if (it->source == source) {
        auto done = std::move(it->done);
        running.erase(it);
        done(refused);
        return;
      }
    FAIL("no sync of that source runs");
  }
};

struct Fixture {
  FakeTimers timers;
  ThreadRole loop;
  FakeSyncs syncs;
  SyncScheduler scheduler{timers, loop, 2, SyncScheduler::Options{30, 60000}, syncs.Fn()};
};

}  // namespace

TEST_SUITE("daemon") {
  TEST_CASE("scheduler: the first sync of every source starts at once, as a start") {
    Fixture f;
    f.scheduler.Start();
    f.timers.Advance(0);
    REQUIRE(f.syncs.started.size() == 2);
    CHECK(f.syncs.started[0] == std::pair<std::size_t, std::string>(0, "start"));
    CHECK(f.syncs.started[1] == std::pair<std::size_t, std::string>(1, "start"));
    CHECK_FALSE(f.scheduler.FirstSyncDone());
    f.syncs.End(0);
    CHECK_FALSE(f.scheduler.FirstSyncDone());
    CHECK(f.scheduler.SyncedOnce(0));
    f.syncs.End(1);
    CHECK(f.scheduler.FirstSyncDone());
    CHECK(f.scheduler.Idle());
  }

  TEST_CASE("scheduler: a burst of changes makes one sync, after the debounce") {
    Fixture f;
    f.scheduler.Start();
    f.timers.Advance(0);
    f.syncs.End(0);
    f.syncs.End(1);
    f.syncs.started.clear();
    for (int i = 0; i < 10; ++i) {
      f.scheduler.Changed(1);
      f.timers.Advance(2);
    }
    CHECK(f.syncs.started.empty());  // 20 ms: still within the debounce
    CHECK_FALSE(f.scheduler.Idle());
    f.timers.Advance(10);
    REQUIRE(f.syncs.started.size() == 1);
    CHECK(f.syncs.started[0] == std::pair<std::size_t, std::string>(1, "watch"));
    f.syncs.End(1);
    CHECK(f.scheduler.Idle());
  }

  TEST_CASE("scheduler: a change during a sync makes one more sync after it, never two at once") {
    Fixture f;
    f.scheduler.Start();
    f.timers.Advance(0);
    f.syncs.End(1);
    f.syncs.started.clear();
    f.scheduler.Changed(0);  // source 0's first sync still runs
    f.timers.Advance(100);
    f.scheduler.Changed(0);
    f.timers.Advance(100);
    CHECK(f.syncs.started.empty());
    CHECK(f.syncs.running.size() == 1);
    f.syncs.End(0);
    REQUIRE(f.syncs.started.size() == 1);  // the pending one, once
    CHECK(f.syncs.started[0].second == "watch");
    CHECK(f.syncs.running.size() == 1);
    f.syncs.End(0);
    CHECK(f.scheduler.Idle());
    f.timers.Advance(1000);
    CHECK(f.syncs.started.size() == 1);
  }

  TEST_CASE("scheduler: a request waits for the first sync, at most its bound") {
    Fixture f;
    f.scheduler.Start();
    f.timers.Advance(0);
    int answered = 0;
    f.scheduler.AfterFirstSync(3000, [&] { ++answered; });
    f.timers.Advance(2999);
    CHECK(answered == 0);
    f.syncs.End(0);
    CHECK(answered == 0);
    f.syncs.End(1);
    CHECK(answered == 1);
    f.timers.Advance(5000);
    CHECK(answered == 1);  // once, not again when the bound passes
    f.scheduler.AfterFirstSync(3000, [&] { ++answered; });
    CHECK(answered == 2);  // done already: at once

    Fixture slow;
    slow.scheduler.Start();
    slow.timers.Advance(0);
    int later = 0;
    slow.scheduler.AfterFirstSync(3000, [&] { ++later; });
    slow.timers.Advance(3000);
    CHECK(later == 1);  // an import goes on: answered from what is stored
    slow.syncs.End(0);
    slow.syncs.End(1);
    CHECK(later == 1);
  }

  TEST_CASE("scheduler: WhenSynced waits for what the watcher marked changed") {
    Fixture f;
    f.scheduler.Start();
    f.timers.Advance(0);
    f.syncs.End(0);
    f.syncs.End(1);
    int synced = 0;
    f.scheduler.WhenSynced(1000, [&] { ++synced; });
    CHECK(synced == 1);  // idle: at once
    f.scheduler.Changed(0);
    f.scheduler.WhenSynced(1000, [&] { ++synced; });
    CHECK(synced == 1);  // a sync is due
    f.timers.Advance(30);
    CHECK(synced == 1);  // it runs
    f.syncs.End(0);
    CHECK(synced == 2);
    f.scheduler.Changed(1);
    f.timers.Advance(30);
    f.scheduler.WhenSynced(1000, [&] { ++synced; });
    f.timers.Advance(1000);
    CHECK(synced == 3);  // the bound: the sync still runs
    f.syncs.End(1);
    CHECK(synced == 3);
  }

  TEST_CASE(
      "scheduler: a sync the store refused is retried by itself, 1 s then twice as long each "
      "time, at most a rescan apart; a success ends the backoff; a retry due keeps no request "
      "waiting") {
    Fixture f;
    f.scheduler.Start();
    f.timers.Advance(0);
    f.syncs.End(1);
    f.syncs.started.clear();
    f.syncs.End(0, /*refused=*/true);  // a full disk during the import
    CHECK(f.scheduler.RetryDelayMs(0) == 1000);
    int synced = 0;
    f.scheduler.WhenSynced(5000, [&] { ++synced; });
    CHECK(synced == 1);  // a retry due is no sync to wait for
    // Still full: each sync of source 0 (the retries, and the rescans that
    // come meanwhile) is refused; the delays double up to the rescan's.
    std::vector<int> delays = {1000};
    std::vector<std::string> reasons;
    while (delays.size() < 9) {
      f.timers.Advance(100);
      while (!f.syncs.running.empty()) {
        const std::size_t source = f.syncs.running.front().source;
        if (source == 0) reasons.push_back(f.syncs.running.front().reason);
        f.syncs.End(source, /*refused=*/source == 0);
        if (source == 0) delays.push_back(f.scheduler.RetryDelayMs(0));
      }
    }
    CHECK(delays ==
          std::vector<int>{1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000});
    CHECK(reasons.front() == "retry");
    CHECK(reasons.size() == 8);  // one sync at a time, none in between
    // A change while it waits is synced at once, as ever; still refused, the
    // backoff goes on from where it was.
    f.scheduler.Changed(0);
    f.timers.Advance(30);
    REQUIRE(f.syncs.running.size() == 1);
    CHECK(f.syncs.started.back().second == "watch");
    f.syncs.End(0, /*refused=*/true);
    CHECK(f.scheduler.RetryDelayMs(0) == 60000);
    // Space returns: the next retry goes through, and the backoff ends.
    f.timers.Advance(60000);
    while (!f.syncs.running.empty()) f.syncs.End(f.syncs.running.front().source);
    CHECK(f.scheduler.RetryDelayMs(0) == 0);
    CHECK(f.scheduler.Idle());
    // A sync the scheduler did not run (a request's) was refused: retried
    // from the first delay again.
    f.scheduler.RetryLater(1);
    CHECK(f.scheduler.RetryDelayMs(1) == 1000);
    f.timers.Advance(1000);
    CHECK(f.syncs.started.back() == std::pair<std::size_t, std::string>(1, "retry"));
  }

  TEST_CASE("scheduler: the rescan syncs every source each period, and stops with Stop") {
    Fixture f;
    f.scheduler.Start();
    f.timers.Advance(0);
    f.syncs.End(0);
    f.syncs.End(1);
    f.syncs.started.clear();
    f.timers.Advance(59999);
    CHECK(f.syncs.started.empty());
    f.timers.Advance(1);
    REQUIRE(f.syncs.started.size() == 2);
    CHECK(f.syncs.started[0].second == "rescan");
    f.syncs.End(0);
    f.syncs.End(1);
    f.timers.Advance(60000);
    CHECK(f.syncs.started.size() == 4);
    f.syncs.End(0);
    f.syncs.End(1);
    int waiting = 0;
    f.scheduler.Changed(0);
    f.scheduler.WhenSynced(1000, [&] { ++waiting; });
    f.scheduler.Stop();
    CHECK(waiting == 1);  // answered now, from what is stored
    f.timers.Advance(120000);
    CHECK(f.syncs.started.size() == 4);  // nothing starts after Stop
  }
}
