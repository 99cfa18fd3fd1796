// SPDX-License-Identifier: MIT
// The hub benchmark (a program, not a timed test; issue 17).  In each run,
// on generated logs (tests/support/loggen, as ingest_bench):
//
//   * the reference: a fresh store importing the logs locally, until every
//     event is stored and indexed (what the hub would do with them itself);
//   * a device's first sync: the same logs imported by a device (not
//     timed), then, timed, `origin hub connect` to an empty hub on loopback
//     and `origin sync`, until the hub has stored and indexed every event;
//   * pushing entries: N entries written on the device (directly in its
//     store while its daemon is stopped, citing its events), then, timed,
//     the `origin sync` that sends them to the hub.
//
//   hub_bench [--mb N] [--entries N] [--runs R] [--dir DIR]
//             [--corpus synthetic|real-shaped] [--originsd P] [--origin P]

#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/entries/entries.hpp"
#include "core/store/schema.hpp"
#include "core/util/clock.hpp"
#include "tests/bench/bench_util.hpp"
#include "tests/support/loggen.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;
using namespace origin::bench;
namespace fs = std::filesystem;

namespace {

std::int64_t Events(const std::string& cli) {
  return ParseObject(Capture(cli + "status --json"))["store"]["events"].GetInt64();
}

// Writes `n` entries on the store at `home` (its daemon stopped), each
// citing one of its events, as the device `device`.
void WriteEntries(const std::string& home, const std::string& device, int n) {
  auto db = OpenWriteConnection(home + "/origin.db");
  std::vector<std::string> events;
  {
    auto st = db->Prepare("SELECT id FROM event ORDER BY seq LIMIT 5000");
    while (st.Step()) events.emplace_back(st.Text(0));
  }
  SystemClock clock;
  Transaction tx(*db);
  for (int i = 0; i < n; ++i) {
    RememberInput in;
    in.kind = i % 3 == 0 ? "knowledge" : "memory";
    in.text = "decision " + std::to_string(i) + ": keep the parser's buffers per file, since "
              "the watcher reopens them after a rotation";
    in.confidence = 0.9;
    in.author = "claude-code@" + device;
    in.sources.push_back({events[static_cast<std::size_t>(i) % events.size()], std::nullopt});
    Remember(*db, clock, device, in);
  }
  tx.Commit();
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t mb = 256;
  int runs = 3, entries = 50000;
  std::string corpus = "synthetic";
  std::string dir, originsd = "build-release/daemon/originsd",
                   origin_cli = "build-release/client/origin";
  Options options("hub_bench");
  options.Add("--mb", &mb, "N");
  options.Add("--entries", &entries, "N");
  options.Add("--runs", &runs, "R");
  options.Add("--dir", &dir, "DIR");
  options.Add("--corpus", &corpus, "synthetic|real-shaped");
  options.Add("--originsd", &originsd, "PATH");
  options.Add("--origin", &origin_cli, "PATH");
  if (!options.Parse(argc, argv)) return 2;
  originsd = fs::absolute(originsd).string();
  origin_cli = fs::absolute(origin_cli).string();
  ScopedTempDir tmp;
  if (dir.empty()) dir = tmp.path();
  const std::string claude = dir + "/claude", codex = dir + "/codex";
  double t = Now();
  std::int64_t total = 0;
  for (const CorpusFile& f : CorpusIn(dir, mb, corpus)) total += f.bytes;
  std::printf("corpus: %s, %.1f MiB (ready in %.1f s)\n", corpus.c_str(), total / 1048576.0,
              Now() - t);
  std::fflush(stdout);

  std::vector<double> local_s, sync_s, ratio, push_s;
  // CPU seconds: the local import's, and the hub's and the device's during
  // the first sync (apart, on two machines, each has its own cores).
  std::vector<double> local_cpu, hub_cpu, hub_cpu_ratio, device_cpu;
  // And the hub's and the device's during the push of the entries.
  std::vector<double> push_hub_cpu, push_device_cpu;
  // The hub's resident memory after the push, and its peak, in MB.
  std::vector<double> hub_rss, hub_peak;
  std::int64_t events = 0;
  for (int r = 0; r < runs; ++r) {
    const std::string run = tmp / ("run" + std::to_string(r));
    Sh("rm -rf '" + run + "' && mkdir -p '" + run + "'");
    // The reference: the logs imported where they are.
    {
      t = Now();
      bench::Daemon local(originsd, origin_cli, run + "/local", claude, codex, run + "/local.log");
      local.SyncAndIndex();
      local_s.push_back(Now() - t);
      local_cpu.push_back(CpuSeconds(local.pid()));
      events = Events(local.cli());
    }
    Sh("rm -rf '" + run + "/local'");
    // A device holding them, and an empty hub.
    const std::vector<std::string> device_env = {"ORIGIN_DEVICE=laptop", "ORIGIN_HUB_SYNC_MS=0"};
    {
      bench::Daemon device(originsd, origin_cli, run + "/device", claude, codex,
                           run + "/device.log", device_env);
      device.SyncAndIndex();
      // A device that has imported merges its index's segments once idle:
      // its own import's work, not the sync's.
      device.WaitIdle();
    }
    const std::string empty = run + "/no-agents";
    bench::Daemon hub(originsd, origin_cli, run + "/hub", empty, empty, run + "/hub.log", {},
                      {"--hub", "--port", "0"});
    const std::string url =
        "http://127.0.0.1:" + std::to_string(WaitHubPort(run + "/hub.log", hub));
    const std::string token =
        ParseObject(Capture(hub.cli() + "token create laptop --json"))["token"].GetString();
    {
      bench::Daemon device(originsd, origin_cli, run + "/device", claude, codex,
                           run + "/device.log", device_env);
      device.WaitIdle();  // its start (the start-up sync of its agents' logs) done
      t = Now();
      const double hub_cpu0 = CpuSeconds(hub.pid()), device_cpu0 = CpuSeconds(device.pid());
      Capture(device.cli() + "hub connect " + url + " --token " + token + " --json");
      rapidjson::Document synced = ParseObject(Capture(device.cli() + "sync --json"));
      if (!synced.HasMember("hub") || !synced["hub"]["error"].IsNull()) {
        std::fprintf(stderr, "hub_bench: the sync failed\n");
        return 1;
      }
      hub.WaitIndexed();
      sync_s.push_back(Now() - t);
      ratio.push_back(sync_s.back() / local_s.back());
      hub_cpu.push_back(CpuSeconds(hub.pid()) - hub_cpu0);
      hub_cpu_ratio.push_back(hub_cpu.back() / local_cpu.back());
      device_cpu.push_back(CpuSeconds(device.pid()) - device_cpu0);
      if (Events(hub.cli()) != events) {
        std::fprintf(stderr, "hub_bench: the hub holds %lld events, the device %lld\n",
                     static_cast<long long>(Events(hub.cli())), static_cast<long long>(events));
        return 1;
      }
    }
    // Entries written on the device, then pushed.
    WriteEntries(run + "/device", "laptop", entries);
    {
      bench::Daemon device(originsd, origin_cli, run + "/device", claude, codex,
                           run + "/device.log", device_env);
      t = Now();
      const double hub_cpu0 = CpuSeconds(hub.pid()), device_cpu0 = CpuSeconds(device.pid());
      rapidjson::Document pushed = ParseObject(Capture(device.cli() + "sync --json"));
      push_s.push_back(Now() - t);
      push_hub_cpu.push_back(CpuSeconds(hub.pid()) - hub_cpu0);
      push_device_cpu.push_back(CpuSeconds(device.pid()) - device_cpu0);
      hub_rss.push_back(static_cast<double>(RssKb(hub.pid())) / 1024);
      hub_peak.push_back(static_cast<double>(PeakRssKb(hub.pid())) / 1024);
      if (pushed["hub"]["entries"].GetInt64() != entries) {
        std::fprintf(stderr, "hub_bench: %lld entries pushed of %d\n",
                     static_cast<long long>(pushed["hub"]["entries"].GetInt64()), entries);
        return 1;
      }
    }
    std::printf(
        "run %d: local import %.2f s (CPU %.2f s) | first sync to the hub %.2f s (%.2fx; "
        "CPU: hub %.2f s, device %.2f s) | %d entries pushed in %.2f s (CPU: hub %.2f s, "
        "device %.2f s; the hub's RSS then %.0f MB, peak %.0f MB)\n",
        r + 1, local_s.back(), local_cpu.back(), sync_s.back(), ratio.back(), hub_cpu.back(),
        device_cpu.back(), entries, push_s.back(), push_hub_cpu.back(), push_device_cpu.back(),
        hub_rss.back(), hub_peak.back());
    std::fflush(stdout);
  }
  std::printf("\nmedian of %d runs, %.1f MiB of logs, %lld events:\n", runs, total / 1048576.0,
              static_cast<long long>(events));
  std::printf("  local import            %8.2f s\n", Median(local_s));
  std::printf("  first sync to the hub   %8.2f s  %.2fx the local import (target <= 1.3x)\n",
              Median(sync_s), Median(ratio));
  std::printf("  CPU of the local import  %8.2f s\n", Median(local_cpu));
  std::printf("  CPU of the hub           %8.2f s  %.2fx the local import's, during the first sync\n",
              Median(hub_cpu), Median(hub_cpu_ratio));
  std::printf("  CPU of the device        %8.2f s  during the first sync\n", Median(device_cpu));
  std::printf("  %d entries pushed    %8.2f s  (target <= 10 s)\n", entries, Median(push_s));
  std::printf("  CPU of the hub           %8.2f s  during the push of the entries\n",
              Median(push_hub_cpu));
  std::printf("  CPU of the device        %8.2f s  during the push of the entries\n",
              Median(push_device_cpu));
  std::printf("  hub's RSS after it        %8.0f MB  (peak %.0f MB)\n", Median(hub_rss),
              Median(hub_peak));
  return 0;
}
