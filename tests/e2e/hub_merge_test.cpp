// SPDX-License-Identifier: MIT
// Merged answers on a device connected to a hub (issue 17, point 4; spec:
// MCP server, On a device connected to a hub), with real daemons on
// loopback and the device's real origin-mcp: its read tools answer from
// its own store and the hub's /mcp at once, merged, de-duplicated and
// labelled by store; get and sources of what only the hub holds come from
// the hub, down to the other device's original line; and with the hub
// down or silent, the device answers alone and says so, within the hub
// timeout, and merges again once the hub is back.

#include <doctest/doctest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "io/fd.hpp"
#include "tests/e2e/hub_fixture.hpp"
#include "tests/e2e/mcp_stdio.hpp"

namespace origin::test {

namespace {

// `o`'s string member `key`, REQUIREd.
std::string Field(const rapidjson::Value& o, const char* key) {
  REQUIRE_MESSAGE((o.IsObject() && o.HasMember(key) && o[key].IsString()),
                  key << " missing in " << proto::ToJson(o));
  return o[key].GetString();
}

// Every event hit of a search answer: its id and its origin label.
std::map<std::string, std::string> EventHits(const rapidjson::Value& answer) {
  std::map<std::string, std::string> out;
  std::multiset<std::string> seen;
  REQUIRE_MESSAGE((answer.HasMember("sessions") && answer.HasMember("events")),
                  proto::ToJson(answer));
  for (const auto& s : answer["sessions"].GetArray())
    for (const auto& e : s["events"].GetArray()) {
      out[Field(e, "id")] = Field(e, "origin");
      seen.insert(Field(e, "id"));
    }
  for (const auto& e : answer["events"].GetArray()) out[Field(e, "id")] = Field(e, "origin");
  for (const auto& id : seen) CHECK_MESSAGE(seen.count(id) == 1, id);  // de-duplicated
  return out;
}

// A TCP port that takes connections and never answers: a hub that hangs.
class SilentPort {
 public:
  SilentPort() : fd_(ListenTcp(&port_)) { REQUIRE(fd_.get() >= 0); }
  int port() const { return port_; }
  // Whether a client has connected since the last call; the connection is
  // kept open, unanswered.
  bool Connected() {
    pollfd p{fd_.get(), POLLIN, 0};
    if (::poll(&p, 1, 0) != 1) return false;
    const int c = ::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return false;
    held_.emplace_back(c);
    return true;
  }

 private:
  int port_ = 0;  // before fd_, which sets it
  UniqueFd fd_;
  std::vector<UniqueFd> held_;
};

// A hub that answers GET /v1/cursors (with none) and takes every other
// request without ever answering it: a sync's pushes hang, each on its
// client's connection.
class HangingPushes {
 public:
  HangingPushes() : fd_(ListenTcp(&port_)) {
    REQUIRE(fd_.get() >= 0);
    thread_ = std::thread([this] { Run(); });
  }
  ~HangingPushes() {
    stop_ = true;
    thread_.join();
  }
  int port() const { return port_; }
  // How many requests are held unanswered.
  int held() const { return held_; }

 private:
  void Run() {
    std::vector<std::pair<UniqueFd, std::string>> conns;  // each with what it sent so far
    while (!stop_) {
      std::erase_if(conns, [](const auto& c) { return c.first.get() < 0; });
      std::vector<pollfd> p{{fd_.get(), POLLIN, 0}};
      for (auto& [fd, got] : conns) p.push_back({fd.get(), POLLIN, 0});
      if (::poll(p.data(), p.size(), 50) <= 0) continue;
      if (p[0].revents & POLLIN) {
        const int c = ::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
        if (c >= 0) conns.emplace_back(UniqueFd(c), "");
      }
      for (std::size_t i = 1; i < p.size(); ++i) {
        if (!(p[i].revents & POLLIN)) continue;
        auto& [fd, got] = conns[i - 1];
        char buf[65536];
        const ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n <= 0) {
          fd.Reset();  // closed by the client: out of the poll set below
          continue;
        }
        const bool held_already = got.find("\r\n\r\n") != std::string::npos;
        got.append(buf, static_cast<std::size_t>(n));
        if (held_already || got.find("\r\n\r\n") == std::string::npos) continue;
        if (got.starts_with("GET /v1/cursors")) {
          const std::string body = "{\"cursors\":[]}";
          SendRaw(fd.get(),
                  "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body);
          got.clear();
        } else {
          ++held_;  // never answered
        }
      }
    }
  }

  int port_ = 0;  // before fd_, which sets it
  UniqueFd fd_;
  std::atomic<int> held_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

TEST_SUITE("hub") {

TEST_CASE("hub merge: a connected device's read tools merge the hub's answers, labelled by "
          "store, and answer alone, saying so, when the hub is down or silent") {
  DaemonFixture hub;
  const int port = StartHub(hub);
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const std::string laptop_token = NewToken(hub, "laptop");
  const std::string desk_token = NewToken(hub, "desk");

  DaemonFixture laptop, desk;
  StartDevice(laptop, "laptop", "about rockets and oceans");
  StartDevice(desk, "desk", "about oceans");
  REQUIRE(laptop.Cli({"hub", "connect", url, "--token", laptop_token}).status == 0);
  REQUIRE(desk.Cli({"hub", "connect", url, "--token", desk_token}).status == 0);
  Sync(laptop);
  Sync(desk);
  RunResult remembered = desk.Cli({"remember", "oceans are deep", "--cite",
                                   "claude-code:desk-u2", "--json"});
  REQUIRE_MESSAGE(remembered.status == 0, remembered.err);
  const std::string desk_entry = Json(remembered.out)["entry"]["id"].GetString();
  Sync(desk);

  // origin search reads the device's own store (spec: Using a hub from a
  // device), and says where the other devices' sessions are.
  {
    RunResult own = laptop.Cli({"search", "oceans", "--no-pager"});
    REQUIRE_MESSAGE(own.status == 0, own.err);
    CHECK(own.out.find("desk said") == std::string::npos);
    CHECK_MESSAGE(own.out.find("this device's store only; the hub " + url) != std::string::npos,
                  own.out);
    RunResult json = laptop.Cli({"search", "oceans", "--json"});
    REQUIRE(json.status == 0);
    CHECK(std::string(Json(json.out)["hub"].GetString()) == url);
    RunResult on_hub = hub.Cli({"search", "oceans", "--json"});
    REQUIRE(on_hub.status == 0);
    CHECK_FALSE(Json(on_hub.out).HasMember("hub"));
  }

  Mcp m(laptop.env());
  m.Initialize();
  int id = 10;

  // search: the laptop's own hit once, labelled local; the desk's, which
  // only the hub holds, labelled hub; the desk's entry too.
  {
    auto [text, error, notice] = m.ToolWithNotice(++id, "search", R"({"query":"oceans"})");
    REQUIRE_MESSAGE(!error, text);
    CHECK_MESSAGE(notice.empty(), notice);
    rapidjson::Document d = Json(text);
    const auto hits = EventHits(d);
    CHECK(hits.at("claude-code:laptop-u2") == "local");
    CHECK(hits.at("claude-code:desk-u2") == "hub");
    bool found = false;
    for (const auto& e : d["entries"].GetArray())
      if (std::string(e["id"].GetString()) == desk_entry) {
        found = true;
        CHECK(Field(e, "origin") == "hub");
        CHECK_FALSE(e.HasMember("ref"));  // the hub's short reference means nothing here
      }
    CHECK(found);
    // Ranks are the merged order's.
    std::set<std::int64_t> ranks;
    for (const auto& s : d["sessions"].GetArray())
      for (const auto& e : s["events"].GetArray()) ranks.insert(e["rank"].GetInt64());
    CHECK(ranks == std::set<std::int64_t>{1, 2});
  }
  // get and sources of the desk's event: from the hub, down to the desk's
  // original line in the hub's mirror.
  {
    auto [text, error] = m.Tool(++id, "get", R"({"id":"claude-code:desk-u2"})");
    REQUIRE_MESSAGE(!error, text);
    rapidjson::Document d = Json(text);
    CHECK(Field(d["event"], "origin") == "hub");
    CHECK(std::string(d["event"]["text"].GetString()).find("desk said line 2") != std::string::npos);
    auto [src, src_error] = m.Tool(++id, "sources", R"({"id":"claude-code:desk-u2"})");
    REQUIRE_MESSAGE(!src_error, src);
    rapidjson::Document s = Json(src);
    CHECK(Field(s, "origin") == "hub");
    CHECK(std::string(s["sources"][0]["raw"].GetString()).find("desk said line 2") != std::string::npos);
    CHECK(s["sources"][0]["line"].GetInt() == 3);
    // The desk's entry, with its history, from the hub.
    auto [entry, entry_error] = m.Tool(++id, "get", R"({"id":")" + desk_entry + R"("})");
    REQUIRE_MESSAGE(!entry_error, entry);
    rapidjson::Document e = Json(entry);
    CHECK(Field(e["entry"], "origin") == "hub");
    CHECK(e["history"].Size() == 1);
    // An id neither holds: the device's own error.
    auto [none, none_error] = m.Tool(++id, "get", R"({"id":"claude-code:nowhere"})");
    CHECK(none_error);
  }
  // timeline: the sessions of both devices, once each.
  {
    auto [text, error] = m.Tool(++id, "timeline", R"({"since":"2026-01-01","until":"2026-02-01"})");
    REQUIRE_MESSAGE(!error, text);
    rapidjson::Document d = Json(text);
    std::map<std::string, std::string> sessions;
    for (const auto& s : d["sessions"].GetArray())
      sessions[Field(s, "id")] = Field(s, "origin");
    CHECK(sessions.size() == 2);
    CHECK(sessions["claude-code:laptop-session"] == "local");
    CHECK(sessions["claude-code:desk-session"] == "hub");
    // A session only the hub holds: its events from the hub.
    auto [page, page_error] =
        m.Tool(++id, "timeline", R"({"session":"claude-code:desk-session"})");
    REQUIRE_MESSAGE(!page_error, page);
    CHECK(Json(page)["events"].Size() == 4);
  }
  // A forget made on the desk hides its event in the laptop's answers
  // (through the hub), and the laptop never shows what it forgot itself.
  {
    RunResult forgot = desk.Cli({"forget", "claude-code:desk-u2", "--reason", "private",
                                 "--yes", "--json"});
    REQUIRE_MESSAGE(forgot.status == 0, forgot.err);
    Sync(desk);
    REQUIRE(laptop.Cli({"forget", "claude-code:laptop-u2", "--reason", "mine", "--yes"}).status == 0);
    auto [text, error] = m.Tool(++id, "search", R"({"query":"oceans"})");
    REQUIRE_MESSAGE(!error, text);
    const auto hits = EventHits(Json(text));
    CHECK(hits.count("claude-code:desk-u2") == 0);
    CHECK(hits.count("claude-code:laptop-u2") == 0);
    auto [got, got_error] = m.Tool(++id, "get", R"({"id":"claude-code:desk-u2"})");
    CHECK(got_error);
  }

  // The hub down: answers from the laptop alone, saying so.
  hub.Stop();
  {
    auto [text, error, notice] = m.ToolWithNotice(++id, "search", R"({"query":"said"})");
    REQUIRE_MESSAGE(!error, text);
    CHECK_MESSAGE(notice.find("was not consulted") != std::string::npos, notice);
    CHECK(notice.find(url) != std::string::npos);
    const auto hits = EventHits(Json(text));
    CHECK(hits.count("claude-code:laptop-u1") == 1);
    CHECK(hits.count("claude-code:desk-u1") == 0);
    // An id only the hub holds: not found, and why.
    auto [got, got_error, got_notice] =
        m.ToolWithNotice(++id, "get", R"({"id":"claude-code:desk-u1"})");
    CHECK(got_error);
    CHECK(got_notice.find("was not consulted") != std::string::npos);
  }
  // Back on the same port: merged again.
  StartHub(hub, port);
  {
    auto [text, error, notice] = m.ToolWithNotice(++id, "search", R"({"query":"said"})");
    REQUIRE_MESSAGE(!error, text);
    CHECK_MESSAGE(notice.empty(), notice);
    CHECK(EventHits(Json(text)).count("claude-code:desk-u1") == 1);
  }
  m.CloseAndWait();

  // A hub that takes the connection and never answers: the device answers
  // alone once the hub timeout has passed, not later.
  SilentPort silent;
  DaemonFixture hermit;
  hermit.env()["ORIGIN_HUB_URL"] = "http://127.0.0.1:" + std::to_string(silent.port());
  hermit.env()["ORIGIN_HUB_TOKEN"] = "ogn_silent";
  hermit.env()["ORIGIN_HUB_TIMEOUT_MS"] = "500";
  hermit.env()["ORIGIN_HUB_SYNC_MS"] = "0";
  StartDevice(hermit, "hermit", "about caves");
  Mcp h(hermit.env());
  h.Initialize();
  const auto t0 = std::chrono::steady_clock::now();
  auto [text, error, notice] = h.ToolWithNotice(2, "search", R"({"query":"caves"})");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE_MESSAGE(!error, text);
  CHECK(EventHits(Json(text)).count("claude-code:hermit-u2") == 1);
  CHECK_MESSAGE(notice.find("did not answer within 500 ms") != std::string::npos, notice);
  CHECK(took < 5.0);
  h.CloseAndWait();
  // origin hub status waits for the check at most 10 s, not a sync's 30.
  {
    const auto c0 = std::chrono::steady_clock::now();
    RunResult st = hermit.Cli({"hub", "status", "--json"});
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    CHECK(st.status == 1);
    CHECK_MESSAGE(waited < 20.0, waited);
    // The store's name, and no device for a token the hub did not vouch for.
    rapidjson::Document j = Json(st.out);
    CHECK(std::string(j["store"].GetString()) == "hermit");
    CHECK(j["device"].IsNull());
    CHECK(j["error"].IsString());
  }
  // Connected through its environment: origin hub disconnect cannot undo
  // that, and says so rather than "not connected".
  RunResult off = hermit.Cli({"hub", "disconnect"});
  CHECK(off.status == 1);
  CHECK_MESSAGE(off.err.find("ORIGIN_HUB_URL and ORIGIN_HUB_TOKEN name in its environment") !=
                    std::string::npos,
                off.err);
  hermit.Stop();

  // A disconnect ends the sync under way (a request the hub never answers):
  // origin sync after it answers at once, not after the request's 30 s.
  SilentPort hung;
  DaemonFixture recluse;
  WriteFile(
      recluse.home() + "/hub.json",
      "{\"url\":\"http://127.0.0.1:" + std::to_string(hung.port()) + "\",\"token\":\"ogn_hung\"}");
  StartDevice(recluse, "recluse", "about hermits");
  REQUIRE(recluse.WaitFor([&] { return hung.Connected(); }));  // its first sync's request
  REQUIRE(recluse.Cli({"hub", "disconnect"}).status == 0);
  {
    const auto s0 = std::chrono::steady_clock::now();
    RunResult synced = recluse.Cli({"sync", "--json"});
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    CHECK(synced.status == 0);
    CHECK_FALSE(Json(synced.out).HasMember("hub"));
    CHECK_MESSAGE(waited < 10.0, waited);
  }
  recluse.Stop();

  // The mirrors go two at a time, each on a client of its own: a disconnect
  // ends both pushes under way.
  HangingPushes hanging;
  DaemonFixture pair;
  pair.env()["ORIGIN_DEVICE"] = "pair";
  WriteFile(pair.home() + "/hub.json",
            "{\"url\":\"http://127.0.0.1:" + std::to_string(hanging.port()) +
                "\",\"token\":\"ogn_hung\"}");
  for (const char* name : {"first", "second"})
    WriteFile(pair.claude() + "/projects/app/" + name + ".jsonl",
              ClaudeLine(std::string(name) + "-u0", std::string(name) + " said hello",
                         std::string(name) + "-session"));
  pair.Start();
  REQUIRE(pair.WaitFor([&] { return pair.Events() == 2; }));
  REQUIRE(pair.WaitFor([&] { return hanging.held() == 2; }));
  REQUIRE(pair.Cli({"hub", "disconnect"}).status == 0);
  {
    const auto s0 = std::chrono::steady_clock::now();
    RunResult synced = pair.Cli({"sync", "--json"});
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    CHECK(synced.status == 0);
    CHECK_MESSAGE(waited < 10.0, waited);
  }
  pair.Stop();
  laptop.Stop();
  desk.Stop();
  hub.Stop();
}

}  // TEST_SUITE

}  // namespace origin::test
