// SPDX-License-Identifier: MIT
// The hub's HTTP side against a real originsd run as a hub (issue 17,
// points 1 and 2; the spec's Personal hub: Access, HTTP interface): its
// tokens made and revoked by the real CLI, /healthz, /mcp with a bearer
// token, every refusal before the MCP server, and the author of what an
// agent writes through it.  Raw HTTP (tests/support/http_client.hpp), each
// request sent as a client (or an attacker) would.

#include <doctest/doctest.h>

#include <set>

#include "tests/e2e/hub_fixture.hpp"

namespace origin::test {

namespace {

constexpr char kInitialize[] =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
constexpr char kToolsList[] = R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})";

}  // namespace

TEST_SUITE("hub") {

TEST_CASE("hub: /healthz needs no token; /mcp needs an active one, shown once and revocable") {
  DaemonFixture f;
  const int port = StartHub(f);
  HttpReply h = Http(port, "GET", "/healthz");
  CHECK(h.status == 200);
  CHECK(Json(h.body)["ok"].GetBool());
  CHECK(Json(h.body)["version"].IsString());

  // No token, a made-up one, a malformed one: 401, saying how to get one.
  HttpReply none = Http(port, "POST", "/mcp", McpHeaders(""), kInitialize);
  CHECK(none.status == 401);
  CHECK(none.headers["www-authenticate"].rfind("Bearer", 0) == 0);
  CHECK(none.body.find("origin token create") != std::string::npos);
  CHECK(Http(port, "POST", "/mcp", McpHeaders("ogn_" + std::string(48, '0')), kInitialize).status ==
        401);
  CHECK(Http(port, "POST", "/mcp", McpHeaders("nonsense"), kInitialize).status == 401);
  CHECK(Http(port, "POST", "/mcp", {{"Authorization", "Basic eDp5"}, {"Content-Type", "application/json"}},
             kInitialize).status == 401);

  const std::string token = NewToken(f, "ci");
  HttpReply init = Http(port, "POST", "/mcp", McpHeaders(token), kInitialize);
  REQUIRE_MESSAGE(init.status == 200, init.raw);
  CHECK(init.headers["content-type"] == "application/json");
  CHECK(init.headers.count("mcp-session-id") == 0);  // stateless
  CHECK(std::string(Json(init.body)["result"]["protocolVersion"].GetString()) == "2025-06-18");
  // A notification has no answer: 202 and no body.
  HttpReply note = Http(port, "POST", "/mcp", McpHeaders(token),
                        R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  CHECK(note.status == 202);
  CHECK(note.body.empty());
  // No initialize needed before a request: each one stands alone.
  HttpReply list = Http(port, "POST", "/mcp", McpHeaders(token, {{"MCP-Protocol-Version", "2025-06-18"}}),
                        kToolsList);
  REQUIRE(list.status == 200);
  const auto tools = Json(list.body);
  CHECK(tools["result"]["tools"].Size() == 7);
  // With 2025-06-18 the tools say what they answer (outputSchema); without
  // the header, a stateless server assumes 2025-03-26, which has none.
  CHECK(tools["result"]["tools"][0].HasMember("outputSchema"));
  CHECK_FALSE(Json(Http(port, "POST", "/mcp", McpHeaders(token), kToolsList).body)["result"]["tools"][0]
                  .HasMember("outputSchema"));

  // Listed without its text; revoked at once; its name takes a new one.
  RunResult listed = f.Cli({"token", "list"});
  CHECK(listed.status == 0);
  CHECK(listed.out.find("ci") != std::string::npos);
  CHECK(listed.out.find(token) == std::string::npos);
  REQUIRE(f.Cli({"token", "revoke", "ci"}).status == 0);
  CHECK(Http(port, "POST", "/mcp", McpHeaders(token), kToolsList).status == 401);
  RunResult again = f.Cli({"token", "create", "ci", "--json"});
  REQUIRE(again.status == 0);
  const std::string second = Json(again.out)["token"].GetString();
  CHECK(Http(port, "POST", "/mcp", McpHeaders(second), kToolsList).status == 200);
  CHECK(Http(port, "POST", "/mcp", McpHeaders(token), kToolsList).status == 401);
  // A name has one active token; a bad name is refused with a reason.
  RunResult twice = f.Cli({"token", "create", "ci"});
  CHECK(twice.status != 0);
  CHECK(twice.err.find("revoke it first") != std::string::npos);
  RunResult bad = f.Cli({"token", "create", "My Laptop"});
  CHECK(bad.status != 0);
  CHECK(bad.err.find("lower-case") != std::string::npos);
  f.Stop();
}

TEST_CASE("hub: requests refused before the MCP server, each with its status") {
  DaemonFixture f;
  const int port = StartHub(f);
  const std::string token = NewToken(f, "laptop");
  // DNS rebinding: a name someone pointed at the hub reaches nothing, not
  // even /healthz; an IP address or localhost does.
  CHECK(Http(port, "GET", "/healthz", {{"Host", "evil.example.com"}}).status == 403);
  CHECK(Http(port, "POST", "/mcp", McpHeaders(token, {{"Host", "evil.example.com:80"},
                                                      {"Origin", "http://evil.example.com"}}),
             kToolsList).status == 403);
  CHECK(Http(port, "GET", "/healthz", {{"Host", "10.1.2.3:7077"}}).status == 200);
  CHECK(Http(port, "GET", "/healthz", {{"Host", "localhost"}}).status == 200);
  // A page of another site cannot call /mcp, even with the token.
  HttpReply origin = Http(port, "POST", "/mcp", McpHeaders(token, {{"Origin", "https://evil.example.com"}}),
                          kToolsList);
  CHECK(origin.status == 403);
  CHECK(Http(port, "POST", "/mcp", McpHeaders(token, {{"Origin", "null"}}), kToolsList).status == 403);
  CHECK(Http(port, "POST", "/mcp", McpHeaders(token, {{"Origin", "http://localhost:5173"}}), kToolsList)
            .status == 200);
  // The protocol's rules (mcp.md, section 6).
  CHECK(Http(port, "POST", "/mcp", McpHeaders(token, {{"MCP-Protocol-Version", "1999-01-01"}}), kToolsList)
            .status == 400);
  CHECK(Http(port, "POST", "/mcp", {{"Authorization", "Bearer " + token}, {"Content-Type", "text/plain"}},
             kToolsList).status == 415);
  CHECK(Http(port, "POST", "/mcp", McpHeaders(token, {{"Accept", "text/html"}}), kToolsList).status ==
        406);
  HttpReply get = Http(port, "GET", "/mcp", {{"Authorization", "Bearer " + token}});
  CHECK(get.status == 405);
  CHECK(get.headers["allow"] == "POST");
  CHECK(Http(port, "DELETE", "/mcp", {{"Authorization", "Bearer " + token}}).status == 405);
  CHECK(Http(port, "GET", "/v1/nothing", {{"Authorization", "Bearer " + token}}).status == 404);
  // No token writes as another device.
  HttpReply other = Http(port, "POST", "/mcp", McpHeaders(token, {{"X-Origin-Device", "desktop"}}),
                         kToolsList);
  CHECK(other.status == 403);
  CHECK(std::string(Json(other.body)["device"].GetString()) == "laptop");
  CHECK(Http(port, "POST", "/mcp", McpHeaders(token, {{"X-Origin-Device", "laptop"}}), kToolsList)
            .status == 200);
  CHECK(Http(port, "POST", "/mcp", McpHeaders(token, {{"X-Origin-Client", "a b"}}), kToolsList)
            .status == 400);
  // Bodies: at most 1 MiB; what is not JSON is a JSON-RPC parse error.
  HttpReply big = Http(port, "POST", "/mcp", McpHeaders(token), std::string((1 << 20) + 1, ' '));
  CHECK(big.status == 413);
  HttpReply junk = Http(port, "POST", "/mcp", McpHeaders(token), "{not json");
  CHECK(junk.status == 200);
  CHECK(Json(junk.body)["error"]["code"].GetInt() == -32700);
  // Still serving.
  CHECK(Http(port, "POST", "/mcp", McpHeaders(token), kToolsList).status == 200);
  f.Stop();
}

TEST_CASE("hub: behind a proxy, the public URL's host and origin are answered") {
  DaemonFixture f;
  f.Start({"--hub", "--port", "0", "--public-url", "https://origin.example.com"});
  const int port = HubPort(f);
  const std::string token = NewToken(f, "ci");
  CHECK(Http(port, "GET", "/healthz", {{"Host", "origin.example.com"}}).status == 200);
  CHECK(Http(port, "GET", "/healthz", {{"Host", "other.example.com"}}).status == 403);
  CHECK(Http(port, "POST", "/mcp", McpHeaders(token, {{"Host", "origin.example.com"},
                                                      {"Origin", "https://origin.example.com"}}),
             kToolsList).status == 200);
  f.Stop();
}

TEST_CASE("hub: an agent's writes through /mcp are by <agent>@<token name>, on a store named hub") {
  DaemonFixture f;
  WriteFile(f.claude() + "/projects/app/s1.jsonl", ClaudeLine("u1", "We chose SQLite for the store"));
  const int port = StartHub(f);
  const std::string token = NewToken(f, "ci");
  auto remember = [&](const std::string& text, std::map<std::string, std::string> headers) {
    const std::string call =
        R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"remember","arguments":{"kind":"knowledge","text":")" +
        text + R"(","confidence":1,"sources":[{"quote":"We chose SQLite"}]}}})";
    HttpReply r = Http(port, "POST", "/mcp", McpHeaders(token, std::move(headers)), call);
    REQUIRE_MESSAGE(r.status == 200, r.raw);
    auto d = Json(r.body);
    REQUIRE_MESSAGE(!d["result"]["isError"].GetBool(), r.body);
  };
  remember("The store is SQLite", {{"X-Origin-Client", "cloud-agent"}});
  remember("The store is one SQLite file", {});
  RunResult entries = f.Cli({"entries", "--json"});
  REQUIRE(entries.status == 0);
  std::set<std::string> authors, origins;
  const rapidjson::Document listed = Json(entries.out);
  for (const auto& e : listed["entries"].GetArray()) {
    authors.insert(e["author"].GetString());
    origins.insert(e["origin"].GetString());
  }
  CHECK(authors == std::set<std::string>{"cloud-agent@ci", "ci"});
  // The entries were written by the hub's store, which origin serve named.
  CHECK(origins == std::set<std::string>{"hub"});
  f.Stop();
}

TEST_CASE("origin serve: runs originsd as a hub, which checks what it is given") {
  DaemonFixture f;
  // origin serve execs the daemon with its options: a bad one is refused
  // by originsd, before anything listens.
  RunResult bad_url = f.Cli({"serve", "--port", "0", "--public-url", "ftp://x"});
  CHECK(bad_url.status == 2);
  CHECK(bad_url.err.find("https://") != std::string::npos);
  RunResult bad_port = f.Cli({"serve", "--port", "70000"});
  CHECK(bad_port.status == 2);
  RunResult name = f.StartExpectingFailure({"--hub", "--listen", "hub.example.com", "--port", "0"});
  CHECK(name.status == 1);
  CHECK(name.err.find("IP address") != std::string::npos);
  RunResult help = f.Cli({"serve", "--help"});
  CHECK(help.status == 0);
  CHECK(help.out.find("/mcp") != std::string::npos);
  // Beside the store's running daemon: refused, saying how to serve.
  f.Start();
  RunResult beside = f.Cli({"serve", "--port", "0"});
  CHECK(beside.status == 1);
  CHECK_MESSAGE(beside.err.find("already running for " + f.home()) != std::string::npos,
                beside.err);
  CHECK_MESSAGE(beside.err.find("origin stop") != std::string::npos, beside.err);
  f.Stop();
}

}  // TEST_SUITE

}  // namespace origin::test
