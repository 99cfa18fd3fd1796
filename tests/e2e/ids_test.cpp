// SPDX-License-Identifier: MIT
// Ids people type, end to end through the CLI and the daemon's one resolver
// (core/query/ids.hpp): short references shown in human output and taken
// back, prefixes, a session's bare UUID, ambiguity (exit 2, the candidates
// listed), `--json` keeping full ids; and forgetting a whole session: the
// plan (--dry-run), lines that arrive later, a daemon restart, and the
// restore (invariant 2: what was forgotten never shows, and it sticks).
#include <doctest/doctest.h>

#include "tests/e2e/daemon_fixture.hpp"

using namespace origin;
using namespace origin::test;

namespace {

const std::string kSessA = "4f0c2a91-7a3e-4d5b-9c1e-2b8f6a0d3e71";
const std::string kSessB = "77e0c3d2-1b2c-4d3e-8f40-5a6b7c8d9e0f";
const std::map<std::string, std::string> plain = {{"NO_COLOR", "1"}};

// Session A (events a1, a2) and session B (b1) of Claude Code; the daemon
// started on them.  Returns A's log.
std::string TwoSessions(DaemonFixture& f, const std::string& a1, const std::string& a2,
                        const std::string& b1) {
  const std::string a = f.claude() + "/projects/-home-dev-app/" + kSessA + ".jsonl";
  WriteFile(a, ClaudeLine("a1", a1, kSessA) + ClaudeLine("a2", a2, kSessA));
  WriteFile(f.claude() + "/projects/-home-dev-app/" + kSessB + ".jsonl", ClaudeLine("b1", b1, kSessB));
  f.Start({"--rescan-ms", "600000"});
  return a;
}

}  // namespace

TEST_SUITE("e2e-ids") {
  TEST_CASE("e2e: short references in human output, taken wherever an id is; prefixes, bare session UUIDs, ambiguity") {
    DaemonFixture f;
    const std::string a = TwoSessions(f, "alpha one", "alpha two", "beta one");
    // A session's bare UUID, and a prefix of it, name the session.
    RunResult r = f.Cli({"timeline", kSessA, "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    auto d = Json(r.out);
    CHECK(std::string(d["session"]["id"].GetString()) == "claude-code:" + kSessA);
    REQUIRE(d["events"].Size() == 2);
    // --json keeps full ids, with the reference beside each.
    const std::string ev = d["events"][0]["id"].GetString();
    const std::string ref = d["events"][0]["ref"].GetString();
    const std::string sref = d["session"]["ref"].GetString();
    CHECK(ev == "claude-code:a1");
    CHECK(ref.size() >= 5);
    CHECK(Json(f.Cli({"timeline", kSessA.substr(0, 8), "--json"}).out)["events"].Size() == 2);
    // Human output shows the references: the session's and each event's.
    r = f.Cli({"timeline", kSessA}, plain);
    REQUIRE(r.status == 0);
    CHECK(r.out.find(sref) != std::string::npos);
    CHECK(r.out.find(ref + "  ") != std::string::npos);
    r = f.Cli({"timeline", "--days", "100000"}, plain);
    CHECK(r.out.find("REF") != std::string::npos);
    CHECK(r.out.find(sref) != std::string::npos);
    r = f.Cli({"search", "alpha"}, plain);
    CHECK(r.out.find(ref) != std::string::npos);
    // The reference, a prefix of it, the full id and a prefix of the id all
    // name the event, in show and sources.
    for (const std::string& given : {ref, ref.substr(0, 4), ev, std::string("claude-code:a1")}) {
      CAPTURE(given);
      d = Json(f.Cli({"show", given, "--json"}).out);
      CHECK(std::string(d["event"]["id"].GetString()) == ev);
    }
    CHECK(f.Cli({"sources", ref}).status == 0);
    r = f.Cli({"show", ref}, plain);
    CHECK(r.out.find(ref + "  claude-code:a1") != std::string::npos);
    // remember --cite and correct take references too; the entry gets one.
    r = f.Cli({"remember", "alpha is first", "--kind", "knowledge", "--confidence", "1", "--cite",
               ref, "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    d = Json(r.out);
    const std::string entry = d["entry"]["id"].GetString(), eref = d["entry"]["ref"].GetString();
    CHECK(std::string(d["entry"]["sources"][0]["event_id"].GetString()) == ev);
    r = f.Cli({"correct", eref, "alpha is the first", "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(std::string(Json(r.out)["entry"]["supersedes"].GetString()) == entry);
    r = f.Cli({"entries"}, plain);
    CHECK(r.out.find("alpha is the first") != std::string::npos);
    // Ambiguous: exit 2, the candidates listed with their references.
    r = f.Cli({"show", "claude-code:a"});
    CHECK(r.status == 2);
    CHECK(r.err.find("ambiguous") != std::string::npos);
    CHECK(r.err.find("claude-code:a1") != std::string::npos);
    CHECK(r.err.find("claude-code:a2") != std::string::npos);
    CHECK(r.err.find(ref) != std::string::npos);
    // Too short, unknown, of a kind the command does not take.
    r = f.Cli({"show", "abc"});
    CHECK(r.status == 2);
    CHECK(r.err.find("at least 4 characters") != std::string::npos);
    CHECK(f.Cli({"show", "zzzzzzzz"}).status == 4);
    r = f.Cli({"show", kSessA});
    CHECK(r.status == 2);
    CHECK(r.err.find("names a session") != std::string::npos);
    CHECK(f.Cli({"timeline", ref}).status == 2);  // an event, not a session
    f.Stop();
  }

  TEST_CASE("e2e: forgetting a whole session by its bare UUID hides lines that arrive later, across a restart, until the restore (invariant 2)") {
    DaemonFixture f;
    const std::string a = TwoSessions(f, "gamma one", "gamma two", "gamma other");
    auto hits = [&](const char* word) {
      auto d = Json(f.Cli({"search", word, "--json", "--scope", "events"}).out);
      return d["events"].Size();
    };
    REQUIRE(hits("gamma") == 3);
    // The plan: what it would hide, and that later lines will be too.
    RunResult r = f.Cli({"forget", kSessA, "--reason", "private", "--dry-run"}, plain);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out.find("will hide 0 entry versions and 2 events in 1 session") != std::string::npos);
    CHECK(r.out.find("every line that arrives in this session later") != std::string::npos);
    CHECK(hits("gamma") == 3);
    CHECK(f.Cli({"forget", kSessA, "--reason", "private", "--dry-run", "--yes"}).status == 2);
    r = f.Cli({"forget", kSessA, "--reason", "private", "--yes", "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    auto d = Json(r.out);
    CHECK(std::string(d["target"].GetString()) == "claude-code:" + kSessA);
    CHECK(std::string(d["target_kind"].GetString()) == "session");
    const std::string tmb = d["tombstone"].GetString();
    CHECK(hits("gamma") == 1);
    CHECK(f.Cli({"timeline", "claude-code:" + kSessA}).status == 4);
    // A line that arrives later in the session stays hidden.
    AppendFile(a, ClaudeLine("a3", "gamma late", kSessA));
    REQUIRE(f.Cli({"sync"}).status == 0);
    CHECK(hits("gamma") == 1);
    CHECK(f.Cli({"show", "claude-code:a3"}).status == 4);
    r = f.Cli({"timeline", "--days", "100000"}, plain);
    CHECK(r.out.find(kSessA) == std::string::npos);
    // And after a restart.
    f.Stop();
    AppendFile(a, ClaudeLine("a4", "gamma later", kSessA));
    f.Start({"--rescan-ms", "600000"});
    REQUIRE(f.Cli({"sync"}).status == 0);
    CHECK(hits("gamma") == 1);
    CHECK(f.Cli({"show", "claude-code:a4"}).status == 4);
    // Forgetting it again records nothing.
    r = f.Cli({"forget", "claude-code:" + kSessA, "--reason", "again", "--yes"}, plain);
    CHECK(r.out.find("Nothing new to hide") != std::string::npos);
    // The restore, by the forget's reference, brings all of it back.
    d = Json(f.Cli({"forgotten", "--json"}).out);
    const std::string tref = d["tombstones"][0]["ref"].GetString();
    r = f.Cli({"restore", tref, "--reason", "fine", "--yes"}, plain);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out.find(tmb) != std::string::npos);
    CHECK(hits("gamma") == 5);
    f.Stop();
  }
}
