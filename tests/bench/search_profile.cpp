// SPDX-License-Identifier: MIT
// Where a search's time goes (a program, not a timed test).  On a store that
// search_bench made and kept (--dir), it runs the benchmark's query mix in
// this process, through SearchEvents on a reader connection as the daemon
// opens one, the way the daemon's `search` with totals does (the events,
// and without tool events the count of tool calls and results that --all
// would add), and prints per query the median time of each part and
// what it read: candidates, texts checked, their bytes, true matches.
//
//   search_profile --home DIR/home [--reps R] [--only LABEL] [--interleave 1]
//                  [--cache-kib N] [--idx-cache-kib N] [--read-all-upto N]
//                  [--stamps 0|1] [--totals 0|1]
//
// --read-all-upto N: EventQuery::read_all_upto (-1: a ranked search never
// reads every match oldest first), to compare the two ways.  --stamps 0:
// no MessageStamps (each candidate's timestamp read from event_seq_ts), as
// before the daemon kept them; 1 (the default), as the daemon does, made
// before the first query.  --totals 0: as the search tool of MCP asks (no
// count, no tool count beside it, its first page and one more).

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/query/search.hpp"
#include "core/store/event_index.hpp"
#include "core/store/message_stamps.hpp"
#include "core/store/schema.hpp"
#include "tests/bench/bench_util.hpp"

using namespace origin;
using namespace origin::bench;

namespace {

// What the search tool asks by default: 20 hits and one more, which says
// whether there are more (daemon/mcp/tools.cpp).
constexpr int kMcpLimit = 21;

struct Query {
  const char* label;
  std::string text;
  bool all = false, recent = false;
  const char* project = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  StopSqliteMemoryCount();  // as originsd does
  std::string home, only;
  int reps = 9;
  int interleave_n = 0;                  // --interleave 1: the queries in turn
  int cache_kib = 0, idx_cache_kib = 0;  // 0: as the daemon's readers
  int read_all_upto = EventQuery().read_all_upto;
  Options options("search_profile");
  options.Add("--home", &home, "DIR");
  options.Add("--reps", &reps, "R");
  options.Add("--only", &only, "QUERY");
  options.Add("--interleave", &interleave_n, "0|1");
  options.Add("--cache-kib", &cache_kib, "KIB");
  options.Add("--idx-cache-kib", &idx_cache_kib, "KIB");
  options.Add("--read-all-upto", &read_all_upto, "N");
  int stamps_n = 1;
  options.Add("--stamps", &stamps_n, "0|1");
  int totals_n = 1;
  options.Add("--totals", &totals_n, "0|1");
  if (!options.Parse(argc, argv)) return 2;
  if (home.empty()) {
    std::fprintf(stderr, "search_profile: --home is needed\n%s\n", options.Usage().c_str());
    return 2;
  }
  const bool interleave = interleave_n != 0;
  auto db = OpenReadConnection(home + "/origin.db");
  AttachIndex(*db, home + "/index.db");
  // Other page caches than the readers', to see what they change.
  if (cache_kib > 0) db->Exec("PRAGMA main.cache_size = -" + std::to_string(cache_kib));
  if (idx_cache_kib > 0) db->Exec("PRAGMA idx.cache_size = -" + std::to_string(idx_cache_kib));
  MessageStamps stamps;
  if (stamps_n != 0) {
    const double t = Now();
    stamps.Cover(*db, db->QueryInt("SELECT coalesce(max(seq), 0) FROM event"));
    std::printf("stamps of the messages up to seq %lld made in %.0f ms\n",
                static_cast<long long>(stamps.top()), (Now() - t) * 1000);
  }
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
      // Not in search_bench's mix (the first kMix): the project filter at both ends of a
      // word's frequency, and with tool events.
      {"project, frequent word", "the", false, false, "parser-1"},
      {"project, rare word", "quokka", false, false, "parser-1"},
      {"project, tool events too", "cache", true, false, "parser-1"},
  };
  constexpr std::size_t kMix = 10;
  std::printf("%-22s %8s %8s | %7s %6s %6s %7s | %8s %7s %6s %7s\n", "query", "total ms",
              "events", "rows", "texts", "match", "MB", "tools ms", "rows", "texts", "MB");
  // Per query: the times of each run, and what the last one read.
  struct Runs {
    std::vector<double> total, main_ms, tools_ms;
    SearchCost main_cost, tools_cost;
  };
  std::vector<Runs> runs(queries.size());
  auto run = [&](std::size_t i) {
    const Query& qq = queries[i];
    EventQuery q;
    q.query = qq.text;
    q.include_tools = qq.all;
    q.recent = qq.recent;
    if (qq.project) q.project = qq.project;
    if (totals_n != 0) {
      q.count_upto = kTotalsUpto;
    } else {
      q.limit = kMcpLimit;
    }
    q.read_all_upto = read_all_upto;
    if (stamps_n != 0) q.stamps = &stamps;
    SearchCost c1, c2;
    q.cost = &c1;
    double t0 = Now();
    std::int64_t n = 0;
    SearchEvents(*db, q, totals_n != 0 ? &n : nullptr);  // as the daemon asks
    double t1 = Now();
    if (!qq.all && totals_n != 0) {
      EventQuery t = q;
      t.tools_only = true;
      t.cost = &c2;
      CountEvents(*db, t, kToolMatchesUpto);
    }
    double t2 = Now();
    Runs& r = runs[i];
    r.main_ms.push_back((t1 - t0) * 1000);
    r.tools_ms.push_back((t2 - t1) * 1000);
    r.total.push_back((t2 - t0) * 1000);
    r.main_cost = c1;
    r.tools_cost = c2;
  };
  auto wanted = [&](std::size_t i) { return only.empty() || only == queries[i].label; };
  // Interleaved, as search_bench runs its processes (the queries evict one
  // another's pages from the connection's cache), or each query's runs in
  // a row (warm).
  if (interleave) {
    for (int r = 0; r < reps; ++r)
      for (std::size_t i = 0; i < queries.size(); ++i)
        if (wanted(i)) run(i);
  } else {
    for (std::size_t i = 0; i < queries.size(); ++i)
      for (int r = 0; r < reps && wanted(i); ++r) run(i);
  }
  std::vector<double> all;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    if (!wanted(i)) continue;
    const Runs& r = runs[i];
    if (i < kMix) all.insert(all.end(), r.total.begin(), r.total.end());
    std::printf("%-22s %8.1f %8.1f | %7lld %6lld %6lld %7.1f | %8.1f %7lld %6lld %7.1f\n",
                queries[i].label, Median(r.total), Median(r.main_ms),
                static_cast<long long>(r.main_cost.rows), static_cast<long long>(r.main_cost.texts),
                static_cast<long long>(r.main_cost.matches),
                static_cast<double>(r.main_cost.text_bytes) / 1e6, Median(r.tools_ms),
                static_cast<long long>(r.tools_cost.rows),
                static_cast<long long>(r.tools_cost.texts),
                static_cast<double>(r.tools_cost.text_bytes) / 1e6);
  }
  std::printf("search_bench's ten: p50 %.1f ms, p99 %.1f ms\n", Percentile(all, 50),
              Percentile(all, 99));
  return 0;
}
