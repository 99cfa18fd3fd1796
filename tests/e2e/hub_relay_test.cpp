// SPDX-License-Identifier: MIT
// Relays (issue 17, point 5; spec: Personal hub, Relays), with real daemons
// on loopback and the relay's real origin-mcp: an empty store made a relay
// (a store that holds something is refused, and nothing changes) keeps no
// events and no mirrors, sends its agents' new complete lines straight
// from their logs, answers every tool through the hub, refuses origin
// serve and the store's own commands, and asks the hub its CLI's queries
// and curation commands, as user@<relay>; with the hub down its tools fail
// with a clear error, and no line is lost once the hub is back; a
// rewritten file goes as a new generation, and the hub keeps the old one.

#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <set>

#include "tests/e2e/hub_fixture.hpp"
#include "tests/e2e/mcp_stdio.hpp"

namespace origin::test {

namespace {

// The event ids of a search answer (the hub's, as the relay hands it on).
std::set<std::string> EventIds(const std::string& text) {
  rapidjson::Document d = Json(text);
  std::set<std::string> out;
  REQUIRE_MESSAGE((d.IsObject() && d.HasMember("sessions") && d.HasMember("events")), text);
  for (const auto& s : d["sessions"].GetArray())
    for (const auto& e : s["events"].GetArray()) out.insert(e["id"].GetString());
  for (const auto& e : d["events"].GetArray()) out.insert(e["id"].GetString());
  return out;
}

// Files under `dir`, recursively (a relay's store has no raw/ files).
int FilesUnder(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    n += it->is_regular_file() ? 1 : 0;
  return n;
}

std::string Line(const std::string& uuid, const std::string& text) {
  return ClaudeLine(uuid, text, "relay-session");
}

// `relay`, named relay, whose Claude Code log holds two lines (about kites
// and lanterns), made a relay of the hub at `url` by origin hub connect
// --relay; the log's path.  The test syncs (origin sync) when it needs to.
std::string ConnectRelay(DaemonFixture& relay, const std::string& url, const std::string& token) {
  relay.env()["ORIGIN_DEVICE"] = "relay";
  relay.env()["ORIGIN_HUB_SYNC_MS"] = "0";
  const std::string log = relay.claude() + "/projects/app/relay.jsonl";
  WriteFile(log, Line("relay-u0", "the relay heard about kites") +
                     Line("relay-u1", "and about lanterns"));
  // origin hub connect --relay starts the daemon with --relay: the store is
  // a relay before its first sync could ingest the log.
  RunResult connected = relay.Cli({"hub", "connect", url, "--token", token, "--relay"},
                                  {{"ORIGIN_NO_AUTOSTART", "0"}});
  REQUIRE_MESSAGE(connected.status == 0, (connected.out + connected.err));
  CHECK(connected.out.find("this store is a relay") != std::string::npos);
  return log;
}

}  // namespace

TEST_SUITE("hub") {

TEST_CASE("hub relay: an empty store becomes a relay, sends its agents' lines straight from "
          "their logs, answers through the hub, and loses no line while the hub is down") {
  DaemonFixture hub;
  const int port = StartHub(hub);
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const std::string token = NewToken(hub, "relay");

  // A store that holds something is refused, and stays as it is.
  {
    DaemonFixture full;
    StartDevice(full, "relay", "about kites");
    RunResult r = full.Cli({"hub", "connect", url, "--token", token, "--relay"});
    CHECK(r.status != 0);
    CHECK_MESSAGE(r.err.find("only an empty store can become a relay") != std::string::npos,
                  r.err);
    CHECK_MESSAGE(r.err.find("4 events") != std::string::npos, r.err);
    CHECK(std::string(Status(full)["daemon"]["mode"].GetString()) == "device");
    CHECK(full.Events() == 4);
    full.Stop();
  }

  DaemonFixture relay;
  const std::string log = ConnectRelay(relay, url, token);
  rapidjson::Document st = Status(relay);
  CHECK(std::string(st["daemon"]["mode"].GetString()) == "relay");
  CHECK(st["relay"]["connected"].GetBool());

  REQUIRE(hub.WaitFor([&] { return hub.Events() == 2; }));
  Sync(relay);
  CHECK(hub.Events() == 2);  // a second sync sends nothing again
  // The relay holds nothing: no event, no mirror.
  CHECK(relay.Events() == 0);
  CHECK(FilesUnder(relay.home() + "/raw") == 0);

  // Its agents' MCP tools are the hub's: the search finds what it sent,
  // under the ids the hub gave (the relay's own file's).
  Mcp m(relay.env());
  m.Initialize();
  int id = 10;
  {
    auto [text, error] = m.Tool(++id, "search", R"({"query":"lanterns"})");
    REQUIRE_MESSAGE(!error, text);
    CHECK(EventIds(text).count("claude-code:relay-u1") == 1);
    auto [src, src_error] = m.Tool(++id, "sources", R"({"id":"claude-code:relay-u0"})");
    REQUIRE_MESSAGE(!src_error, src);
    CHECK(std::string(Json(src)["sources"][0]["raw"].GetString()).find("about kites") !=
          std::string::npos);
  }
  // A line appended, and a partial one after it: the complete line goes
  // before the answer (a write waits for it), the partial one waits.
  AppendFile(log, Line("relay-u2", "the lanterns were red"));
  const std::string partial = Line("relay-u3", "half written");
  AppendFile(log, partial.substr(0, 40));
  {
    const std::string args = R"({"text":"lanterns are red","kind":"knowledge","confidence":0.9,)"
                             R"("sources":[{"event_id":"claude-code:relay-u2"}]})";
    auto [text, error] = m.Tool(++id, "remember", args);
    REQUIRE_MESSAGE(!error, text);
    rapidjson::Document e = Json(text);
    CHECK(std::string(e["entry"]["author"].GetString()) == "claude-code@relay");
    CHECK(std::string(e["entry"]["store"].GetString()) == "hub");
    // The same request again (origin-mcp replays what was not answered when
    // it lost the daemon): the hub carries it out once.
    auto [again, again_error] = m.Tool(id, "remember", args);
    REQUIRE_MESSAGE(!again_error, again);
    CHECK(std::string(Json(again)["entry"]["id"].GetString()) ==
          std::string(e["entry"]["id"].GetString()));
    auto [listed, listed_error] = m.Tool(++id, "search", R"({"query":"lanterns are red"})");
    REQUIRE_MESSAGE(!listed_error, listed);
    CHECK(Json(listed)["entries"].Size() == 1);
  }
  CHECK(hub.Events() == 3);
  AppendFile(log, partial.substr(40));
  Sync(relay);
  CHECK(hub.Events() == 4);

  // What only the owner does on the hub (its admin UI) is refused here.
  RunResult forgotten = relay.Cli({"forgotten"});
  CHECK(forgotten.status != 0);
  CHECK_MESSAGE(forgotten.err.find("relay") != std::string::npos, forgotten.err);

  // The hub down: tools fail, saying why; lines wait in the log.
  hub.Stop();
  AppendFile(log, Line("relay-u4", "written while the hub was away"));
  // Written 25 days ago: Claude Code deletes it after 30 (cleanupPeriodDays
  // unset), so the relay warns, in the tool's error and in its status.
  std::filesystem::last_write_time(
      log, std::filesystem::file_time_type::clock::now() - std::chrono::hours(24 * 25));
  {
    auto [text, error] = m.Tool(++id, "search", R"({"query":"away"})");
    CHECK(error);
    CHECK_MESSAGE(text.find("cannot answer offline") != std::string::npos, text);
    CHECK_MESSAGE(text.find("deletes logs after 30 days") != std::string::npos, text);
  }
  RunResult offline = relay.Cli({"sync", "--json"});
  CHECK_MESSAGE(Json(offline.out)["hub"]["error"].IsString(), offline.out);
  // origin sync says it too, when it could not send everything.
  CHECK_MESSAGE(offline.out.find("deletes logs after 30 days") != std::string::npos, offline.out);
  RunResult offline_text = relay.Cli({"sync"});
  CHECK(offline_text.status == 1);
  CHECK_MESSAGE(offline_text.err.find("origin: warning: ") != std::string::npos, offline_text.err);
  {
    rapidjson::Document s = Status(relay);
    std::int64_t unsent = 0;
    for (const auto& u : s["relay"]["unsent"].GetArray()) unsent += u["bytes"].GetInt64();
    CHECK(unsent > 0);
    RunResult shown = relay.Cli({"status"});
    CHECK_MESSAGE(shown.out.find("A relay of its hub") != std::string::npos, shown.out);
    CHECK(shown.out.find("UNSENT") != std::string::npos);
    CHECK(shown.out.find("cleanupPeriodDays") != std::string::npos);
    CHECK(shown.status == 5);  // something needs the user
  }
  // Back: nothing lost.
  StartHub(hub, port);
  Sync(relay);
  CHECK(hub.Events() == 5);
  CHECK(relay.Cli({"status"}).status == 0);  // all sent: no warning
  {
    auto [text, error] = m.Tool(++id, "search", R"({"query":"away"})");
    REQUIRE_MESSAGE(!error, text);
    CHECK(EventIds(text).count("claude-code:relay-u4") == 1);
  }

  // A rewritten file (shorter): sent as the next generation; the hub keeps
  // the first.
  WriteFile(log, Line("relay-v0", "a new beginning"));
  Sync(relay);
  CHECK(hub.Events() == 6);
  {
    auto [text, error] = m.Tool(++id, "search", R"({"query":"kites"})");
    REQUIRE_MESSAGE(!error, text);
    CHECK(EventIds(text).count("claude-code:relay-u0") == 1);
    HttpReply cursors = Http(port, "GET", "/v1/cursors", {{"Authorization", "Bearer " + token}});
    REQUIRE(cursors.status == 200);
    std::set<std::int64_t> generations;
    const rapidjson::Document list = Json(cursors.body);
    for (const auto& c : list["cursors"].GetArray())
      generations.insert(c["generation"].GetInt64());
    CHECK(generations == std::set<std::int64_t>{1, 2});
    // A request key the hub does not take is refused before any tool runs.
    HttpReply bad = Http(port, "POST", "/mcp", McpHeaders(token, {{"X-Origin-Request", "a b"}}),
                         R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    CHECK(bad.status == 400);
    CHECK(bad.body.find("X-Origin-Request") != std::string::npos);
  }
  m.CloseAndWait();
  // The daemon the CLI started: stopped as a service manager would.
  const auto pid = static_cast<pid_t>(Status(relay)["daemon"]["pid"].GetInt64());
  ::kill(pid, SIGTERM);
  REQUIRE(relay.WaitFor([&] { return ::kill(pid, 0) != 0; }));

  // origin serve on the relay's store is refused.
  RunResult serve = relay.StartExpectingFailure({"--hub", "--port", "0"});
  CHECK(serve.status == 1);
  CHECK_MESSAGE(serve.err.find("is a relay") != std::string::npos, serve.err);
  hub.Stop();
}

TEST_CASE("hub relay: the CLI's queries and curation commands are run by the hub, as "
          "user@<relay>, and print what they print on a device (spec: Relays)") {
  DaemonFixture hub;
  const int port = StartHub(hub);
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const std::string token = NewToken(hub, "relay");
  DaemonFixture relay;
  const std::string log = ConnectRelay(relay, url, token);
  REQUIRE(hub.WaitFor([&] { return hub.Events() == 2; }));

  // Queries: the hub's answers, as the CLI prints a device's.
  RunResult search = relay.Cli({"search", "lanterns", "--json"});
  REQUIRE_MESSAGE(search.status == 0, (search.out + search.err));
  CHECK(std::string(Json(search.out)["events"][0]["id"].GetString()) == "claude-code:relay-u1");
  RunResult shown = relay.Cli({"show", "claude-code:relay-u0"});
  CHECK_MESSAGE(shown.out.find("the relay heard about kites") != std::string::npos, shown.out);
  RunResult sources = relay.Cli({"sources", "claude-code:relay-u0"});
  CHECK_MESSAGE(sources.out.find("about kites") != std::string::npos, sources.out);
  RunResult timeline = relay.Cli({"timeline", "--since", "2000-01-01", "--json"});
  REQUIRE_MESSAGE(timeline.status == 0, timeline.err);
  CHECK(Json(timeline.out)["sessions"].Size() == 1);
  CHECK(relay.Cli({"projects"}).status == 0);

  // Writes: a line the agent wrote a moment ago is sent first, so a quote
  // of it resolves; the entry is the hub's, written by user@relay.
  AppendFile(log, Line("relay-u2", "the lanterns were red"));
  RunResult remembered =
      relay.Cli({"remember", "Lanterns are red", "--quote", "lanterns were red", "--json"});
  REQUIRE_MESSAGE(remembered.status == 0, (remembered.out + remembered.err));
  rapidjson::Document e = Json(remembered.out);
  CHECK(std::string(e["entry"]["author"].GetString()) == "user@relay");
  CHECK(std::string(e["entry"]["origin"].GetString()) == "hub");
  CHECK(std::string(e["entry"]["sources"][0]["event_id"].GetString()) == "claude-code:relay-u2");
  const std::string first = e["entry"]["id"].GetString();
  RunResult corrected = relay.Cli({"correct", first, "Lanterns are crimson", "--json"});
  REQUIRE_MESSAGE(corrected.status == 0, (corrected.out + corrected.err));
  RunResult entries = relay.Cli({"entries"});
  CHECK_MESSAGE(entries.out.find("Lanterns are crimson") != std::string::npos, entries.out);
  CHECK(entries.out.find("Lanterns are red") == std::string::npos);
  CHECK(relay.Events() == 0);  // the relay still holds nothing

  // A forget: the preview, then --yes; then the hub hides it from every
  // answer, the relay's CLI's included.
  RunResult preview = relay.Cli({"forget", "claude-code:relay-u0", "--reason", "private"});
  CHECK_MESSAGE(preview.out.find("Nothing has changed yet") != std::string::npos, preview.out);
  RunResult forgot =
      relay.Cli({"forget", "claude-code:relay-u0", "--reason", "private", "--yes", "--json"});
  REQUIRE_MESSAGE(forgot.status == 0, (forgot.out + forgot.err));
  const std::string tombstone = Json(forgot.out)["tombstone"].GetString();
  CHECK(Json(relay.Cli({"search", "kites", "--json"}).out)["events"].Empty());
  CHECK(relay.Cli({"show", "claude-code:relay-u0"}).status != 0);
  // Restoring is the owner's, on the hub (its admin UI or its CLI).
  RunResult restore = relay.Cli({"restore", tombstone, "--reason", "no", "--yes"});
  CHECK(restore.status != 0);
  CHECK_MESSAGE(restore.err.find("done on the hub") != std::string::npos, restore.err);

  // The endpoint: a token, its own device, and only those operations.
  auto call = [&](const std::string& body, std::map<std::string, std::string> headers) {
    headers.emplace("Content-Type", "application/json");
    return Http(port, "POST", "/v1/call", headers, body);
  };
  const std::map<std::string, std::string> auth = {{"Authorization", "Bearer " + token}};
  CHECK(call(R"({"method":"search","params":{"query":"kites"}})", {}).status == 401);
  CHECK(call(R"({"method":"restore","params":{"id":")" + tombstone + R"(","reason":"x"}})", auth)
            .status == 400);
  CHECK(call(R"({"method":"search","params":[]})", auth).status == 400);
  std::map<std::string, std::string> other = auth;
  other.emplace("X-Origin-Device", "laptop");
  CHECK(call(R"({"method":"search","params":{"query":"kites"}})", other).status == 403);
  HttpReply missing = call(R"({"method":"show","params":{"id":"claude-code:nothing"}})", auth);
  CHECK(missing.status == 404);
  CHECK_MESSAGE(missing.body.find("\"not_found\"") != std::string::npos, missing.body);

  CHECK(call(R"({"method":"search","params":{"query":")" + std::string(2 << 20, 'k') + "\"}}", auth)
            .status == 413);
  // A body nested past 64 levels, or that inflates past 1 MiB: refused
  // before it is parsed (a push's too); a bad token before its body is read.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(call(deep, auth).status == 400);
  CHECK(Http(port, "POST", "/v1/ingest", {{"Authorization", "Bearer " + token},
                                          {"Content-Type", "application/json"}}, deep)
            .status == 400);
  std::map<std::string, std::string> gzipped = auth;
  gzipped.emplace("Content-Encoding", "gzip");
  CHECK(call(Gzip(R"({"method":"search","params":{"query":")" + std::string(2 << 20, 'k') + "\"}}"),
             gzipped)
            .status == 413);
  CHECK(call(deep, {{"Authorization", "Bearer ogn_nobody"}}).status == 401);
  REQUIRE(hub.Cli({"token", "revoke", "relay"}).status == 0);
  CHECK(call(R"({"method":"search","params":{"query":"kites"}})", auth).status == 401);
  // The relay's CLI says the hub refused it, not that the hub is down.
  RunResult revoked = relay.Cli({"search", "kites"});
  CHECK(revoked.status == 2);
  CHECK_MESSAGE(revoked.err.find("refused this relay's request") != std::string::npos,
                revoked.err);

  // The hub down: the relay says so, and has nothing of its own to say.
  hub.Stop();
  RunResult offline = relay.Cli({"search", "lanterns"});
  CHECK(offline.status != 0);
  CHECK_MESSAGE(offline.err.find("did not answer") != std::string::npos, offline.err);
  const auto pid = static_cast<pid_t>(Status(relay)["daemon"]["pid"].GetInt64());
  ::kill(pid, SIGTERM);
  REQUIRE(relay.WaitFor([&] { return ::kill(pid, 0) != 0; }));
}

}  // TEST_SUITE

}  // namespace origin::test
