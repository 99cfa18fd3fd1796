// SPDX-License-Identifier: MIT
// A connected device's merged search (a program, not a timed test; issue
// 17: a device's merged search p50 with the hub on loopback, target <= 2x
// its local search).  On generated logs (tests/support/loggen, as
// hub_bench):
//
//   * a device imports the logs and syncs them to an empty hub on loopback
//     (not timed), so that both stores hold the same events and the merge
//     has every hit twice to de-duplicate: the most work a merge does;
//   * then, over one origin-mcp connection to the device (as an agent
//     runs it), the search tool's round trip for a fixed query mix, in
//     rounds that alternate between the device alone (disconnected: its
//     local search) and the device connected (its search and the hub's at
//     once, merged), so that the machine's noise falls on both alike.
//
//   hub_search_bench [--mb N] [--rounds R] [--dir DIR] [--corpus synthetic|real-shaped]
//                    [--originsd P] [--origin P] [--origin-mcp P]

#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/bench/bench_util.hpp"
#include "tests/support/loggen.hpp"
#include "tests/support/stdio_process.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;
using namespace origin::bench;
namespace fs = std::filesystem;

namespace {

// The answer to request `id` on `p`: its text, or exits (a benchmark of
// wrong answers is no benchmark).  `*notice`: its second text, if any.
std::string Answer(StdioProcess& p, int id, std::string* notice) {
  for (;;) {
    auto line = p.ReadLine(30000);
    if (!line) {
      std::fprintf(stderr, "hub_search_bench: no answer to %d\n", id);
      std::exit(1);
    }
    rapidjson::Document d = ParseObject(*line);
    if (!d.HasMember("id") || !d["id"].IsInt() || d["id"].GetInt() != id) continue;
    const rapidjson::Value* result = d.HasMember("result") && d["result"].IsObject()
                                         ? &d["result"]
                                         : nullptr;
    if (result == nullptr || (result->HasMember("isError") && (*result)["isError"].GetBool())) {
      std::fprintf(stderr, "hub_search_bench: %d failed: %s\n", id, line->c_str());
      std::exit(1);
    }
    if (!result->HasMember("content")) return "";  // initialize
    const auto& content = (*result)["content"];
    if (notice != nullptr)
      *notice = content.Size() > 1 ? content[1]["text"].GetString() : "";
    return content[0]["text"].GetString();
  }
}

// Event hits of a search answer, and how many are labelled `origin`.
std::size_t Hits(const std::string& text, const char* origin, std::size_t* labelled) {
  rapidjson::Document d = ParseObject(text);
  std::size_t n = 0;
  *labelled = 0;
  auto count = [&](const rapidjson::Value& list) {
    for (const auto& e : list.GetArray()) {
      ++n;
      if (e.HasMember("origin") && std::string(e["origin"].GetString()) == origin) ++*labelled;
    }
  };
  if (d.HasMember("sessions"))
    for (const auto& s : d["sessions"].GetArray()) count(s["events"]);
  if (d.HasMember("events")) count(d["events"]);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t mb = 64;
  int rounds = 40;
  std::string corpus = "real-shaped";
  std::string dir, originsd = "build-release/daemon/originsd",
                   origin_cli = "build-release/client/origin",
                   shim = "build-release/client/origin-mcp";
  Options options("hub_search_bench");
  options.Add("--mb", &mb, "N");
  options.Add("--rounds", &rounds, "R");
  options.Add("--dir", &dir, "DIR");
  options.Add("--corpus", &corpus, "synthetic|real-shaped");
  options.Add("--originsd", &originsd, "PATH");
  options.Add("--origin", &origin_cli, "PATH");
  options.Add("--origin-mcp", &shim, "PATH");
  if (!options.Parse(argc, argv)) return 2;
  originsd = fs::absolute(originsd).string();
  origin_cli = fs::absolute(origin_cli).string();
  shim = fs::absolute(shim).string();
  ScopedTempDir tmp;
  if (dir.empty()) dir = tmp.path();
  const std::string claude = dir + "/claude", codex = dir + "/codex";
  std::int64_t total = 0;
  for (const CorpusFile& f : CorpusIn(dir, mb, corpus)) total += f.bytes;
  const std::string run = tmp / "run";
  Sh("rm -rf '" + run + "' && mkdir -p '" + run + "'");

  // The device, holding the logs; the hub, holding them too once synced.
  const std::vector<std::string> device_env = {"ORIGIN_DEVICE=laptop", "ORIGIN_HUB_SYNC_MS=0"};
  bench::Daemon device(originsd, origin_cli, run + "/device", claude, codex, run + "/device.log",
                       device_env);
  device.SyncAndIndex();
  const std::string empty = run + "/no-agents";
  bench::Daemon hub(originsd, origin_cli, run + "/hub", empty, empty, run + "/hub.log", {},
                    {"--hub", "--port", "0"});
  const std::string url = "http://127.0.0.1:" + std::to_string(WaitHubPort(run + "/hub.log", hub));
  const std::string token =
      ParseObject(Capture(hub.cli() + "token create laptop --json"))["token"].GetString();
  const std::string connect = device.cli() + "hub connect " + url + " --token " + token + " --json";
  Capture(connect);
  rapidjson::Document synced = ParseObject(Capture(device.cli() + "sync --json"));
  if (!synced.HasMember("hub") || !synced["hub"]["error"].IsNull()) {
    std::fprintf(stderr, "hub_search_bench: the sync failed\n");
    return 1;
  }
  hub.WaitIndexed();
  device.WaitIdle();
  hub.WaitIdle();
  const std::int64_t events =
      ParseObject(Capture(hub.cli() + "status --json"))["store"]["events"].GetInt64();
  std::printf("corpus: %s, %.1f MiB, %lld events on the device and on the hub\n", corpus.c_str(),
              total / 1048576.0, static_cast<long long>(events));

  const std::vector<std::pair<const char*, std::string>> queries = {
      {"rare word", R"({"query":"quokka"})"},
      {"common word", R"({"query":"catalog"})"},
      {"two words (AND)", R"({"query":"deploy timeout"})"},
      {"two CJK letters", R"({"query":"部署"})"},
      {"with tool events", R"({"query":"schema migrate","include_tools":true})"},
      {"--recent", R"({"query":"latency","recent":true})"},
  };
  std::vector<std::string> env = device.env();
  StdioProcess mcp({shim}, env, /*keep_stderr=*/false);
  mcp.WriteLine(
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
      R"("capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}})");
  Answer(mcp, 0, nullptr);
  mcp.WriteLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  int id = 1;
  auto call = [&](const std::string& args, std::string* notice) {
    const int my = id++;
    mcp.WriteLine(R"({"jsonrpc":"2.0","id":)" + std::to_string(my) +
                  R"(,"method":"tools/call","params":{"name":"search","arguments":)" + args +
                  "}}");
    return Answer(mcp, my, notice);
  };
  // One look at each: the merged answer labels the hub's hits (the device
  // holds them all, so none), the local one has no notice.
  std::vector<std::vector<double>> local(queries.size()), merged(queries.size());
  std::printf("\n%-20s %6s %6s  (of a merged answer: its event hits, those labelled local)\n",
              "query", "hits", "local");
  for (std::size_t q = 0; q < queries.size(); ++q) {
    std::string notice;
    std::size_t hub_hits = 0, local_hits = 0;
    const std::size_t m = Hits(call(queries[q].second, &notice), "hub", &hub_hits);
    if (!notice.empty()) {
      std::fprintf(stderr, "hub_search_bench: the hub was not consulted: %s\n", notice.c_str());
      return 1;
    }
    Hits(call(queries[q].second, nullptr), "local", &local_hits);
    std::printf("%-20s %6zu %6zu\n", queries[q].first, m, local_hits);
  }
  for (int r = 0; r < rounds; ++r) {
    const bool connected = r % 2 == 0;
    if (connected) {
      Capture(connect);
      Capture(device.cli() + "sync --json");  // the sync connect starts, done before timing
    } else {
      Capture(device.cli() + "hub disconnect --json");
    }
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const double t0 = Now();
      std::string notice;
      call(queries[q].second, &notice);
      (connected ? merged : local)[q].push_back((Now() - t0) * 1000);
    }
  }
  mcp.CloseAndWait();
  std::printf("\n%-20s %12s %12s %8s %12s %12s\n", "search (ms)", "local p50", "merged p50",
              "ratio", "local p99", "merged p99");
  std::vector<double> all_local, all_merged, ratios;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const double l = Median(local[q]), m = Median(merged[q]);
    ratios.push_back(m / l);
    all_local.insert(all_local.end(), local[q].begin(), local[q].end());
    all_merged.insert(all_merged.end(), merged[q].begin(), merged[q].end());
    std::printf("%-20s %12.2f %12.2f %7.2fx %12.2f %12.2f\n", queries[q].first, l, m, m / l,
                Percentile(local[q], 99), Percentile(merged[q], 99));
  }
  std::printf("%-20s %12.2f %12.2f %7.2fx %12.2f %12.2f   (target: merged p50 <= 2x local)\n",
              "all", Median(all_local), Median(all_merged),
              Median(all_merged) / Median(all_local), Percentile(all_local, 99),
              Percentile(all_merged, 99));
  std::printf("median of the per-query ratios: %.2fx\n", Median(ratios));
  return 0;
}
