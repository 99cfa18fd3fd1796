// SPDX-License-Identifier: MIT
// The hub's /mcp under concurrent agents (issue 17: search p50 and p99 with
// 8 concurrent clients at 2M events on the hub; a program, not a timed
// test).  A hub (`originsd --hub`, as origin serve runs it) holds about N
// events of the corpus (tests/support/loggen, seed 11, the search_bench
// store's), imported from its own agent roots and indexed first.  Then, in
// R rounds, over HTTP on loopback with a bearer token, as an agent's MCP
// client calls it:
//   - one client: the query mix, one call after another (the reference:
//     the same hub, the same calls, nobody else asking);
//   - C clients at once (threads, each starting the mix at its own query):
//     every call's round trip, and the calls per second of the phase.
// The phases alternate, so that the machine's noise falls on both alike.
// Every answer is checked (200, a result that is no error).
//
//   hub_mcp_bench [--events N] [--clients C] [--rounds R] [--dir DIR]
//                 [--corpus small|real-shaped] [--originsd PATH] [--origin PATH]
//
// With --dir, the corpus and the hub's store are kept there and reused by
// the next run.  Figures: docs/performance.md.

#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/bench/bench_util.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::bench;
using namespace origin::test;
namespace fs = std::filesystem;

namespace {

// The search tool's arguments: search_bench's mix, as an agent asks it.
const std::vector<std::pair<const char*, std::string>> kQueries = {
    {"rare word", R"({"query":"quokka"})"},
    {"common word", R"({"query":"catalog"})"},
    {"two words (AND)", R"({"query":"deploy timeout"})"},
    {"one CJK letter", R"({"query":"库"})"},
    {"two CJK letters", R"({"query":"部署"})"},
    {"snake_case identifier", R"({"query":"retry_handler","include_tools":true})"},
    {"short term", R"({"query":"AI"})"},
    {"with tool events", R"({"query":"schema migrate","include_tools":true})"},
    {"recent", R"({"query":"latency","recent":true})"},
    {"project filter", R"({"query":"cache","project":"parser-1"})"},
};

// One tools/call of search over a new connection, as a stateless MCP
// client sends it; the round trip in ms.  Exits on a wrong answer: a
// benchmark of wrong answers is no benchmark.
double Call(int port, const std::string& token, int id, const std::string& args,
            std::size_t* chars) {
  const std::string body = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                           R"(,"method":"tools/call","params":{"name":"search","arguments":)" +
                           args + "}}";
  const double t0 = Now();
  HttpReply r = Http(port, "POST", "/mcp",
                     {{"Content-Type", "application/json"},
                      {"Accept", "application/json, text/event-stream"},
                      {"Authorization", "Bearer " + token}},
                     body, 60000);
  const double ms = (Now() - t0) * 1000;
  rapidjson::Document d;
  d.Parse(r.body.c_str());
  if (r.status != 200 || d.HasParseError() || !d.IsObject() || !d.HasMember("result") ||
      (d["result"].HasMember("isError") && d["result"]["isError"].GetBool())) {
    std::fprintf(stderr, "hub_mcp_bench: a wrong answer to %s: %d %s\n", args.c_str(), r.status,
                 r.body.substr(0, 400).c_str());
    std::exit(1);
  }
  if (chars != nullptr) *chars = d["result"]["content"][0]["text"].GetStringLength();
  return ms;
}

void Report(const char* what, const std::vector<double>& ms, double seconds) {
  std::printf("%-12s %6zu calls: p50 %7.1f ms, p95 %7.1f ms, p99 %7.1f ms, %6.1f calls/s\n", what,
              ms.size(), Percentile(ms, 50), Percentile(ms, 95), Percentile(ms, 99),
              static_cast<double>(ms.size()) / seconds);
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t events = 2000000;
  int clients = 8, rounds = 10;
  std::string corpus = "real-shaped";
  std::string dir, originsd = "daemon/originsd", origin_cli = "client/origin";
  Options options("hub_mcp_bench");
  options.Add("--events", &events, "N");
  options.Add("--clients", &clients, "C");
  options.Add("--rounds", &rounds, "R");
  options.Add("--dir", &dir, "DIR");
  options.Add("--corpus", &corpus, "small|real-shaped");
  options.Add("--originsd", &originsd, "PATH");
  options.Add("--origin", &origin_cli, "PATH");
  if (!options.Parse(argc, argv)) return 2;
  if (clients < 1 || rounds < 1) {
    std::fprintf(stderr, "hub_mcp_bench: --clients and --rounds take 1 or more\n");
    return 2;
  }
  originsd = fs::absolute(originsd).string();
  origin_cli = fs::absolute(origin_cli).string();
  ScopedTempDir tmp;
  if (dir.empty()) dir = tmp.path();
  dir = fs::absolute(dir).string();
  double t = Now();
  const bool generate = !fs::exists(dir + "/claude");
  std::int64_t log_bytes = 0;
  for (const CorpusFile& f : EventCorpusIn(dir, events, corpus)) log_bytes += f.bytes;
  if (generate) std::printf("corpus generated in %.1f s\n", Now() - t);

  // The hub imports the logs as its own machine's: the same events a
  // device's sync would give it, sooner.
  const std::string home = dir + "/hub", log = dir + "/hub.log";
  const bool fresh = !fs::exists(home + "/origin.db");
  fs::remove(log);  // WaitHubPort reads the port this run's hub logs
  t = Now();
  bench::Daemon hub(originsd, origin_cli, home, dir + "/claude", dir + "/codex", log, {},
                    {"--hub", "--port", "0"});
  const int port = WaitHubPort(log, hub);
  hub.SyncAndIndex();
  if (fresh) std::printf("imported and indexed in %.1f s\n", Now() - t);
  std::printf("hub idle after %.0f s more\n", hub.WaitIdle());
  const std::int64_t n =
      ParseObject(Capture(hub.cli() + "status --json"))["store"]["events"].GetInt64();
  std::printf("hub: %lld events, %.1f MiB of logs (%s corpus); %d clients, %d rounds\n",
              static_cast<long long>(n), static_cast<double>(log_bytes) / 1048576.0, corpus.c_str(),
              clients, rounds);
  if (n < events / 2) {
    std::fprintf(stderr, "hub_mcp_bench: the hub holds %lld events, not about %lld\n",
                 static_cast<long long>(n), static_cast<long long>(events));
    return 1;
  }
  const std::string name = "bench-" + std::to_string(::getpid());
  const std::string token =
      ParseObject(Capture(hub.cli() + "token create " + name + " --json"))["token"].GetString();

  // One look at each answer: its size, as the model reads it.
  std::printf("\n%-24s %8s %8s\n", "query", "chars", "ms");
  for (std::size_t q = 0; q < kQueries.size(); ++q) {
    std::size_t chars = 0;
    const double ms = Call(port, token, static_cast<int>(q), kQueries[q].second, &chars);
    std::printf("%-24s %8zu %8.1f\n", kQueries[q].first, chars, ms);
  }
  std::fflush(stdout);

  std::vector<double> one, many;
  double one_s = 0, many_s = 0;
  const double cpu0 = CpuSeconds(hub.pid());
  for (int r = 0; r < rounds; ++r) {
    t = Now();
    for (std::size_t q = 0; q < kQueries.size(); ++q)
      one.push_back(Call(port, token, static_cast<int>(q), kQueries[q].second, nullptr));
    one_s += Now() - t;

    std::vector<std::vector<double>> each(static_cast<std::size_t>(clients));
    std::vector<std::thread> threads;
    t = Now();
    for (int c = 0; c < clients; ++c)
      threads.emplace_back([&, c] {
        for (std::size_t i = 0; i < kQueries.size(); ++i) {
          const std::size_t q = (i + static_cast<std::size_t>(c)) % kQueries.size();
          each[static_cast<std::size_t>(c)].push_back(
              Call(port, token, static_cast<int>(q), kQueries[q].second, nullptr));
        }
      });
    for (std::thread& th : threads) th.join();
    many_s += Now() - t;
    for (const auto& e : each) many.insert(many.end(), e.begin(), e.end());
  }
  const double cpu = CpuSeconds(hub.pid()) - cpu0;
  Capture(hub.cli() + "token revoke " + name + " --json");

  std::printf("\n/mcp search over HTTP, %d rounds of %zu queries:\n", rounds, kQueries.size());
  Report("1 client", one, one_s);
  const std::string label = std::to_string(clients) + " clients";
  Report(label.c_str(), many, many_s);
  std::printf("%s / 1 client at p50: %.2fx (target: p50 <= 20 ms with 8 clients)\n", label.c_str(),
              Percentile(many, 50) / Percentile(one, 50));
  std::printf(
      "hub: %.1f CPU seconds over %.1f s of calls (%.2f cores), RSS %.0f MB, peak %.0f MB\n", cpu,
      one_s + many_s, cpu / (one_s + many_s), static_cast<double>(RssKb(hub.pid())) / 1024,
      static_cast<double>(PeakRssKb(hub.pid())) / 1024);
  return 0;
}
