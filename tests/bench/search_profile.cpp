// SPDX-License-Identifier: MIT
// Where a search's time goes (a program, not a timed test).  On a store that
// search_bench made and kept (--dir), it runs the benchmark's query mix in
// this process, through SearchEvents on a reader connection as the daemon
// opens one, the way the daemon's `search` with totals does (the events,
// and without tool events the count of tool calls and results that --all
// would add), and prints per query the median time of each part and
// what it read: candidates, texts checked, their bytes, true matches.
//
//   search_profile --home DIR/home [--reps R] [--only LABEL]

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/query/search.hpp"
#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "tests/bench/bench_util.hpp"

using namespace origin;
using namespace origin::bench;

namespace {

struct Query {
  const char* label;
  std::string text;
  bool all = false, recent = false;
  const char* project = nullptr;
};

// As daemon/operations/queries.cpp: a search with totals counts to this.
constexpr int kCountUpto = 1000;

}  // namespace

int main(int argc, char** argv) {
  std::string home, only;
  int reps = 9;
  for (int i = 1; i + 1 < argc; ++i) {
    std::string a = argv[i];
    if (a == "--home")
      home = argv[++i];
    else if (a == "--reps")
      reps = std::atoi(argv[++i]);
    else if (a == "--only")
      only = argv[++i];
  }
  if (home.empty()) {
    std::fprintf(stderr, "usage: search_profile --home DIR [--reps R]\n");
    return 2;
  }
  auto db = OpenReadConnection(home + "/origin.db");
  AttachIndex(*db, home + "/index.db");
  const std::vector<Query> queries = {
      {"rare word", "quokka"},
      {"common word", "catalog"},
      {"two words (AND)", "deploy timeout"},
      {"one CJK letter", "库"},
      {"two CJK letters", "部署"},
      {"snake_case identifier", "retry_handler", true},
      {"short term", "AI"},
      {"with tool events", "schema migrate", true},
      {"--recent", "latency", false, true},
      {"project filter", "cache", false, false, "parser-1"},
  };
  std::printf("%-22s %8s %8s | %7s %6s %6s %7s | %8s %7s %6s %7s\n", "query", "total ms",
              "events", "rows", "texts", "match", "MB", "tools ms", "rows", "texts", "MB");
  for (const Query& qq : queries) {
    if (!only.empty() && only != qq.label) continue;
    std::vector<double> total, main_ms, tools_ms;
    SearchCost main_cost, tools_cost;
    for (int r = 0; r < reps; ++r) {
      EventQuery q;
      q.query = qq.text;
      q.include_tools = qq.all;
      q.recent = qq.recent;
      if (qq.project) q.project = qq.project;
      q.count_upto = kCountUpto;
      SearchCost c1, c2;
      q.cost = &c1;
      double t0 = Now();
      std::int64_t n = 0;
      SearchEvents(*db, q, &n);
      double t1 = Now();
      if (!qq.all) {
        EventQuery t = q;
        t.tools_only = true;
        t.recent = true;
        t.limit = 1;
        t.cost = &c2;
        std::int64_t m = 0;
        SearchEvents(*db, t, &m);
      }
      double t2 = Now();
      main_ms.push_back((t1 - t0) * 1000);
      tools_ms.push_back((t2 - t1) * 1000);
      total.push_back((t2 - t0) * 1000);
      main_cost = c1;
      tools_cost = c2;
    }
    std::printf("%-22s %8.1f %8.1f | %7lld %6lld %6lld %7.1f | %8.1f %7lld %6lld %7.1f\n",
                qq.label, Median(total), Median(main_ms), static_cast<long long>(main_cost.rows),
                static_cast<long long>(main_cost.texts), static_cast<long long>(main_cost.matches),
                static_cast<double>(main_cost.text_bytes) / 1e6, Median(tools_ms),
                static_cast<long long>(tools_cost.rows), static_cast<long long>(tools_cost.texts),
                static_cast<double>(tools_cost.text_bytes) / 1e6);
    std::fflush(stdout);
  }
  return 0;
}
