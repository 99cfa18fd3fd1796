// SPDX-License-Identifier: MIT
// The HTTP server itself (daemon/http/http_server.hpp) on a real libuv loop
// in a thread of its own, spoken to over real TCP by this thread, with raw
// bytes where a browser would not send them: the cap on open connections,
// answers in the order the requests came (a refusal pipelined behind a
// request, with the handler answering at once or later), chunked trailers,
// and answers and writes that come after the server closed or was
// destroyed.  The routes behind it are tested with a real daemon
// (tests/e2e/ui_http_test.cpp).

#include <dirent.h>
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

#include "daemon/http/http_server.hpp"
#include "daemon/uv.hpp"
#include "tests/e2e/ui_client.hpp"

namespace origin::http {

namespace {

using test::ConnectTcp;
using test::HttpReply;
using test::ReadReplies;
using test::SendRaw;

// An HttpServer on a loop that runs in its own thread.  Its handler answers
// /fast at once and keeps the Respond of /slow for the test to call later
// (as a page rendered on a worker is answered from the worker's completion).
class ServerThread {
 public:
  explicit ServerThread(ServerLimits limits) {
    uv_loop_init(&loop_);
    poster_ = std::make_unique<LoopPoster>(&loop_);
    thread_ = std::thread([this] {
      role_.Bind();
      uv_run(&loop_, UV_RUN_DEFAULT);
    });
    Run([&] {
      server_ = std::make_unique<HttpServer>(&loop_, role_, limits);
      server_->Listen(
          "127.0.0.1", 0,
          [this](const Request& r, Respond respond) {
            seen_.push_back(r);
            if (r.path == "/slow") return held_.push_back(std::move(respond));
            respond(Response{200, "text/plain", {}, "answer to " + r.path, false});
          },
          [](int status, const std::string& message) {
            return Response{status, "text/plain", {}, message, false};
          });
      server_->SetAllowedHosts({"127.0.0.1:" + std::to_string(server_->port())});
      port_ = server_->port();
    });
  }
  ~ServerThread() {
    Run([&] {
      server_.reset();
      held_.clear();
      poster_->Close();
    });
    thread_.join();
    uv_loop_close(&loop_);
  }

  /// Runs `fn` on the loop thread and waits for it.
  template <class Fn>
  auto Run(Fn fn) -> decltype(fn()) {
    std::packaged_task<decltype(fn())()> task(std::move(fn));
    auto done = task.get_future();
    poster_->Post([&task] { task(); });
    return done.get();
  }
  /// Waits (at most 5 s) until `pred` holds on the loop thread.
  template <class Pred>
  bool WaitFor(Pred pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      if (Run(pred)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  int port() const { return port_; }
  std::string host() const { return "127.0.0.1:" + std::to_string(port_); }
  std::unique_ptr<HttpServer>& server() { return server_; }  // loop thread
  std::vector<Request>& seen() { return seen_; }            // loop thread
  std::vector<Respond>& held() { return held_; }            // loop thread

 private:
  uv_loop_t loop_;
  ThreadRole role_;
  std::unique_ptr<LoopPoster> poster_;
  std::thread thread_;
  std::unique_ptr<HttpServer> server_;
  std::vector<Request> seen_;
  std::vector<Respond> held_;
  int port_ = 0;
};

std::size_t OpenFds() {
  std::size_t n = 0;
  DIR* d = ::opendir("/proc/self/fd");
  while (d != nullptr && ::readdir(d) != nullptr) ++n;
  if (d != nullptr) ::closedir(d);
  return n;
}

std::string Get(const std::string& path, const std::string& host) {
  return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
}

// A request refused at its header block: its body (announced) is over 64 KiB.
std::string Oversized(const std::string& host) {
  return "POST /fast HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 70000\r\n\r\n" +
         std::string(1000, 'a');
}

}  // namespace

TEST_SUITE("http-server") {

TEST_CASE("http server: connections over max_connections are closed at once; it still answers, "
          "and its descriptors stay bounded") {
  ServerLimits limits;
  limits.max_connections = 4;
  ServerThread s(limits);
  const std::size_t before = OpenFds();
  std::vector<int> kept;
  for (int i = 0; i < 4; ++i) {
    kept.push_back(ConnectTcp(s.port()));
    REQUIRE(kept.back() >= 0);
  }
  REQUIRE(s.WaitFor([&] { return s.server()->connections() == 4; }));
  // 40 more: each accepted and closed at once, none kept by the server.
  for (int i = 0; i < 40; ++i) {
    const int fd = ConnectTcp(s.port());
    REQUIRE(fd >= 0);  // the kernel completes the handshake before the accept
    const std::vector<HttpReply> r = ReadReplies(fd, 3000);
    CHECK(r.size() == 1);
    CHECK(r[0].status == 0);
    CHECK(r[0].closed);
    ::close(fd);
  }
  CHECK(s.Run([&] { return s.server()->connections(); }) == 4);
  // This process holds both ends: the 4 kept (2 fds each) and nothing of the 40.
  CHECK(OpenFds() <= before + 8 + 2);
  // The connections within the cap are served.
  SendRaw(kept[0], Get("/fast", s.host()));
  ::shutdown(kept[0], SHUT_WR);
  std::vector<HttpReply> r = ReadReplies(kept[0]);
  REQUIRE(r.size() == 1);
  CHECK(r[0].status == 200);
  ::close(kept[0]);
  ::close(kept[1]);
  REQUIRE(s.WaitFor([&] { return s.server()->connections() == 2; }));
  // Room again: a new connection is answered.
  const int fd = ConnectTcp(s.port());
  SendRaw(fd, Get("/fast", s.host()));
  ::shutdown(fd, SHUT_WR);
  r = ReadReplies(fd);
  REQUIRE(r.size() == 1);
  CHECK(r[0].status == 200);
  CHECK(r[0].body == "answer to /fast");
  ::close(fd);
  for (int k : {kept[2], kept[3]}) ::close(k);
}

TEST_CASE("http server: a refused request pipelined behind a request is answered after it, "
          "then the connection closes") {
  ServerThread s(ServerLimits{});
  const std::string get = Get("/fast", s.host());
  SUBCASE("in one packet: over 64 KiB, malformed, a wrong Host, an unknown method") {
    const std::pair<std::string, int> refused[] = {
        {Oversized(s.host()), 413},
        {"BAD\r\n\r\n", 400},
        {"GET /fast HTTP/1.1\r\nHost: evil.example\r\n\r\n", 403},
        {"PUT /fast HTTP/1.1\r\nHost: " + s.host() + "\r\n\r\n", 405},
    };
    for (const auto& [request, wanted] : refused) {
      // Copies: clang 14 cannot capture a structured binding in doctest's INFO lambda.
      const std::string second = request;
      const int status = wanted;
      INFO(second.substr(0, 40));
      const int fd = ConnectTcp(s.port());
      SendRaw(fd, get + get + second + get);
      const std::vector<HttpReply> r = ReadReplies(fd);
      REQUIRE(r.size() == 3);
      CHECK(r[0].status == 200);
      CHECK(r[1].status == 200);
      CHECK(r[2].status == status);
      CHECK(r[2].closed);
      ::close(fd);
    }
    // The request after the refusal never reached the handler.
    CHECK(s.Run([&] { return s.seen().size(); }) == 8);
  }
  SUBCASE("the first answered later (a page on a worker), the refusal in the same packet or "
          "arriving while it is answered") {
    for (const bool split : {false, true}) {
      INFO("split: " << split);
      const int fd = ConnectTcp(s.port());
      const std::string refused = split ? "BAD\r\n\r\n" : Oversized(s.host());
      SendRaw(fd, Get("/slow", s.host()) + (split ? "" : refused));
      REQUIRE(s.WaitFor([&] { return s.held().size() == 1; }));
      if (split) SendRaw(fd, refused);
      s.Run([&] {
        s.held()[0](Response{200, "text/plain", {}, "slow", false});
        s.held().clear();
      });
      const std::vector<HttpReply> r = ReadReplies(fd);
      REQUIRE(r.size() == 2);
      CHECK(r[0].body == "slow");
      CHECK(r[1].status == (split ? 400 : 413));
      CHECK(r[1].closed);
      ::close(fd);
    }
  }
}

TEST_CASE("http server: header fields after a chunked body (trailers) are refused with 400, "
          "and the request never reaches the handler") {
  ServerThread s(ServerLimits{});
  const std::string head = "POST /fast HTTP/1.1\r\nHost: " + s.host() +
                           "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n";
  for (const std::string trailer : {"Host: evil.example\r\n", "Cookie: origin-ui=x\r\n",
                                    "Origin: http://evil.example\r\n"}) {
    INFO(trailer);
    const int fd = ConnectTcp(s.port());
    SendRaw(fd, head + trailer + "\r\n");
    const std::vector<HttpReply> r = ReadReplies(fd);
    REQUIRE(r.size() == 1);
    CHECK(r[0].status == 400);
    CHECK(r[0].body.find("trailers") != std::string::npos);
    CHECK(r[0].closed);
    ::close(fd);
  }
  CHECK(s.Run([&] { return s.seen().size(); }) == 0);
  // Without trailers, a chunked body is taken.
  const int fd = ConnectTcp(s.port());
  SendRaw(fd, head + "\r\n");
  ::shutdown(fd, SHUT_WR);
  CHECK(ReadReplies(fd).at(0).status == 200);
  ::close(fd);
  CHECK(s.Run([&] { return s.seen().size() == 1 && s.seen()[0].body == "hello"; }));
}

TEST_CASE("http server: an answer after Close() or after the server is gone is dropped; a write "
          "in flight at its end does not reach it (ASan)") {
  ServerThread s(ServerLimits{});
  const int fd = ConnectTcp(s.port());
  SendRaw(fd, Get("/slow", s.host()));
  REQUIRE(s.WaitFor([&] { return s.held().size() == 1; }));
  bool written = false;  // the answer went out before the end (then the client may read it)
  SUBCASE("closed (origin ui left), then the page's answer") {
    s.Run([&] { s.server()->Close(); });
    s.Run([&] { s.held()[0](Response{200, "text/plain", {}, "late", false}); });
  }
  SUBCASE("destroyed, then the page's answer") {
    s.Run([&] { s.server().reset(); });
    s.Run([&] { s.held()[0](Response{200, "text/plain", {}, "late", false}); });
  }
  SUBCASE("answered, and destroyed before the write's completion ran") {
    s.Run([&] {
      s.held()[0](Response{200, "text/plain", {}, "late", false});
      s.server().reset();
    });
    written = true;
  }
  SUBCASE("answered twice: the second is dropped") {
    s.Run([&] {
      s.held()[0](Response{200, "text/plain", {}, "first", false});
      s.held()[0](Response{500, "text/plain", {}, "second", false});
    });
    ::shutdown(fd, SHUT_WR);
    const std::vector<HttpReply> r = ReadReplies(fd);
    REQUIRE(r.size() == 1);
    CHECK(r[0].body == "first");
    ::close(fd);
    return;
  }
  const std::vector<HttpReply> r = ReadReplies(fd);
  REQUIRE(r.size() == 1);
  CHECK(r[0].closed);
  if (!written) CHECK(r[0].status == 0);  // no answer after the end
  ::close(fd);
  s.Run([] { return 0; });  // the loop ran the closes and callbacks
}

}  // TEST_SUITE

}  // namespace origin::http
