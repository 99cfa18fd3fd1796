// SPDX-License-Identifier: MIT
// The table of operations through the socket protocol as a client speaks
// it: every error kind comes back with its code; a shutdown answers the
// writes in flight; a write retried with its request key is answered again,
// never written twice.
#include <doctest/doctest.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <set>

#include "proto/protocol.hpp"
#include "tests/e2e/daemon_fixture.hpp"
#include "tests/e2e/socket_client.hpp"

using namespace origin;
using namespace origin::test;

namespace {

std::string Remember(int n, const std::string& key) {
  return "{\"id\":" + std::to_string(n) +
         ",\"method\":\"remember\",\"params\":{\"kind\":\"knowledge\",\"text\":\"fact number " +
         std::to_string(n) +
         "\",\"confidence\":0.5,\"sources\":[{\"event_id\":\"claude-code:u1\"}],"
         "\"request_key\":\"" +
         key + "\"}}\n";
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("operations: every error kind comes back through the socket with its code") {
    DaemonFixture f;
    WriteFile(f.claude() + "/projects/app/s1.jsonl", ClaudeLine("u1", "we chose SQLite"));
    f.Start({"--rescan-ms", "600000"});
    Client c(f);
    CHECK(ErrorCode(c.Call("search", R"({"query":"x","limit":0})")) == "invalid_argument");
    CHECK(ErrorCode(c.Call("timeline", R"({"limit":"many"})")) == "invalid_argument");
    CHECK(ErrorCode(c.Call("show", R"({"id":"claude-code:nope"})")) == "not_found");
    CHECK(ErrorCode(c.Call("reticulate", "{}")) == "unknown_method");
    auto first = c.Call(
        "remember",
        R"({"kind":"memory","text":"a","confidence":1,"sources":[{"event_id":"claude-code:u1"}]})");
    REQUIRE_MESSAGE(ErrorCode(first).empty(), proto::ToJson(first));
    const std::string v1 = first["result"]["entry"]["id"].GetString();
    auto second = c.Call("correct", "{\"id\":\"" + v1 + "\",\"text\":\"b\"}");
    REQUIRE(ErrorCode(second).empty());
    CHECK(ErrorCode(c.Call("correct", "{\"id\":\"" + v1 + "\",\"text\":\"c\"}")) == "conflict");
    auto forgot = c.Call("forget", R"({"target":"claude-code:u1","reason":"test"})");
    REQUIRE(ErrorCode(forgot).empty());
    CHECK(ErrorCode(c.Call("show", R"({"id":"claude-code:u1"})")) != "");
    c.Write("{not json\n");
    auto bad = c.Line(10);
    REQUIRE(bad);
    CHECK(ErrorCode(Json(*bad)) == "protocol");
    f.Stop();
  }

  TEST_CASE("operations: SIGTERM with 50 remembers in flight: each committed one is answered, "
            "or answered again on a retry with its key, never written twice") {
    DaemonFixture f;
    WriteFile(f.claude() + "/projects/app/s1.jsonl", ClaudeLine("u1", "we chose SQLite"));
    f.Start({"--rescan-ms", "600000"});
    std::map<int, std::string> answered;  // request -> entry id
    {
      Client c(f);
      std::string all;
      for (int n = 1; n <= 50; ++n) all += Remember(n, "key-" + std::to_string(n));
      c.Write(all);
      REQUIRE(::kill(f.pid(), SIGTERM) == 0);
      while (auto line = c.Line(20)) {
        auto d = Json(*line);
        if (!d.HasMember("result")) continue;  // refused: unavailable
        answered[d["id"].GetInt()] = d["result"]["entry"]["id"].GetString();
      }
    }
    REQUIRE(f.WaitForExit(20) == 0);
    MESSAGE(answered.size() << " of 50 answered before the daemon stopped");
    f.Start({"--rescan-ms", "600000"});
    auto listed = [&] {
      auto r = f.Cli({"entries", "--json", "--limit", "1000"});
      REQUIRE(r.status == 0);
      return Json(r.out)["entries"].Size();
    };
    const auto committed = listed();
    CHECK(committed >= answered.size());
    // The client retries every request with its key.
    Client c(f);
    std::set<std::string> ids;
    for (int n = 1; n <= 50; ++n) {
      c.Write(Remember(n, "key-" + std::to_string(n)));
      auto line = c.Line(10);
      REQUIRE(line);
      auto d = Json(*line);
      REQUIRE_MESSAGE(d.HasMember("result"), *line);
      const std::string id = d["result"]["entry"]["id"].GetString();
      ids.insert(id);
      if (answered.count(n) != 0) {
        CHECK(answered[n] == id);  // the first answer, again
        CHECK_FALSE(d["result"].HasMember("duplicate"));
      }
    }
    CHECK(ids.size() == 50);
    CHECK(listed() == 50);  // each written once
    // A correct retried with its key is answered again, not refused as a
    // conflict with the version it wrote itself.
    const std::string v1 = *ids.begin();
    const std::string fix = "{\"id\":9,\"method\":\"correct\",\"params\":{\"id\":\"" + v1 +
                            "\",\"text\":\"fixed\",\"request_key\":\"fix-1\"}}\n";
    c.Write(fix);
    auto a = Json(*c.Line(10));
    REQUIRE_MESSAGE(a.HasMember("result"), proto::ToJson(a));
    c.Write(fix);
    auto b = Json(*c.Line(10));
    REQUIRE_MESSAGE(b.HasMember("result"), proto::ToJson(b));
    CHECK(std::string(a["result"]["entry"]["id"].GetString()) ==
          b["result"]["entry"]["id"].GetString());
    f.Stop();
  }
}
