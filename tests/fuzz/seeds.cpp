// SPDX-License-Identifier: MIT
// fuzz-seeds DIR: writes each harness's seed corpus to DIR/<harness>/
// (docs/fuzzing.md): every line the agents' fixtures mirror, as each
// adapter harness reads it; the fixture store's ids; the protocol's hello
// and requests as the clients encode them; dates; MCP messages; Markdown;
// HTTP requests to origin ui (every page, asset, API read, form).  Made at
// run time from tests/fixtures, so the corpora follow the fixtures.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/store/refs.hpp"
#include "daemon/ui/pages.hpp"
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

// The fixture store's ids (events first, then sessions); `events` of them events.
std::vector<std::string> Ids(const std::string& dir, const test::ScopedTempDir& tmp, std::size_t* events) {
  Corpus c(dir, "ids");
  std::vector<std::string> ids;
  test::TestStore s;
  for (const char* agent : {"claude-code", "codex"}) {
    auto adapter = test::AgentFixture(agent, tmp / ("ids-" + std::string(agent)));
    s.ingester->Sync({adapter.get()}, {});
  }
  Stmt st(s.db->get(),
          "SELECT id, 1 FROM (SELECT id FROM event LIMIT 20) UNION ALL SELECT id, 0 FROM session");
  *events = 0;
  while (st.Step()) {
    const std::string id(st.Text(0));
    ids.push_back(id);
    *events += static_cast<std::size_t>(st.Int(1));
    const char all = 0xf;
    c.Add(all + id);
    c.Add(all + id.substr(0, id.size() / 2));
    c.Add(all + RefText(RefHash(id), 6));
    c.Add(static_cast<char>(1) + RefText(RefHash(id), 4));
  }
  return ids;
}

// origin ui's requests, as a browser sends them (the harness puts the host,
// the session's cookie and its CSRF token for {HOST}, {SESSION}, {CSRF}):
// every page (with an event's or a session's id where it takes one), every
// asset, the API's reads, a form, the sign-in and sign-out, chunked bodies,
// pipelined pairs, and a refusal behind a request.  First byte: the write
// size (0x80: all in one write; 0x07: 8 bytes a write).
void Http(const std::string& dir, const std::vector<std::string>& ids, std::size_t events) {
  Corpus c(dir, "http");
  const std::string event = events > 0 ? ids.front() : "evt_x";
  const std::string session = ids.size() > events ? ids[events] : "ses_x";
  const std::string browser =
      "Host: {HOST}\r\nUser-Agent: Mozilla/5.0\r\nAccept: text/html\r\nCookie: origin-ui={SESSION}\r\n";
  auto get = [&](const std::string& target) { return "GET " + target + " HTTP/1.1\r\n" + browser + "\r\n"; };
  auto post = [&](const std::string& target, const std::string& type, const std::string& body,
                  const std::string& extra = "") {
    return "POST " + target + " HTTP/1.1\r\n" + browser + "Origin: http://{HOST}\r\nContent-Type: " + type +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + extra + "\r\n" + body;
  };
  const std::string json = "application/json";
  std::vector<std::string> requests;
  for (const ui::Page& p : ui::AllPages()) {
    const std::string path = "/admin" + std::string(p.path);
    requests.push_back(get(path));
    requests.push_back(get(path + "?id=" + (p.path == "/session" ? session : event) + "&q=zstd&limit=5"));
  }
  for (const ui::Asset& a : ui::AllAssets()) requests.push_back(get("/admin/assets/" + std::string(a.name)));
  requests.push_back(get("/admin/signin?secret=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"));
  requests.push_back("GET /admin/ HTTP/1.1\r\nHost: {HOST}\r\n\r\n");  // no session: 401
  for (const auto& [op, body] : std::vector<std::pair<std::string, std::string>>{
           {"status", "{}"}, {"search", "{\"query\":\"zstd\",\"limit\":3}"}, {"show", "{\"id\":\"" + event + "\"}"},
           {"timeline", "{\"session\":\"" + session + "\"}"}, {"entries", "{}"}, {"tombstone", "{\"id\":\"" + event + "\"}"},
           {"remember", "{\"kind\":\"fact\",\"text\":\"x\"}"}})
    requests.push_back(post("/admin/api/" + op, json, body, "X-CSRF-Token: {CSRF}\r\n"));
  requests.push_back(post("/admin/remember", "application/x-www-form-urlencoded", "_csrf={CSRF}&kind=fact&text=uses+zstd"));
  requests.push_back(post("/admin/signout", "application/x-www-form-urlencoded", "_csrf={CSRF}"));
  requests.push_back("POST /admin/api/status HTTP/1.1\r\n" + browser +
                     "Origin: http://{HOST}\r\nX-CSRF-Token: {CSRF}\r\nContent-Type: application/json\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n1\r\n}\r\n0\r\n\r\n");
  for (const std::string& r : requests) {
    c.Add('\x80' + r);
    c.Add('\x07' + r);
  }
  // Pipelined: two at once, a request and a refusal behind it, Connection: close.
  for (std::size_t i = 0; i + 1 < requests.size(); i += 3) c.Add('\x80' + requests[i] + requests[i + 1]);
  c.Add('\x80' + requests[0] + "POST /admin/api/status HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: 70000\r\n\r\n");
  c.Add('\x80' + requests[0] + "BAD\r\n\r\n" + requests[1]);
  c.Add(std::string("\x80") + "GET /admin/ HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n" + requests[0]);
  c.Add('\x00' + requests[0] + requests[1]);
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
  std::size_t events = 0;
  const std::vector<std::string> ids = Ids(dir, tmp, &events);
  Http(dir, ids, events);
  Protocol(dir);
  Dates(dir);
  Mcp(dir);
  Markdown(dir);
  return 0;
}
