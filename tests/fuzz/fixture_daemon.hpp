// SPDX-License-Identifier: MIT
#pragma once
// A real daemon for the harnesses that drive one (mcp.cpp, http.cpp): started
// once per process on a store in a temporary home that holds the Claude
// Code and Codex fixtures, its loop run on the harness's thread (the loop
// thread) between inputs, shut down at exit.

#include <uv.h>

#include <memory>

#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "daemon/daemon.hpp"
#include "daemon/instance.hpp"
#include "tests/support/agent_fixtures.hpp"
#include "tests/support/support.hpp"

namespace origin::fuzz {

class FixtureDaemon {
 public:
  FixtureDaemon() {
    uv_loop_init(&loop_);
    const proto::Paths paths = proto::ResolvePaths(dir_ / "home");
    PrepareHome(paths);
    std::vector<std::unique_ptr<SourceAdapter>> adapters;
    for (const char* agent : {"claude-code", "codex"})
      adapters.push_back(test::AgentFixture(agent, dir_ / agent));
    auto db = OpenWriteConnection(paths.db);
    DaemonOptions opts;
    opts.paths = paths;
    opts.store_name = StoreNameOf(*db);
    opts.readers = 1;
    daemon_ = std::make_unique<Daemon>(&loop_, opts, std::move(db),
                                       std::make_unique<EventIndex>(paths.index, paths.db),
                                       std::move(adapters));
    daemon_->Start();
  }
  ~FixtureDaemon() {
    daemon_->BeginShutdown();
    uv_run(&loop_, UV_RUN_DEFAULT);
    daemon_.reset();
    uv_loop_close(&loop_);
  }
  FixtureDaemon(const FixtureDaemon&) = delete;
  FixtureDaemon& operator=(const FixtureDaemon&) = delete;

  uv_loop_t* loop() { return &loop_; }
  Daemon& daemon() { return *daemon_; }

 private:
  test::ScopedTempDir dir_;
  uv_loop_t loop_;
  std::unique_ptr<Daemon> daemon_;
};

}  // namespace origin::fuzz
