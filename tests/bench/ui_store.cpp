// SPDX-License-Identifier: MIT
#include "tests/bench/ui_store.hpp"

#include <cstdio>
#include <random>
#include <string>

#include "core/store/sessions.hpp"
#include "tests/bench/bench_util.hpp"

namespace origin::bench {

namespace {

constexpr std::int64_t kDay = kDayMs;

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

}  // namespace

void FillUiStore(Db& db, std::int64_t n, std::int64_t now) {
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
    std::int64_t ts = now - 90 * kDay + static_cast<std::int64_t>(rng() % (90 * kDay));
    std::int64_t k = 0;
    auto add = [&](const char* role, const char* kind, const std::string& text, const char* tool,
                   const std::string& call) {
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

}  // namespace origin::bench
