// SPDX-License-Identifier: MIT
// origin ui's HTTP server against a real daemon and a real `origin ui` on
// a pseudo-terminal (issue 16, points 1, 2, 4 and 6; the spec's Admin UI
// "Requests", "Responses", "On a device: origin ui" and "Signing in to
// origin ui"): the sign-in through the printed link, each refusal, the
// response headers on every route, and the UI's end with origin ui.

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "core/c/sqlite.hpp"
#include "tests/e2e/daemon_fixture.hpp"
#include "tests/e2e/ui_client.hpp"

namespace origin::test {

namespace {

// The headers every response must carry, each exactly.
void CheckHeaders(HttpReply r, const std::string& route) {
  INFO("route: " << route << "\n" << r.raw.substr(0, 600));
  REQUIRE(r.status != 0);
  CHECK(r.headers["content-security-policy"] ==
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'; "
        "require-trusted-types-for 'script'; trusted-types 'none'");
  CHECK(r.headers["cache-control"] == "no-store, private");
  CHECK(r.headers["vary"] == "Cookie");
  CHECK(r.headers["x-frame-options"] == "DENY");
  CHECK(r.headers["x-content-type-options"] == "nosniff");
  CHECK(r.headers["referrer-policy"] == "same-origin");
  CHECK(r.headers["x-robots-tag"] == "noindex, nofollow");
  CHECK(r.headers["cross-origin-opener-policy"] == "same-origin");
  CHECK(r.headers["cross-origin-resource-policy"] == "same-origin");
}

}  // namespace

TEST_SUITE("ui-http") {

TEST_CASE("ui: the printed link signs in once; Enter retires it; the UI ends with origin ui") {
  DaemonFixture f;
  f.Start();
  std::string dir;
  {
    UiProcess ui(f, {"--no-open", "--port", "0"});
    const std::string link = ui.NextLink();
    REQUIRE_MESSAGE(!link.empty(), ui.out());
    const int port = ui.port();
    // The redirect file: the owner's alone, in a directory of its own.
    std::string file = FindRun(ui.out(), "or open /", std::string("/._") + kTokenChars);
    REQUIRE(file.size() > 8);
    file = file.substr(8);
    dir = file.substr(0, file.rfind('/'));
    struct stat st{};
    REQUIRE(::stat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    REQUIRE(::stat(dir.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    CHECK(ReadAll(file).find(link) != std::string::npos);

    // Without a session: a page says how to sign in, the API answers 401.
    CHECK(Http(port, "GET", "/admin/search?q=x").status == 401);
    HttpReply api = Http(port, "POST", "/admin/api/status", {{"Content-Type", "application/json"}}, "{}");
    CHECK(api.status == 401);
    CHECK(api.body.find("\"error\"") != std::string::npos);

    const UiSession s = UiSignIn(link, port);
    // The secret works once.
    CHECK(Http(port, "GET", LinkPath(link)).status == 403);
    // A call of the API with the session, its token and the UI's origin.
    HttpReply status = Http(port, "POST", "/admin/api/status", s.Post(s.csrf), "{}");
    CHECK(status.status == 200);
    CHECK(status.body.rfind("{\"result\":", 0) == 0);

    // Enter: a new link; the previous one (unused) stops working.
    const std::string second = ui.NewLink();
    REQUIRE_MESSAGE(!second.empty(), ui.out());
    const std::string third = ui.NewLink();
    REQUIRE_MESSAGE(!third.empty(), ui.out());
    CHECK(second != third);
    CHECK(Http(port, "GET", LinkPath(second)).status == 403);
    CHECK(Http(port, "GET", LinkPath(third)).status == 303);
    CHECK(ReadAll(file).find(third) != std::string::npos);

    // A second origin ui while this one runs is refused.
    RunResult again = f.Cli({"ui", "--no-open", "--port", "0"});
    CHECK(again.status == 1);
    CHECK(again.err.find("already runs") != std::string::npos);

    // origin ui exits: the listener, its connections and sessions go.
    const int keep = ConnectTcp(port);
    CHECK(keep >= 0);
    CHECK(ui.Stop() == 0);
    CHECK(f.WaitFor([&] { return ConnectTcp(port) < 0; }, 5));
    char byte = 0;
    CHECK(::recv(keep, &byte, 1, 0) <= 0);  // the open connection was closed too
    ::close(keep);
    CHECK(!Exists(file));
    CHECK(!Exists(dir));
  }
  // A new origin ui: the old session is not accepted.
  UiProcess ui(f, {"--no-open", "--port", "0"});
  REQUIRE(!ui.NextLink().empty());
  CHECK(ui.Stop() == 0);
  f.Stop();
}

TEST_CASE("ui: each refusal of the HTTP server and of a POST") {
  DaemonFixture f;
  f.Start({"--http-timeout-ms", "400"});
  UiProcess ui(f, {"--no-open", "--port", "0"});
  const std::string link = ui.NextLink();
  REQUIRE_MESSAGE(!link.empty(), ui.out());
  const int port = ui.port();
  const std::string host = "127.0.0.1:" + std::to_string(port);

  SUBCASE("a wrong Host is refused before any handler: the secret is not spent") {
    CHECK(Http(port, "GET", LinkPath(link), {{"Host", "evil.example:" + std::to_string(port)}}).status == 403);
    CHECK(Http(port, "GET", LinkPath(link), {{"Host", "127.0.0.1:1"}}).status == 403);
    CHECK(HttpRaw(port, "GET " + LinkPath(link) + " HTTP/1.1\r\n\r\n").status == 400);  // none (HTTP/1.1 needs one)
    CHECK(Http(port, "GET", LinkPath(link), {{"Host", "localhost:" + std::to_string(port)}}).status == 303);
  }
  SUBCASE("POST checks: session, CSRF token, Origin, Sec-Fetch-Site") {
    const UiSession s = UiSignIn(link, port);
    auto post = [&](std::map<std::string, std::string> h) {
      return Http(port, "POST", "/admin/api/entries", h, "{}");
    };
    auto h = s.Post(s.csrf);
    CHECK(post(h).status == 200);
    auto no_csrf = h;
    no_csrf.erase("X-CSRF-Token");
    CHECK(post(no_csrf).status == 403);
    CHECK(post(s.Post(s.csrf + "x")).status == 403);
    auto wrong_origin = h;
    wrong_origin["Origin"] = "http://evil.example";
    CHECK(post(wrong_origin).status == 403);
    auto other_port = h;
    other_port["Origin"] = "http://127.0.0.1:1";
    CHECK(post(other_port).status == 403);
    auto no_origin = h;
    no_origin.erase("Origin");
    CHECK(post(no_origin).status == 403);
    auto cross = h;
    cross["Sec-Fetch-Site"] = "cross-site";
    CHECK(post(cross).status == 403);
    auto localhost = h;
    localhost["Origin"] = "http://localhost:" + std::to_string(port);
    CHECK(post(localhost).status == 200);
    // A form without its _csrf field, and with it.
    const auto form = s.Form();
    CHECK(Http(port, "POST", "/admin/signout", form, "").status == 403);
    HttpReply out = Http(port, "POST", "/admin/signout", form, "_csrf=" + s.csrf);
    CHECK(out.status == 303);
    CHECK(post(h).status == 401);  // signed out
  }
  SUBCASE("the API: POST only, the listed operations only, a JSON object") {
    const UiSession s = UiSignIn(link, port);
    CHECK(Http(port, "GET", "/admin/api/status", {{"Cookie", s.cookie}}).status == 405);
    for (const char* op : {"erase", "backup", "verify", "shutdown", "sync", "check", "ui", "ping"}) {
      INFO(op);
      HttpReply r = Http(port, "POST", std::string("/admin/api/") + op, s.Post(s.csrf), "{}");
      CHECK(r.status == 404);
      CHECK(r.body.find("unknown_method") != std::string::npos);
    }
    CHECK(Http(port, "POST", "/admin/api/status", s.Post(s.csrf), "[1]").status == 400);
    CHECK(Http(port, "POST", "/admin/api/show", s.Post(s.csrf), "{\"id\":\"evt_nope\"}").status == 404);
    auto text = s.Post(s.csrf);
    text["Content-Type"] = "text/plain";
    CHECK(Http(port, "POST", "/admin/api/status", text, "{}").status == 415);
  }
  SUBCASE("a body over 64 KiB: 413") {
    const UiSession s = UiSignIn(link, port);
    HttpReply r = Http(port, "POST", "/admin/api/status", s.Post(s.csrf),
                       "{\"x\":\"" + std::string(70000, 'a') + "\"}");
    CHECK(r.status == 413);
    CHECK(r.closed);
    // Chunked, without a length: stopped at 64 KiB too.
    std::string chunked = "POST /admin/api/status HTTP/1.1\r\nHost: " + host +
                          "\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n";
    for (int i = 0; i < 20; ++i) chunked += "1000\r\n" + std::string(4096, 'a') + "\r\n";
    CHECK(HttpRaw(port, chunked).status == 413);
  }
  SUBCASE("a header block over 16 KiB: 431") {
    CHECK(Http(port, "GET", "/admin/", {{"X-Big", std::string(17000, 'a')}}).status == 431);
  }
  SUBCASE("a malformed request: 400, and the connection closes") {
    HttpReply r = HttpRaw(port, "GET /admin/ HTTP/1.1\r\nHost: " + host + "\r\nBad Header\r\n\r\n");
    CHECK(r.status == 400);
    CHECK(r.closed);
    CHECK(HttpRaw(port, "NOT-HTTP\r\n\r\n").status == 400);
  }
  SUBCASE("methods other than GET and POST: 405 with Allow") {
    for (const char* m : {"PUT", "DELETE", "OPTIONS", "PATCH"}) {
      INFO(m);
      HttpReply r = Http(port, m, "/admin/");
      CHECK(r.status == 405);
      CHECK(r.headers["allow"] == "GET, POST");
    }
  }
  SUBCASE("a slow client times out; an idle connection is closed") {
    const auto t0 = std::chrono::steady_clock::now();
    HttpReply slow = HttpRaw(port, "GET /admin/ HTTP/1.1\r\nHost: " + host + "\r\n", 5000);
    CHECK(slow.status == 408);
    CHECK(slow.closed);
    const int idle = ConnectTcp(port);
    REQUIRE(idle >= 0);
    char byte = 0;
    CHECK(::recv(idle, &byte, 1, 0) == 0);  // closed by the server, after 400 ms
    ::close(idle);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(4));
  }
  CHECK(ui.Stop() == 0);
  f.Stop();
}

TEST_CASE("ui: every route's response carries the security headers") {
  DaemonFixture f;
  f.Start();
  UiProcess ui(f, {"--no-open", "--port", "0"});
  const std::string link = ui.NextLink();
  REQUIRE_MESSAGE(!link.empty(), ui.out());
  const int port = ui.port();
  CheckHeaders(Http(port, "GET", "/admin/signin?secret=wrong"), "sign-in refused");
  CheckHeaders(Http(port, "GET", "/admin/search"), "no session");
  CheckHeaders(Http(port, "POST", "/admin/api/status", {{"Content-Type", "application/json"}}, "{}"), "API without session");
  const std::string target = LinkPath(link);
  CheckHeaders(Http(port, "GET", target), "sign-in");
  const std::string second = ui.NewLink();
  const UiSession s = UiSignIn(second, port);
  HttpReply page = Http(port, "GET", "/admin/search?q=x", {{"Cookie", s.cookie}});
  CheckHeaders(page, "page");
  const std::string asset_path = FindRun(page.body, "/admin/assets/", std::string(".") + kTokenChars);
  REQUIRE(!asset_path.empty());
  HttpReply asset = Http(port, "GET", asset_path);
  CHECK(asset.status == 200);
  CheckHeaders(asset, "asset");
  for (const char* p : {"/admin/timeline", "/admin/entries", "/admin/forgotten", "/admin/nope", "/nope"})
    CheckHeaders(Http(port, "GET", p, {{"Cookie", s.cookie}}), p);
  CheckHeaders(Http(port, "POST", "/admin/api/status", s.Post(s.csrf), "{}"), "API");
  CheckHeaders(Http(port, "POST", "/admin/api/erase", s.Post(s.csrf), "{}"), "API refused");
  CheckHeaders(Http(port, "POST", "/admin/api/status", s.Post("wrong"), "{}"), "CSRF refused");
  CheckHeaders(Http(port, "PUT", "/admin/"), "405");
  CheckHeaders(HttpRaw(port, "BAD\r\n\r\n"), "400");
  CheckHeaders(Http(port, "GET", "/admin/", {{"Host", "evil.example"}}), "wrong host");
  CHECK(ui.Stop() == 0);
  f.Stop();
}

TEST_CASE("ui: only 127.0.0.1; a port in use is a clear error") {
  DaemonFixture f;
  f.Start();
  RunResult any = f.Cli({"ui", "--no-open", "--port", "0.0.0.0:0"});
  CHECK(any.status == 2);
  CHECK(any.err.find("127.0.0.1 only") != std::string::npos);
  RunResult lan = f.Cli({"ui", "--no-open", "--port", "192.168.1.10:7079"});
  CHECK(lan.status == 2);
  // A port another program holds.
  UiProcess first(f, {"--no-open", "--port", "0"});
  REQUIRE(!first.NextLink().empty());
  const int taken = first.port();
  CHECK(first.Stop() == 0);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(taken));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // The daemon closes its listener once it reads that origin ui's
  // connection ended, which may be just after that process is gone.
  REQUIRE(f.WaitFor([&] { return ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0; }));
  REQUIRE(::listen(fd, 1) == 0);
  RunResult busy = f.Cli({"ui", "--no-open", "--port", std::to_string(taken)});
  CHECK(busy.status == 3);
  CHECK(busy.err.find("in use") != std::string::npos);
  ::close(fd);
  f.Stop();
}

TEST_CASE("ui: a sign-in, a refused link (once in 10 minutes), a sign-out and the sessions origin "
          "ui's stop ends are in the audit log, as actor local on channel ui, with no secret or "
          "session id") {
  DaemonFixture f;
  f.Start();
  UiProcess ui(f, {"--no-open", "--port", "0"});
  const UiSession s = UiSignIn(ui);
  const std::string& link = s.link;
  const int port = s.port;
  CHECK(Http(port, "GET", LinkPath(link)).status == 403);  // used: refused
  CHECK(Http(port, "GET", "/admin/signin?secret=wrong").status == 403);  // the same window
  const auto form = s.Form();
  CHECK(Http(port, "POST", "/admin/signout", form, "_csrf=" + s.csrf).status == 303);

  // Each is written on the writer after its answer: awaited, `n` records.
  const std::string secret = link.substr(link.find("secret=") + 7);
  std::vector<std::string> rows;
  auto await_rows = [&](std::size_t n) {
    return f.WaitFor(
        [&] {
          rows.clear();
          Db db(f.home() + "/origin.db", Db::Mode::kReadOnly);
          auto st = db.Prepare(
              "SELECT actor || ' ' || channel || ' ' || action || ' ' || details FROM audit_log "
              "WHERE channel = 'ui' ORDER BY seq");
          while (st.Step()) rows.emplace_back(st.Text(0));
          return rows.size() >= n;
        },
        10);
  };
  CHECK(await_rows(3));
  CHECK(rows == std::vector<std::string>{"local ui sign_in {}", "local ui sign_in_refused {}",
                                         "local ui sign_out {}"});
  for (const std::string& r : rows) {
    CHECK(r.find(secret) == std::string::npos);
    CHECK(r.find(s.cookie.substr(s.cookie.find('=') + 1)) == std::string::npos);
  }
  // Signed in again, then origin ui stops: the session it ends is recorded.
  const std::string again = ui.NewLink();
  REQUIRE(!again.empty());
  UiSignIn(again, port);
  CHECK(ui.Stop() == 0);
  CHECK(await_rows(5));
  CHECK(std::vector<std::string>(rows.begin() + 3, rows.end()) ==
        std::vector<std::string>{"local ui sign_in {}", R"(local ui session_end {"sessions":1})"});
  f.Stop();
}

}  // TEST_SUITE

}  // namespace origin::test
