// SPDX-License-Identifier: MIT
// The hub's replication API against real daemons (issue 17, point 1; the
// spec's Personal hub: Replication step 1, HTTP interface): a device's
// store ingests its agent's logs as it always does, its mirrors are pushed
// chunk by chunk to a hub's /v1/ingest as a device would send them, and the
// hub ends with the same events under the same ids, its own mirrors of the
// same bytes, and cursors to resume from.  Then every refusal: each with
// its status, and nothing written.

#include <doctest/doctest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>
#include <set>

#include "core/store/schema.hpp"
#include "proto/base64.hpp"
#include "tests/e2e/hub_fixture.hpp"

namespace origin::test {

namespace {

std::map<std::string, std::string> Auth(const std::string& token,
                                        std::map<std::string, std::string> more = {}) {
  if (!token.empty()) more.emplace("Authorization", "Bearer " + token);
  return more;
}

// One generation of a device's mirrored file, as its store records it.
struct DeviceFile {
  std::string source, key, path, mirror;
  std::int64_t generation = 1;
};

std::vector<DeviceFile> DeviceFiles(const std::string& home) {
  auto db = OpenReadConnection(home + "/origin.db");
  Stmt st(db->get(), "SELECT source, key, path, mirror, generation FROM raw_file ORDER BY id");
  std::vector<DeviceFile> out;
  while (st.Step())
    out.push_back({std::string(st.Text(0)), std::string(st.Text(1)), std::string(st.Text(2)),
                   std::string(st.Text(3)), st.Int(4)});
  return out;
}

// Event ids (and the line each comes from) of a store.
std::set<std::pair<std::string, std::int64_t>> EventIds(const std::string& home) {
  auto db = OpenReadConnection(home + "/origin.db");
  Stmt st(db->get(), "SELECT id, line FROM event");
  std::set<std::pair<std::string, std::int64_t>> out;
  while (st.Step()) out.insert({std::string(st.Text(0)), st.Int(1)});
  return out;
}

// The JSON of a chunk, as a device sends it.
std::string Chunk(const DeviceFile& f, std::int64_t offset, const std::string& data,
                  std::string device = "") {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  if (!device.empty()) {
    w.Key("device");
    w.String(device.c_str());
  }
  w.Key("source");
  w.String(f.source.c_str());
  w.Key("path");
  w.String(f.path.c_str());
  w.Key("relPath");
  w.String(f.key.c_str());
  w.Key("generation");
  w.Int64(f.generation);
  w.Key("offset");
  w.Int64(offset);
  w.Key("mtimeMs");
  w.Int64(1767607200000);
  w.Key("agentVersion");
  w.String("2.0.1");
  w.Key("data");
  const std::string b64 = proto::Base64Encode(data);
  w.String(b64.c_str(), static_cast<rapidjson::SizeType>(b64.size()));
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

// A push of `body`, encoded by `coding` ("gzip", "zstd"; none when empty).
HttpReply Push(int port, const std::string& token, const std::string& body,
               const std::string& coding = "") {
  auto headers = Auth(token, {{"Content-Type", "application/json"}});
  if (!coding.empty()) headers.emplace("Content-Encoding", coding);
  return Http(port, "POST", "/v1/ingest", headers,
              coding == "gzip"   ? Gzip(body)
              : coding == "zstd" ? Zstd(body)
                                 : body);
}

// An entry as a device pushes it (spec: HTTP interface, POST /v1/entries).
std::string EntryJson(const std::string& id, const std::string& text,
                      const std::vector<std::string>& events, const std::string& origin = "laptop",
                      const std::string& supersedes = "", std::int64_t created_at = 1767607300000) {
  std::string sources;
  for (const std::string& e : events)
    sources += std::string(sources.empty() ? "" : ",") + R"({"eventId":")" + e + R"(","quote":null})";
  return R"({"id":")" + id + R"(","kind":"knowledge","text":")" + text +
         R"(","confidence":0.9,"author":"claude-code@laptop","project":"app","supersedes":)" +
         (supersedes.empty() ? "null" : "\"" + supersedes + "\"") +
         R"(,"validFrom":null,"validTo":null,"createdAt":)" + std::to_string(created_at) +
         R"(,"origin":")" + origin + R"(","sources":[)" + sources + "]}";
}

HttpReply PushEntries(int port, const std::string& token, const std::vector<std::string>& entries) {
  std::string list;
  for (const std::string& e : entries) list += (list.empty() ? "" : ",") + e;
  return Http(port, "POST", "/v1/entries", Auth(token, {{"Content-Type", "application/json"}}),
              R"({"device":"laptop","entries":[)" + list + "]}");
}

// The hub's visible entries, by id: their text and author.
std::map<std::string, std::pair<std::string, std::string>> VisibleEntries(DaemonFixture& f) {
  RunResult r = f.Cli({"entries", "--json"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::map<std::string, std::pair<std::string, std::string>> out;
  const rapidjson::Document d = Json(r.out);
  for (const auto& e : d["entries"].GetArray())
    out[e["id"].GetString()] = {e["text"].GetString(), e["author"].GetString()};
  return out;
}

}  // namespace

TEST_SUITE("hub") {

TEST_CASE("hub: a device's mirrors pushed to /v1/ingest give the hub the device's events, "
          "under the same ids, with provenance to the same lines") {
  // The device: its own store, ingesting its agents' logs as ever.
  DaemonFixture dev;
  std::string log;
  for (int i = 0; i < 6; ++i)
    log += ClaudeLine("u" + std::to_string(i), "replicated line " + std::to_string(i) +
                                                   (i == 3 ? " about zstd frames" : ""));
  WriteFile(dev.claude() + "/projects/app/s1.jsonl", log);
  dev.Start();
  REQUIRE(dev.WaitFor([&] { return dev.Events() == 6; }));
  dev.Stop();
  const std::vector<DeviceFile> files = DeviceFiles(dev.home());
  REQUIRE(files.size() == 1);
  const DeviceFile& file = files[0];
  const std::string content = MirrorContents(dev.home())[file.mirror];
  REQUIRE(content == log);

  DaemonFixture hub;
  const int port = StartHub(hub);
  const std::string token = NewToken(hub, "laptop");

  HttpReply who = Http(port, "GET", "/v1/device", Auth(token));
  REQUIRE_MESSAGE(who.status == 200, who.raw);
  CHECK(std::string(Json(who.body)["device"].GetString()) == "laptop");
  CHECK(std::string(Json(who.body)["hub"].GetString()) == "hub");
  HttpReply none = Http(port, "GET", "/v1/cursors?device=laptop", Auth(token));
  REQUIRE(none.status == 200);
  CHECK(Json(none.body)["cursors"].Size() == 0);

  // Two chunks of whole lines: the first gzip-encoded, the second
  // zstd-encoded (what a device sends).
  const std::size_t cut = log.find('\n', log.size() / 2) + 1;
  HttpReply first = Push(port, token, Chunk(file, 0, log.substr(0, cut), "laptop"), "gzip");
  REQUIRE_MESSAGE(first.status == 200, first.raw);
  CHECK(Json(first.body)["bytes"].GetInt64() == static_cast<std::int64_t>(cut));
  const std::int64_t first_events = Json(first.body)["eventsAdded"].GetInt64();
  CHECK(first_events > 0);
  // Sent again (an answer lost on the way): refused with the cursor,
  // nothing doubled; the device resumes from there.
  HttpReply again = Push(port, token, Chunk(file, 0, log.substr(0, cut)), "gzip");
  CHECK(again.status == 409);
  CHECK(Json(again.body)["bytes"].GetInt64() == static_cast<std::int64_t>(cut));
  CHECK(Push(port, token, Chunk(file, static_cast<std::int64_t>(cut) + 10, "x\n")).status == 409);
  HttpReply second =
      Push(port, token, Chunk(file, static_cast<std::int64_t>(cut), log.substr(cut)), "zstd");
  REQUIRE_MESSAGE(second.status == 200, second.raw);
  CHECK(Json(second.body)["bytes"].GetInt64() == static_cast<std::int64_t>(log.size()));
  CHECK(first_events + Json(second.body)["eventsAdded"].GetInt64() == 6);

  HttpReply cursors = Http(port, "GET", "/v1/cursors", Auth(token));
  REQUIRE(cursors.status == 200);
  const auto listed = Json(cursors.body);
  REQUIRE(listed["cursors"].Size() == 1);
  const auto& c = listed["cursors"][0];
  CHECK(std::string(c["source"].GetString()) == "claude-code");
  CHECK(std::string(c["relPath"].GetString()) == file.key);
  CHECK(std::string(c["path"].GetString()) == file.path);
  CHECK(c["generation"].GetInt64() == 1);
  CHECK(c["bytes"].GetInt64() == static_cast<std::int64_t>(log.size()));
  CHECK(c["lines"].GetInt64() == 6);

  // Found through the hub's /mcp, and its provenance is the device's line.
  const std::string search =
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"zstd frames"}}})";
  HttpReply found = Http(port, "POST", "/mcp", McpHeaders(token), search);
  REQUIRE(found.status == 200);
  CHECK(found.body.find("replicated line 3") != std::string::npos);
  RunResult sources = hub.Cli({"sources", "claude-code:u3", "--json"});
  REQUIRE_MESSAGE(sources.status == 0, sources.err);
  CHECK(sources.out.find("replicated line 3 about zstd frames") != std::string::npos);
  hub.Stop();

  // The same ids, from the same lines; the hub's mirror holds the same
  // bytes, under the device's directory.
  CHECK(EventIds(hub.home()) == EventIds(dev.home()));
  const std::string mirror = "devices/laptop/claude-code/" + file.key;
  const auto hub_mirrors = MirrorContents(hub.home());
  REQUIRE(hub_mirrors.count(mirror) == 1);
  CHECK(hub_mirrors.at(mirror) == log);

  // A rewritten file's next generation is a file of its own, from offset 0.
  const int port2 = StartHub(hub);
  DeviceFile g2 = file;
  g2.generation = 2;
  CHECK(Json(Push(port2, token, Chunk(g2, 5, "x\n")).body)["bytes"].GetInt64() == 0);
  const std::string rewritten = ClaudeLine("u9", "after the rewrite");
  HttpReply g2r = Push(port2, token, Chunk(g2, 0, rewritten));
  REQUIRE_MESSAGE(g2r.status == 200, g2r.raw);
  CHECK(Json(g2r.body)["eventsAdded"].GetInt64() == 1);
  const auto both = Json(Http(port2, "GET", "/v1/cursors", Auth(token)).body);
  REQUIRE(both["cursors"].Size() == 2);
  CHECK(both["cursors"][1]["generation"].GetInt64() == 2);
  CHECK(both["cursors"][1]["bytes"].GetInt64() == static_cast<std::int64_t>(rewritten.size()));
  hub.Stop();
  CHECK(MirrorContents(hub.home()).at(mirror + "~g2") == rewritten);
}

TEST_CASE("hub: every replication request that should be refused is, with its status, "
          "and writes nothing") {
  DaemonFixture hub;
  const int port = StartHub(hub);
  const std::string token = NewToken(hub, "laptop");
  const std::string revoked = NewToken(hub, "old");
  REQUIRE(hub.Cli({"token", "revoke", "old"}).status == 0);
  const std::string hubs_own = NewToken(hub, "hub");
  const DeviceFile file{"claude-code", "projects/app/s1.jsonl", "/home/u/.claude/projects/app/s1.jsonl",
                        "", 1};
  const std::string line = ClaudeLine("u1", "a line that must not land");
  const std::string ok = Chunk(file, 0, line);

  // Tokens: none, unknown, revoked, one named like the hub.
  for (const char* path : {"/v1/device", "/v1/cursors"}) {
    HttpReply r = Http(port, "GET", path, Auth(""));
    CHECK(r.status == 401);
    CHECK(r.headers["www-authenticate"].rfind("Bearer", 0) == 0);
    CHECK(Http(port, "GET", path, Auth(revoked)).status == 401);
    CHECK(Http(port, "GET", path, Auth("ogn_" + std::string(48, 'a'))).status == 401);
    CHECK(Http(port, "GET", path, Auth(hubs_own)).status == 403);
  }
  CHECK(Push(port, "", ok).status == 401);
  CHECK(Push(port, revoked, ok).status == 401);
  CHECK(Push(port, hubs_own, ok).status == 403);
  // Another device, named in the query or the body: 403 with the token's.
  HttpReply other = Http(port, "GET", "/v1/cursors?device=desktop", Auth(token));
  CHECK(other.status == 403);
  CHECK(std::string(Json(other.body)["device"].GetString()) == "laptop");
  HttpReply other_push = Push(port, token, Chunk(file, 0, line, "desktop"));
  CHECK(other_push.status == 403);
  CHECK(std::string(Json(other_push.body)["device"].GetString()) == "laptop");

  // Paths that would leave the device's directory, and other bad fields.
  for (const char* bad : {"../x.jsonl", "/etc/passwd", "a/../../b.jsonl", "a//b.jsonl", "./a.jsonl",
                          "@desktop:a.jsonl", ""}) {
    DeviceFile f = file;
    f.key = bad;
    HttpReply r = Push(port, token, Chunk(f, 0, line));
    CHECK_MESSAGE(r.status == 400, bad);
  }
  DeviceFile vim = file;
  vim.source = "vim";
  CHECK(Push(port, token, Chunk(vim, 0, line)).status == 400);
  DeviceFile g0 = file;
  g0.generation = 0;
  CHECK(Push(port, token, Chunk(g0, 0, line)).status == 400);
  CHECK(Push(port, token, Chunk(file, -1, line)).status == 400);
  // Whole lines only, and at most 1 MiB of them (one longer line is fine).
  CHECK(Push(port, token, Chunk(file, 0, line.substr(0, line.size() - 1))).status == 400);
  std::string many;
  while (many.size() <= (std::size_t{1} << 20)) many += line;
  CHECK(Push(port, token, Chunk(file, 0, many)).status == 400);
  std::string not_base64 = ok;
  not_base64.replace(not_base64.find("\"data\":\"") + 8, 4, "!!!!");
  CHECK(Push(port, token, not_base64).status == 400);
  // Bodies: malformed JSON, not an object, not JSON at all, an encoding
  // other than gzip and zstd, a broken gzip stream or zstd frame, a gzip or
  // zstd bomb, too large.
  CHECK(Push(port, token, "{\"source\":").status == 400);
  CHECK(Push(port, token, "[1,2]").status == 400);
  // A NUL after a whole chunk (the hub parses in place, where a NUL would
  // end the text), and one inside it.
  CHECK(Push(port, token, ok + std::string(1, '\0') + "x").status == 400);
  CHECK(Push(port, token, ok + std::string(1, '\0'), "zstd").status == 400);
  std::string nul_inside = ok;
  nul_inside[nul_inside.find("\"data\":\"") + 8] = '\0';
  CHECK(Push(port, token, nul_inside).status == 400);
  CHECK(Http(port, "POST", "/v1/ingest", Auth(token, {{"Content-Type", "text/plain"}}), ok).status == 415);
  CHECK(Http(port, "POST", "/v1/ingest",
             Auth(token, {{"Content-Type", "application/json"}, {"Content-Encoding", "br"}}), ok)
            .status == 415);
  const std::string gz = Gzip(ok);
  CHECK(Http(port, "POST", "/v1/ingest",
             Auth(token, {{"Content-Type", "application/json"}, {"Content-Encoding", "gzip"}}),
             gz.substr(0, gz.size() / 2))
            .status == 400);
  const std::string zs = Zstd(ok);
  CHECK(Http(port, "POST", "/v1/ingest",
             Auth(token, {{"Content-Type", "application/json"}, {"Content-Encoding", "zstd"}}),
             zs.substr(0, zs.size() / 2))
            .status == 400);
  const std::string bomb = "{\"data\":\"" + std::string(40 << 20, 'A') + "\"}";
  const std::string small = Gzip(bomb, 9);
  REQUIRE(small.size() < 200 * 1024);
  CHECK(Http(port, "POST", "/v1/ingest",
             Auth(token, {{"Content-Type", "application/json"}, {"Content-Encoding", "gzip"}}), small)
            .status == 413);
  const std::string zbomb = Zstd(bomb, 1);
  REQUIRE(zbomb.size() < 200 * 1024);
  CHECK(Http(port, "POST", "/v1/ingest",
             Auth(token, {{"Content-Type", "application/json"}, {"Content-Encoding", "zstd"}}),
             zbomb)
            .status == 413);
  CHECK(Push(port, token, std::string((25 << 20), ' ')).status == 413);
  // Methods, routes, origins.
  CHECK(Http(port, "GET", "/v1/ingest", Auth(token)).status == 405);
  CHECK(Http(port, "POST", "/v1/cursors", Auth(token, {{"Content-Type", "application/json"}}), "{}")
            .status == 405);
  CHECK(Http(port, "GET", "/v1/nothing", Auth(token)).status == 404);
  CHECK(Http(port, "GET", "/v1/device", Auth(token, {{"Origin", "https://evil.example.com"}})).status ==
        403);

  // Nothing of any of them was written: no file, no event, no mirror.
  HttpReply cursors = Http(port, "GET", "/v1/cursors", Auth(token));
  REQUIRE(cursors.status == 200);
  CHECK(Json(cursors.body)["cursors"].Size() == 0);
  CHECK(hub.Events() == 0);
  CHECK_FALSE(std::filesystem::exists(hub.home() + "/raw/devices"));
  // And the one good request still lands.
  CHECK(Push(port, token, ok).status == 200);
  CHECK(hub.Events() == 1);
  hub.Stop();
}

TEST_CASE("hub: a device's entries pushed to /v1/entries keep their ids and authors; "
          "they wait for their events, and arrive hidden where a forget covers them") {
  DaemonFixture hub;
  std::string log;
  for (int i = 0; i < 4; ++i) log += ClaudeLine("u" + std::to_string(i), "entry source " + std::to_string(i));
  const int port = StartHub(hub);
  const std::string token = NewToken(hub, "laptop");
  const DeviceFile file{"claude-code", "projects/app/s1.jsonl", "/home/u/.claude/projects/app/s1.jsonl",
                        "", 1};
  REQUIRE(Push(port, token, Chunk(file, 0, log)).status == 200);

  const std::string e1 = EntryJson("ent_a1", "The store is SQLite", {"claude-code:u1"});
  HttpReply first = PushEntries(port, token, {e1});
  REQUIRE_MESSAGE(first.status == 200, first.raw);
  CHECK(Json(first.body)["applied"].GetInt64() == 1);
  CHECK(Json(first.body)["pending"].IsNull());
  auto visible = VisibleEntries(hub);
  REQUIRE(visible.count("ent_a1") == 1);
  CHECK(visible["ent_a1"].second == "claude-code@laptop");  // the device's author, kept
  // Sent twice: applied, nothing doubled; another body under its id: 409.
  CHECK(Json(PushEntries(port, token, {e1}).body)["applied"].GetInt64() == 1);
  CHECK(VisibleEntries(hub).size() == 1);
  HttpReply other = PushEntries(port, token, {EntryJson("ent_a1", "Another text", {"claude-code:u1"})});
  CHECK(other.status == 409);
  CHECK(other.body.find("ent_a1") != std::string::npos);

  // An entry whose event is not here yet: pending, and what follows waits.
  const std::string early = EntryJson("ent_b1", "Cites a line not pushed yet", {"claude-code:u9"});
  const std::string after = EntryJson("ent_b2", "Comes after it", {"claude-code:u2"});
  HttpReply waits = PushEntries(port, token, {early, after});
  REQUIRE(waits.status == 200);
  CHECK(Json(waits.body)["applied"].GetInt64() == 0);
  CHECK(std::string(Json(waits.body)["pending"]["id"].GetString()) == "ent_b1");
  CHECK(std::string(Json(waits.body)["pending"]["missing"][0].GetString()) == "claude-code:u9");
  CHECK(VisibleEntries(hub).count("ent_b2") == 0);
  // Once the line is pushed, the same request goes through.
  REQUIRE(Push(port, token, Chunk(file, static_cast<std::int64_t>(log.size()),
                                  ClaudeLine("u9", "pushed later"))).status == 200);
  HttpReply resumed = PushEntries(port, token, {early, after});
  REQUIRE_MESSAGE(resumed.status == 200, resumed.raw);
  CHECK(Json(resumed.body)["applied"].GetInt64() == 2);
  CHECK(Json(resumed.body)["pending"].IsNull());

  // A correction supersedes its version; one whose version is missing waits.
  const std::string fix = EntryJson("ent_a2", "The store is one SQLite file", {"claude-code:u1"},
                                    "laptop", "ent_a1", 1767607400000);
  HttpReply c2 = PushEntries(port, token, {EntryJson("ent_c2", "x", {"claude-code:u1"}, "laptop", "ent_c1")});
  REQUIRE_MESSAGE(c2.status == 200, c2.raw);
  CHECK(std::string(Json(c2.body)["pending"]["missing"][0].GetString()) == "ent_c1");
  HttpReply fixed = PushEntries(port, token, {fix});
  REQUIRE_MESSAGE(fixed.status == 200, fixed.raw);
  CHECK(Json(fixed.body)["applied"].GetInt64() == 1);
  visible = VisibleEntries(hub);
  CHECK(visible.count("ent_a1") == 0);  // superseded
  CHECK(visible["ent_a2"].first == "The store is one SQLite file");

  // Forgotten on the hub before it arrives: hidden on arrival (rule 2).
  REQUIRE(hub.Cli({"forget", "claude-code:u3", "--reason", "a secret", "--yes"}).status == 0);
  HttpReply hidden = PushEntries(port, token, {EntryJson("ent_d1", "Cites the forgotten line",
                                                         {"claude-code:u3"})});
  REQUIRE_MESSAGE(hidden.status == 200, hidden.raw);
  CHECK(Json(hidden.body)["applied"].GetInt64() == 1);
  CHECK(VisibleEntries(hub).count("ent_d1") == 0);
  // Citing it beside a visible line: still hidden, as a chain citing a
  // forgotten event is (rule 2).
  PushEntries(port, token, {EntryJson("ent_d2", "Cites both", {"claude-code:u3", "claude-code:u2"})});
  CHECK(VisibleEntries(hub).count("ent_d2") == 0);

  // Refused, with nothing stored: another store's record, bad fields.
  HttpReply foreign = PushEntries(port, token, {EntryJson("ent_e1", "Not mine", {"claude-code:u1"}, "desktop")});
  CHECK(foreign.status == 403);
  CHECK(std::string(Json(foreign.body)["device"].GetString()) == "laptop");
  CHECK(PushEntries(port, token, {EntryJson("ent_e2", "No source", {})}).status == 400);
  CHECK(PushEntries(port, token, {EntryJson("bad id", "Bad id", {"claude-code:u1"})}).status == 400);
  std::string bad_kind = EntryJson("ent_e3", "Bad kind", {"claude-code:u1"});
  bad_kind.replace(bad_kind.find("knowledge"), 9, "opinion");
  CHECK(PushEntries(port, token, {bad_kind}).status == 400);
  std::vector<std::string> many(1001, EntryJson("ent_e4", "Many", {"claude-code:u1"}));
  CHECK(PushEntries(port, token, many).status == 400);
  CHECK(Http(port, "POST", "/v1/entries", Auth(token, {{"Content-Type", "application/json"}}),
             R"({"device":"desktop","entries":[]})").status == 403);
  visible = VisibleEntries(hub);
  for (const char* id : {"ent_e1", "ent_e2", "ent_e3", "ent_e4"}) CHECK(visible.count(id) == 0);
  hub.Stop();
}

}  // TEST_SUITE

}  // namespace origin::test
