// SPDX-License-Identifier: MIT
// origin ui's sessions and the JSON API's writes, against a real daemon and
// a real `origin ui` on a pseudo-terminal (issue 16; the spec's Admin UI
// "Sessions", "What it can do" and "Signing in to origin ui"): a cookie of
// the same name planted by another server on 127.0.0.1 neither shadows the
// session nor signs its owner out; sign-out clears the cookie; the API
// forgets only with the preview's digest and answers an irreversible
// restore with the operation's own error.  The idle expiry itself runs on a
// fake clock (tests/unit/daemon/http_test.cpp).

#include <doctest/doctest.h>

#include "tests/e2e/daemon_fixture.hpp"
#include "tests/e2e/ui_client.hpp"

namespace origin::test {

namespace {

// The value of "key":"..." in a JSON answer.
std::string JsonString(const std::string& body, const std::string& key) {
  const std::string run = FindRun(body, "\"" + key + "\":\"", kTokenChars);
  return run.empty() ? "" : run.substr(key.size() + 4);
}

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

TEST_CASE("ui: the API's forget needs the preview's digest (400 without, 409 when the plan "
          "changed); a correction's confidence is 1 unless given; a restore that an erasure made "
          "impossible is the operation's own 409") {
  DaemonFixture f;
  WriteFile(f.claude() + "/projects/-home-dev-app/s1.jsonl",
            ClaudeLine("u1", "deploy the catalog") + ClaudeLine("u2", "my key is sk-live-Zq81") +
                ClaudeLine("u3", "thanks"));
  f.Start({"--rescan-ms", "600000"});
  REQUIRE(f.WaitFor([&] { return f.Events() == 3; }));
  UiProcess ui(f, {"--no-open", "--port", "0"});
  const UiSession s = UiSignIn(ui);
  auto api = [&](const std::string& op, const std::string& body) {
    HttpReply r = Http(s.port, "POST", "/admin/api/" + op, s.Post(s.csrf), body);
    INFO(op << " " << body << " -> " << r.status << " " << r.body);
    return r;
  };
  auto forgets = [&] { return f.Cli({"forgotten", "--json"}).out.find("tmb_") != std::string::npos; };

  HttpReply r = api("forget", R"({"target":"claude-code:u2","reason":"a key"})");
  CHECK(r.status == 400);
  CHECK(r.body.find("invalid_argument") != std::string::npos);
  CHECK(r.body.find("digest is required") != std::string::npos);
  CHECK(!forgets());  // nothing forgotten without a preview

  // The preview, then the plan changes (the event is forgotten from the CLI):
  // its digest no longer matches, and nothing more is written.
  r = api("forget", R"({"target":"claude-code:u2","reason":"a key","dry_run":true})");
  REQUIRE(r.status == 200);
  const std::string stale = JsonString(r.body, "digest");
  REQUIRE(stale.size() == 64);
  REQUIRE(f.Cli({"forget", "claude-code:u2", "--reason", "from the CLI", "--yes"}).status == 0);
  r = api("forget", R"({"target":"claude-code:u2","reason":"a key","digest":")" + stale + "\"}");
  CHECK(r.status == 409);
  CHECK(r.body.find("\"conflict\"") != std::string::npos);

  // A correction without a confidence gets 1, as the form's.
  r = api("remember", R"({"text":"the catalog deploys on Fridays","kind":"knowledge","confidence":0.4,)"
                      R"("sources":[{"event_id":"claude-code:u1"}]})");
  REQUIRE_MESSAGE(r.status == 200, r.body);
  CHECK(r.body.find("\"confidence\":0.4") != std::string::npos);
  const std::string entry = JsonString(r.body, "id");
  REQUIRE(entry.rfind("ent_", 0) == 0);
  r = api("correct", "{\"id\":\"" + entry + "\",\"text\":\"the catalog deploys on Mondays\"}");
  CHECK(r.status == 200);
  CHECK(r.body.find("\"confidence\":1") != std::string::npos);

  // As previewed: forgotten.  Then erased, which no restore can undo: the
  // restore's own error (conflict), not a server error.
  r = api("forget", R"({"target":"claude-code:u3","reason":"thanks","dry_run":true})");
  REQUIRE(r.status == 200);
  const std::string digest = JsonString(r.body, "digest");
  r = api("forget", R"({"target":"claude-code:u3","reason":"thanks","digest":")" + digest + "\"}");
  REQUIRE(r.status == 200);
  const std::string tmb = JsonString(r.body, "tombstone");
  REQUIRE(tmb.rfind("tmb_", 0) == 0);
  REQUIRE(f.Cli({"erase", tmb, "--reason", "gone for good", "--yes"}).status == 0);
  r = api("restore", "{\"id\":\"" + tmb + "\",\"reason\":\"back\"}");
  CHECK(r.status == 409);
  CHECK(r.body.find("\"conflict\"") != std::string::npos);
  CHECK(r.body.find("cannot be restored") != std::string::npos);
  CHECK(ui.Stop() == 0);
  f.Stop();
}

}  // TEST_SUITE

}  // namespace origin::test
