// SPDX-License-Identifier: MIT
// What the clients do when the daemon goes away before it answers: the
// origin CLI sends a write once more with the same request_key, and
// origin-mcp replays an unanswered request, same line and id, in a hello with
// the same session.  A fake daemon on the socket plays the daemon that goes
// away, so that the timing is the test's and not a race.

#include <doctest/doctest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "proto/protocol.hpp"
#include "tests/e2e/daemon_fixture.hpp"
#include "tests/support/stdio_process.hpp"

using namespace origin::test;

namespace {

// One accepted connection, read a line at a time.
class Conn {
 public:
  explicit Conn(int fd) : fd_(fd) {}
  ~Conn() { ::close(fd_); }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  /// The next line, or nothing when the client closed or 10 s passed.
  std::optional<std::string> ReadLine() {
    for (;;) {
      if (auto line = buf_.Next()) return line;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 10000) <= 0) return std::nullopt;
      char tmp[4096];
      ssize_t n = ::read(fd_, tmp, sizeof tmp);
      if (n <= 0) return std::nullopt;
      buf_.Append(tmp, static_cast<std::size_t>(n));
    }
  }
  void Write(const std::string& line) {
    std::string s = line + "\n";
    CHECK(::send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size()));
  }

 private:
  int fd_;
  origin::proto::LineBuffer buf_;
};

// Listens on the store's socket and hands each connection to `serve` with
// its number (0, 1, ...), one after the other, `count` of them.
class FakeDaemon {
 public:
  FakeDaemon(const std::string& home, int count, std::function<void(int, Conn&)> serve) {
    ::mkdir(home.c_str(), 0700);
    ::mkdir((home + "/run").c_str(), 0700);
    path_ = home + "/run/originsd.sock";
    ::unlink(path_.c_str());
    listen_ = UnixSocket(path_, true);
    REQUIRE(listen_ >= 0);
    REQUIRE(::listen(listen_, 8) == 0);
    thread_ = std::thread([this, count, serve] {
      for (int n = 0; n < count; ++n) {
        pollfd p{listen_, POLLIN, 0};
        if (::poll(&p, 1, 20000) <= 0) return;
        int fd = ::accept(listen_, nullptr, nullptr);
        if (fd < 0) return;
        Conn c(fd);
        serve(n, c);
      }
    });
  }
  ~FakeDaemon() {
    thread_.join();
    ::close(listen_);
    ::unlink(path_.c_str());
  }

 private:
  std::string path_;
  int listen_ = -1;
  std::thread thread_;
};

// The daemon's hello; newer than any client, so that none asks it to restart.
const std::string kHello =
    R"({"proto":1,"daemon":"999.0.0","store":"fake","mode":"device","pid":1})";

bool IsKey(const std::string& s) {
  return s.size() == 32 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("resend: the CLI sends a write again after a lost daemon, with the same request_key") {
    DaemonFixture f;  // its home and environment; the daemon is the fake
    std::vector<std::string> hellos, requests;
    {
      FakeDaemon fake(f.home(), 2, [&](int n, Conn& c) {
        hellos.push_back(c.ReadLine().value_or(""));
        c.Write(kHello);
        auto req = c.ReadLine();
        if (!req) return;
        requests.push_back(*req);
        if (n == 0) return;  // gone before it answered
        auto d = Json(*req);
        c.Write("{\"id\":" + std::to_string(d["id"].GetInt()) +
                ",\"result\":{\"entry\":{\"id\":\"ent_1\"}}}");
      });
      RunResult r = f.Cli({"remember", "x", "--kind", "memory", "--confidence", "1", "--cite",
                           "claude-code:u1", "--json"});
      CHECK(r.status == 0);
      CHECK(r.out == "{\"entry\":{\"id\":\"ent_1\"}}\n");
    }
    REQUIRE(requests.size() == 2);
    auto first = Json(requests[0]), second = Json(requests[1]);
    CHECK(std::string(first["method"].GetString()) == "remember");
    const std::string key = first["params"]["request_key"].GetString();
    CHECK(IsKey(key));
    CHECK(first["params"] == second["params"]);  // the same request, key and all
    CHECK(Json(hellos[0])["client"] == "origin");
    CHECK_FALSE(Json(hellos[0]).HasMember("session"));

    // Another run draws another key; forget and restore carry one too, and
    // a read is not sent again (exit 3).
    requests.clear();
    {
      FakeDaemon fake(f.home(), 2, [&](int n, Conn& c) {
        c.ReadLine();
        c.Write(kHello);
        auto req = c.ReadLine();
        if (!req) return;
        requests.push_back(*req);
        if (n == 0)
          c.Write("{\"id\":" + std::to_string(Json(*req)["id"].GetInt()) +
                  ",\"result\":{\"target\":\"claude-code:u1\",\"entries_count\":0,"
                  "\"events_count\":0}}");
      });
      RunResult r = f.Cli({"forget", "claude-code:u1", "--reason", "r", "--json"});
      CHECK(r.status == 0);
      r = f.Cli({"search", "x"});
      CHECK(r.status == 3);
    }
    REQUIRE(requests.size() == 2);
    const std::string forget_key = Json(requests[0])["params"]["request_key"].GetString();
    CHECK(IsKey(forget_key));
    CHECK(forget_key != key);
    CHECK_FALSE(Json(requests[1])["params"].HasMember("request_key"));
  }

  TEST_CASE("resend: origin-mcp replays an unanswered request to the next daemon, in one session") {
    DaemonFixture f;
    std::vector<std::string> hellos;
    std::vector<std::vector<std::string>> lines(2);
    const std::string call =
        R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"remember","arguments":{}}})";
    const std::string init =
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
    FakeDaemon fake(f.home(), 2, [&](int n, Conn& c) {
      hellos.push_back(c.ReadLine().value_or(""));
      c.Write(kHello);
      auto& got = lines[static_cast<std::size_t>(n)];
      if (n == 0) {
        got.push_back(c.ReadLine().value_or(""));  // initialize
        c.Write(R"({"jsonrpc":"2.0","id":1,"result":{}})");
        got.push_back(c.ReadLine().value_or(""));  // the call: gone before answering
        return;
      }
      for (int i = 0; i < 2; ++i) {  // the replayed initialize, then the call again
        auto line = c.ReadLine();
        if (!line) return;
        got.push_back(*line);
        auto d = Json(*line);
        c.Write("{\"jsonrpc\":\"2.0\",\"id\":" + origin::proto::ToJson(d["id"]) +
                ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"once\"}]}}");
      }
      c.ReadLine();  // origin/left, or the end
    });
    const char* exe = std::getenv("ORIGIN_MCP");
    REQUIRE(exe != nullptr);
    StdioProcess mcp({exe}, {"PATH=/usr/bin:/bin", "ORIGIN_HOME=" + f.home(),
                             "ORIGIN_NO_AUTOSTART=1", "HOME=" + f.dir().path()});
    REQUIRE(mcp.WriteLine(init));
    auto answer = mcp.ReadLine(10000);
    REQUIRE(answer);
    CHECK(Json(*answer)["id"].GetInt() == 1);
    REQUIRE(mcp.WriteLine(call));
    answer = mcp.ReadLine(10000);
    REQUIRE(answer);
    auto d = Json(*answer);
    CHECK(d["id"].GetInt() == 7);
    CHECK_MESSAGE(d.HasMember("result"), *answer);  // answered, not "try again"
    CHECK(mcp.CloseAndWait() == 0);

    REQUIRE(hellos.size() == 2);
    const std::string session = Json(hellos[0])["session"].GetString();
    CHECK(IsKey(session));
    CHECK(std::string(Json(hellos[1])["session"].GetString()) == session);
    REQUIRE(lines[1].size() == 2);
    CHECK(Json(lines[1][0])["id"] == "origin-mcp:initialize");
    CHECK(lines[1][1] == call);  // the same line, the same id
  }
}
