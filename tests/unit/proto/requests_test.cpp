// SPDX-License-Identifier: MIT
// The typed requests: what a client encodes decodes to the same struct, and
// params of the wrong type or out of range are refused with a message.
#include "proto/requests.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "proto/protocol.hpp"
#include "proto/time.hpp"

using namespace origin::proto;

namespace {
rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  REQUIRE_FALSE(d.HasParseError());
  return d;
}
}  // namespace

TEST_SUITE("proto") {
  TEST_CASE("requests: a search round-trips through Encode and Decode") {
    SearchRequest r;
    r.query = "retry handler";
    r.scope = "events";
    r.limit = 7;
    r.recent = true;
    r.source = "codex";
    r.since = 1000;
    r.until = 2000;
    auto d = Parse(Encode(r));
    SearchRequest back;
    std::string err;
    REQUIRE(Decode(&d, &back, &err));
    CHECK(back.query == r.query);
    CHECK(back.scope == "events");
    CHECK(back.limit == 7);
    CHECK(back.recent);
    CHECK_FALSE(back.include_tools);
    CHECK(back.source == "codex");
    CHECK_FALSE(back.project);
    CHECK(back.since == 1000);
    CHECK(back.until == 2000);
    CHECK(back.context == 0);
    CHECK_FALSE(back.totals);
    r.context = 3;
    r.totals = r.marks = true;
    d = Parse(Encode(r));
    REQUIRE(Decode(&d, &back, &err));
    CHECK(back.context == 3);
    CHECK(back.totals);
    CHECK(back.marks);
    for (const char* bad : {R"({"context":-1})", R"({"context":21})", R"({"context":"2"})"}) {
      d = Parse(bad);
      CHECK_FALSE(Decode(&d, &back, &err));
      CHECK(err.find("context") != std::string::npos);
    }
    IdRequest id{"claude-code:u1", true}, id_back;
    d = Parse(Encode(id));
    REQUIRE(Decode(&d, &id_back, &err));
    CHECK(id_back.full);
  }

  TEST_CASE("time: dates people type: absolute, or relative to now") {
    // 2026-11-30T12:00:00Z, a Monday.
    const std::int64_t now = 1796040000000;
    CHECK(ParseWhen("now", now) == now);
    CHECK(ParseWhen("2d", now) == now - 2 * 86400000LL);
    CHECK(ParseWhen("12h", now) == now - 12 * 3600000LL);
    CHECK(ParseWhen("30m", now) == now - 30 * 60000LL);
    CHECK(ParseWhen("45s", now) == now - 45000);
    CHECK(ParseWhen("1w", now) == now - 7 * 86400000LL);
    CHECK(ParseWhen("0d", now) == now);
    CHECK(ParseWhen("2026-01-05T10:00Z", now) == ParseDateTime("2026-01-05T10:00Z"));
    // today and yesterday: the local day's start, one day apart (or 23 or
    // 25 hours across a change of daylight saving time).
    const auto today = ParseWhen("today", now), yesterday = ParseWhen("yesterday", now);
    REQUIRE(today);
    REQUIRE(yesterday);
    CHECK(*today <= now);
    CHECK(now - *today < 86400000LL);
    CHECK(*today - *yesterday >= 23 * 3600000LL);
    CHECK(*today - *yesterday <= 25 * 3600000LL);
    for (const char* bad : {"", "2", "d", "2x", "-2d", "2 d", "2dd", "2D", "tomorrow", "last week",
                            "99999999999d", "2026-13-01"})
      CHECK_MESSAGE(!ParseWhen(bad, now), bad);
  }

  TEST_CASE("requests: an entry with sources and a request key round-trips") {
    EntryRequest r;
    r.id = "ent_1";
    r.text = "use the fake clock";
    r.kind = "knowledge";
    r.confidence = 0.5;
    r.sources = {{std::string("codex:x:1"), std::nullopt}, {std::nullopt, std::string("a quote")}};
    r.request_key = "k1";
    auto d = Parse(Encode(r, /*correct=*/true));
    EntryRequest back;
    std::string err;
    REQUIRE(Decode(&d, &back, &err, /*correct=*/true));
    CHECK(back.id == "ent_1");
    CHECK(back.text == r.text);
    CHECK(back.confidence == 0.5);
    REQUIRE(back.sources.size() == 2);
    CHECK(back.sources[0].event_id == "codex:x:1");
    CHECK(back.sources[1].quote == "a quote");
    CHECK(back.request_key == "k1");
  }

  TEST_CASE(
      "requests: a number beyond a double's range is refused, not read as infinity "
      "(fuzz: protocol)") {
    // What a client sent (parsed as the daemon parses every line) parses as
    // infinity, which no encoding could say again.
    const std::string params =
        R"({"id":"entry:1","text":"t","confidence":444000000000000017982712088562470448.51e308})";
    rapidjson::Document d;
    d.Parse<kJsonParseFlags>(params.c_str());
    REQUIRE_FALSE(d.HasParseError());
    REQUIRE(std::isinf(d["confidence"].GetDouble()));
    for (bool correct : {false, true}) {
      EntryRequest r;
      std::string err;
      CHECK_FALSE(Decode(&d, &r, &err, correct));
      CHECK(err == "confidence is too large a number");
    }
  }

  TEST_CASE("requests: forget and restore name their target differently") {
    TombstoneRequest r{"ent_9", "asked by the user", true, "key"};
    auto f = Parse(Encode(r, "target"));
    auto s = Parse(Encode(r, "id"));
    TombstoneRequest a, b;
    std::string err;
    REQUIRE(Decode(&f, &a, &err, "target"));
    REQUIRE(Decode(&s, &b, &err, "id"));
    CHECK(a.target == "ent_9");
    CHECK(b.target == "ent_9");
    CHECK(a.dry_run);
    CHECK_FALSE(Decode(&f, &b, &err, "id"));
    CHECK(err == "id is required");
  }

  TEST_CASE("requests: wrong types and ranges are refused, with what to fix") {
    auto bad = [](const std::string& json, auto request) {
      auto d = Parse(json);
      std::string err;
      CHECK_FALSE(Decode(&d, &request, &err));
      return err;
    };
    CHECK(bad(R"({"limit":0})", SearchRequest{}) == "limit must be between 1 and 1000");
    CHECK(bad(R"({"limit":5001})", TimelineRequest{}) == "limit must be between 1 and 5000");
    CHECK(bad(R"({"limit":"5"})", EntriesRequest{}) == "limit must be an integer");
    CHECK(bad(R"({"scope":"all"})", SearchRequest{}) == "scope is both, entries or events");
    CHECK(bad(R"({"kind":"fact"})", SearchRequest{}) == "kind is memory, knowledge or cognition");
    CHECK(bad(R"({"since":5,"until":4})", SearchRequest{}) == "since is after until");
    CHECK(bad(R"({"offset":-1,"session":"s"})", TimelineRequest{}) == "offset must be 0 or more");
    CHECK(bad(R"({"days":0})", TimelineRequest{}) == "days must be 1 or more");
    CHECK(bad(R"({"id":""})", IdRequest{}) == "id is required");
    CHECK(bad(R"([1])", NoRequest{}) == "params must be an object");
    auto d = Parse(R"({"text":"t","sources":[{}]})");
    EntryRequest e;
    std::string err;
    CHECK_FALSE(Decode(&d, &e, &err, false));
    CHECK(err == "a source needs an event_id or a quote");
    auto k = Parse("{\"text\":\"t\",\"request_key\":\"" + std::string(201, 'k') + "\"}");
    CHECK_FALSE(Decode(&k, &e, &err, false));
    CHECK(err == "request_key is longer than 200 bytes");
  }

  TEST_CASE("requests: a timeline's filters round-trip, words in the name with them") {
    TimelineRequest t;
    t.days = 30;
    t.source = "codex";
    t.project = "app";
    t.name = "parser retry";
    auto d = Parse(Encode(t));
    TimelineRequest back;
    std::string err;
    REQUIRE(Decode(&d, &back, &err));
    CHECK(back.name == "parser retry");
    CHECK(back.source == "codex");
    CHECK(back.project == "app");
    CHECK(back.days == 30);
    auto seven = Parse(R"({"name":7})");
    CHECK_FALSE(Decode(&seven, &back, &err));
    CHECK(err == "name must be a string");
    auto blank = Parse(R"({"name":"  "})");
    REQUIRE(Decode(&blank, &back, &err));
    CHECK_FALSE(back.name);  // no word: no filter
    auto one = Parse(R"({"name":"x","session":"s"})");
    CHECK_FALSE(Decode(&one, &back, &err));
    CHECK(err == "name is for the list of sessions, not one session");
  }

  TEST_CASE("requests: absent params decode to the defaults") {
    TimelineRequest t;
    std::string err;
    REQUIRE(Decode(nullptr, &t, &err));
    CHECK(t.limit == 50);
    TimelineRequest s;
    auto d = Parse(R"({"session":"x","since":null})");
    REQUIRE(Decode(&d, &s, &err));
    CHECK(s.limit == 500);
    CHECK_FALSE(s.since);
  }
}
