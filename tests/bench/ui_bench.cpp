// SPDX-License-Identifier: MIT
// The web UI's operations on a large store (issue 16; docs/performance.md):
// the overview (targets: 100 ms at 2M events, from derived tables and
// indexes only) and a session page of 20 turns (50 ms), in process on a
// reader's connection, as a worker of the daemon runs them.
//
//   ui_bench --events 2000000 --runs 15 --dir /var/tmp/uib
//
// The store is written directly (as refs_bench does): sessions of 200 to
// 3,000 events in turns (a prompt, 1 to 12 tool calls each with its result
// and a sentence before it, a reply), Claude Code and Codex alternately,
// starting over 90 days so that the last 30 hold about a third of the
// events; the session rows come from AddArrivals, as ingestion makes them.
// With --dir, the store is kept and reused by the next run.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/store/schema.hpp"
#include "core/store/sessions.hpp"
#include "core/ui/overview.hpp"
#include "core/ui/turns.hpp"
#include "tests/bench/bench_util.hpp"

using namespace origin;
using origin::bench::Median;
using origin::bench::Now;

namespace {

constexpr std::int64_t kNow = 1764547200000;  // 2025-12-01T00:00Z
constexpr std::int64_t kDay = 86400000;

std::string Words(std::mt19937_64& rng, int n) {
  static const char* const kWords[] = {"deploy", "catalog", "parser", "retry", "handler", "the",
                                       "index",  "session", "a",      "test",  "fix",     "build",
                                       "schema", "migrate", "query",  "of",    "timeout", "cache"};
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (!s.empty()) s += ' ';
    s += kWords[rng() % (sizeof kWords / sizeof *kWords)];
  }
  return s;
}

void Fill(Db& db, std::int64_t n) {
  std::mt19937_64 rng(7);
  db.Exec(
      "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) VALUES "
      "(1, 'claude-code', 'k1', 1, '/p1', 'm1', 0), (2, 'codex', 'k2', 1, '/p2', 'm2', 0)");
  auto ins = db.Prepare(
      "INSERT INTO event(id, source, session, ts, project, cwd, role, kind, text, tool_name, "
      "call_id, is_error, file_id, line) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  std::int64_t done = 0, line = 0;
  int session_no = 0;
  const double t0 = Now();
  while (done < n) {
    Transaction tx(db);
    const std::int64_t before = line;  // seq = line: the events arrive in order
    const int which = session_no % 2;
    const std::string source = which == 0 ? "claude-code" : "codex";
    const std::string session = source + ":s" + std::to_string(session_no);
    const std::string project = "proj" + std::to_string(session_no % 40);
    const std::string cwd = "/home/dev/" + project;
    const std::int64_t size = 200 + static_cast<std::int64_t>(rng() % 2800);
    std::int64_t ts = kNow - 90 * kDay + static_cast<std::int64_t>(rng() % (90 * kDay));
    std::int64_t k = 0;
    auto add = [&](const char* role, const char* kind, const std::string& text,
                   const char* tool, const std::string& call) {
      ins.Reset();
      ins.Bind(1, session + "#" + std::to_string(k++)).Bind(2, source).Bind(3, session);
      ins.Bind(4, ts).Bind(5, project).Bind(6, cwd).Bind(7, role).Bind(8, kind).Bind(9, text);
      if (tool)
        ins.Bind(10, tool);
      else
        ins.Bind(10, nullptr);
      if (call.empty())
        ins.Bind(11, nullptr);
      else
        ins.Bind(11, call);
      ins.Bind(12, 0).Bind(13, which + 1).Bind(14, ++line);
      ins.Run();
      ts += 5000;
      ++done;
    };
    while (k < size && done < n) {
      add("user", "message", Words(rng, 20), nullptr, "");
      const int calls = 1 + static_cast<int>(rng() % 12);
      for (int c = 0; c < calls; ++c) {
        add("assistant", "message", Words(rng, 15), nullptr, "");
        const std::string id = "call" + std::to_string(k);
        add("assistant", "tool_call", "{\"command\":\"ls\"}", "Bash", id);
        add("tool", "tool_result", Words(rng, 60), nullptr, id);
      }
      add("assistant", "message", Words(rng, 40), nullptr, "");
    }
    // The session's row, as ingestion adds each batch of its source.
    AddArrivals(db, source, before, {});
    tx.Commit();
    ++session_no;
  }
  std::printf("inserted %lld events in %d sessions: %.1f s\n", static_cast<long long>(done),
              session_no, Now() - t0);
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t events = 2000000;
  int runs = 15;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--events" && i + 1 < argc)
      events = std::atoll(argv[++i]);
    else if (a == "--runs" && i + 1 < argc)
      runs = std::atoi(argv[++i]);
    else if (a == "--dir" && i + 1 < argc)
      dir = argv[++i];
    else {
      std::fprintf(stderr, "usage: ui_bench [--events N] [--runs R] [--dir DIR]\n");
      return 2;
    }
  }
  const bool keep = !dir.empty();
  if (!keep) dir = std::filesystem::temp_directory_path() / ("ui_bench." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/origin.db";
  const bool fresh = !std::filesystem::exists(path);
  {
    auto w = OpenWriteConnection(path);
    if (fresh) Fill(*w, events);
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
