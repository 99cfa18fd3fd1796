// SPDX-License-Identifier: MIT
// The generated-sources benchmark (a program, not a timed test).  In one run
// of this program, on the same machine and the same store code:
//   - ZCode: a CLI database of N messages (text and tool parts) is imported
//     from scratch, against the reference: the same messages as a Claude
//     Code session log, a plain file, imported the same way;
//   - a look at that database after ZCode added one message, and a look at
//     it unchanged (the token skips it), each the median of 21;
//   - Cursor's IDE: a state.vscdb of bubbles imported with no workspace and
//     with W workspace databases (each bubble line carries its workspace).
// Every import is the ingester's Sync in this process on a fresh store.
//
//   sources_bench [--messages N] [--workspaces W] [--runs R] [--dir DIR]
//
// Figures and how to read them: docs/performance.md.

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/cursor/cursor.hpp"
#include "adapters/zcode/zcode.hpp"
#include "core/ingest/ingester.hpp"
#include "core/c/sqlite.hpp"
#include "tests/bench/bench_util.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;
using namespace origin::bench;
namespace fs = std::filesystem;

namespace {

// A message's text: words that vary, about 600 bytes.
std::string Text(int i) {
  static const char* words[] = {"parser", "timer",  "cache",  "router", "schema", "index",
                                "retry",  "socket", "buffer", "thread", "commit", "merge"};
  std::string out = "message " + std::to_string(i) + ":";
  for (int k = 0; out.size() < 600; ++k) out += std::string(" ") + words[(i * 7 + k * 13) % 12];
  return out;
}

std::string Json(const std::function<void(rapidjson::Writer<rapidjson::StringBuffer>&)>& fn) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  fn(w);
  return std::string(sb.GetString(), sb.GetSize());
}

// ZCode's database with `n` messages in sessions of 50, every third
// assistant message with a completed tool part too.
void BuildZcode(const std::string& path, int n) {
  fs::create_directories(fs::path(path).parent_path());
  Db db(path, Db::Mode::kReadWrite);
  CreateZcodeSchema(db);
  db.Exec("BEGIN");
  auto sess = db.Prepare("INSERT INTO session VALUES (?, 'proj_-home-dev-app', NULL, "
                          "'/home/dev/app', ?, NULL, '0.16.9', ?, ?)");
  auto msg = db.Prepare("INSERT INTO message VALUES (?, ?, ?, ?, ?)");
  auto part = db.Prepare("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)");
  const std::int64_t t0 = 1767600000000;
  for (int i = 0; i < n; ++i) {
    const std::string sid = "sess_" + std::to_string(i / 50), mid = "msg_" + std::to_string(i);
    if (i % 50 == 0) {
      sess.Reset();
      sess.Bind(1, sid).Bind(2, "session " + sid).Bind(3, t0 + i * 1000).Bind(4, t0 + i * 1000);
      sess.Run();
    }
    const bool user = i % 2 == 0;
    msg.Reset();
    msg.Bind(1, mid).Bind(2, sid).Bind(3, i % 50).Bind(4, t0 + i * 1000);
    msg.Bind(5, user ? std::string(R"({"role":"user","path":{"cwd":"/home/dev/app"}})")
                     : std::string(R"({"role":"assistant","modelID":"glm-5.3","finish":"stop",)"
                                   R"("path":{"cwd":"/home/dev/app"}})"));
    msg.Run();
    part.Reset();
    part.Bind(1, "prt_" + std::to_string(i)).Bind(2, mid).Bind(3, sid).Bind(4, 1);
    part.Bind(5, t0 + i * 1000).Bind(6, Json([&](auto& w) {
      w.StartObject();
      w.Key("type");
      w.String("text");
      w.Key("text");
      w.String(Text(i).c_str());
      w.EndObject();
    }));
    part.Run();
    if (!user && i % 3 == 0) {
      part.Reset();
      part.Bind(1, "prt_t" + std::to_string(i)).Bind(2, mid).Bind(3, sid).Bind(4, 2);
      part.Bind(5, t0 + i * 1000 + 1)
          .Bind(6, R"({"type":"tool","callID":"c)" + std::to_string(i) +
                       R"(","tool":"Bash","state":{"status":"completed","input":{"command":"ctest"},"output":"100% tests passed"}})");
      part.Run();
    }
  }
  db.Exec("COMMIT");
}

// The same messages as a Claude Code session log.
void BuildClaude(const std::string& root, int n) {
  fs::create_directories(root + "/projects/-home-dev-app");
  std::ofstream out(root + "/projects/-home-dev-app/bench.jsonl", std::ios::binary);
  for (int i = 0; i < n; ++i) {
    const bool user = i % 2 == 0;
    out << Json([&](auto& w) {
      w.StartObject();
      w.Key("type");
      w.String(user ? "user" : "assistant");
      w.Key("uuid");
      w.String(("u" + std::to_string(i)).c_str());
      w.Key("sessionId");
      w.String(("s" + std::to_string(i / 50)).c_str());
      w.Key("timestamp");
      w.String("2026-01-05T10:00:00.000Z");
      w.Key("cwd");
      w.String("/home/dev/app");
      w.Key("message");
      w.StartObject();
      w.Key("role");
      w.String(user ? "user" : "assistant");
      w.Key("content");
      w.String(Text(i).c_str());
      w.EndObject();
      w.EndObject();
    }) << '\n';
  }
}

struct Import {
  double s = 0;
  std::int64_t events = 0;
};

Import Run(const SourceAdapter& a, const std::string& base) {
  TestStore store(base);
  Ingester ing(*store.db, *store.mirrors, store.clock);
  const double t = Now();
  SyncReport r = ing.Sync({&a}, {});
  return {Now() - t, r.events};
}

}  // namespace

int main(int argc, char** argv) {
  int messages = 100000, workspaces = 300, runs = 3;
  std::string dir = fs::temp_directory_path() / "origin-sources-bench";
  Options options("sources_bench");
  options.Add("--messages", &messages, "N");
  options.Add("--workspaces", &workspaces, "N");
  options.Add("--runs", &runs, "R");
  options.Add("--dir", &dir, "DIR");
  if (!options.Parse(argc, argv)) return 2;
  fs::remove_all(dir);
  fs::create_directories(dir + "/stores");
  const std::string stores = dir + "/stores";
  BuildZcode(dir + "/zcode/cli/db/db.sqlite", messages);
  BuildClaude(dir + "/claude", messages);
  adapters::ZcodeAdapter zcode(dir + "/zcode");
  adapters::ClaudeCodeAdapter claude(dir + "/claude");
  std::printf("%d messages (%.1f MB of ZCode database)\n", messages,
              static_cast<double>(fs::file_size(dir + "/zcode/cli/db/db.sqlite")) / 1e6);

  std::vector<double> z, c;
  std::int64_t zev = 0, cev = 0;
  for (int r = 0; r < runs; ++r) {
    Import a = Run(zcode, stores);
    Import b = Run(claude, stores);
    z.push_back(a.s);
    c.push_back(b.s);
    zev = a.events;
    cev = b.events;
    std::printf("run %d: ZCode %.2f s (%lld events), Claude Code file %.2f s (%lld events)\n", r + 1,
                a.s, static_cast<long long>(a.events), b.s, static_cast<long long>(b.events));
  }
  std::printf("import, median: ZCode %.0f events/s, the plain file %.0f events/s, ratio %.2f\n",
              static_cast<double>(zev) / Median(z), static_cast<double>(cev) / Median(c),
              Median(z) / Median(c));

  // Looks at the imported database: unchanged, and after one more message.
  {
    TestStore store(stores);
    Ingester ing(*store.db, *store.mirrors, store.clock);
    ing.Sync({&zcode}, {});
    std::vector<double> skip, one;
    Db w(dir + "/zcode/cli/db/db.sqlite", Db::Mode::kReadWrite);
    for (int k = 0; k < 21; ++k) {
      double t = Now();
      ing.Sync({&zcode}, {});
      skip.push_back((Now() - t) * 1000);
      const std::string mid = "msg_x" + std::to_string(k);
      w.Exec("INSERT INTO message VALUES ('" + mid + "', 'sess_0', 1000, 1767700000000, " +
             R"('{"role":"user"}'))");
      w.Exec("INSERT INTO part VALUES ('prt_x" + std::to_string(k) + "', '" + mid +
             R"(', 'sess_0', 1, 1767700000000, '{"type":"text","text":"one more"}'))");
      t = Now();
      SyncReport r = ing.Sync({&zcode}, {});
      one.push_back((Now() - t) * 1000);
      if (r.events != 1) std::printf("warning: a look added %lld events\n",
                                     static_cast<long long>(r.events));
    }
    std::printf("look, median of 21: unchanged %.2f ms, one new message %.2f ms (p90 %.2f ms)\n",
                Median(skip), Median(one), Percentile(one, 90));
  }

  // Cursor's IDE: 100 conversations of messages/100 bubbles each.
  {
    const std::string ide = dir + "/cursor-ide";
    const std::string db = ide + "/globalStorage/state.vscdb";
    const int per = std::max(1, messages / 100);
    for (int cid = 0; cid < 100; ++cid) {
      std::vector<std::pair<std::string, std::string>> bubbles;
      for (int i = 0; i < per; ++i) {
        const std::string bid = "c" + std::to_string(cid) + "b" + std::to_string(i);
        bubbles.emplace_back(bid, Json([&](auto& w) {
                               w.StartObject();
                               w.Key("bubbleId");
                               w.String(bid.c_str());
                               w.Key("type");
                               w.Int(i % 2 == 0 ? 1 : 2);
                               w.Key("text");
                               w.String(Text(cid * per + i).c_str());
                               w.EndObject();
                             }));
      }
      PutCursorConversation(db, "c" + std::to_string(cid), "completed", bubbles);
    }
    adapters::CursorAdapter none(dir + "/cursor", ide);
    std::vector<double> bare, with;
    std::int64_t events = 0;
    for (int r = 0; r < runs; ++r) bare.push_back(Run(none, stores).s);
    for (int w = 0; w < workspaces; ++w)
      PutCursorWorkspace(ide + "/workspaceStorage/w" + std::to_string(w),
                         "file:///home/dev/p" + std::to_string(w), {"c" + std::to_string(w % 100)});
    for (int r = 0; r < runs; ++r) {
      adapters::CursorAdapter a(dir + "/cursor", ide);  // a fresh adapter: nothing cached
      Import i = Run(a, stores);
      with.push_back(i.s);
      events = i.events;
    }
    std::printf(
        "Cursor IDE import, median: %lld bubble events, %.2f s with no workspace, %.2f s with %d "
        "workspaces (ratio %.2f)\n",
        static_cast<long long>(events), Median(bare), Median(with), workspaces,
        Median(with) / Median(bare));
  }
  fs::remove_all(dir);
  return 0;
}
