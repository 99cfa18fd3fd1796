// SPDX-License-Identifier: MIT
// The web UI's operations on a large store (issue 16; docs/performance.md):
// the overview (targets: 100 ms at 2M events, from derived tables and
// indexes only) and a session page of 20 turns (50 ms), in process on a
// reader's connection, as a worker of the daemon runs them.
//
//   ui_bench --events 2000000 --runs 15 --dir /var/tmp/uib
//
// The store is written directly (tests/bench/ui_store.hpp), on a fixed
// "now" of 2025-12-01.
// With --dir, the store is kept and reused by the next run.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/store/schema.hpp"
#include "core/ui/overview.hpp"
#include "core/ui/turns.hpp"
#include "tests/bench/bench_util.hpp"
#include "tests/bench/ui_store.hpp"

using namespace origin;
using origin::bench::Median;
using origin::bench::Now;
using origin::bench::Options;

namespace {

constexpr std::int64_t kNow = 1764547200000;  // 2025-12-01T00:00Z
constexpr std::int64_t kDay = origin::bench::kDayMs;

}  // namespace

int main(int argc, char** argv) {
  std::int64_t events = 2000000;
  int runs = 15;
  std::string dir;
  Options options("ui_bench");
  options.Add("--events", &events, "N");
  options.Add("--runs", &runs, "R");
  options.Add("--dir", &dir, "DIR");
  if (!options.Parse(argc, argv)) return 2;
  const bool keep = !dir.empty();
  if (!keep) dir = std::filesystem::temp_directory_path() / ("ui_bench." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/origin.db";
  const bool fresh = !std::filesystem::exists(path);
  {
    auto w = OpenWriteConnection(path);
    if (fresh) origin::bench::FillUiStore(*w, events, kNow);
  }
  auto db = OpenReadConnection(path);
  std::int64_t total = 0, recent = 0;
  {
    auto st = db->Prepare("SELECT sum(event_count), count(*) FROM session");
    st.Step();
    total = st.Int(0);
    std::printf("store: %lld events in %lld sessions\n", static_cast<long long>(total),
                static_cast<long long>(st.Int(1)));
  }

  // The overview: each run without the kept result (cold), then with it.
  std::vector<double> cold, warm;
  for (int r = 0; r < runs; ++r) {
    DropOverviewCache();
    double t = Now();
    const Overview o = BuildOverview(*db, kNow, {path, ""});
    cold.push_back((Now() - t) * 1000);
    t = Now();
    BuildOverview(*db, kNow, {path, ""});
    warm.push_back((Now() - t) * 1000);
    if (r == 0)
      for (const OverviewDay& d : o.days) recent += d.total;
  }
  std::printf("overview: %lld events in the last 30 days; median %.1f ms cold, %.1f ms kept\n",
              static_cast<long long>(recent), Median(cold), Median(warm));

  // A page of 20 turns: the first and a middle page of the largest
  // sessions active in the last 30 days.
  std::vector<std::string> sessions;
  {
    auto st = db->Prepare(
        "SELECT id FROM session WHERE last_ts >= ? ORDER BY event_count DESC LIMIT 5");
    st.Bind(1, kNow - 30 * kDay);
    while (st.Step()) sessions.emplace_back(st.Text(0));
  }
  std::vector<double> first, middle;
  std::int64_t pages = 0, shown = 0;
  for (int r = 0; r < runs; ++r)
    for (const std::string& s : sessions) {
      TurnsQuery q{s, 1, std::nullopt, std::nullopt};
      double t = Now();
      const TurnsPage p = SessionTurns(*db, q);
      first.push_back((Now() - t) * 1000);
      pages = p.pages;
      shown = static_cast<std::int64_t>(p.turns.size());
      q.page = std::max<std::int64_t>(1, p.pages / 2);
      t = Now();
      SessionTurns(*db, q);
      middle.push_back((Now() - t) * 1000);
    }
  std::printf("turns: %zu sessions (the largest had %lld pages, %lld turns on its first); median "
              "%.1f ms the first page, %.1f ms a middle page\n",
              sessions.size(), static_cast<long long>(pages), static_cast<long long>(shown),
              Median(first), Median(middle));
  db.reset();
  if (!keep) std::filesystem::remove_all(dir);
  return 0;
}
