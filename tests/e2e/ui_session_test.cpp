// SPDX-License-Identifier: MIT
// origin ui's sessions, the JSON API's writes and origin ui's own process,
// against a real daemon and a real `origin ui` on a pseudo-terminal (issue
// 16; the spec's Admin UI "Sessions", "What it can do" and "Signing in to
// origin ui"): a cookie of the same name planted by another server on
// 127.0.0.1 neither shadows the session nor signs its owner out; sign-out
// clears the cookie; the API forgets only with the preview's digest and
// answers an irreversible restore with the operation's own error; origin ui
// leaves no zombie per browser it opens, and no redirect file when a signal
// comes before its handlers.  The idle expiry itself runs on a fake clock
// (tests/unit/daemon/http_test.cpp).

#include <doctest/doctest.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/e2e/daemon_fixture.hpp"
#include "tests/e2e/ui_client.hpp"

namespace origin::test {

namespace {

// The children of `pid` (from /proc/*/stat: "pid (comm) state ppid ..."),
// each with its state ('Z' for a zombie).
std::vector<std::pair<int, char>> ChildrenOf(pid_t pid) {
  std::vector<std::pair<int, char>> out;
  DIR* proc = ::opendir("/proc");
  REQUIRE(proc != nullptr);
  while (dirent* e = ::readdir(proc)) {
    const int child = std::atoi(e->d_name);
    if (child <= 0) continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;  // gone meanwhile
    std::istringstream rest(stat.substr(paren + 1));
    char state = 0;
    int ppid = 0;
    rest >> state >> ppid;
    if (ppid == pid) out.emplace_back(child, state);
  }
  ::closedir(proc);
  return out;
}

// The redirect files' directories (origin-ui-XXXXXX) in `dir`.
int RedirectDirs(const std::string& dir) {
  int n = 0;
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d != nullptr);
  while (dirent* e = ::readdir(d)) n += std::string(e->d_name).rfind("origin-ui-", 0) == 0;
  ::closedir(d);
  return n;
}

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

TEST_CASE("ui: each browser origin ui opens leaves no zombie behind") {
  DaemonFixture f;
  f.Start();
  // The opener: a script named xdg-open first on PATH that records the file
  // it was given and exits at once.
  const std::string bin = f.dir().path() + "/bin", record = f.dir().path() + "/opened";
  WriteFile(bin + "/xdg-open", "#!/bin/sh\necho \"$1\" >> '" + record + "'\n");
  REQUIRE(::chmod((bin + "/xdg-open").c_str(), 0755) == 0);
  const char* path = std::getenv("PATH");
  UiProcess ui(f, {"--port", "0"}, {.env = {{"PATH", bin + ":" + (path ? path : "/usr/bin:/bin")}}});
  REQUIRE_MESSAGE(!ui.NextLink().empty(), ui.out());
  for (int i = 0; i < 3; ++i) REQUIRE_MESSAGE(!ui.NewLink().empty(), ui.out());
  auto opened = [&] {
    const std::string text = Exists(record) ? ReadAll(record) : "";
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  };
  REQUIRE(f.WaitFor([&] { return opened() == 4; }, 10));
  CHECK(ReadAll(record).find("/signin.html") != std::string::npos);
  // Every opener ran and exited: none is left a child of origin ui.
  std::vector<std::pair<int, char>> children;
  CHECK_MESSAGE(f.WaitFor([&] { return (children = ChildrenOf(ui.pid())).empty(); }, 5),
                children.size() << " children, the first in state " << children.front().second);
  CHECK(ui.Stop() == 0);
  f.Stop();
}

TEST_CASE("ui: a SIGINT that comes before the handlers leaves no redirect file; nor does the "
          "daemon going away") {
  DaemonFixture f;
  f.Start();
  {
    // Sent at once, held pending until origin ui unblocks it (the mask is
    // inherited): it is handled, the file is made and removed, exit 0.
    UiProcess ui(f, {"--no-open", "--port", "0"}, {.sigint_pending = true});
    CHECK(ui.Wait() == 0);
    CHECK(ui.out().find("origin ui: stopped") != std::string::npos);
    CHECK(ui.out().find("/signin.html") != std::string::npos);  // it was made
    CHECK(RedirectDirs(f.dir().path()) == 0);
    // The daemon stopped the UI when its connection closed.
    REQUIRE(!ui.NextLink().empty());  // the link it printed
    CHECK(f.WaitFor([&] {
      const int fd = ConnectTcp(ui.port());
      if (fd >= 0) ::close(fd);
      return fd < 0;
    }));
  }
  UiProcess ui(f, {"--no-open", "--port", "0"});  // so a new one runs
  REQUIRE_MESSAGE(!ui.NextLink().empty(), ui.out());
  CHECK(RedirectDirs(f.dir().path()) == 1);
  f.Stop();
  CHECK(ui.Wait() == 3);
  CHECK(RedirectDirs(f.dir().path()) == 0);
}

}  // TEST_SUITE

}  // namespace origin::test
