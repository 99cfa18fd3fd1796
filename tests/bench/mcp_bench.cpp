// SPDX-License-Identifier: MIT
// The MCP benchmark (a program, not a timed test).  Whole processes, as an
// agent runs them, in one run:
//   - `origin-mcp` from its start to the `initialize` answer (a running
//     originsd), and the same handshake with the reference: a minimal stdio
//     server written with @modelcontextprotocol/sdk on Node.js
//     (tests/clients/reference-server.mjs), interleaved;
//   - `tools/call` round trips over one connection: get and search through
//     origin-mcp, get through the reference (p50, p99);
//   - the peak RSS (VmHWM) of origin-mcp and of the reference after the calls;
//   - the size of three answers an agent gets all day (issue 13's targets):
//     a default search, a search with tool events, and a page of a
//     session's timeline: the characters of the text block the model
//     reads, the whole JSON-RPC line, and the hits (their ids, counted and
//     hashed, so that two builds can be compared: the same hits, in a
//     smaller form).
//
//   mcp_bench [--events N] [--handshakes N] [--calls N] [--sizes-only] [--show] [--node PATH]
//             [--originsd PATH] [--origin-mcp PATH] [--origin PATH]
//
// The store: about N events (default 20,000) of tests/support/loggen's
// small-events corpus in a temporary directory, ingested first.  Figures: docs/performance.md.

#include <rapidjson/document.h>

#include <algorithm>
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
using namespace origin::bench;
using namespace origin::test;
namespace fs = std::filesystem;

namespace {

const char* const kInitialize =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
    R"("capabilities":{},"clientInfo":{"name":"mcp_bench","version":"1"}}})";

// The answer to request `id`, or exits: a benchmark of wrong answers is no
// benchmark.
std::string Expect(StdioProcess& p, int id, const char* what) {
  for (;;) {
    auto line = p.ReadLine(30000);
    if (!line) {
      std::fprintf(stderr, "mcp_bench: no answer to %s\n", what);
      std::exit(1);
    }
    rapidjson::Document d;
    d.Parse(line->c_str());
    if (d.HasParseError() || !d.IsObject()) {
      std::fprintf(stderr, "mcp_bench: not JSON-RPC: %s\n", line->c_str());
      std::exit(1);
    }
    if (!d.HasMember("id") || !d["id"].IsInt() || d["id"].GetInt() != id) continue;
    if (!d.HasMember("result") ||
        (d["result"].HasMember("isError") && d["result"]["isError"].GetBool())) {
      std::fprintf(stderr, "mcp_bench: %s failed: %s\n", what, line->c_str());
      std::exit(1);
    }
    return *line;
  }
}

// Starts the server, times start → initialize answer (ms).
double Handshake(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  double t0 = Now();
  StdioProcess p(argv, env, /*keep_stderr=*/false);
  p.WriteLine(kInitialize);
  Expect(p, 0, "initialize");
  double ms = (Now() - t0) * 1000;
  p.CloseAndWait();
  return ms;
}

struct Calls {
  std::vector<std::vector<double>> ms;  // per kind of call
  std::int64_t peak_rss_kb = 0;
};

// One connection: initialize, then `n` rounds of the given tools/call
// params, each round trip timed; then the process's peak RSS.
Calls RoundTrips(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                 const std::vector<std::string>& calls, int n) {
  StdioProcess p(argv, env, /*keep_stderr=*/false);
  p.WriteLine(kInitialize);
  Expect(p, 0, "initialize");
  p.WriteLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  Calls out;
  out.ms.resize(calls.size());
  int id = 1;
  for (int i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < calls.size(); ++k, ++id) {
      double t0 = Now();
      p.WriteLine(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                  R"(,"method":"tools/call","params":)" + calls[k] + "}");
      Expect(p, id, calls[k].c_str());
      out.ms[k].push_back((Now() - t0) * 1000);
    }
  }
  out.peak_rss_kb = PeakRssKb(p.pid());
  p.CloseAndWait();
  return out;
}

// The ids of an answer's hits, in order: entries, then events (a
// session's, or search's, listed or grouped by session under their rank).
std::vector<std::string> HitIds(const rapidjson::Value& answer) {
  std::vector<std::string> ids;
  auto list = [&](const rapidjson::Value& hits, std::vector<std::pair<std::int64_t, std::string>>& out) {
    for (const auto& h : hits.GetArray())
      out.emplace_back(h.HasMember("rank") ? h["rank"].GetInt64() : static_cast<std::int64_t>(out.size()),
                       h["id"].GetString());
  };
  for (const char* key : {"entries", "events"}) {
    std::vector<std::pair<std::int64_t, std::string>> hits;
    if (answer.HasMember(key) && answer[key].IsArray()) list(answer[key], hits);
    if (std::string_view(key) == "events" && answer.HasMember("sessions"))
      for (const auto& s : answer["sessions"].GetArray())
        if (s.HasMember("events") && s["events"].IsArray()) list(s["events"], hits);
    std::stable_sort(hits.begin(), hits.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto& h : hits) ids.push_back(std::move(h.second));
  }
  return ids;
}

// Characters (code points) of UTF-8 text.
std::size_t Chars(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// FNV-1a of the ids in order.
std::uint64_t Digest(const std::vector<std::string>& ids) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const std::string& id : ids)
    for (unsigned char c : id + "\n") h = (h ^ c) * 1099511628211ULL;
  return h;
}

// One tools/call over `p` (initialized): prints its sizes and hits.
bool g_show = false;  // --show: each answer's text too

void Size(StdioProcess& p, int id, const char* label, const std::string& call, std::size_t target) {
  p.WriteLine(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
              R"(,"method":"tools/call","params":)" + call + "}");
  const std::string line = Expect(p, id, call.c_str());
  rapidjson::Document d;
  d.Parse(line.c_str());
  const auto& text = d["result"]["content"][0]["text"];
  rapidjson::Document answer;
  answer.Parse(text.GetString(), text.GetStringLength());
  const std::vector<std::string> ids = HitIds(answer);
  const std::size_t chars = Chars({text.GetString(), text.GetStringLength()});
  std::printf("  %-30s text %6zu chars, %6u B (target %6zu chars: %s)   line %7zu B   %3zu hits, digest %016llx\n",
              label, chars, text.GetStringLength(), target, chars <= target ? "met" : "MISSED", line.size(), ids.size(),
              static_cast<unsigned long long>(Digest(ids)));
  if (g_show) std::printf("%s\n", text.GetString());
}

void Row(const char* label, const std::vector<double>& ms) {
  std::printf("  %-34s p50 %7.2f ms   p99 %7.2f ms   (n=%zu)\n", label, Median(ms),
              Percentile(ms, 99), ms.size());
}

}  // namespace

int main(int argc, char** argv) {
  int events = 20000, handshakes = 200, calls = 1000;
  bool sizes_only = false;
  std::string corpus = "small";  // or real-shaped (issue 15)
  std::string node = "/usr/bin/node", originsd = "daemon/originsd", origin_cli = "client/origin",
              shim = "client/origin-mcp";
  Options options("mcp_bench");
  options.Add("--events", &events, "N");
  options.Add("--handshakes", &handshakes, "N");
  options.Add("--calls", &calls, "N");
  options.Add("--corpus", &corpus, "small|real-shaped");
  options.Add("--node", &node, "PATH");
  options.Add("--originsd", &originsd, "PATH");
  options.Add("--origin", &origin_cli, "PATH");
  options.Add("--origin-mcp", &shim, "PATH");
  options.Flag("--sizes-only", &sizes_only);
  options.Flag("--show", &g_show);
  if (!options.Parse(argc, argv)) return 2;
  const std::string reference =
      std::string(ORIGIN_SOURCE_DIR) + "/tests/clients/reference-server.mjs";
  if (!fs::exists(std::string(ORIGIN_SOURCE_DIR) + "/tests/clients/node_modules")) {
    std::fprintf(stderr, "mcp_bench: run `npm ci` in tests/clients first (the reference)\n");
    return 1;
  }
  shim = fs::absolute(shim);
  ScopedTempDir dir;
  const std::string claude = dir.path() + "/claude", codex = dir.path() + "/codex",
                    home = dir.path() + "/home";
  CorpusOptions gen;
  gen.seed = 42;
  gen.small_events = true;
  gen.total_bytes = static_cast<std::int64_t>(events) * 2000;  // ~2 kB of log per event
  if (corpus == "real-shaped") {
    ParseCorpusKind(corpus, &gen);
    gen.total_bytes = static_cast<std::int64_t>(events) * 3400;  // corpus_stats' figure
  }
  GenerateCorpus(claude, codex, gen);
  Daemon daemon(fs::absolute(originsd), fs::absolute(origin_cli), home, claude, codex,
                dir.path() + "/originsd.log");
  daemon.SyncAndIndex();
  daemon.WaitIdle();
  std::vector<std::string> env = daemon.env();
  env.push_back("PATH=/usr/bin:/bin");
  env.push_back("ORIGIN_NO_AUTOSTART=1");

  // An event to get, and a word to search for, from the store itself.
  std::string found = Capture(daemon.cli() + "search --json --limit 1 build");
  rapidjson::Document d;
  d.Parse(found.c_str());
  if (d.HasParseError() || !d.HasMember("events") || d["events"].Empty()) {
    std::fprintf(stderr, "mcp_bench: the store has no event to get: %s\n", found.c_str());
    return 1;
  }
  const std::string event = d["events"][0]["id"].GetString();
  const std::string session = d["events"][0]["session"].GetString();

  // Answer sizes, first: they depend on the corpus only.
  {
    StdioProcess p({shim}, env, /*keep_stderr=*/false);
    p.WriteLine(kInitialize);
    Expect(p, 0, "initialize");
    p.WriteLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    std::printf("answer sizes (%d events; a page of session %s):\n", events, session.c_str());
    Size(p, 1, "search \"build\"", R"({"name":"search","arguments":{"query":"build"}})", 6000);
    Size(p, 2, "search tools \"retry handler\"",
         R"({"name":"search","arguments":{"query":"retry handler","include_tools":true}})",
         12000);
    Size(p, 3, "timeline of a session",
         R"({"name":"timeline","arguments":{"session":")" + session + R"("}})", 8000);
    p.CloseAndWait();
  }
  if (sizes_only) return 0;

  // Warm both up (page cache, Node's compile cache), then interleave.
  const std::vector<std::string> shim_argv = {shim};
  const std::vector<std::string> ref_argv = {node, reference};
  Handshake(shim_argv, env);
  Handshake(ref_argv, env);
  std::vector<double> shim_hs, ref_hs;
  for (int i = 0; i < handshakes; ++i) {
    shim_hs.push_back(Handshake(shim_argv, env));
    ref_hs.push_back(Handshake(ref_argv, env));
  }
  const std::string get = R"({"name":"get","arguments":{"id":")" + event + R"("}})";
  Calls mine = RoundTrips(
      shim_argv, env,
      {get, R"({"name":"search","arguments":{"query":"build","limit":20}})",
       R"({"name":"search","arguments":{"query":"retry handler","include_tools":true,"limit":20}})"},
      calls);
  Calls ref = RoundTrips(ref_argv, env, {get}, calls);

  std::printf("MCP benchmark: %d events, %d handshakes each, %d rounds of calls\n", events,
              handshakes, calls);
  std::printf("start to initialize answer (whole process):\n");
  Row("origin-mcp (originsd running)", shim_hs);
  Row("Node.js SDK reference", ref_hs);
  std::printf("  reference / origin-mcp at p50: %.1fx\n", Median(ref_hs) / Median(shim_hs));
  std::printf("tools/call round trips (one connection):\n");
  Row("origin-mcp get", mine.ms[0]);
  Row("origin-mcp search \"build\"", mine.ms[1]);
  Row("origin-mcp search tools \"retry handler\"", mine.ms[2]);
  Row("Node.js SDK reference get (no store)", ref.ms[0]);
  std::printf("peak RSS after the calls:\n");
  std::printf("  origin-mcp %.1f MB, Node.js SDK reference %.1f MB: %.1fx smaller\n",
              static_cast<double>(mine.peak_rss_kb) / 1024,
              static_cast<double>(ref.peak_rss_kb) / 1024,
              static_cast<double>(ref.peak_rss_kb) / static_cast<double>(mine.peak_rss_kb));
  return 0;
}
