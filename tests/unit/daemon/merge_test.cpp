// SPDX-License-Identifier: MIT
// A connected device's merge of its own answer and its hub's
// (daemon/mcp/merge.hpp) on a real store: what the device hides never
// shows, whatever the hub returns (invariant 2); one version of an entry,
// the current one; a hub's short references left out; and an answer of the
// hub's that is not what it should be changes nothing and crashes nothing.

#include <doctest/doctest.h>

#include "core/store/refs.hpp"
#include "daemon/mcp/merge.hpp"
#include "daemon/mcp/tools.hpp"
#include "proto/protocol.hpp"
#include "tests/e2e/daemon_fixture.hpp"
#include "tests/unit/core/forget_world.hpp"

namespace origin::test {

namespace {

using forget_world::World;

std::string Merge(World& w, const char* tool, const std::string& args, const std::string& local,
                  const std::string& hub) {
  const mcp::Tool* t = mcp::FindTool(tool);
  REQUIRE(t != nullptr);
  return mcp::MergeAnswers(*t, Json(args), *w.s.db, local, hub);
}

// An event hit as a search answer lists it.
std::string Hit(const std::string& id, int rank) {
  return R"({"id":")" + id + R"(","ref":"zzzzz","time":"2026-01-05T10:00:00+00:00","role":"user","snippet":"[rockets]","rank":)" +
         std::to_string(rank) + "}";
}

const char* kEmptySearch = R"({"order":"newest","entries":[],"sessions":[],"events":[],"more":false})";

}  // namespace

TEST_SUITE("merge") {

TEST_CASE("merge: what this device hides never shows from the hub's answer, and the hub's refs "
          "are left out (invariant 2)") {
  World w;
  const std::string kept = w.Say("s1", "rockets one");
  const std::string hidden = w.Say("s1", "rockets two");
  w.Say("s2", "rockets three");
  w.Sync();
  w.Forget(hidden);
  w.Forget("claude-code:s2");  // a whole session, also what arrives of it later
  const std::string hub = std::string(R"({"order":"newest","entries":[],"sessions":[)") +
                          R"({"id":"claude-code:s1","ref":"qqqqq","source":"claude-code","events":[)" +
                          Hit(kept, 1) + "," + Hit(hidden, 2) + "]}," +
                          R"({"id":"claude-code:s2","source":"claude-code","events":[)" +
                          Hit("claude-code:later", 3) + "]}," +
                          R"({"id":"claude-code:far","source":"claude-code","events":[)" +
                          Hit("claude-code:far-1", 4) + "]}" + R"(],"events":[],"more":false})";
  const std::string local = std::string(R"({"order":"newest","entries":[],"sessions":[)") +
                            R"({"id":"claude-code:s1","ref":")" + ShortRef(*w.s.db, "claude-code:s1") +
                            R"(","source":"claude-code","events":[)" + Hit(kept, 1) +
                            R"(]}],"events":[],"more":false})";
  rapidjson::Document d = Json(Merge(w, "search", R"({"query":"rockets"})", local, hub));
  std::map<std::string, std::string> seen;
  for (const auto& s : d["sessions"].GetArray())
    for (const auto& e : s["events"].GetArray()) seen[e["id"].GetString()] = e["origin"].GetString();
  CHECK(seen.size() == 2);
  CHECK(seen[kept] == "local");
  CHECK(seen["claude-code:far-1"] == "hub");
  CHECK(seen.count(hidden) == 0);
  CHECK(seen.count("claude-code:later") == 0);
  // Ranked again in the merged order; the hub's session that this device
  // holds gets this device's ref, the other none.
  for (const auto& s : d["sessions"].GetArray()) {
    const std::string id = s["id"].GetString();
    if (id == "claude-code:far") {
      CHECK_FALSE(s.HasMember("ref"));
      CHECK(s["events"][0]["rank"].GetInt() == 2);
      CHECK_FALSE(s["events"][0].HasMember("ref"));
    } else {
      CHECK(std::string(s["ref"].GetString()) == ShortRef(*w.s.db, id));
    }
  }

  // get of what only the hub holds: not found here when this device hides
  // it or its session.
  const std::string event = R"({"event":{"id":"claude-code:later","session":"claude-code:s2","text":"x"}})";
  CHECK(forget_world::ErrorOf([&] { Merge(w, "get", R"({"id":"claude-code:later"})", "", event); }) ==
        OpError::Code::kNotFound);
  CHECK(forget_world::ErrorOf([&] {
          Merge(w, "sources", R"({"id":")" + hidden + R"("})", "",
                R"({"id":")" + hidden + R"(","sources":[{"file":"f","line":2,"raw":"x"}]})");
        }) == OpError::Code::kNotFound);
  rapidjson::Document far = Json(Merge(w, "get", R"({"id":"claude-code:far-1"})", "",
                                      R"({"event":{"id":"claude-code:far-1","ref":"abcde","session":"claude-code:far","text":"x"}})"));
  CHECK(std::string(far["event"]["origin"].GetString()) == "hub");
  CHECK_FALSE(far["event"].HasMember("ref"));
}

TEST_CASE("merge: one version of an entry, the current one of both stores; history from both") {
  World w;
  const std::string ev = w.Say("s1", "rockets fuel");
  w.Sync();
  const std::string first = w.Remember({ev}, "rockets need fuel");
  auto entry = [](const std::string& id, const std::string& chain, const char* created, int rank) {
    return R"({"id":")" + id + R"(","kind":"knowledge","snippet":"rockets","confidence":0.9,"imported":false,"created":")" +
           created + R"(","rank":)" + std::to_string(rank) +
           (chain.empty() ? "" : R"(,"chain":")" + chain + "\"") + "}";
  };
  const std::string later = "ent_000000000000000000000abc";
  const std::string local = std::string(R"({"order":"newest","entries":[)") +
                            entry(first, "", "2026-01-05T10:00:00.000+00:00", 1) +
                            R"(],"sessions":[],"events":[],"more":false})";
  // The hub holds a correction made on another device, dated later.
  const std::string hub = std::string(R"({"order":"newest","entries":[)") +
                          entry(later, first, "2026-01-06T10:00:00.000+01:00", 1) + "," +
                          entry("ent_000000000000000000000def", "", "2026-01-01T00:00:00.000Z", 2) +
                          R"(],"sessions":[],"events":[],"more":true})";
  rapidjson::Document d = Json(Merge(w, "search", R"({"query":"rockets","limit":1})", local, hub));
  REQUIRE(d["entries"].Size() == 2);
  CHECK(std::string(d["entries"][0]["id"].GetString()) == later);
  CHECK(std::string(d["entries"][0]["origin"].GetString()) == "hub");
  CHECK(d["entries"][0]["rank"].GetInt() == 1);
  CHECK(d["entries"][1]["rank"].GetInt() == 2);
  CHECK(d["more"].GetBool());
  CHECK(d["next_offset"].GetInt() == 1);
  // With history, every version.
  CHECK(Json(Merge(w, "search", R"({"query":"rockets","history":true})", local, hub))["entries"]
            .Size() == 3);

  // get: the history of both stores, oldest first; the current version
  // from the hub; a hub version this device forgot is left out.
  const std::string mine = std::string(R"({"entry":{"id":")") + first + R"(","root":")" + first +
                           R"(","created":"2026-01-05T10:00:00.000+00:00"},"history":[{"id":")" +
                           first + R"(","created":"2026-01-05T10:00:00.000+00:00"}],"cited":[]})";
  const std::string theirs = std::string(R"({"entry":{"id":")") + later + R"(","root":")" + first +
                             R"(","created":"2026-01-06T10:00:00.000+01:00"},"history":[{"id":")" +
                             first + R"(","created":"2026-01-05T10:00:00.000+00:00"},{"id":")" +
                             later + R"(","created":"2026-01-06T10:00:00.000+01:00"}],"cited":[]})";
  rapidjson::Document g = Json(Merge(w, "get", R"({"id":")" + first + R"("})", mine, theirs));
  CHECK(std::string(g["entry"]["id"].GetString()) == later);
  REQUIRE(g["history"].Size() == 2);
  CHECK(std::string(g["history"][0]["origin"].GetString()) == "local");
  CHECK(std::string(g["history"][1]["origin"].GetString()) == "hub");
  w.Forget(first);  // the whole chain, here
  CHECK(forget_world::ErrorOf([&] { Merge(w, "get", R"({"id":")" + later + R"("})", "", theirs); }) ==
        OpError::Code::kNotFound);
}

TEST_CASE("merge: a hub's answer that is not what it should be crashes nothing") {
  World w;
  const std::string ev = w.Say("s1", "rockets");
  w.Sync();
  for (const char* bad :
       {"not json", "[]", "{}", R"({"entries":7,"sessions":"x","events":null})",
        R"({"entries":[1,"x",{"id":5},{"rank":"r"}],"sessions":[7,{"id":"s","events":"no"},{"events":[3,{}]}],"events":[{},[]]})",
        R"({"sessions":[{"id":"claude-code:s1","events":[{"id":"claude-code:u0","rank":-5}]}]})"}) {
    CAPTURE(bad);
    for (const char* tool : {"search", "timeline", "get", "sources"}) {
      CAPTURE(tool);
      const std::string args = std::string(tool) == "search" || std::string(tool) == "timeline"
                                   ? "{}"
                                   : R"({"id":")" + ev + R"("})";
      const std::string local = std::string(tool) == "search"     ? kEmptySearch
                                : std::string(tool) == "timeline" ? R"({"sessions":[],"more":false})"
                                                                  : "";
      try {
        rapidjson::Document d = Json(Merge(w, tool, args, local, bad));
        CHECK(d.IsObject());
      } catch (const OpError& e) {
        CHECK(e.code() == OpError::Code::kNotFound);
      }
    }
  }
}

}  // TEST_SUITE

}  // namespace origin::test
