// SPDX-License-Identifier: MIT
// origin ui's sessions against a real daemon and a real `origin ui` on a
// pseudo-terminal (issue 16; the spec's Admin UI "Sessions" and "Signing in
// to origin ui"): a cookie of the same name planted by another server on
// 127.0.0.1 neither shadows the session nor signs its owner out; sign-out
// clears the cookie.  The idle expiry itself runs on a fake clock
// (tests/unit/daemon/http_test.cpp).

#include <doctest/doctest.h>

#include "tests/e2e/daemon_fixture.hpp"
#include "tests/e2e/ui_client.hpp"

namespace origin::test {

namespace {

// A page that needs the session.
constexpr char kAnswer[] = "/admin/search?q=x";

}  // namespace

TEST_SUITE("ui-session") {

TEST_CASE("ui: a cookie planted by another server on 127.0.0.1 neither shadows the session nor "
          "signs its owner out; an ended session's cookie gets the sign-in-again page; sign-out "
          "clears the cookie") {
  DaemonFixture f;
  f.Start();
  UiProcess ui(f, {"--no-open", "--port", "0"});
  const UiSession s = UiSignIn(ui);
  const int port = s.port;
  // Another local server set origin-ui for 127.0.0.1 with Path=/admin/x:
  // the browser sends it first, then the real one, in one Cookie header.
  const std::string both = "origin-ui=planted-by-another-port; " + s.cookie;
  CHECK(Http(port, "GET", kAnswer, {{"Cookie", both}}).status == 200);
  auto api = s.Post(s.csrf);
  api["Cookie"] = both;
  CHECK(Http(port, "POST", "/admin/api/status", api, "{}").status == 200);

  // Without a cookie: how to sign in.  With one that names no session (ended
  // by time, sign-out or a restart; the idle and absolute expiry are proved
  // on a fake clock): sign in again.
  HttpReply none = Http(port, "GET", kAnswer);
  CHECK(none.status == 401);
  CHECK(none.body.find("You are not signed in") != std::string::npos);
  HttpReply planted = Http(port, "GET", kAnswer, {{"Cookie", "origin-ui=planted"}});
  CHECK(planted.status == 401);
  CHECK(planted.body.find("Your session has ended") != std::string::npos);
  CHECK(planted.body.find("Sign in again") != std::string::npos);
  HttpReply planted_api = Http(port, "POST", "/admin/api/status",
                               {{"Cookie", "origin-ui=planted"}, {"Content-Type", "application/json"}}, "{}");
  CHECK(planted_api.status == 401);
  CHECK(planted_api.body.find("\"unauthorized\"") != std::string::npos);

  // Sign-out with the planted cookie first ends the real session, and clears
  // the cookie: the same Path, Max-Age=0.
  auto form = s.Form();
  form["Cookie"] = both;
  HttpReply out = Http(port, "POST", "/admin/signout", form, "_csrf=" + s.csrf);
  CHECK(out.status == 303);
  CHECK(out.headers["set-cookie"] == "origin-ui=; Path=/admin; HttpOnly; SameSite=Lax; Max-Age=0");
  HttpReply after = Http(port, "GET", kAnswer, {{"Cookie", s.cookie}});
  CHECK(after.status == 401);
  CHECK(after.body.find("Your session has ended") != std::string::npos);
  CHECK(ui.Stop() == 0);
  f.Stop();
}

}  // TEST_SUITE

}  // namespace origin::test
