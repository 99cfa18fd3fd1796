// SPDX-License-Identifier: MIT
// A device's sync with its hub (issue 17, points 3 and 6; the spec's
// Replication, its three steps, and Forgetting across stores), with real
// daemons on loopback, each with its own ORIGIN_HOME: two devices connect
// with `origin hub connect`, `origin sync` sends their mirrors, entries
// and tombstones up and brings the hub's tombstones down, and a forget or
// a restore made on one device reaches the hub and the other device.

#include <doctest/doctest.h>

#include <filesystem>

#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/store/schema.hpp"
#include "core/util/clock.hpp"
#include "tests/e2e/hub_fixture.hpp"

namespace origin::test {

namespace {

bool HubFinds(int port, const std::string& token, const std::string& words,
              const std::string& expect) {
  const std::string search =
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":")" +
      words + R"("}}})";
  HttpReply found = Http(port, "POST", "/mcp", McpHeaders(token), search);
  REQUIRE(found.status == 200);
  return found.body.find(expect) != std::string::npos;
}

// The one value of `sql` on the store at `home`.
std::int64_t Count(const std::string& home, const std::string& sql) {
  auto db = OpenReadConnection(home + "/origin.db");
  return db->QueryInt(sql);
}

std::int64_t Tombstones(const std::string& home) {
  return Count(home, "SELECT count(*) FROM tombstone");
}

// The name the running daemon goes by.
std::string StoreOf(DaemonFixture& f) { return Status(f)["daemon"]["store"].GetString(); }

}  // namespace

TEST_SUITE("hub") {

TEST_CASE("hub sync: two devices connect, sync, and a forget and a restore made on one reach "
          "the hub and the other (invariant 2)") {
  DaemonFixture hub;
  const int port = StartHub(hub);
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const std::string laptop_token = NewToken(hub, "laptop");
  const std::string desk_token = NewToken(hub, "desk");
  const std::string reader = NewToken(hub, "ci");

  DaemonFixture laptop, desk;
  // No sync every minute: what reaches the hub on its own is sent after
  // a write or an ingest.
  laptop.env()["ORIGIN_HUB_SYNC_MS"] = "600000";
  desk.env()["ORIGIN_HUB_SYNC_MS"] = "600000";
  StartDevice(laptop, "laptop", "about rockets");
  StartDevice(desk, "desk", "about oceans");

  // Not connected: origin sync says nothing of a hub.
  {
    RunResult r = laptop.Cli({"sync", "--json"});
    REQUIRE(r.status == 0);
    CHECK_FALSE(Json(r.out).HasMember("hub"));
  }
  // Another device's token: refused, saying how to fix it, nothing saved.
  RunResult wrong = laptop.Cli({"hub", "connect", url, "--token", desk_token});
  CHECK(wrong.status != 0);
  CHECK(wrong.err.find("desk") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(laptop.home() + "/hub.json"));
  CHECK(laptop.Cli({"hub", "connect", url, "--token", "nope"}).status != 0);
  RunResult user = laptop.Cli(
      {"hub", "connect", "http://me@127.0.0.1:" + std::to_string(port), "--token", laptop_token});
  CHECK(user.status == 2);
  CHECK_MESSAGE(user.err.find("no user or password") != std::string::npos, user.err);

  RunResult connected = laptop.Cli({"hub", "connect", url, "--token", laptop_token});
  REQUIRE_MESSAGE(connected.status == 0, connected.err);
  CHECK(connected.out.find("as laptop") != std::string::npos);
  const auto perms = std::filesystem::status(laptop.home() + "/hub.json").permissions();
  CHECK((perms & std::filesystem::perms::all) ==
        (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
  REQUIRE(desk.Cli({"hub", "connect", url + "/", "--token", desk_token}).status == 0);

  // Step 1: each device's mirrors; both found through the hub's /mcp.
  rapidjson::Document first = Sync(laptop);
  Sync(desk);
  CHECK(HubFinds(port, reader, "rockets", "laptop said line 2"));
  CHECK(HubFinds(port, reader, "oceans", "desk said line 2"));
  // The hub's status says when it last took lines in for each source,
  // though no sync of its own took them (the devices' pushes did).
  {
    RunResult hs = hub.Cli({"status", "--json"});
    rapidjson::Document d = Json(hs.out);
    int claude = 0;
    for (const auto& src : d["sources"].GetArray())
      if (std::string_view(src["source"].GetString()) == "claude-code") {
        ++claude;
        CHECK(src["events"].GetInt64() > 0);
        CHECK(src["last_ingest_at"].IsInt64());  // not "never"
      }
    CHECK(claude == 1);
    // Where it serves, and the two devices whose logs it now holds, each
    // with its token; the cloud agent's token (ci) names no device.
    CHECK(std::string(d["serving"]["url"].GetString()) == url);
    const auto& devices = d["serving"]["devices"];
    REQUIRE(devices.Size() == 2);
    CHECK(std::string(devices[0]["name"].GetString()) == "desk");
    CHECK(std::string(devices[1]["name"].GetString()) == "laptop");
    for (const auto& dev : devices.GetArray()) {
      CHECK(dev["files"].GetInt64() == 1);
      CHECK(dev["lines"].GetInt64() > 0);
      CHECK(dev["bytes"].GetInt64() > 0);
      CHECK(dev["last_received_at"].IsInt64());
      CHECK(std::string(dev["token"].GetString()) == "active");
    }
    const std::string human = hub.Cli({"status"}).out;
    CHECK_MESSAGE(human.find("this store is a hub: serving " + url) != std::string::npos, human);
    CHECK(human.find("laptop ") != std::string::npos);
    // A device's status has no such part.
    CHECK(Json(laptop.Cli({"status", "--json"}).out)["serving"].IsNull());
  }
  // A second sync sends nothing.
  {
    rapidjson::Document again = Sync(laptop);
    CHECK(again["chunks"].GetInt64() == 0);
    CHECK(again["entries"].GetInt64() == 0);
    CHECK(again["tombstones_up"].GetInt64() == 0);
  }

  // Step 2: an entry written on the laptop reaches the hub, under its id
  // and author, as soon as it is written.
  RunResult remembered = laptop.Cli({"remember", "rockets need fuel", "--cite",
                                     "claude-code:laptop-u2", "--json"});
  REQUIRE_MESSAGE(remembered.status == 0, remembered.err);
  const std::string entry = Json(remembered.out)["entry"]["id"].GetString();
  // Synced right after the write, without origin sync.
  CHECK(hub.WaitFor([&] { return hub.Cli({"show", entry}).status == 0; }));
  {
    RunResult shown = hub.Cli({"show", entry, "--json"});
    REQUIRE_MESSAGE(shown.status == 0, shown.err);
    CHECK(shown.out.find("rockets need fuel") != std::string::npos);
    CHECK(shown.out.find("user@laptop") != std::string::npos);
  }

  // New lines in the laptop's log reach the hub soon after they are
  // ingested, without origin sync.
  AppendFile(laptop.claude() + "/projects/app/laptop.jsonl",
             ClaudeLine("laptop-u9", "laptop said volcanoes", "laptop-session"));
  CHECK(hub.WaitFor([&] { return HubFinds(port, reader, "volcanoes", "laptop said [volcanoes]"); },
                    30));

  // A forget made on the laptop: hidden there at once, on the hub once
  // it syncs, and recorded on the desk once the desk syncs.
  RunResult forgot = laptop.Cli({"forget", "claude-code:laptop-u2", "--reason", "private",
                                 "--yes", "--json"});
  REQUIRE_MESSAGE(forgot.status == 0, forgot.err);
  const std::string forget = Json(forgot.out)["tombstone"].GetString();
  // Sent right after it was made (a sync now finds nothing more to send).
  CHECK(hub.WaitFor([&] { return !HubFinds(port, reader, "rockets", "laptop said line 2"); }));
  CHECK(Sync(laptop)["tombstones_up"].GetInt64() == 0);
  CHECK(hub.Cli({"show", entry}).status != 0);  // rule 2: its entry cites the event
  // The desk holds it once it has synced (this sync, or one of its own
  // under way when it was asked for).
  Sync(desk);
  CHECK(Tombstones(desk.home()) == 1);
  // The desk's own data is untouched.
  CHECK(HubFinds(port, reader, "oceans", "desk said line 2"));

  // Another sync changes nothing: hiding is by id.
  Sync(laptop);
  CHECK_FALSE(HubFinds(port, reader, "rockets", "laptop said line 2"));

  // Restored on the laptop: back there, on the hub after a sync, and the
  // desk learns of the restore.
  RunResult restored = laptop.Cli({"restore", forget, "--reason", "fine", "--yes", "--json"});
  REQUIRE_MESSAGE(restored.status == 0, restored.err);
  Sync(laptop);
  CHECK(HubFinds(port, reader, "rockets", "laptop said line 2"));
  CHECK(hub.Cli({"show", entry}).status == 0);
  Sync(desk);
  CHECK(Tombstones(desk.home()) == 2);

  // origin hub status: the check, and when the last sync finished.
  RunResult status = laptop.Cli({"hub", "status", "--json"});
  REQUIRE_MESSAGE(status.status == 0, status.err);
  rapidjson::Document st = Json(status.out);
  CHECK(st["connected"].GetBool());
  CHECK(std::string(st["device"].GetString()) == "laptop");
  CHECK(st["last_sync"].IsInt64());
  CHECK(st["last_error"].IsNull());

  // origin status: the hub, and when the device last synced with it.
  {
    RunResult s = laptop.Cli({"status", "--json"});
    REQUIRE_MESSAGE(s.status == 0, (s.out + s.err));
    rapidjson::Document d = Json(s.out);
    CHECK(std::string(d["hub"]["url"].GetString()) == url);
    CHECK(d["hub"]["last_sync_at"].IsInt64());
    CHECK(d["hub"]["error"].IsNull());
    CHECK(laptop.Cli({"status"}).out.find("hub: " + url + " · last synced") != std::string::npos);
  }

  // The hub down: the sync fails, says so, and the device keeps working.
  hub.Stop();
  RunResult down = laptop.Cli({"sync", "--json"});
  CHECK(down.status != 0);
  CHECK(Json(down.out)["hub"]["error"].IsString());
  CHECK(laptop.Cli({"search", "rockets"}).status == 0);
  RunResult after = laptop.Cli({"hub", "status", "--json"});
  CHECK(Json(after.out)["last_error"].IsString());
  // origin status names the failure, and exits 5 for it.
  {
    RunResult s = laptop.Cli({"status", "--json"});
    CHECK(s.status == 5);
    rapidjson::Document d = Json(s.out);
    CHECK(d["hub"]["error"].IsString());
    CHECK(d["attention"].Size() >= 1);
  }

  CHECK(laptop.Cli({"hub", "disconnect"}).status == 0);
  CHECK_FALSE(std::filesystem::exists(laptop.home() + "/hub.json"));
  laptop.Stop();
  desk.Stop();
}

TEST_CASE(
    "hub sync: a device's changes of several batches (2,300 entries, a forget among them) "
    "reach the hub in their order, once each") {
  DaemonFixture hub;
  const int port = StartHub(hub);
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const std::string token = NewToken(hub, "laptop");
  DaemonFixture laptop;
  laptop.env()["ORIGIN_HUB_SYNC_MS"] = "600000";
  StartDevice(laptop, "laptop", "about rockets");
  REQUIRE(laptop.Cli({"hub", "connect", url, "--token", token}).status == 0);
  Sync(laptop);  // its events first: the entries cite them

  // Written while its daemon is stopped: 1,200 entries, a forget of one of
  // them, 1,100 more.  In change_log's order, three batches of at most
  // 1,000 changes (each read while the hub takes the one before), the
  // second of three runs: 199 entries, the forget, 800 entries.
  laptop.Stop();
  std::string forgotten;
  {
    auto db = OpenWriteConnection(laptop.home() + "/origin.db");
    SystemClock clock;
    Transaction tx(*db);
    // The forgotten one alone cites u3: forgetting an entry hides what it
    // cites, and the entries citing that (rules 2 and 3).
    auto remember = [&](int i, int event) {
      RememberInput in;
      in.kind = "memory";
      in.text = "batch note " + std::to_string(i);
      in.confidence = 0.9;
      in.author = "claude-code@laptop";
      in.sources.push_back({"claude-code:laptop-u" + std::to_string(event), std::nullopt});
      return Remember(*db, clock, "laptop", in).id;
    };
    for (int i = 0; i < 1200; ++i) {
      const std::string id = remember(i, i == 600 ? 3 : i % 3);
      if (i == 600) forgotten = id;
    }
    TombstoneInput forget;
    forget.target = forgotten;
    forget.reason = "wrong";
    forget.author = "user@laptop";
    REQUIRE(Forget(*db, clock, "laptop", forget).tombstone);
    for (int i = 1200; i < 2300; ++i) remember(i, i % 3);
    tx.Commit();
  }
  laptop.Start();
  {
    rapidjson::Document sent = Sync(laptop);
    CHECK(sent["entries"].GetInt64() == 2299);
    CHECK(sent["tombstones_up"].GetInt64() == 1);
  }
  // Every entry but the forgotten one (a hidden entry is not sent), and the
  // forget; the hub's change_log in the device's order.
  const std::string hub_entries = "SELECT count(*) FROM entry WHERE origin = 'laptop'";
  CHECK(Count(hub.home(), hub_entries) == 2299);
  CHECK(Count(hub.home(), "SELECT count(*) FROM tombstone WHERE origin = 'laptop'") == 1);
  CHECK(Count(hub.home(), "SELECT count(*) FROM entry WHERE id = '" + forgotten + "'") == 0);
  CHECK(Count(hub.home(),
              "SELECT count(*) FROM (SELECT e.text, lag(e.text) OVER (ORDER BY c.seq) AS before "
              "FROM change_log c JOIN entry e ON e.id = c.id WHERE c.kind = 'entry' AND "
              "e.text LIKE 'batch note %') WHERE CAST(substr(text, 12) AS INTEGER) <= "
              "CAST(substr(before, 12) AS INTEGER)") == 0);
  // Found through the hub's /mcp.
  const std::string reader = NewToken(hub, "ci");
  CHECK(HubFinds(port, reader, "2299", "batch note [2299]"));
  // The device's cursor is past them all: nothing goes again.
  rapidjson::Document again = Sync(laptop);
  CHECK(again["entries"].GetInt64() == 0);
  CHECK(again["tombstones_up"].GetInt64() == 0);
  CHECK(Count(hub.home(), hub_entries) == 2299);
  laptop.Stop();
  hub.Stop();
}

TEST_CASE(
    "hub connect --device: a store named by its host takes its token's name, at once, "
    "until it has written under it") {
  DaemonFixture hub;
  const int port = StartHub(hub);
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const std::string token = NewToken(hub, "laptop");

  DaemonFixture dev;
  dev.env()["ORIGIN_HUB_SYNC_MS"] = "600000";
  StartDevice(dev, "host-1", "about comets");  // ORIGIN_DEVICE=host-1 named it

  // Without --device: refused, saying how to fix it; nothing saved.
  RunResult wrong = dev.Cli({"hub", "connect", url, "--token", token});
  CHECK(wrong.status != 0);
  CHECK_MESSAGE(wrong.err.find("--device laptop") != std::string::npos, wrong.err);
  CHECK_FALSE(std::filesystem::exists(dev.home() + "/hub.json"));
  // Not a device's name: refused before anything changes.
  RunResult bad = dev.Cli({"hub", "connect", url, "--token", token, "--device", "My Laptop"});
  CHECK(bad.status != 0);
  CHECK_MESSAGE(bad.err.find("My Laptop") != std::string::npos, bad.err);
  CHECK(StoreOf(dev) == std::string("host-1"));
  // A name the token is not: the hub refuses it, and the store keeps its
  // name (it is renamed only once the hub agrees).
  RunResult other = dev.Cli({"hub", "connect", url, "--token", token, "--device", "desk"});
  CHECK(other.status == 2);
  CHECK_MESSAGE(other.err.find("not desk's: connect with --device laptop") != std::string::npos,
                other.err);
  CHECK(StoreOf(dev) == std::string("host-1"));
  CHECK_FALSE(std::filesystem::exists(dev.home() + "/hub.json"));

  RunResult connected = dev.Cli({"hub", "connect", url, "--token", token, "--device", "laptop"});
  REQUIRE_MESSAGE(connected.status == 0, connected.err);
  CHECK(connected.out.find("as laptop") != std::string::npos);
  // The running daemon goes by the new name at once: its status, and the
  // author and origin of what it writes next.
  CHECK(StoreOf(dev) == std::string("laptop"));
  RunResult remembered =
      dev.Cli({"remember", "comets have tails", "--cite", "claude-code:host-1-u2", "--json"});
  REQUIRE_MESSAGE(remembered.status == 0, remembered.err);
  const std::string entry = Json(remembered.out)["entry"]["id"].GetString();
  CHECK(hub.WaitFor([&] { return hub.Cli({"show", entry}).status == 0; }));
  {
    auto db = OpenReadConnection(hub.home() + "/origin.db");
    auto row = db->Prepare("SELECT author, origin FROM entry WHERE id = ?");
    row.Bind(1, entry);
    REQUIRE(row.Step());
    CHECK(row.Text(0) == "user@laptop");
    CHECK(row.Text(1) == "laptop");
  }
  // The hub holds the device's session, and its mirror, under the name it
  // now has.
  Sync(dev);
  CHECK(HubFinds(port, token, "comets", "host-1 said line 2"));
  {
    auto db = OpenReadConnection(hub.home() + "/origin.db");
    CHECK(db->QueryInt("SELECT count(*) FROM raw_file WHERE mirror GLOB 'devices/laptop/*'") == 1);
    CHECK(db->QueryInt("SELECT count(*) FROM raw_file WHERE mirror NOT GLOB 'devices/laptop/*'") ==
          0);
  }

  // Written under its name, the store keeps it: another --device is
  // refused, and the connection stays.
  RunResult again = dev.Cli({"hub", "connect", url, "--token", token, "--device", "desk"});
  CHECK(again.status != 0);
  CHECK_MESSAGE(again.err.find("keeps its name, laptop") != std::string::npos, again.err);
  CHECK(std::filesystem::exists(dev.home() + "/hub.json"));
  // And across a restart, whatever ORIGIN_DEVICE says.
  dev.Stop();
  dev.Start();
  CHECK(StoreOf(dev) == std::string("laptop"));
  CHECK(dev.Cli({"hub", "status"}).status == 0);
  dev.Stop();
}

TEST_CASE(
    "hub sync: a second store syncing under a device's name appends nothing to that device's "
    "copy on the hub, and says why (nothing is lost)") {
  DaemonFixture hub;
  const int port = StartHub(hub);
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const std::string token = NewToken(hub, "laptop");

  DaemonFixture laptop, copy;
  laptop.env()["ORIGIN_HUB_SYNC_MS"] = "600000";
  copy.env()["ORIGIN_HUB_SYNC_MS"] = "600000";
  StartDevice(laptop, "laptop", "about rockets");
  REQUIRE(laptop.Cli({"hub", "connect", url, "--token", token}).status == 0);
  Sync(laptop);
  // The hub's one mirror, of the laptop's one file.
  const auto mirrors = MirrorContents(hub.home());
  REQUIRE(mirrors.size() == 1);
  const std::string mirror = mirrors.begin()->first;
  INFO(mirror);
  const std::string sent = mirrors.begin()->second;
  REQUIRE(sent.size() > 200);

  // Another store under the same name, with another file at the same
  // path: shorter than what the hub holds of the laptop's...
  copy.env()["ORIGIN_DEVICE"] = "laptop";
  const std::string file = copy.claude() + "/projects/app/laptop.jsonl";
  WriteFile(file, ClaudeLine("copy-u0", "a copy's first line", "copy-session"));
  copy.Start();
  REQUIRE(copy.WaitFor([&] { return copy.Events() == 1; }));
  REQUIRE(copy.Cli({"hub", "connect", url, "--token", token}).status == 0);
  auto sync_error = [&copy] {
    RunResult r = copy.Cli({"sync", "--json"});
    CHECK(r.status == 1);  // the sync with the hub failed
    rapidjson::Document d = Json(r.out);
    REQUIRE(d.HasMember("hub"));
    return d["hub"]["error"].IsString() ? std::string(d["hub"]["error"].GetString()) : "";
  };
  std::string error = sync_error();
  CHECK_MESSAGE(error.find("the hub holds " + std::to_string(sent.size()) +
                           " bytes of projects/app/laptop.jsonl") != std::string::npos,
                error);
  CHECK_MESSAGE(error.find("does another store sync as laptop?") != std::string::npos, error);
  // ... then longer, the hub's copy ending within one of its lines: not
  // appended there (a torn line), and said so; origin status shows it.
  AppendFile(file, ClaudeLine("copy-u1", "a copy's long line " + std::string(sent.size(), 'q'),
                              "copy-session"));
  REQUIRE(copy.WaitFor([&] { return copy.Events() == 2; }));
  error = sync_error();
  CHECK_MESSAGE(error.find("ends at byte " + std::to_string(sent.size()) + ", within a line") !=
                    std::string::npos,
                error);
  CHECK(MirrorContents(hub.home()).at(mirror) == sent);
  CHECK_FALSE(HubFinds(port, token, "qqqq", "copy-u1"));
  const rapidjson::Document status = Status(copy);
  CHECK(std::string(status["hub"]["error"].GetString()).find("within a line") != std::string::npos);

  // The laptop's own lines still go on, whole.
  AppendFile(laptop.claude() + "/projects/app/laptop.jsonl",
             ClaudeLine("laptop-u4", "laptop said more about rockets", "laptop-session"));
  REQUIRE(laptop.WaitFor([&] { return laptop.Events() == 5; }));
  Sync(laptop);
  CHECK(MirrorContents(hub.home()).at(mirror) == MirrorContents(laptop.home()).begin()->second);
  CHECK(HubFinds(port, token, "more about rockets", "laptop-u4"));
  copy.Stop();
  laptop.Stop();
}

}  // TEST_SUITE

}  // namespace origin::test
