// SPDX-License-Identifier: MIT
// origin ui's sign-in and the HTTP pieces that need no socket (issue 16;
// the spec's "Signing in to origin ui" and "Responses"): the one-time
// secret and its 5 minutes, sessions, their 30 idle minutes and their 12
// hours (on a fake clock), several cookies of one name,
// form and cookie parsing, the API's list of operations, and the headers
// every response is written with.  The server itself is tested end to end
// (tests/e2e/ui_http_test.cpp).

#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/util/clock.hpp"
#include "daemon/http/admin.hpp"
#include "daemon/http/form.hpp"
#include "daemon/http/response.hpp"
#include "daemon/http/signin.hpp"

namespace origin::http {

TEST_SUITE("http") {

TEST_CASE("signin: a secret is 32 random bytes, works once, and only within 5 minutes") {
  FakeClock clock(1'700'000'000'000);
  SignIn s(clock);
  const std::string secret = s.NewSecret();
  CHECK(secret.size() == 43);  // 32 bytes, base64url without padding
  CHECK(secret.find_first_not_of(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == std::string::npos);
  CHECK(s.NewSecret() != secret);  // and that one retired the first
  CHECK_FALSE(s.Exchange(secret));

  SUBCASE("once") {
    const std::string again = s.NewSecret();
    CHECK_FALSE(s.Exchange(again + "x"));
    const auto id = s.Exchange(again);
    REQUIRE(id);
    CHECK(s.Find(*id) != nullptr);
    CHECK_FALSE(s.Exchange(again));  // used
  }
  SUBCASE("expired after 5 minutes, and not usable later either") {
    const std::string late = s.NewSecret();
    clock.Tick(kSecretMs);
    CHECK_FALSE(s.Exchange(late));
    const std::string in_time = s.NewSecret();
    clock.Tick(kSecretMs - 1);
    CHECK(s.Exchange(in_time));
  }
}

TEST_CASE("signin: a session lasts 12 hours, until sign-out, or until origin ui stops") {
  FakeClock clock(1'700'000'000'000);
  SignIn s(clock);
  const auto a = s.Exchange(s.NewSecret());
  const auto b = s.Exchange(s.NewSecret());
  REQUIRE(a);
  REQUIRE(b);
  CHECK(*a != *b);
  const SignIn::Session* sa = s.Find(*a);
  REQUIRE(sa != nullptr);
  CHECK(sa->csrf.size() == 43);
  CHECK(sa->csrf != s.Find(*b)->csrf);  // a token per session
  CHECK(s.Find("") == nullptr);
  CHECK(s.Find(*a + "x") == nullptr);
  s.End(*a);
  CHECK(s.Find(*a) == nullptr);
  CHECK(s.Find(*b) != nullptr);
  CHECK(s.TakeExpired() == 0);  // a sign-out is not an expiry
  clock.Tick(kSessionMs);
  CHECK(s.Find(*b) == nullptr);
  CHECK(s.TakeExpired() == 1);  // for the audit log, once
  CHECK(s.TakeExpired() == 0);
  const auto c = s.Exchange(s.NewSecret());
  const auto d = s.Exchange(s.NewSecret());
  clock.Tick(kIdleMs);  // `d` runs out; `c` is used just before
  clock.Tick(-1);
  CHECK(s.Find(*c) != nullptr);
  clock.Tick(1);
  const std::string pending = s.NewSecret();
  CHECK(s.Clear() == 1);  // origin ui stopped: the live session it ended
  CHECK(s.TakeExpired() == 1);  // and the one that had run out meanwhile
  CHECK(s.Find(*c) == nullptr);
  CHECK(s.Find(*d) == nullptr);
  CHECK_FALSE(s.Exchange(pending));
}

TEST_CASE("signin: a session ends after 30 minutes without a request; each request renews it, "
          "within its 12 hours") {
  FakeClock clock(1'700'000'000'000);
  SignIn s(clock);
  const auto a = s.Exchange(s.NewSecret());
  const auto idle = s.Exchange(s.NewSecret());
  REQUIRE(a);
  REQUIRE(idle);
  // `a` is used every 29 minutes for 12 hours; `idle` is left alone.
  clock.Tick(kIdleMs - 1);
  CHECK(s.Find(*a) != nullptr);
  CHECK(s.Find(*idle) != nullptr);  // just in time: renewed
  clock.Tick(kIdleMs - 2);
  CHECK(s.Find(*a) != nullptr);
  clock.Tick(2);
  CHECK(s.Find(*idle) == nullptr);  // 30 minutes since its last request
  std::int64_t used = 2 * kIdleMs - 1;
  for (; used + kIdleMs - 60'000 < kSessionMs; used += kIdleMs - 60'000) {
    CHECK(s.Find(*a) != nullptr);
    clock.Tick(kIdleMs - 60'000);
  }
  CHECK(s.Find(*a) != nullptr);
  clock.Tick(kSessionMs - used);  // 12 hours after the sign-in, however busy
  CHECK(s.Find(*a) == nullptr);
  CHECK(s.sessions() == 0);  // both gone from memory
}

TEST_CASE("signin: each of several cookie values is tried: a planted one neither shadows the "
          "session nor signs its owner out") {
  FakeClock clock(1'700'000'000'000);
  SignIn s(clock);
  const auto real = s.Exchange(s.NewSecret());
  REQUIRE(real);
  const SignIn::Session* own = s.Find(*real);
  REQUIRE(own != nullptr);
  // Another server on 127.0.0.1 set origin-ui with Path=/admin/x: the
  // browser sends it first, then the real one.
  std::string found;
  const std::vector<std::string> sent = {"planted", "", *real};
  CHECK(s.Find(sent, &found) == own);
  CHECK(found == *real);
  const std::vector<std::string> planted = {"planted", "also-planted"};
  CHECK(s.Find(planted, &found) == nullptr);
  // Being tried renews the idle deadline of the one that matched.
  clock.Tick(kIdleMs - 1);
  CHECK(s.Find(sent) == own);
  clock.Tick(kIdleMs - 1);
  CHECK(s.Find(*real) == own);
}

TEST_CASE("api: forget needs the preview's digest, unless it is the preview (dry_run); a "
          "correction's confidence is 1 unless given, as in the forms") {
  rapidjson::Document d;
  auto params = [&d](std::string_view op, const char* json) {
    d.Parse(json);
    REQUIRE(d.IsObject());
    return ApiParams(op, d);
  };
  const std::string missing = params("forget", R"({"target":"evt_1","reason":"r"})");
  CHECK(missing.find("digest is required") == 0);
  CHECK(params("forget", R"({"target":"evt_1","reason":"r","digest":null})") == missing);
  CHECK(params("forget", R"({"target":"evt_1","reason":"r","dry_run":false})") == missing);
  CHECK(params("forget", R"({"target":"evt_1","reason":"r","dry_run":true})").empty());
  CHECK(params("forget", R"({"target":"evt_1","reason":"r","digest":"ab"})").empty());
  for (std::string_view op : {"restore", "remember", "status"})
    CHECK_MESSAGE(params(op, R"({"target":"evt_1","reason":"r"})").empty(), op);
  CHECK(params("correct", R"({"id":"ent_1","text":"t"})").empty());
  REQUIRE(d.HasMember("confidence"));
  CHECK(d["confidence"].GetDouble() == 1.0);
  CHECK(params("correct", R"({"id":"ent_1","confidence":0.4})").empty());
  CHECK(d["confidence"].GetDouble() == 0.4);
  CHECK(params("remember", R"({"text":"t"})").empty());
  CHECK(!d.HasMember("confidence"));
}

TEST_CASE("signin: secrets and tokens compare whole") {
  CHECK(SameSecret("abc", "abc"));
  CHECK_FALSE(SameSecret("abc", "abd"));
  CHECK_FALSE(SameSecret("abc", "ab"));
  CHECK_FALSE(SameSecret("", "a"));
}

TEST_CASE("form: urlencoded fields are decoded in order and must be UTF-8") {
  ui::Fields f;
  std::string error;
  REQUIRE(ParseUrlEncoded("a=1&b=x+y%20z&&c&a=2&t=%C3%A9", &f, &error));
  REQUIRE(f.items.size() == 5);
  CHECK(f.items[0] == std::pair<std::string, std::string>{"a", "1"});
  CHECK(f.items[1].second == "x y z");
  CHECK(f.items[2] == std::pair<std::string, std::string>{"c", ""});
  CHECK(f.items[3].second == "2");
  CHECK(f.items[4].second == "\xC3\xA9");
  ui::Fields bad;
  CHECK_FALSE(ParseUrlEncoded("a=%C3", &bad, &error));  // a cut UTF-8 sequence
  CHECK(error.find("UTF-8") != std::string::npos);
  CHECK_FALSE(ParseUrlEncoded("a=%00", &bad, &error));  // NUL
  CHECK_FALSE(ParseUrlEncoded("a=%4", &bad, &error));
  CHECK_FALSE(ParseUrlEncoded("a=%zz", &bad, &error));
  CHECK(error.find("%-escape") != std::string::npos);
}

TEST_CASE("form: every value of the cookie origin-ui among others, and the media type") {
  Request r;
  r.headers = {{"cookie", "a=1; origin-ui=abc ;b=2"}, {"content-type", "Application/JSON; charset=utf-8"}};
  CHECK(CookieValues(r, "origin-ui") == std::vector<std::string>{"abc"});
  CHECK(CookieValues(r, "b") == std::vector<std::string>{"2"});
  CHECK(CookieValues(r, "origin").empty());
  CHECK(MediaType(r) == "application/json");
  // Every value, in the order sent: a cookie of the same name set by another
  // server on 127.0.0.1 with a longer Path comes first.
  r.headers = {{"cookie", "origin-ui=planted; x=1; origin-ui=real"}, {"cookie", "origin-ui=third"}};
  CHECK(CookieValues(r, "origin-ui") == std::vector<std::string>{"planted", "real", "third"});
}

TEST_CASE("api: the JSON API calls the reads and the four writes, nothing else") {
  const auto api = ApiOperations();
  for (std::string_view op : {"status", "timeline", "projects", "show", "sources", "entries", "search",
                              "forgotten", "overview", "turns", "tombstone", "remember", "correct",
                              "forget", "restore"})
    CHECK_MESSAGE(std::find(api.begin(), api.end(), op) != api.end(), op);
  CHECK(api.size() == 15);
  for (std::string_view op : {"erase", "backup", "verify", "shutdown", "sync", "check", "ui", "ping"})
    CHECK_MESSAGE(std::find(api.begin(), api.end(), op) == api.end(), op);
  // Every one the table has today is a read or one of the four writes
  // (tombstone reads on the writer: its restore preview is a dry run
  // rolled back; it writes nothing).
  for (const Operation& op : AllOperations()) {
    if (std::find(api.begin(), api.end(), op.method) == api.end()) continue;
    CHECK_MESSAGE(!(op.writes && op.method == "tombstone"), op.method);
    CHECK_MESSAGE((op.thread == Thread::kReader || op.method == "status" || op.method == "tombstone" ||
                   op.method == "remember" || op.method == "correct" || op.method == "forget" ||
                   op.method == "restore"),
                  op.method);
  }
}

TEST_CASE("api: errors map to HTTP statuses") {
  CHECK(HttpStatus(OpError::Code::kInvalidArgument) == 400);
  CHECK(HttpStatus(OpError::Code::kAmbiguous) == 400);
  CHECK(HttpStatus(OpError::Code::kNotFound) == 404);
  CHECK(HttpStatus(OpError::Code::kForgotten) == 404);
  CHECK(HttpStatus(OpError::Code::kConflict) == 409);
  CHECK(HttpStatus(OpError::Code::kUnavailable) == 503);
  CHECK(HttpStatus(OpError::Code::kInternal) == 500);
}

TEST_CASE("response: every response is written with the security headers") {
  Response r;
  r.status = 303;
  r.headers.emplace_back("Location", "/admin/");
  const std::string wire = SerializeResponse(r);
  CHECK(wire.rfind("HTTP/1.1 303 See Other\r\n", 0) == 0);
  for (const auto& header : SecurityHeaders())
    CHECK_MESSAGE(wire.find(header.first + ": " + header.second + "\r\n") != std::string::npos,
                  header.first);
  CHECK(wire.find("Content-Length: 0\r\n\r\n") != std::string::npos);
  CHECK(std::string(kContentSecurityPolicy).find("'unsafe-inline'") == std::string::npos);
}

}  // TEST_SUITE

}  // namespace origin::http
