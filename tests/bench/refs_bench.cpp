// SPDX-License-Identifier: MIT
// Short references on a large store (issue 13; docs/performance.md): what
// the `ref` trigger adds to inserting events, how long migration 6 takes to
// fill `ref` on a store that has the events already, and what rendering a
// reference (ShortRef) and resolving what a person typed (ResolveId) cost.
//
//   refs_bench --events 2000000 --per-tx 50000 --text 12 --dir /var/tmp/refs
//
// The events are inserted directly (ids shaped like Claude Code's and
// Codex's, 500 to a session, a text of --text bytes), in transactions of
// --per-tx events (an ingest transaction of 1 MiB of lines holds about 200):
// once with the trigger and once without, on two stores, so that the
// difference is the trigger's.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/query/ids.hpp"
#include "core/store/refs.hpp"
#include "core/store/schema.hpp"
#include "core/util/op_error.hpp"
#include "tests/bench/bench_util.hpp"

using namespace origin;
using origin::bench::Median;
using origin::bench::Now;
using origin::bench::Options;
using origin::bench::Percentile;

namespace {

std::string Uuid(std::mt19937_64& rng) {
  char b[40];
  std::snprintf(b, sizeof b, "%08llx-%04llx-4%03llx-8%03llx-%012llx",
                static_cast<unsigned long long>(rng() & 0xffffffffULL),
                static_cast<unsigned long long>(rng() & 0xffffULL),
                static_cast<unsigned long long>(rng() & 0xfffULL),
                static_cast<unsigned long long>(rng() & 0xfffULL),
                static_cast<unsigned long long>(rng() & 0xffffffffffffULL));
  return b;
}

struct Ids {
  std::vector<std::string> events, sessions;
};

// Inserts `n` events; returns seconds.
double Fill(Db& db, std::int64_t n, std::int64_t per_tx, const std::string& text, Ids& ids) {
  std::mt19937_64 rng(42);
  db.Exec(
      "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
      "VALUES (1, 'claude-code', 'k', 1, '/p', 'm', 0)");
  const double t0 = Now();
  std::string session, thread;
  for (std::int64_t i = 0; i < n;) {
    Transaction tx(db);
    auto ins = db.Prepare(
        "INSERT INTO event(id, source, session, ts, project, role, kind, text, file_id, line) "
        "VALUES (?, ?, ?, ?, 'app', 'user', 'message', ?, 1, ?)");
    auto sess = db.Prepare("INSERT OR IGNORE INTO session(id, source) VALUES (?, ?)");
    for (std::int64_t k = 0; k < per_tx && i < n; ++k, ++i) {
      const bool codex = (i / 500) % 10 < 3;
      if (i % 500 == 0) {
        thread = Uuid(rng);
        session = std::string(codex ? "codex:" : "claude-code:") + thread;
        ids.sessions.push_back(session);
        sess.Reset();
        sess.Bind(1, session).Bind(2, codex ? "codex" : "claude-code").Run();
      }
      std::string id = codex ? "codex:" + thread + ":" + std::to_string(i % 500)
                             : "claude-code:" + Uuid(rng) + "#0";
      ins.Reset();
      ins.Bind(1, id).Bind(2, codex ? "codex" : "claude-code").Bind(3, session);
      ins.Bind(4, 1767225600000 + i).Bind(5, text).Bind(6, i % 500 + 1).Run();
      ids.events.push_back(std::move(id));
    }
    tx.Commit();
  }
  return Now() - t0;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = 2000000, per_tx = 50000;
  std::size_t text_bytes = 12;
  std::string dir = "/var/tmp/refs_bench";
  Options options("refs_bench");
  options.Add("--events", &n, "N");
  options.Add("--dir", &dir, "DIR");
  options.Add("--per-tx", &per_tx, "N");
  options.Add("--text", &text_bytes, "BYTES");
  if (!options.Parse(argc, argv)) return 2;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::printf("events: %lld, %lld per transaction, text of %zu bytes\n", static_cast<long long>(n),
              static_cast<long long>(per_tx), text_bytes);
  std::string text;
  while (text.size() < text_bytes) text += "a text of words ";
  text.resize(text_bytes);

  // Without the trigger: the reference.
  double without = 0;
  {
    auto db = OpenWriteConnection(dir + "/plain.db");
    db->Exec("DROP TRIGGER ref_event; DROP TRIGGER ref_session");
    Ids ids;
    without = Fill(*db, n, per_tx, text, ids);
  }
  std::filesystem::remove(dir + "/plain.db");
  Ids ids;
  auto db = OpenWriteConnection(dir + "/origin.db");
  const double with = Fill(*db, n, per_tx, text, ids);
  std::printf("insert, without the ref trigger: %.1f s (%.0f events/s)\n", without, n / without);
  std::printf("insert, with it:                 %.1f s (%.0f events/s), +%.1f%%, +%.1f us an event\n",
              with, n / with, 100.0 * (with - without) / without, (with - without) / n * 1e6);

  // Migration 6's fill, on a store that has the events.
  {
    db->Exec("DELETE FROM ref");
    db->Exec("VACUUM");
    const double t0 = Now();
    Transaction tx(*db);
    db->Exec(
        "INSERT INTO ref(h, kind, item) SELECT origin_ref(id), 0, seq FROM event UNION ALL "
        "SELECT origin_ref(id), 2, id FROM session ORDER BY 1, 2, 3");
    tx.Commit();
    std::printf("migration 6's fill: %.1f s\n", Now() - t0);
  }
  std::printf("ref: %lld rows, %.1f MiB (dbstat)\n",
              static_cast<long long>(db->QueryInt("SELECT count(*) FROM ref")),
              db->QueryInt("SELECT sum(pgsize) FROM dbstat WHERE name = 'ref'") / 1048576.0);
  db.reset();

  // A reader, as the daemon's: ShortRef and ResolveId.
  auto rd = OpenReadConnection(dir + "/origin.db");
  std::mt19937_64 rng(7);
  std::vector<std::string> sample;
  for (int i = 0; i < 20000; ++i) sample.push_back(ids.events[rng() % ids.events.size()]);
  std::vector<double> t;
  std::map<std::size_t, int> lengths;
  std::vector<std::string> refs;
  for (const auto& id : sample) {
    const double t0 = Now();
    std::string r = ShortRef(*rd, id);
    t.push_back((Now() - t0) * 1e6);
    ++lengths[r.size()];
    refs.push_back(std::move(r));
  }
  std::printf("ShortRef: median %.1f us, p99 %.1f us\n", Median(t), Percentile(t, 99));
  std::printf("reference lengths:");
  for (auto [len, count] : lengths) std::printf(" %zu: %.1f%%", len, 100.0 * count / sample.size());
  std::printf("\n");
  {
    // A timeline page: 500 references.
    std::vector<double> pages;
    for (int p = 0; p < 20; ++p) {
      const double t0 = Now();
      for (int k = 0; k < 500; ++k) ShortRef(*rd, sample[static_cast<std::size_t>(p * 500 + k)]);
      pages.push_back((Now() - t0) * 1e3);
    }
    std::printf("500 references (a timeline page): median %.2f ms\n", Median(pages));
  }
  auto time_resolve = [&](const char* what, const std::vector<std::string>& typed, unsigned kinds) {
    std::vector<double> ts;
    int ok = 0, ambiguous = 0;
    for (const auto& s : typed) {
      const double t0 = Now();
      try {
        ResolveId(*rd, s, kinds);
        ++ok;
      } catch (const OpError& e) {
        if (e.code() == OpError::Code::kAmbiguous) ++ambiguous;
      }
      ts.push_back((Now() - t0) * 1e6);
    }
    std::printf("ResolveId, %s: median %.1f us, p99 %.1f us (%d resolved, %d ambiguous of %zu)\n",
                what, Median(ts), Percentile(ts, 99), ok, ambiguous, typed.size());
  };
  const unsigned all = kEventIds | kEntryIds | kSessionIds;
  std::vector<std::string> r1(refs.begin(), refs.begin() + 2000), full(sample.begin(), sample.begin() + 2000),
      four, sess, bare, idprefix;
  for (int i = 0; i < 2000; ++i) {
    four.push_back(refs[static_cast<std::size_t>(i)].substr(0, 4));
    const std::string& s = ids.sessions[rng() % ids.sessions.size()];
    sess.push_back(s);
    bare.push_back(s.substr(s.find(':') + 1));
    const std::string& e = sample[static_cast<std::size_t>(i)];
    idprefix.push_back(e.substr(0, e.find(':') + 9));
  }
  time_resolve("a full id", full, all);
  time_resolve("a reference as shown", r1, all);
  time_resolve("4 characters of a reference", four, all);
  time_resolve("a session's bare UUID", bare, all);
  time_resolve("a session's id, as a session", sess, kSessionIds);
  time_resolve("an id's first 8 characters after the agent", idprefix, all);
  std::filesystem::remove_all(dir);
  return 0;
}
