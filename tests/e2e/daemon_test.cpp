// SPDX-License-Identifier: MIT
// End to end: a real originsd and the real origin CLI on a temporary home.
#include <doctest/doctest.h>
#include <poll.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/e2e/daemon_fixture.hpp"

using namespace origin;
using namespace origin::test;

TEST_SUITE("e2e") {
  TEST_CASE("e2e: lines appended to a watched log are counted by origin status") {
    DaemonFixture f;
    const std::string file = f.claude() + "/projects/-home-dev-app/s1.jsonl";
    WriteFile(file, ClaudeLine("u1", "first"));
    // No rescan during the test: only the watcher can see what follows.
    f.Start({"--rescan-ms", "600000"});
    CHECK(f.Events("claude-code") == 1);  // status waits for the first sync
    AppendFile(file, ClaudeLine("u2", "second"));
    CHECK(f.WaitFor([&] { return f.Events("claude-code") == 2; }));
    SUBCASE("a new project directory is picked up") {
      WriteFile(f.claude() + "/projects/-home-dev-other/s2.jsonl", ClaudeLine("u3", "other", "s2"));
      CHECK(f.WaitFor([&] { return f.Events("claude-code") == 3; }));
      AppendFile(f.claude() + "/projects/-home-dev-other/s2.jsonl", ClaudeLine("u4", "more", "s2"));
      CHECK(f.WaitFor([&] { return f.Events("claude-code") == 4; }));
    }
    SUBCASE("a Codex home created after the start is found by the rescan") {
      f.Stop();
      std::filesystem::remove_all(f.codex());
      f.Start({"--rescan-ms", "100"});
      WriteFile(
          f.codex() +
              "/sessions/2026/02/01/"
              "rollout-2026-02-01T09-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl",
          R"({"timestamp":"2026-02-01T09:00:00.020Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}})"
          "\n");
      CHECK(f.WaitFor([&] { return f.Events("codex") == 1; }));
    }
    auto st = Json(f.Cli({"status", "--json"}).out);
    CHECK(st["daemon"]["store"] == "testbox");
    CHECK(st["sources"][0]["agent_version"] == "2.1.12");
    CHECK(st["store"]["mirror_content_bytes"].GetInt64() > 0);
    f.Stop();
  }

  TEST_CASE("e2e: a memory file an agent writes is mirrored and found, and so is its deletion") {
    DaemonFixture f;
    const std::string project = f.claude() + "/projects/-home-dev-app";
    WriteFile(project + "/s1.jsonl", ClaudeLine("u1", "first"));
    std::filesystem::create_directories(project + "/memory");
    f.Start({"--rescan-ms", "600000"});
    // Written while the daemon watches: the watcher brings it in.
    WriteFile(project + "/memory/feedback_tests.md",
              "---\ntype: feedback\n---\nRun the tests with ctest, never make test.\n");
    auto found = [&](const char* op) {
      auto r = f.Cli({"search", "--all", "--json", "ctest"});
      if (r.status != 0) return false;
      auto d = Json(r.out);
      for (const auto& e : d["events"].GetArray())
        if (std::string(e["kind"].GetString()) == "memory" &&
            std::string(e["call_id"].GetString()) == op)
          return true;
      return false;
    };
    CHECK(f.WaitFor([&] { return found("write"); }));
    // Deleted: a line of its own in the stream's mirror, an event with no
    // text; the version written before stays (invariant 3).
    std::filesystem::remove(project + "/memory/feedback_tests.md");
    const std::string mirror = f.home() + "/raw/claude-code/memory/-home-dev-app.jsonl.tail";
    CHECK(f.WaitFor([&] {
      return std::filesystem::exists(mirror) &&
             ReadAll(mirror).find("\"op\":\"delete\"") != std::string::npos;
    }));
    CHECK(found("write"));
    f.Stop();
  }

  TEST_CASE("e2e: a Grok Build session and a ZCode memory arrive while the daemon watches") {
    DaemonFixture f;
    f.Start({"--rescan-ms", "600000"});
    // Written after the start, under roots that did not exist then:
    // origin sync finds them (the rescan is off).
    const std::string s =
        f.grok() + "/sessions/%2Fhome%2Fdev%2Fapp/019f75d0-0000-7000-8000-0000000000bb";
    WriteFile(
        s + "/updates.jsonl",
        R"({"params":{"sessionId":"x","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"quokka deploy"}},"_meta":{"eventId":"g1","agentTimestampMs":1767600000000}}})"
        "\n");
    WriteFile(f.zcode() + "/cli/memories/projects/app-0123456789abcdef/memory/project_x.md",
              "---\ntype: project\n---\nThe quokka service deploys on Fridays.\n");
    REQUIRE(f.Cli({"sync", "--json"}).status == 0);
    // The user's message is held until its run of chunks ends; the line
    // that ends it arrives through the watch the sync set up.
    AppendFile(
        s + "/updates.jsonl",
        R"({"params":{"sessionId":"x","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"On it."}},"_meta":{"eventId":"g2","agentTimestampMs":1767600001000}}})"
        "\n");
    CHECK(f.WaitFor([&] { return f.Events("grok") == 1; }));
    auto d = Json(f.Cli({"search", "--json", "quokka"}).out);
    REQUIRE(d["events"].Size() == 1);
    CHECK(std::string(d["events"][0]["id"].GetString()) == "grok:g1");
    REQUIRE(d["entries"].Size() == 1);
    CHECK(std::string(d["entries"][0]["author"].GetString()) == "zcode@testbox");
    CHECK(d["entries"][0]["imported"].GetBool());
    auto st = Json(f.Cli({"status", "--json"}).out);
    REQUIRE(st["sources"].Size() == 5);
    CHECK(std::string(st["sources"][4]["name"].GetString()) == "Grok Build");
    f.Stop();
  }

  TEST_CASE("e2e: a Cursor agent transcript arrives as Cursor writes it") {
    DaemonFixture f;
    f.Start({"--rescan-ms", "600000"});
    const std::string t = f.cursor() + "/projects/home-dev-app/agent-transcripts/c9/c9.jsonl";
    auto line = [](const std::string& role, const std::string& text) {
      return R"({"role":")" + role + R"(","message":{"content":[{"type":"text","text":")" + text +
             R"("}]}})";
    };
    // Cursor leaves the last line without its newline.
    WriteFile(t, line("user", "<user_query>why is the wombat cache cold?</user_query>"));
    REQUIRE(f.Cli({"sync", "--json"}).status == 0);
    CHECK(f.Events("cursor") == 1);
    // The next line, through the watch the sync set up.
    AppendFile(t, "\n" + line("assistant", "The wombat cache expires at midnight."));
    CHECK(f.WaitFor([&] { return f.Events("cursor") == 2; }));
    auto d = Json(f.Cli({"search", "--json", "wombat"}).out);
    CHECK(d["events"].Size() == 2);
    f.Stop();
  }

  TEST_CASE("e2e: origin sync ingests now and reports; status prints a table") {
    DaemonFixture f;
    f.Start({"--rescan-ms", "600000"});
    WriteFile(f.claude() + "/projects/p/s1.jsonl",
              ClaudeLine("u1", "a") + "not json\n" + ClaudeLine("u2", "b"));
    RunResult r = f.Cli({"sync", "--json"});
    REQUIRE(r.status == 0);
    auto d = Json(r.out);
    // The watcher may have been first: together they ingested both lines once.
    CHECK(f.Events("claude-code") == 2);
    r = f.Cli({"sync"});
    CHECK(r.status == 0);
    CHECK(r.out.find("synced: 0 new events") == 0);
    r = f.Cli({"status"}, {{"NO_COLOR", "1"}});
    CHECK(r.status == 0);
    CHECK(r.out.find("Claude Code") != std::string::npos);
    CHECK(r.out.find("\033[") == std::string::npos);
    CHECK(r.out.find("SOURCE") != std::string::npos);
    auto st = Json(f.Cli({"status", "--json"}).out);
    CHECK(st["sources"][0]["parse_errors_7d"].GetInt64() == 1);
    // --source: one agent's logs only; an unknown one is a usage error.
    d = Json(f.Cli({"sync", "--source", "codex", "--json"}).out);
    REQUIRE(d["sources"].Size() == 1);
    CHECK(std::string(d["sources"][0]["source"].GetString()) == "codex");
    r = f.Cli({"sync", "--source", "vim"});
    CHECK(r.status == 2);
    CHECK(r.err.find("unknown source vim (claude-code, codex, cursor, zcode, grok)") !=
          std::string::npos);
    CHECK(f.Cli({"sync", "--days", "3"}).status == 2);
    f.Stop();
  }

  TEST_CASE("e2e: on a machine without agent logs, status says so") {
    DaemonFixture f;
    std::filesystem::remove_all(f.claude());
    std::filesystem::remove_all(f.codex());
    f.Start();
    RunResult r = f.Cli({"status"});
    CHECK(r.status == 0);
    CHECK(r.out.find("No agent logs found") != std::string::npos);
    f.Stop();
  }

  TEST_CASE("e2e: a second originsd on the same home is refused, naming the running one") {
    DaemonFixture f;
    f.Start();
    RunResult r = f.StartExpectingFailure();
    CHECK(r.status == 1);
    CHECK(r.err.find("already running") != std::string::npos);
    CHECK(r.err.find("pid " + std::to_string(f.pid())) != std::string::npos);
    CHECK(f.Cli({"status", "--json"}).status == 0);  // the first one is unharmed
    f.Stop();
  }

  TEST_CASE(
      "e2e: with its lock file removed, a second originsd is still refused; the first serves") {
    DaemonFixture f;
    f.Start();
    const std::string sock = f.home() + "/run/originsd.sock";
    struct stat before {};
    REQUIRE(::stat(sock.c_str(), &before) == 0);
    REQUIRE(::unlink((f.home() + "/run/originsd.lock").c_str()) == 0);
    RunResult r = f.StartExpectingFailure();
    CHECK(r.status == 1);
    CHECK(r.err.find("already running for " + f.home()) != std::string::npos);
    // The first one's socket is untouched, and it answers.
    struct stat after {};
    REQUIRE(::stat(sock.c_str(), &after) == 0);
    CHECK(after.st_ino == before.st_ino);
    CHECK(f.Cli({"status", "--json"}).status == 0);
    CHECK(f.running());
    f.Stop();
    CHECK_FALSE(Exists(sock));
  }

  TEST_CASE("e2e: a daemon whose socket is replaced or removed stops by itself, exiting 0") {
    DaemonFixture f;
    f.Start();
    const std::string sock = f.home() + "/run/originsd.sock";
    int other = -1;
    SUBCASE("replaced by another socket") {
      REQUIRE(::unlink(sock.c_str()) == 0);
      other = UnixSocket(sock, /*bind=*/true);
      REQUIRE(other >= 0);
    }
    SUBCASE("removed") { REQUIRE(::unlink(sock.c_str()) == 0); }
    struct stat theirs {};
    const bool replaced = other >= 0;
    if (replaced) REQUIRE(::stat(sock.c_str(), &theirs) == 0);
    auto status = f.WaitForExit(15);  // it looks every 2 s
    if (!status) f.DumpLog();
    REQUIRE_MESSAGE(status.has_value(), "originsd still runs with its socket gone");
    CHECK(*status == 0);
    const std::string log = ReadAll(f.log());
    CHECK(log.find(replaced ? "was replaced by another" : "was removed") != std::string::npos);
    if (replaced) {
      // It left the socket that replaced its own where it was.
      struct stat now {};
      REQUIRE(::stat(sock.c_str(), &now) == 0);
      CHECK(now.st_ino == theirs.st_ino);
      ::close(other);
    }
  }

  TEST_CASE("e2e: an ORIGIN_HOME that cannot be written is a clear error and a non-zero exit") {
    DaemonFixture f("/tmp");  // reachable by the ordinary user of the last subcase
    WriteFile(f.dir() / "afile", "x");
    SUBCASE("below a regular file") {
      f.env()["ORIGIN_HOME"] = f.dir() / "afile/home";
      RunResult r = f.StartExpectingFailure();
      CHECK(r.status == 1);
      CHECK(r.err.find("afile") != std::string::npos);
    }
    SUBCASE("a regular file itself") {
      f.env()["ORIGIN_HOME"] = f.dir() / "afile";
      RunResult r = f.StartExpectingFailure();
      CHECK(r.status == 1);
      CHECK(r.err.find("not a directory") != std::string::npos);
    }
    SUBCASE("a directory others can write") {
      MakeDirs(f.home(), 0700);
      ::chmod(f.home().c_str(), 0777);
      RunResult r = f.StartExpectingFailure();
      CHECK(r.status == 1);
      CHECK(r.err.find("chmod go-w") != std::string::npos);
    }
    SUBCASE("a read-only directory, for an ordinary user") {
      if (::geteuid() == 0) {
        ::chown(f.dir().path().c_str(), 65534, 65534);
        ::chmod(f.dir().path().c_str(), 0755);
        f.run_as = 65534;
      }
      MakeDirs(f.home(), 0700);
      if (::geteuid() == 0) ::chown(f.home().c_str(), 65534, 65534);
      ::chmod(f.home().c_str(), 0500);
      RunResult r = f.StartExpectingFailure();
      CHECK(r.status == 1);
      CHECK(r.err.find("cannot") != std::string::npos);
    }
  }

  TEST_CASE("e2e: the socket is the user's only, and SIGTERM exits 0 and removes it") {
    DaemonFixture f;
    f.Start();
    struct stat st {};
    REQUIRE(::stat((f.home() + "/run").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    REQUIRE(::stat((f.home() + "/run/originsd.sock").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    REQUIRE(::stat(f.home().c_str(), &st) == 0);
    CHECK((st.st_mode & 077) == 0);
    f.Stop();
    CHECK_FALSE(Exists(f.home() + "/run/originsd.sock"));
  }

  TEST_CASE("e2e: a stale socket is reclaimed by the daemon that holds the lock") {
    DaemonFixture f;
    MakeDirs(f.home() + "/run", 0700);
    // A socket left by a daemon that died: bound, never unlinked.
    int fd = UnixSocket(f.home() + "/run/originsd.sock", /*bind=*/true);
    REQUIRE(fd >= 0);
    ::close(fd);
    f.Start();
    CHECK(f.Cli({"status", "--json"}).status == 0);
    f.Stop();
  }

  TEST_CASE("e2e: origin starts the daemon when none answers, once even when two race") {
    DaemonFixture f;
    WriteFile(f.claude() + "/projects/p/s1.jsonl", ClaudeLine("u1", "a"));
    RunResult off = f.Cli({"status"});
    CHECK(off.status == 3);
    CHECK(off.err.find("no originsd answers") != std::string::npos);
    std::map<std::string, std::string> autostart = {{"ORIGIN_NO_AUTOSTART", "0"}};
    RunResult a, b;
    std::thread t([&] { a = f.Cli({"status", "--json"}, autostart); });
    b = f.Cli({"status", "--json"}, autostart);
    t.join();
    CHECK(a.status == 0);
    CHECK(b.status == 0);
    auto da = Json(a.out), db = Json(b.out);
    CHECK(da["daemon"]["pid"].GetInt64() == db["daemon"]["pid"].GetInt64());
    CHECK(da["sources"][0]["events"].GetInt64() == 1);
    pid_t pid = static_cast<pid_t>(da["daemon"]["pid"].GetInt64());
    ::kill(pid, SIGTERM);
    CHECK(f.WaitFor([&] { return ::kill(pid, 0) != 0; }));
  }

  TEST_CASE("e2e: the CLI's usage, version and exit codes") {
    DaemonFixture f;
    CHECK(f.Cli({"--version"}).out.find("origin 0.") == 0);
    CHECK(f.Cli({"--help"}).status == 0);
    CHECK(f.Cli({}).status == 2);
    RunResult r = f.Cli({"frobnicate"});
    CHECK(r.status == 2);
    CHECK(r.err.find("unknown command") != std::string::npos);
    CHECK(f.Cli({"status", "--bogus"}).status == 2);
  }

  TEST_CASE("e2e: a client speaking another protocol version gets an error, not a crash") {
    DaemonFixture f;
    f.Start();
    int fd = UnixSocket(f.home() + "/run/originsd.sock");
    REQUIRE(fd >= 0);
    std::string hello = "{\"proto\":2,\"client\":\"origin\"}\n";
    REQUIRE(::write(fd, hello.data(), hello.size()) == static_cast<ssize_t>(hello.size()));
    std::string got;
    char buf[512];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) got.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    CHECK(got.find("protocol version 2") != std::string::npos);
    // A request nested too deeply, or with an id that is not one, is refused.
    fd = UnixSocket(f.home() + "/run/originsd.sock");
    REQUIRE(fd >= 0);
    std::string msgs = "{\"proto\":1,\"client\":\"origin\"}\n{\"id\":" + std::string(200000, '[') +
                       "\n{\"id\":[1],\"method\":\"ping\"}\n{\"id\":7,\"method\":\"ping\"}\n";
    REQUIRE(::write(fd, msgs.data(), msgs.size()) == static_cast<ssize_t>(msgs.size()));
    got.clear();
    while (got.find("pong") == std::string::npos && (n = ::read(fd, buf, sizeof buf)) > 0)
      got.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    CHECK(got.find("nested too deeply") != std::string::npos);
    CHECK(got.find("a request id is a string or a number") != std::string::npos);
    CHECK(got.find("{\"id\":7,\"result\":{\"pong\":true}}") != std::string::npos);
    CHECK(f.Cli({"status", "--json"}).status == 0);
    f.Stop();
  }

  TEST_CASE("e2e: a log directory that cannot be read is reported in status; the rest goes on") {
    DaemonFixture f("/tmp");  // reachable by the ordinary user the daemon runs as
    WriteFile(f.claude() + "/projects/ok/s1.jsonl", ClaudeLine("u1", "fine"));
    WriteFile(f.claude() + "/projects/secret/s2.jsonl", ClaudeLine("u2", "hidden", "s2"));
    if (::geteuid() == 0) {
      // Root reads everything: run the daemon as an ordinary user.
      Sh("chown -R 65534:65534 '" + f.dir().path() + "'");
      ::chmod(f.dir().path().c_str(), 0755);
      f.run_as = 65534;
    }
    ::chmod((f.claude() + "/projects/secret").c_str(), 0);
    f.Start();
    auto st = Json(f.Cli({"status", "--json"}).out);
    const auto& claude = st["sources"][0];
    CHECK(claude["events"].GetInt64() == 1);
    REQUIRE(claude["problems"].Size() == 1);
    CHECK(std::string(claude["problems"][0]["path"].GetString()).find("secret") !=
          std::string::npos);
    RunResult r = f.Cli({"status"}, {{"NO_COLOR", "1"}});
    CHECK(r.out.find("secret") != std::string::npos);
    f.Stop();
    ::chmod((f.claude() + "/projects/secret").c_str(), 0755);
  }

  TEST_CASE("e2e: a daemon older than the client is asked to stop, and the new one started") {
    DaemonFixture f;
    MakeDirs(f.home() + "/run", 0700);
    const std::string sock = f.home() + "/run/originsd.sock";
    int lfd = UnixSocket(sock, /*bind=*/true);
    REQUIRE(lfd >= 0);
    REQUIRE(::listen(lfd, 4) == 0);
    std::string seen;
    // An "old daemon": answers the hello as version 0.0.1, then obeys shutdown.
    std::thread old([&] {
      int c = ::accept(lfd, nullptr, nullptr);
      auto read_line = [&] {
        std::string line;
        char ch;
        while (::read(c, &ch, 1) == 1 && ch != '\n') line += ch;
        return line;
      };
      seen += read_line() + "\n";
      std::string hello =
          "{\"proto\":1,\"daemon\":\"0.0.1\",\"store\":\"old\",\"mode\":\"device\",\"pid\":1}\n";
      (void)!::write(c, hello.data(), hello.size());
      seen += read_line() + "\n";
      std::string ok = "{\"id\":1,\"result\":{\"stopping\":true}}\n";
      (void)!::write(c, ok.data(), ok.size());
      ::unlink(sock.c_str());
      ::close(c);
      ::close(lfd);
    });
    RunResult r = f.Cli({"status", "--json"}, {{"ORIGIN_NO_AUTOSTART", "0"}});
    old.join();
    CHECK(seen.find("\"method\":\"shutdown\"") != std::string::npos);
    REQUIRE(r.status == 0);
    auto d = Json(r.out);
    CHECK(std::string(d["daemon"]["version"].GetString()) != "0.0.1");
    pid_t pid = static_cast<pid_t>(d["daemon"]["pid"].GetInt64());
    ::kill(pid, SIGTERM);
    CHECK(f.WaitFor([&] { return ::kill(pid, 0) != 0; }));
  }

  TEST_CASE("e2e: origin timeline, show and sources, and their bad input") {
    DaemonFixture f;
    const std::string file = f.claude() + "/projects/-home-dev-app/s1.jsonl";
    std::string l1 = ClaudeLine("u1", "first prompt");
    WriteFile(file, l1 + ClaudeLine("u2", "second"));
    f.Start({"--rescan-ms", "600000"});
    RunResult r = f.Cli({"timeline", "--days", "100000", "--json"});
    REQUIRE(r.status == 0);
    auto d = Json(r.out);
    REQUIRE(d["sessions"].Size() == 1);
    CHECK(std::string(d["sessions"][0]["prompt"].GetString()) == "first prompt");
    CHECK(std::string(d["sessions"][0]["last_time"].GetString()).rfind("2026-01-05T", 0) == 0);
    r = f.Cli({"timeline", "claude-code:s1", "--json"});
    REQUIRE(r.status == 0);
    CHECK(Json(r.out)["events"].Size() == 2);
    r = f.Cli({"timeline", "--since", "2026-01-01", "--until", "2026-01-10"}, {{"NO_COLOR", "1"}});
    CHECK(r.status == 0);
    CHECK(r.out.find("\"first prompt\"") != std::string::npos);
    r = f.Cli({"projects", "--json"});
    REQUIRE(r.status == 0);
    d = Json(r.out);
    REQUIRE(d["projects"].Size() == 1);
    CHECK(std::string(d["projects"][0]["project"].GetString()) == "app");
    CHECK(d["projects"][0]["events"].GetInt64() == 2);
    CHECK(f.Cli({"projects"}).out.find("app") != std::string::npos);
    r = f.Cli({"show", "claude-code:u1"});
    CHECK(r.status == 0);
    CHECK(r.out.find("first prompt") != std::string::npos);
    r = f.Cli({"sources", "claude-code:u1", "--json"});
    REQUIRE(r.status == 0);
    d = Json(r.out);
    CHECK(std::string(d["sources"][0]["raw"].GetString()) + "\n" == l1);
    CHECK(d["sources"][0]["line"].GetInt64() == 1);
    CHECK(std::string(d["sources"][0]["file"].GetString()) == file);

    // Unknown ids: a clear message and exit 4.
    for (const char* cmd : {"show", "sources"}) {
      r = f.Cli({cmd, "claude-code:nope"});
      CHECK(r.status == 4);
      CHECK(r.err.find("no event or entry claude-code:nope") != std::string::npos);
    }
    // A session's id: not an event, and where its events are (exit 2).
    for (const char* cmd : {"show", "sources"}) {
      r = f.Cli({cmd, "claude-code:s1"});
      CHECK(r.status == 2);
      CHECK_MESSAGE(r.err.find("claude-code:s1 is a session: an event or an entry is needed here, "
                               "and timeline lists the session's events") != std::string::npos,
                    r.err);
    }
    // An id of 100 KB: the same error, not echoed whole.
    r = f.Cli({"show", "claude-code:" + std::string(100000, 'z')});
    CHECK(r.status == 4);
    CHECK(r.err.find("no event or entry claude-code:zzz") != std::string::npos);
    CHECK(r.err.size() < 5000);
    r = f.Cli({"timeline", "claude-code:nope"});
    CHECK(r.status == 4);
    CHECK(r.err.find("no session") != std::string::npos);
    // Bad usage: exit 2, before or after reaching the daemon.
    CHECK(f.Cli({"show"}).status == 2);
    CHECK(f.Cli({"show", "a", "b"}).status == 2);
    CHECK(f.Cli({"timeline", "--days", "0"}).status == 2);
    CHECK(f.Cli({"timeline", "--since", "tomorrow"}).status == 2);
    r = f.Cli({"timeline", "--since", "2026-02-01", "--until", "2026-01-01"});
    CHECK(r.status == 2);
    CHECK(r.err.find("since is after until") != std::string::npos);
    CHECK(f.Cli({"show", "x", "--days", "3"}).status == 2);
    // Forgotten, the session is not told apart from an unknown id (invariant 2).
    REQUIRE(f.Cli({"forget", "claude-code:s1", "--reason", "gone", "--yes"}).status == 0);
    r = f.Cli({"show", "claude-code:s1"});
    CHECK(r.status == 4);
    CHECK_MESSAGE(r.err.find("no event or entry claude-code:s1") != std::string::npos, r.err);
    f.Stop();
  }

  TEST_CASE("e2e: a Cursor transcript's sources, a project by its first folder, a fork's parent") {
    // Issue 14, points 5, 8 and 9, as the CLI shows them: fixtures from
    // tests/fixtures (session_rules_test.cpp checks the rules themselves).
    namespace fs = std::filesystem;
    DaemonFixture f;
    const std::string fixtures = std::string(ORIGIN_SOURCE_DIR) + "/tests/fixtures/";
    const std::string id = "3d1f5b2a-6c7d-4e8f-9a0b-1c2d3e4f5a6b";
    const std::string rel =
        "projects/c-Users-name-Documents-shop-site/agent-transcripts/" + id + "/" + id + ".jsonl";
    const std::string transcript = f.cursor() + "/" + rel;
    WriteFile(transcript, ReadAll(fixtures + "cursor/" + rel));
    const std::string rollouts = "sessions/2026/02/01/";
    for (const char* r : {"rollout-2026-02-01T09-10-00-0599a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a60.jsonl",
                          "rollout-2026-02-01T11-00-00-0799a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a62.jsonl"})
      WriteFile(f.codex() + "/" + rollouts + r, ReadAll(fixtures + "codex/" + rollouts + r));
    f.Start({"--rescan-ms", "600000"});

    // sources of a transcript event: the transcript's own line first.
    RunResult r = f.Cli({"timeline", "cursor:" + id, "--json"});
    REQUIRE(r.status == 0);
    auto d = Json(r.out);
    std::string first;
    for (const auto& e : d["events"].GetArray())
      if (std::string(e["kind"].GetString()) == "message" && first.empty())
        first = e["id"].GetString();
    REQUIRE(!first.empty());
    r = f.Cli({"sources", first, "--json"});
    REQUIRE(r.status == 0);
    d = Json(r.out);
    const auto& src = d["sources"][0];
    CHECK(std::string(src["file"].GetString()) == transcript);
    CHECK(src["line"].GetInt64() == 1);
    const std::string text = ReadAll(transcript);
    CHECK(std::string(src["raw"].GetString()) == text.substr(0, text.find('\n')));
    CHECK(src["generated"]["line"].GetInt64() >= 1);
    r = f.Cli({"sources", first}, {{"NO_COLOR", "1"}});
    CHECK(r.out.rfind(transcript + ":1  (mirror ", 0) == 0);
    CHECK(r.out.find("generated line") != std::string::npos);

    // A project by the session's first working directory: its subfolders
    // are in it, and --project finds the session and its events there.
    r = f.Cli({"timeline", "--days", "100000", "--project", "shop", "--json"});
    REQUIRE(r.status == 0);
    d = Json(r.out);
    REQUIRE(d["sessions"].Size() == 1);
    CHECK(std::string(d["sessions"][0]["id"].GetString()) ==
          "codex:0799a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a62");
    r = f.Cli({"search", "discounts", "--project", "shop", "--json"});
    REQUIRE(r.status == 0);
    CHECK(Json(r.out)["events"].Size() == 1);
    CHECK(f.Cli({"search", "discounts", "--project", "src", "--json"}).out.find("discounts") ==
          std::string::npos);
    r = f.Cli({"timeline", "--days", "100000", "--project", "shop-site", "--json"});
    CHECK(Json(r.out)["sessions"].Size() == 1);

    // A Codex fork: linked to its parent, named by its own task.
    const std::string fork = "codex:0599a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a60";
    r = f.Cli({"timeline", fork, "--json"});
    REQUIRE(r.status == 0);
    d = Json(r.out);
    CHECK(std::string(d["session"]["parent"].GetString()) ==
          "codex:0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    CHECK(std::string(d["session"]["prompt"].GetString()) == "Check whether CI runs build.sh");
    r = f.Cli({"timeline", fork}, {{"NO_COLOR", "1"}});
    CHECK(r.out.find("forked from codex:0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b") !=
          std::string::npos);
    CHECK(r.out.find("COPIED-PARENT") == std::string::npos);

    // One transcript line gives the agent's text and its tool call: with the
    // text forgotten, the call's source still names the transcript's line,
    // without its bytes (invariant 2).
    std::string said, call;
    d = Json(f.Cli({"timeline", "cursor:" + id, "--all", "--json"}).out);
    for (const auto& e : d["events"].GetArray()) {
      const std::string kind = e["kind"].GetString();
      if (kind == "message" && std::string(e["text"].GetString()) == "Let me read the cart.")
        said = e["id"].GetString();
      if (kind == "tool_call" && call.empty()) call = e["id"].GetString();
    }
    REQUIRE(!said.empty());
    REQUIRE(!call.empty());
    REQUIRE(f.Cli({"forget", said, "--reason", "private", "--yes"}).status == 0);
    d = Json(f.Cli({"sources", call, "--json"}).out);
    const auto& held = d["sources"][0];
    CHECK(held.HasMember("withheld"));
    CHECK(std::string(held["raw"].GetString()).empty());
    CHECK(std::string(held["file"].GetString()) == transcript);
    CHECK(held["line"].GetInt64() == 2);
    REQUIRE(held.HasMember("generated"));
    CHECK(held["generated"]["line"].GetInt64() >= 1);
    CHECK(std::string(held["generated"]["raw"].GetString()).empty());
    f.Stop();
  }

  TEST_CASE(
      "e2e: origin remember, correct, entries, show and sources of an entry, and their bad input") {
    DaemonFixture f;
    std::string l1 = ClaudeLine("u1", "We chose SQLite for the store");
    WriteFile(f.claude() + "/projects/-home-dev-app/s1.jsonl", l1);
    f.Start({"--rescan-ms", "600000"});
    RunResult r = f.Cli({"remember", "The store is SQLite", "--kind", "knowledge", "--confidence",
                         "0.8", "--cite", "claude-code:u1", "--quote", "chose   sqlite", "--json"});
    REQUIRE(r.status == 0);
    auto d = Json(r.out);
    std::string id = d["entry"]["id"].GetString();
    CHECK(std::string(d["entry"]["author"].GetString()) == "user@testbox");
    CHECK(std::string(d["entry"]["origin"].GetString()) == "testbox");
    CHECK(d["entry"]["imported"].GetBool() == false);
    r = f.Cli({"correct", id, "The store is SQLite in WAL mode", "--confidence", "0.95", "--json"});
    REQUIRE(r.status == 0);
    std::string v2 = Json(r.out)["entry"]["id"].GetString();
    d = Json(f.Cli({"entries", "--json"}).out);
    REQUIRE(d["entries"].Size() == 1);
    CHECK(std::string(d["entries"][0]["id"].GetString()) == v2);
    CHECK(Json(f.Cli({"entries", "--history", "--json"}).out)["entries"].Size() == 2);
    // A quote alone cites the message that holds it.
    r = f.Cli({"remember", "SQLite again", "--kind", "memory", "--confidence", "0.5", "--quote",
               "CHOSE sqlite", "--json"});
    REQUIRE(r.status == 0);
    CHECK(std::string(Json(r.out)["entry"]["sources"][0]["event_id"].GetString()) ==
          "claude-code:u1");
    r = f.Cli(
        {"remember", "x", "--kind", "memory", "--confidence", "0.5", "--quote", "never said that"});
    CHECK(r.status == 4);
    CHECK(r.err.find("no message or tool result holds the quote") != std::string::npos);
    d = Json(f.Cli({"show", v2, "--json"}).out);
    CHECK(d["history"].Size() == 2);
    CHECK(std::string(d["history"][0]["status"].GetString()) == "superseded");
    d = Json(f.Cli({"sources", v2, "--json"}).out);
    REQUIRE(d["sources"].Size() == 1);
    CHECK(std::string(d["sources"][0]["raw"].GetString()) + "\n" == l1);  // invariant 1
    CHECK(f.Cli({"entries"}, {{"NO_COLOR", "1"}}).out.find("WAL mode") != std::string::npos);

    // Bad input: a clear message and a non-zero exit, and nothing written.
    auto fails = [&](std::vector<std::string> args, int code, const char* msg) {
      RunResult b = f.Cli(args);
      CHECK_MESSAGE(b.status == code, args[0] << " " << b.err);
      CHECK_MESSAGE(b.err.find(msg) != std::string::npos, b.err);
    };
    fails({"remember", "x", "--kind", "fact", "--confidence", "1", "--cite", "claude-code:u1"}, 2,
          "kind must be");
    fails({"remember", "x", "--kind", "memory", "--confidence", "2", "--cite", "claude-code:u1"}, 2,
          "confidence");
    fails({"remember", "x", "--kind", "memory", "--confidence", "high", "--cite", "claude-code:u1"},
          2, "--confidence takes");
    fails({"remember", "x", "--kind", "memory", "--confidence", "1"}, 2, "at least one source");
    fails({"remember", "x", "--kind", "memory", "--confidence", "1", "--cite", "claude-code:nope"},
          4, "no event");
    fails({"remember", "x", "--kind", "memory", "--confidence", "1", "--cite", "claude-code:u1",
           "--quote", "not in it"},
          2, "does not occur");
    fails({"remember"}, 2, "needs the entry's text");
    fails({"correct", id, "again"}, 1, "not the current version");
    fails({"correct", "ent_000000000000000000000000", "x"}, 4, "no entry");
    fails({"show", "ent_000000000000000000000000"}, 4, "no event or entry");
    fails({"entries", "--cite", "x"}, 2, "--cite is for correct and remember");
    fails({"timeline", "--history"}, 2, "--history is for entries and search");
    CHECK(Json(f.Cli({"entries", "--history", "--json"}).out)["entries"].Size() == 3);
    f.Stop();
  }

  TEST_CASE("e2e: origin search finds entries and events, and refuses bad input") {
    DaemonFixture f;
    WriteFile(f.claude() + "/projects/-home-dev-app/s1.jsonl",
              ClaudeLine("u1", "Deploy the catalog service to 生产环境") +
                  ClaudeLine("u2", "AI review of C# code"));
    f.Start({"--rescan-ms", "600000"});
    REQUIRE(f.Cli({"remember", "The catalog is deployed by CI", "--kind", "knowledge",
                   "--confidence", "0.7", "--cite", "claude-code:u1"})
                .status == 0);
    RunResult r = f.Cli({"search", "CATALOG", "--json"});
    REQUIRE(r.status == 0);
    auto d = Json(r.out);
    REQUIRE(d["entries"].Size() == 1);
    REQUIRE(d["events"].Size() == 1);
    CHECK(std::string(d["events"][0]["id"].GetString()) == "claude-code:u1");
    CHECK(std::string(d["events"][0]["snippet"].GetString()).find("[catalog]") !=
          std::string::npos);
    CHECK(std::string(d["entries"][0]["snippet"].GetString()).find("[catalog]") !=
          std::string::npos);
    d = Json(f.Cli({"search", "ai", "c#", "--scope", "events", "--json"}).out);
    REQUIRE(d["events"].Size() == 1);
    CHECK(d["entries"].Size() == 0);
    CHECK(std::string(d["events"][0]["id"].GetString()) == "claude-code:u2");
    d = Json(f.Cli({"search", "生产", "--recent", "--json"}).out);
    CHECK(d["events"].Size() == 1);
    r = f.Cli({"search", "catalog"}, {{"NO_COLOR", "1"}});
    CHECK(r.out.find("Entries") != std::string::npos);
    CHECK(r.out.find("Events") != std::string::npos);
    CHECK(f.Cli({"search", "nothing-like-this"}).out.find("Nothing found") != std::string::npos);
    auto fails = [&](std::vector<std::string> args, const char* msg) {
      RunResult b = f.Cli(args);
      CHECK_MESSAGE(b.status == 2, b.err);
      CHECK_MESSAGE(b.err.find(msg) != std::string::npos, b.err);
    };
    fails({"search", "x", "--scope", "all"}, "scope is both, entries or events");
    fails({"search", "x", "--kind", "fact"}, "kind is memory");
    fails({"search", "x", "--limit", "0"}, "--limit takes");
    fails({"search", "x", "--since", "2026-02-01", "--until", "2026-01-01"},
          "since is after until");
    fails({"search", "x", "--confidence", "1"}, "not an option of search");
    fails({"timeline", "--recent"}, "--recent is for search");
    f.Stop();
  }

  TEST_CASE(
      "e2e: origin forget and restore show what they will do, act only with --yes, and forgotten "
      "lists them (invariant 2)") {
    DaemonFixture f;
    std::string file = f.claude() + "/projects/-home-dev-app/s1.jsonl";
    WriteFile(file, ClaudeLine("u1", "my password is hunter2") +
                        ClaudeLine("u2", "deploy the hunter service"));
    f.Start({"--rescan-ms", "600000"});
    REQUIRE(f.Cli({"remember", "The password is hunter2", "--kind", "knowledge", "--confidence",
                   "1", "--cite", "claude-code:u1"})
                .status == 0);
    auto hits = [&](const char* word) {
      auto d = Json(f.Cli({"search", word, "--json"}).out);
      return d["entries"].Size() + d["events"].Size();
    };
    REQUIRE(hits("hunter2") == 2);
    // Without --yes: the plan, and nothing changes.
    RunResult r = f.Cli({"forget", "claude-code:u1", "--reason", "a secret"}, {{"NO_COLOR", "1"}});
    REQUIRE(r.status == 0);
    CHECK(r.out.find("will hide 1 entry version (1 entry) and 1 event in 1 session") !=
          std::string::npos);
    CHECK(r.out.find("--yes") != std::string::npos);
    CHECK(hits("hunter2") == 2);
    r = f.Cli({"forget", "claude-code:u1", "--reason", "a secret", "--yes", "--json"});
    REQUIRE(r.status == 0);
    auto d = Json(r.out);
    std::string tmb = d["tombstone"].GetString();
    CHECK(tmb.rfind("tmb_", 0) == 0);
    CHECK(hits("hunter2") == 0);
    CHECK(hits("hunter") == 1);  // u2 stays
    // A forgotten id is a clear error, everywhere.
    for (std::vector<std::string> args :
         {std::vector<std::string>{"show", "claude-code:u1"}, {"sources", "claude-code:u1"}}) {
      r = f.Cli(args);
      CHECK(r.status == 4);
      CHECK(r.err.find("forgotten") != std::string::npos);
    }
    r = f.Cli(
        {"remember", "x", "--kind", "memory", "--confidence", "1", "--cite", "claude-code:u1"});
    CHECK(r.status == 4);
    CHECK(r.err.find("cannot be cited") != std::string::npos);
    d = Json(f.Cli({"timeline", "--json", "--days", "100000"}).out);
    REQUIRE(d["sessions"].Size() == 1);
    CHECK(d["sessions"][0]["events"].GetInt64() == 1);  // session counts over visible events
    // Re-syncing a rewritten file brings nothing back.
    WriteFile(file, " " + ClaudeLine("u1", "my password is hunter2") +
                        ClaudeLine("u2", "deploy the hunter service"));
    REQUIRE(f.Cli({"sync"}).status == 0);
    CHECK(hits("hunter2") == 0);
    r = f.Cli({"forget", "claude-code:u1", "--reason", "again", "--yes"});
    CHECK(r.status == 0);
    CHECK(r.out.find("Nothing new to hide") != std::string::npos);
    r = f.Cli({"forgotten"}, {{"NO_COLOR", "1"}});
    CHECK(r.out.find(tmb) != std::string::npos);
    CHECK(r.out.find("in effect") != std::string::npos);
    CHECK(r.out.find("reason: a secret") != std::string::npos);
    // Restore: the plan first, then with --yes.
    r = f.Cli({"restore", tmb, "--reason", "not a secret after all"}, {{"NO_COLOR", "1"}});
    REQUIRE(r.status == 0);
    CHECK(r.out.find("will bring back 1 entry version (1 entry) and 1 event") != std::string::npos);
    CHECK(hits("hunter2") == 0);
    r = f.Cli({"restore", tmb, "--reason", "not a secret after all", "--yes"});
    REQUIRE(r.status == 0);
    CHECK(hits("hunter2") == 2);
    d = Json(f.Cli({"forgotten", "--json"}).out);
    REQUIRE(d["tombstones"].Size() == 2);
    CHECK(std::string(d["tombstones"][0]["kind"].GetString()) == "restore");
    CHECK(std::string(d["tombstones"][1]["author"].GetString()) == "user@testbox");
    CHECK(d["tombstones"][1]["in_effect"].GetBool() == false);
    // Bad input.
    auto fails = [&](std::vector<std::string> args, int code, const char* msg) {
      RunResult b = f.Cli(args);
      CHECK_MESSAGE(b.status == code, args[0] << " " << b.err);
      CHECK_MESSAGE(b.err.find(msg) != std::string::npos, b.err);
    };
    fails({"forget", "claude-code:u2"}, 2, "needs --reason");
    fails({"forget", "claude-code:u2", "--reason", "   ", "--yes"}, 2, "needs --reason");
    fails({"forget", "claude-code:nope", "--reason", "r"}, 4, "no event, entry or session");
    fails({"forget", tmb, "--reason", "r"}, 2, "is a tombstone");
    fails({"restore", tmb, "--reason", "r", "--yes"}, 1, "already restored");
    fails({"restore", "tmb_000000000000000000000000", "--reason", "r"}, 4, "no forget");
    fails({"restore", tmb}, 2, "needs --reason");
    fails({"search", "x", "--yes"}, 2, "--yes is for erase, forget and restore");
    fails({"forget"}, 2, "needs an id");
    fails({"forgotten", "--reason", "x"}, 2, "not an option of forgotten");
    f.Stop();
  }

  TEST_CASE("daemon: tells a service manager it is ready, and that it stops (sd_notify)") {
    DaemonFixture f;
    // systemd's side of the protocol: a datagram socket named by NOTIFY_SOCKET.
    const std::string path = f.dir().path() + "/notify.sock";
    int sock = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(sock >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(path.size() < sizeof addr.sun_path);
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    REQUIRE(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    auto next = [&] {
      pollfd p{sock, POLLIN, 0};
      REQUIRE_MESSAGE(::poll(&p, 1, 10000) == 1, "no notification within 10 s");
      char buf[512];
      ssize_t n = ::recv(sock, buf, sizeof buf, 0);
      REQUIRE(n > 0);
      return std::string(buf, static_cast<std::size_t>(n));
    };
    f.env()["NOTIFY_SOCKET"] = path;
    f.Start({"--rescan-ms", "600000"});
    const std::string ready = next();
    CHECK(ready.find("READY=1") != std::string::npos);
    CHECK(ready.find("MAINPID=" + std::to_string(f.pid())) != std::string::npos);
    // Ready means the socket answers.
    CHECK(f.Cli({"status", "--json"}).status == 0);
    f.Stop();
    CHECK(next() == "STOPPING=1");
    ::close(sock);
  }

  TEST_CASE(
      "e2e: origin stop stops the store's daemon and returns once it is gone; with none "
      "running it says so and starts none") {
    DaemonFixture f;
    f.Start({"--rescan-ms", "600000"});
    RunResult r = f.Cli({"stop"});
    CHECK_MESSAGE(r.status == 0, r.err);
    CHECK(r.out == "Stopped originsd (pid " + std::to_string(f.pid()) + ") of " + f.home() + ".\n");
    // Gone when it returns: the process exited (a zombie until the test
    // reaps it; with 0, which Stop checks), not only its socket.
    CHECK_FALSE(std::filesystem::exists(f.home() + "/run/originsd.sock"));
    {
      std::ifstream stat("/proc/" + std::to_string(f.pid()) + "/stat");
      std::string line;
      std::getline(stat, line);
      CHECK_MESSAGE(line.substr(line.rfind(')') + 2, 1) == "Z", line);
    }
    f.Stop();
    // So the next command can start one at once: its lock is free.
    r = f.Cli({"status", "--json"}, {{"ORIGIN_NO_AUTOSTART", "0"}});
    CHECK_MESSAGE(r.status == 0, r.err);
    r = f.Cli({"stop"});
    CHECK(r.out.rfind("Stopped originsd (pid ", 0) == 0);
    r = f.Cli({"stop"});
    CHECK(r.status == 0);
    CHECK(r.out == "No originsd runs on " + f.home() + ".\n");
    r = f.Cli({"stop", "--json"}, {{"ORIGIN_NO_AUTOSTART", "0"}});
    CHECK(r.out == "{\"stopped\":false}\n");
    CHECK_FALSE(std::filesystem::exists(f.home() + "/run/originsd.sock"));  // none started
    CHECK(f.Cli({"stop", "now"}).status == 2);
  }
}
