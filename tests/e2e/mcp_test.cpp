// SPDX-License-Identifier: MIT
// origin-mcp against a real originsd: the MCP handshake and its version
// negotiation, tools/list, every tool with valid and invalid input, JSON-RPC
// errors, nothing but JSON-RPC on stdout (also with no daemon), and leaving
// when stdin ends (spec: MCP server; ../shared/spec/mcp.md).
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <set>
#include <tuple>

#include "core/util/text.hpp"
#include "proto/base64.hpp"
#include "proto/protocol.hpp"
#include "tests/e2e/daemon_fixture.hpp"
#include "tests/e2e/mcp_stdio.hpp"

using namespace origin;
using namespace origin::test;


TEST_SUITE("e2e") {
  TEST_CASE(
      "mcp: initialize negotiates the version; tools/list follows the rules; JSON-RPC errors") {
    DaemonFixture f;
    f.Start({"--rescan-ms", "600000"});
    for (const char* v : {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2099-01-01"}) {
      Mcp m(f.env());
      auto d = m.Call(1, "initialize",
                      std::string(R"({"protocolVersion":")") + v +
                          R"(","capabilities":{},"clientInfo":{"name":"test","version":"1"}})");
      const auto& r = d["result"];
      std::string want = std::string(v) == "2099-01-01" ? "2025-11-25" : v;
      CHECK(std::string(r["protocolVersion"].GetString()) == want);
      CHECK(std::string(r["serverInfo"]["name"].GetString()) == "origin");
      CHECK(r["capabilities"].HasMember("tools"));
      CHECK(std::strlen(r["instructions"].GetString()) < 2048);
      m.Send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");  // no answer
      auto ping = m.Call(2, "ping");
      CHECK(ping["result"].IsObject());
      auto tools = m.Call(3, "tools/list");
      const auto& list = tools["result"]["tools"];
      REQUIRE(list.Size() == 7);
      std::set<std::string> names;
      for (const auto& t : list.GetArray()) {
        std::string name = t["name"].GetString();
        names.insert(name);
        // ^[a-zA-Z0-9_-]+$
        CHECK_FALSE(name.empty());
        CHECK(std::all_of(name.begin(), name.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '-';
        }));
        CHECK(std::strlen(t["description"].GetString()) < 2048);
        const auto& s = t["inputSchema"];
        CHECK(std::string(s["type"].GetString()) == "object");
        for (const char* k : {"oneOf", "anyOf", "allOf"}) CHECK_FALSE(s.HasMember(k));
      }
      CHECK(names == std::set<std::string>{"search", "timeline", "get", "sources", "remember",
                                           "correct", "forget"});
      CHECK(m.CloseAndWait().first == 0);
    }
    Mcp m(f.env());
    m.Send("this is not json");
    auto d = m.Read();
    CHECK(d["error"]["code"].GetInt() == -32700);
    CHECK(d["id"].IsNull());
    m.Send(R"({"id":1,"method":"ping"})");  // no jsonrpc
    CHECK(m.Read()["error"]["code"].GetInt() == -32600);
    m.Send(R"({"jsonrpc":"2.0","id":null,"method":"ping"})");
    CHECK(m.Read()["error"]["code"].GetInt() == -32600);
    CHECK(m.Call(4, "resources/list")["error"]["code"].GetInt() == -32601);
    CHECK(m.Call(5, "tools/call", R"({"name":"nope","arguments":{}})")["error"]["code"].GetInt() ==
          -32602);
    CHECK(m.Call(6, "tools/call", R"({"arguments":{}})")["error"]["code"].GetInt() == -32602);
    auto [code, took] = m.CloseAndWait();
    CHECK(code == 0);
    CHECK(took < 5);
    f.Stop();
  }

  TEST_CASE(
      "mcp: every tool, with valid and invalid input; an agent remembers a line it just wrote") {
    DaemonFixture f;
    std::string file = f.claude() + "/projects/-home-dev-app/s1.jsonl";
    WriteFile(file, ClaudeLine("u1", "We chose SQLite for the store"));
    f.Start({"--rescan-ms", "600000"});
    Mcp m(f.env());
    m.Call(
        1, "initialize",
        R"({"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"2"}})");
    // The agent writes a line, then at once remembers quoting it: the daemon
    // ingests what changed before the write (freshness).
    std::string line = ClaudeLine("u2", "The catalog deploys with blue green");
    AppendFile(file, line);
    // Not a structured binding: doctest's messages capture it in a lambda,
    // which clang 14 does not allow.
    std::string text;
    bool err = false;
    std::tie(text, err) = m.Tool(
        2, "remember",
        R"({"kind":"knowledge","text":"catalog deploys blue-green","confidence":0.9,"sources":[{"quote":"deploys with BLUE green"}]})");
    REQUIRE_MESSAGE(!err, text);
    auto doc = Json(text);
    const auto& entry = doc["entry"];
    std::string id = entry["id"].GetString();
    CHECK(std::string(entry["author"].GetString()) == "claude-code@testbox");
    CHECK(entry["imported"].GetBool() == false);
    CHECK(std::string(entry["sources"][0]["event_id"].GetString()) == "claude-code:u2");
    std::tie(text, err) = m.Tool(3, "sources", R"({"id":")" + id + R"("})");
    REQUIRE_FALSE(err);
    CHECK(std::string(Json(text)["sources"][0]["raw"].GetString()) + "\n" == line);  // invariant 1
    std::tie(text, err) = m.Tool(4, "search", R"({"query":"catalog","since":"2026-01-01"})");
    REQUIRE_MESSAGE(!err, text);
    doc = Json(text);
    CHECK(doc["entries"].Size() == 1);
    // The event hit, under its session (docs/architecture.md, MCP answers).
    REQUIRE(doc["sessions"].Size() == 1);
    CHECK(doc["sessions"][0]["events"].Size() == 1);
    CHECK(doc["events"].Size() == 0);
    std::tie(text, err) = m.Tool(5, "timeline", R"({"days":100000})");
    REQUIRE_MESSAGE(!err, text);
    CHECK(Json(text)["sessions"].Size() == 1);
    // Words in the session's name (its first prompt here), in any case.
    std::tie(text, err) = m.Tool(23, "timeline", R"({"days":100000,"name":"sqlite CHOSE"})");
    REQUIRE_MESSAGE(!err, text);
    CHECK(Json(text)["sessions"].Size() == 1);
    std::tie(text, err) = m.Tool(24, "timeline", R"({"days":100000,"name":"sqlite zebra"})");
    REQUIRE_MESSAGE(!err, text);
    CHECK(Json(text)["sessions"].Size() == 0);
    std::tie(text, err) = m.Tool(6, "get", R"({"id":")" + id + R"("})");
    REQUIRE_FALSE(err);
    std::tie(text, err) = m.Tool(
        7, "correct", R"({"id":")" + id + R"(","text":"catalog deploys blue-green, twice a day"})");
    REQUIRE_MESSAGE(!err, text);
    // Invalid input and unknown ids: tool errors with a readable message.
    auto fails = [&](int n, const char* tool, const std::string& args, const char* msg) {
      const std::pair<std::string, bool> answer = m.Tool(n, tool, args);
      CHECK_MESSAGE(answer.second, tool << " " << answer.first);
      CHECK_MESSAGE(answer.first.find(msg) != std::string::npos, answer.first);
    };
    fails(10, "get", R"({"id":"claude-code:nope"})", "no event or entry");
    fails(25, "timeline", R"({"session":"claude-code:s1","name":"sqlite"})",
          "name is for the list of sessions");
    fails(11, "remember",
          R"({"kind":"fact","text":"x","confidence":1,"sources":[{"event_id":"claude-code:u1"}]})",
          "kind must be");
    fails(12, "remember",
          R"({"kind":"memory","text":"x","confidence":1,"sources":[{"quote":"never said"}]})",
          "no message or tool result");
    fails(13, "correct", R"({"id":")" + id + R"(","text":"again"})", "not the current version");
    fails(14, "search", R"({"query":"x","since":"last tuesday"})", "not an ISO 8601");
    fails(15, "search", R"({"query":"x","limit":500})", "at most 50");
    fails(16, "forget", R"({"id":"claude-code:u1","reason":"  "})", "reason");
    fails(17, "forget", R"({"id":"claude-code:u1"})", "reason");
    // forget, and the forgotten id is a clear error.
    std::tie(text, err) =
        m.Tool(18, "forget", R"({"id":"claude-code:u2","reason":"the user asked"})");
    REQUIRE_MESSAGE(!err, text);
    CHECK(Json(text)["recorded"].GetBool());
    fails(19, "get", R"({"id":"claude-code:u2"})", "forgotten");
    fails(20, "sources", R"({"id":")" + id + R"("})", "forgotten");
    std::tie(text, err) = m.Tool(21, "search", R"({"query":"catalog"})");
    doc = Json(text);
    CHECK(doc["entries"].Size() + doc["sessions"].Size() + doc["events"].Size() == 0);
    // There is no restore tool.
    CHECK(m.Call(22, "tools/call",
                 R"({"name":"restore","arguments":{"id":"x","reason":"r"}})")["error"]["code"]
              .GetInt() == -32602);
    auto [code, took] = m.CloseAndWait();
    CHECK(code == 0);
    CHECK(took < 5);
    f.Stop();
  }

  TEST_CASE(
      "mcp: a log line with bytes that are not UTF-8: the sources answer is valid UTF-8, the "
      "exact bytes in raw_base64") {
    DaemonFixture f;
    const std::string line = ClaudeLine("u1", "bad \xff\xfe bytes");
    WriteFile(f.claude() + "/projects/-home-dev-app/s1.jsonl", line);
    f.Start({"--rescan-ms", "600000"});
    Mcp m(f.env());
    m.Call(
        1, "initialize",
        R"({"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}})");
    for (const char* tool : {"sources", "get"}) {
      CAPTURE(tool);
      auto [text, err] = m.Tool(2, tool, R"({"id":"claude-code:u1"})");
      REQUIRE_FALSE(err);
      CHECK(ValidUtf8(text));  // the JSON-RPC line held it: it was valid UTF-8 too
      rapidjson::Document d;
      d.Parse<rapidjson::kParseValidateEncodingFlag>(text.c_str());
      REQUIRE_FALSE(d.HasParseError());
      if (std::string(tool) == "get") continue;
      const auto& src = d["sources"][0];
      CHECK(std::string(src["raw"].GetString()).find("bad \xef\xbf\xbd\xef\xbf\xbd bytes") !=
            std::string::npos);
      CHECK(proto::Base64Decode(src["raw_base64"].GetString()) == line.substr(0, line.size() - 1));
    }
    CHECK(m.CloseAndWait().first == 0);
    f.Stop();
  }

  TEST_CASE(
      "e2e: a session title holding a secret is an event: timeline --all lists it, forgetting it "
      "takes it from origin timeline and the MCP timeline, the preview counts the title, and a "
      "restore brings it back") {
    DaemonFixture f;
    std::string file = f.claude() + "/projects/-home-dev-app/s1.jsonl";
    WriteFile(file,
              ClaudeLine("u1", "deploy the catalog") +
                  R"({"type":"custom-title","customTitle":"catalog sk-LIVE-4242","sessionId":"s1"})"
                  "\n");
    f.Start({"--rescan-ms", "600000"});
    const std::map<std::string, std::string> plain = {{"NO_COLOR", "1"}};
    auto timeline = [&] { return f.Cli({"timeline", "--days", "100000"}, plain).out; };
    CHECK(timeline().find("catalog sk-LIVE-4242") != std::string::npos);
    // The title line's event, found by search with tool and meta events.
    auto d = Json(f.Cli({"search", "sk-LIVE", "--all", "--json"}).out);
    REQUIRE(d["events"].Size() == 1);
    const std::string id = d["events"][0]["id"].GetString();
    CHECK(std::string(d["events"][0]["kind"].GetString()) == "meta");
    // Listed by timeline SESSION --all, and shown by show and sources.
    RunResult r = f.Cli({"timeline", "claude-code:s1", "--all", "--json"});
    REQUIRE(r.status == 0);
    bool listed = false;
    d = Json(r.out);
    for (const auto& e : d["events"].GetArray())
      listed = listed || std::string(e["id"].GetString()) == id;
    CHECK(listed);
    CHECK(f.Cli({"show", id}).out.find("sk-LIVE-4242") != std::string::npos);
    CHECK(f.Cli({"sources", id}).out.find("custom-title") != std::string::npos);

    Mcp m(f.env());
    m.Call(
        1, "initialize",
        R"({"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"2"}})");
    auto mcp_timeline = [&](int n) {
      const std::pair<std::string, bool> answer = m.Tool(n, "timeline", R"({"days":100000})");
      REQUIRE_MESSAGE(!answer.second, answer.first);
      return answer.first;
    };
    CHECK(mcp_timeline(2).find("sk-LIVE-4242") != std::string::npos);

    // The preview counts the session title it hides.
    r = f.Cli({"forget", id, "--reason", "a live key"}, plain);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("will hide 0 entry versions and 1 event in 1 session, and the title of 1 "
                     "session") != std::string::npos);
    CHECK(r.out.find("title   claude-code:s1") != std::string::npos);
    CHECK(timeline().find("sk-LIVE-4242") != std::string::npos);  // nothing changed yet
    r = f.Cli({"forget", id, "--reason", "a live key", "--yes", "--json"});
    REQUIRE(r.status == 0);
    d = Json(r.out);
    CHECK(d["titles_count"].GetInt() == 1);
    const std::string tmb = d["tombstone"].GetString();
    // Gone from every place it showed; the session is named by its prompt.
    CHECK(timeline().find("sk-LIVE") == std::string::npos);
    CHECK(timeline().find("\"deploy the catalog\"") != std::string::npos);
    CHECK(mcp_timeline(3).find("sk-LIVE") == std::string::npos);
    CHECK(f.Cli({"timeline", "claude-code:s1", "--all"}, plain).out.find("sk-LIVE") ==
          std::string::npos);
    d = Json(f.Cli({"search", "sk-LIVE", "--all", "--json"}).out);
    CHECK(d["events"].Size() == 0);
    // Claude Code writes the title line again: it stays hidden.
    AppendFile(file,
               R"({"type":"custom-title","customTitle":"catalog sk-LIVE-4242","sessionId":"s1"})"
               "\n");
    REQUIRE(f.Cli({"sync"}).status == 0);
    CHECK(timeline().find("sk-LIVE") == std::string::npos);
    CHECK(mcp_timeline(4).find("sk-LIVE") == std::string::npos);
    // A restore brings it back, and says so.
    r = f.Cli({"restore", tmb, "--reason", "rotated the key", "--yes"}, plain);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("and the title of 1 session") != std::string::npos);
    CHECK(timeline().find("catalog sk-LIVE-4242") != std::string::npos);
    CHECK(mcp_timeline(5).find("sk-LIVE-4242") != std::string::npos);
    CHECK(m.CloseAndWait().first == 0);
    f.Stop();
  }

  TEST_CASE("mcp: with no daemon, stdout carries JSON-RPC errors and nothing else") {
    DaemonFixture f;  // never started, and autostart is off
    auto env = f.env();
    env["ORIGIN_NO_AUTOSTART"] = "1";
    Mcp m(env);
    auto d = m.Call(
        1, "initialize",
        R"({"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}})");
    REQUIRE(d.HasMember("error"));
    CHECK(d["error"]["code"].GetInt() == -32603);
    CHECK(std::string(d["error"]["message"].GetString()).find("not available") !=
          std::string::npos);
    m.Send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    CHECK(m.Call(2, "tools/list").HasMember("error"));
    // The daemon comes up: the next request connects.
    f.Start({"--rescan-ms", "600000"});
    auto t = m.Call(3, "tools/list");
    REQUIRE_MESSAGE(t.HasMember("result"), proto::ToJson(t));
    CHECK(t["result"]["tools"].Size() == 7);
    // It goes away while the agent runs: a clear error, then back again.
    f.Kill();
    auto gone = m.Call(4, "ping");
    CHECK(gone.HasMember("error"));
    f.Start({"--rescan-ms", "600000"});
    CHECK(m.Call(5, "ping").HasMember("result"));
    CHECK(m.CloseAndWait().first == 0);
    f.Stop();
  }

  TEST_CASE("mcp: an agent repeating a remember leaves one entry; errors are tool errors") {
    DaemonFixture f;
    WriteFile(f.claude() + "/projects/app/s1.jsonl", ClaudeLine("u1", "We chose SQLite"));
    f.Start({"--rescan-ms", "600000"});
    Mcp m(f.env());
    m.Call(1, "initialize",
           R"({"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"codex","version":"1"}})");
    const std::string same =
        R"({"kind":"knowledge","text":"the store is SQLite","confidence":0.8,"project":"app","sources":[{"event_id":"claude-code:u1"}]})";
    std::string first;
    bool e1 = false;
    std::tie(first, e1) = m.Tool(2, "remember", same);
    REQUIRE_MESSAGE(!e1, first);
    std::string again;
    bool e2 = false;
    std::tie(again, e2) = m.Tool(3, "remember", same);
    REQUIRE_MESSAGE(!e2, again);
    auto a = Json(first), b = Json(again);
    CHECK(std::string(a["entry"]["id"].GetString()) == b["entry"]["id"].GetString());
    CHECK_FALSE(a.HasMember("duplicate"));
    CHECK(b["duplicate"].GetBool());
    // Another text, or another project, is another entry.
    std::string other;
    bool e3 = false;
    std::tie(other, e3) = m.Tool(
        4, "remember",
        R"({"kind":"knowledge","text":"the store is SQLite","confidence":0.8,"project":"web","sources":[{"event_id":"claude-code:u1"}]})");
    REQUIRE_MESSAGE(!e3, other);
    CHECK(std::string(Json(other)["entry"]["id"].GetString()) != a["entry"]["id"].GetString());
    auto r = f.Cli({"entries", "--json"});
    REQUIRE(r.status == 0);
    CHECK(Json(r.out)["entries"].Size() == 2);
    // A correction of a version no longer current: a conflict, as a tool error.
    const std::string v1 = a["entry"]["id"].GetString();
    std::string c1;
    bool ce1 = false;
    std::tie(c1, ce1) = m.Tool(5, "correct", R"({"id":")" + v1 + R"(","text":"SQLite, in WAL mode"})");
    REQUIRE_MESSAGE(!ce1, c1);
    std::string c2;
    bool ce2 = false;
    std::tie(c2, ce2) = m.Tool(6, "correct", R"({"id":")" + v1 + R"(","text":"SQLite again"})");
    CHECK(ce2);
    CHECK_MESSAGE(c2.find("current") != std::string::npos, c2);
    // A source no adapter has (a near miss of claude-code): a tool error
    // naming those there are, not an answer of entries only.
    std::string s1;
    bool se = false;
    std::tie(s1, se) = m.Tool(7, "search", R"({"query":"SQLite","source":"claude"})");
    CHECK(se);
    CHECK_MESSAGE(s1.find("unknown source claude (claude-code, codex") != std::string::npos, s1);
    std::tie(s1, se) = m.Tool(8, "timeline", R"({"source":"claude"})");
    CHECK(se);
    // A long string id still makes a request key the store takes.
    const std::string long_id = "\"" + std::string(300, 'q') + "\"";
    m.Send(R"({"jsonrpc":"2.0","id":)" + long_id +
           R"(,"method":"tools/call","params":{"name":"remember","arguments":{"kind":"memory","text":"long ids work","confidence":1,"sources":[{"event_id":"claude-code:u1"}]}}})");
    auto long_answer = m.Read();
    REQUIRE(long_answer.HasMember("result"));
    CHECK_FALSE(long_answer["result"]["isError"].GetBool());
    CHECK(m.CloseAndWait().first == 0);
    f.Stop();
  }
}
