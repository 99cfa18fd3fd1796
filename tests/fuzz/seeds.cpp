// SPDX-License-Identifier: MIT
// fuzz-seeds DIR: writes each harness's seed corpus to DIR/<harness>/
// (docs/fuzzing.md): every line the agents' fixtures mirror, as each
// adapter harness reads it; the fixture store's ids; the protocol's hello
// and requests as the clients encode them; dates; MCP messages; Markdown.  Made at
// run time from tests/fixtures, so the corpora follow the fixtures.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/store/refs.hpp"
#include "proto/protocol.hpp"
#include "proto/requests.hpp"
#include "tests/support/agent_fixtures.hpp"
#include "tests/support/support.hpp"

namespace fs = std::filesystem;
using namespace origin;

namespace {

class Corpus {
 public:
  Corpus(const std::string& dir, const std::string& harness) : dir_(dir + "/" + harness) {
    fs::create_directories(dir_);
  }
  void Add(const std::string& input) {
    char name[16];
    std::snprintf(name, sizeof name, "seed-%05d", n_++);
    std::ofstream(dir_ + "/" + name, std::ios::binary) << input;
  }

 private:
  std::string dir_;
  int n_ = 0;
};

// Each line a stream of the agent's fixture mirrors, after the byte that
// picks its stream; and each stream's lines together (up to 64 KiB), so
// that the carried state goes from line to line.
void Adapter(const std::string& dir, const std::string& agent, const test::ScopedTempDir& tmp) {
  Corpus c(dir, "adapter-" + agent);
  auto adapter = test::AgentFixture(agent, tmp / agent);
  std::map<std::string, char> pick;
  const auto streams = test::FixtureStreams(*adapter);
  for (std::size_t i = 0; i < streams.size() && i < 128; ++i)
    pick[streams[i].key] = static_cast<char>(i);
  std::map<std::string, std::string> whole;
  for (const auto& l : test::MirroredLines(*adapter)) {
    auto it = pick.find(l.key);
    if (it == pick.end()) continue;
    c.Add(it->second + l.line);
    std::string& w = whole[l.key];
    if (w.size() < 65536) w += (w.empty() ? std::string(1, it->second) : "\n") + l.line;
  }
  for (const auto& [key, w] : whole) c.Add(w);
}

void Ids(const std::string& dir, const test::ScopedTempDir& tmp) {
  Corpus c(dir, "ids");
  test::TestStore s;
  for (const char* agent : {"claude-code", "codex"}) {
    auto adapter = test::AgentFixture(agent, tmp / ("ids-" + std::string(agent)));
    s.ingester->Sync({adapter.get()}, {});
  }
  Stmt st(s.db->get(),
          "SELECT id FROM (SELECT id FROM event LIMIT 20) UNION ALL SELECT id FROM session");
  while (st.Step()) {
    const std::string id(st.Text(0));
    const char all = 0xf;
    c.Add(all + id);
    c.Add(all + id.substr(0, id.size() / 2));
    c.Add(all + RefText(RefHash(id), 6));
    c.Add(static_cast<char>(1) + RefText(RefHash(id), 4));
  }
}

void Protocol(const std::string& dir) {
  Corpus c(dir, "protocol");
  proto::ClientHello h{"origin", "0.1.0", 42, "/home/dev", ""};
  const std::string hello = proto::Encode(h);
  auto request = [](const char* method, const std::string& params) {
    return std::string("{\"id\":7,\"method\":\"") + method + "\",\"params\":" + params + "}";
  };
  proto::SearchRequest search;
  search.query = "race condition";
  search.since = 1767225600000;
  search.kind = "decision";
  search.context = 2;
  proto::TimelineRequest timeline;
  timeline.session = "claude-code:s1";
  timeline.limit = 10;
  proto::EntryRequest entry;
  entry.id = "entry:1";
  entry.kind = "fact";
  entry.text = "uses zstd";
  entry.confidence = 0.5;
  entry.sources = {{std::string("claude-code:u1"), std::nullopt}, {std::nullopt, std::string("q")}};
  proto::TombstoneRequest forget{"claude-code:u1", "secret", true, "k1"};
  proto::IdRequest show;
  show.id = "claude-code:u1";
  for (const std::string& line :
       {request("search", proto::Encode(search)), request("timeline", proto::Encode(timeline)),
        request("remember", proto::Encode(entry, false)),
        request("correct", proto::Encode(entry, true)),
        request("forget", proto::Encode(forget, "target")),
        request("show", proto::Encode(show)), std::string(R"({"id":"a","method":"status"})")})
    c.Add('\x3f' + hello + "\n" + line + "\n");
  proto::ClientHello mcp{"origin-mcp", "0.1.0", 1, "/", "s-1"};
  c.Add('\x03' + proto::Encode(mcp) + "\n" + request("sync", "{\"source\":\"codex\"}") + "\n");
}

void Dates(const std::string& dir) {
  Corpus c(dir, "dates");
  for (const char* d :
       {"2026-01-01", "2026-02-28T23:59", "2026-03-01T12:30:45", "2026-03-01T12:30:45.123456",
        "2026-03-01T12:30:45Z", "2026-03-01T12:30:45.5+05:30", "2026-03-01T12:30-0800",
        "2025-11-23T04:53:42.362Z", "now", "today", "yesterday", "30s", "12h", "2d", "1w"})
    c.Add(d);
}

void Mcp(const std::string& dir) {
  Corpus c(dir, "mcp");
  const std::string init =
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}})";
  auto call = [](const std::string& tool, const std::string& args) {
    return R"({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":")" + tool +
           R"(","arguments":)" + args + "}}";
  };
  for (const std::string& m :
       {std::string(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"),
        std::string(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"),
        std::string(R"({"jsonrpc":"2.0","id":2,"method":"ping"})"),
        std::string(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}])"),
        call("search", R"({"query":"zstd","limit":5,"scope":"events","since":"2d"})"),
        call("search", R"({"query":"\"race\" OR lock","history":true})"),
        call("timeline", R"({"days":30,"include_tools":true})"),
        call("timeline", R"({"id":"claude-code:","limit":3})"),
        call("show", R"({"id":"codex:"})"), call("sources", R"({"id":"claude-code"})")}) {
    c.Add(m);
    c.Add(init + "\n" + m);
  }
}

// Agents' Markdown: each construct of the web UI's subset, alone and together.
void Markdown(const std::string& dir) {
  Corpus c(dir, "markdown");
  for (const char* m :
       {"# Title\n\nA *word*, **strong**, _em_, __bold__ and `code`.", "```cpp\nint a<b;\n```\n",
        "- one\n- two\n  - nested\n\n1. first\n2) second", "> quote\n> > deeper\n\n---",
        "| a | b |\n|:--|--:|\n| 1 | `x\\|y` |", "[docs](https://example.com/d \"t\") and [x](javascript:alert(1))",
        "<script>alert(1)</script>", "***both*** \\*escaped\\*", "~~~\nfence\n~~~~"})
    c.Add(m);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz-seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  test::ScopedTempDir tmp;
  for (const char* agent : test::FixtureAgents()) Adapter(dir, agent, tmp);
  Ids(dir, tmp);
  Protocol(dir);
  Dates(dir);
  Mcp(dir);
  Markdown(dir);
  return 0;
}
