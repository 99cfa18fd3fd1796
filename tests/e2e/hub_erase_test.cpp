// SPDX-License-Identifier: MIT
// An erasure replicates like a tombstone, both ways (issue 18, point 3):
// made on a device, the hub erases its copy of what the forget covers and
// the other device records it; made on the hub, a device erases its own
// copy; and an erasure wins over a restore made on another store before it
// arrived.  Real daemons on loopback, each with its own ORIGIN_HOME; every
// byte of each store is searched for the secret.

#include <doctest/doctest.h>

#include <filesystem>

#include "tests/e2e/hub_fixture.hpp"

namespace origin::test {

namespace {

constexpr const char* kSecret = "sk-live-Wq7Rt2Yp9Lm4Zx8Cv3Bn";
constexpr const char* kDeskSecret = "ghp_Dk5Jh8Mn2Qw6Er9Ty4Ui1Op";

// The tail of the mirror under `home` holding `words` (one line of it).
std::string MirrorHolding(const std::string& home, const std::string& words) {
  for (const std::string& path : FilesHolding(home + "/raw", words))
    if (path.ends_with(".tail")) return path;
  return "";
}

std::string ErasureOf(DaemonFixture& f, const std::string& forget) {
  RunResult r = f.Cli({"forgotten", "--json"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  rapidjson::Document d = Json(r.out);
  for (const auto& t : d["tombstones"].GetArray())
    if (forget == t["id"].GetString() && t.HasMember("erasure") &&
        std::string_view(t["erasure"]["state"].GetString()) == "done")
      return t["erasure"]["id"].GetString();
  return "";
}

std::string ForgetOn(DaemonFixture& f, const std::string& target) {
  RunResult r = f.Cli({"forget", target, "--reason", "a key", "--yes", "--json"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return Json(r.out)["tombstone"].GetString();
}

bool Holds(DaemonFixture& f, const std::string& forget) {
  return f.Cli({"forgotten"}).out.find(forget.substr(0, 12)) != std::string::npos;
}

}  // namespace

TEST_SUITE("hub") {
  TEST_CASE(
      "hub erase: an erasure made on a device or on the hub reaches every store, which "
      "erases what the forget covers there, and wins over a restore made elsewhere "
      "(issue 18, point 3; invariants 2 and 3)") {
    DaemonFixture hub;
    const int port = StartHub(hub);
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    DaemonFixture laptop, desk;
    laptop.env()["ORIGIN_HUB_SYNC_MS"] = "600000";
    desk.env()["ORIGIN_HUB_SYNC_MS"] = "600000";
    StartDevice(laptop, "laptop", kSecret);
    StartDevice(desk, "desk", kDeskSecret);
    REQUIRE(laptop.Cli({"hub", "connect", url, "--token", NewToken(hub, "laptop")}).status == 0);
    REQUIRE(desk.Cli({"hub", "connect", url, "--token", NewToken(hub, "desk")}).status == 0);
    Sync(laptop);
    Sync(desk);
    REQUIRE(!FilesHolding(hub.home(), kSecret).empty());
    const std::string laptop_log = laptop.claude() + "/projects/app/laptop.jsonl";
    const std::string original = ReadAll(laptop_log);

    // Up: forgotten and erased on the laptop.
    const std::string forget = ForgetOn(laptop, "claude-code:laptop-u2");
    REQUIRE(hub.WaitFor([&] { return Holds(hub, forget); }));
    Sync(desk);
    REQUIRE(Holds(desk, forget));
    RunResult r = laptop.Cli({"erase", forget, "--reason", "leaked key"});
    CHECK_MESSAGE(r.out.find("Elsewhere: the hub " + url + " erases its copy") != std::string::npos,
                  r.out);
    r = laptop.Cli({"erase", forget, "--reason", "leaked key", "--yes", "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const std::string erasure = Json(r.out)["erasure"].GetString();
    CHECK(FilesHolding(laptop.home(), kSecret).empty());
    // Sent right after it was made; the hub runs it after answering (done
    // once its texts are gone, then VACUUM and the WAL emptied).
    CHECK(hub.WaitFor([&] { return ErasureOf(hub, forget) == erasure; }, 30));
    CHECK(hub.WaitFor([&] { return FilesHolding(hub.home(), kSecret).empty(); }));
    // The hub's mirror of the laptop's file is the laptop's, byte for byte:
    // the same filler, every other line as it was, the same length.
    {
      const std::string mine = MirrorHolding(laptop.home(), "laptop said line 3");
      const std::string its = MirrorHolding(hub.home(), "laptop said line 3");
      REQUIRE(!mine.empty());
      REQUIRE(!its.empty());
      CHECK(ReadAll(mine) == ReadAll(its));
      CHECK(ReadAll(its).size() == original.size());
    }
    r = hub.Cli({"verify", "--all"});
    CHECK_MESSAGE(r.status == 0, (r.out + r.err));
    CHECK(hub.Cli({"show", "claude-code:laptop-u3"}).out.find("laptop said line 3") !=
          std::string::npos);
    // The desk holds nothing of the laptop's, and records the erasure: the
    // forget can no longer be restored there either.
    Sync(desk);
    CHECK(desk.WaitFor([&] { return ErasureOf(desk, forget) == erasure; }));
    r = desk.Cli({"restore", forget, "--reason", "oops", "--yes"});
    CHECK(r.status == 1);
    CHECK(r.err.find("erased (" + erasure + ")") != std::string::npos);
    // Nothing moves again.
    CHECK(Sync(laptop)["tombstones_up"].GetInt64() == 0);

    // Down: the desk's note citing its line with the other secret, forgotten
    // and erased on the hub; the desk erases its own copies when it syncs.
    r = desk.Cli({"remember", std::string("the desk token is ") + kDeskSecret, "--cite",
                  "claude-code:desk-u2", "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const std::string entry = Json(r.out)["entry"]["id"].GetString();
    REQUIRE(hub.WaitFor([&] { return hub.Cli({"show", entry}).status == 0; }));
    const std::string hub_forget = ForgetOn(hub, entry);  // rule 1: the entry and the line it cites
    r = hub.Cli({"erase", hub_forget, "--reason", "leaked token", "--yes", "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const std::string hub_erasure = Json(r.out)["erasure"].GetString();
    CHECK(std::string(Json(r.out)["elsewhere"].GetString())
              .starts_with("the devices that sync with this hub erase their copies"));
    CHECK(FilesHolding(hub.home(), kDeskSecret).empty());
    REQUIRE(!FilesHolding(desk.home(), kDeskSecret).empty());
    Sync(desk);
    CHECK(desk.WaitFor([&] { return ErasureOf(desk, hub_forget) == hub_erasure; }, 30));
    CHECK(desk.WaitFor([&] { return FilesHolding(desk.home(), kDeskSecret).empty(); }));
    CHECK(desk.Cli({"show", "claude-code:desk-u3"}).out.find("desk said line 3") !=
          std::string::npos);
    r = desk.Cli({"verify", "--all"});
    CHECK_MESSAGE(r.status == 0, (r.out + r.err));
    Sync(laptop);  // the laptop holds nothing it covers, and records it
    CHECK(laptop.WaitFor([&] { return ErasureOf(laptop, hub_forget) == hub_erasure; }));

    // An erasure beats a restore made elsewhere before it arrived: the desk
    // restores a forget of the laptop's, which reaches the hub; the laptop,
    // which has not heard of the restore, erases the forget.
    const std::string raced = ForgetOn(laptop, "claude-code:laptop-u1");
    REQUIRE(hub.WaitFor([&] { return Holds(hub, raced); }));
    Sync(desk);
    r = desk.Cli({"restore", raced, "--reason", "fine", "--yes", "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    REQUIRE(hub.WaitFor([&] { return hub.Cli({"show", "claude-code:laptop-u1"}).status == 0; }));
    r = laptop.Cli({"erase", raced, "--reason", "leaked too", "--yes", "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const std::string raced_erasure = Json(r.out)["erasure"].GetString();
    Sync(laptop);  // brings the restore down: the forget stays in effect
    CHECK(laptop.Cli({"show", "claude-code:laptop-u1"}).status != 0);
    // Hidden again on the hub, and erased there.
    CHECK(hub.WaitFor([&] { return ErasureOf(hub, raced) == raced_erasure; }, 30));
    CHECK(hub.Cli({"show", "claude-code:laptop-u1"}).status != 0);
    CHECK(hub.WaitFor([&] { return FilesHolding(hub.home(), "laptop said line 1").empty(); }));
    Sync(desk);
    CHECK(desk.WaitFor([&] { return ErasureOf(desk, raced) == raced_erasure; }));
    r = desk.Cli({"forgotten", "--json"});
    bool in_effect = false;
    const rapidjson::Document listed = Json(r.out);
    for (const auto& t : listed["tombstones"].GetArray())
      if (raced == t["id"].GetString()) in_effect = t["in_effect"].GetBool();
    CHECK(in_effect);
    laptop.Stop();
    desk.Stop();
    hub.Stop();
  }

}  // TEST_SUITE

}  // namespace origin::test
