// SPDX-License-Identifier: MIT
// End to end, the CLI as a person uses it every day (issue 13): nothing cut
// without saying so (and how to get the rest), output fitted to the
// terminal with every colour closed, the user's pager on a terminal only,
// searches that show where a hit is and what is around it, dates typed as
// people type them, `remember` without ceremony, and errors as JSON under
// --json.  A real daemon, the real CLI, on a pseudo-terminal where a person
// would see the output.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tests/e2e/daemon_fixture.hpp"

using namespace origin;
using namespace origin::test;

namespace {

// ISO 8601 (UTC) of `hours` ago.
std::string HoursAgo(int hours) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()) -
                        static_cast<std::time_t>(hours) * 3600;
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
  return buf;
}

// A Claude Code line: `type` user or assistant, `content` JSON (a string
// or a list of blocks).
std::string Line(const std::string& type, const std::string& uuid, const std::string& session,
                 const std::string& ts, const std::string& content) {
  return R"({"type":")" + type + R"(","uuid":")" + uuid + R"(","sessionId":")" + session +
         R"(","timestamp":")" + ts +
         R"(","cwd":"/home/dev/app","version":"2.1.12","message":{"role":")" + type +
         R"(","content":)" + content + "}}\n";
}
std::string Quoted(const std::string& s) { return "\"" + s + "\""; }
constexpr const char* kDay = "2026-01-05T10:";

// Words enough for `n` characters: "w0001 w0002 ...", so that a cut falls
// inside a word.
std::string Words(std::size_t n, const std::string& lead = "") {
  std::string out = lead;
  for (int i = 1; out.size() < n; ++i) {
    char w[16];
    std::snprintf(w, sizeof w, " w%04d", i);
    out += w;
  }
  return out.substr(0, n);
}

// Columns a line takes (escape sequences none, CJK two), written here
// apart from the CLI's own count.
std::size_t Columns(std::string_view line) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < line.size();) {
    const auto b = static_cast<unsigned char>(line[i]);
    if (b == 0x1B) {
      ++i;
      if (i < line.size() && line[i] == '[')
        while (++i < line.size() && !(line[i] >= 0x40 && line[i] <= 0x7E)) {
        }
      ++i;
      continue;
    }
    std::size_t len = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    char32_t cp = b < 0x80 ? b : b & (0x7F >> len);
    for (std::size_t k = 1; k < len && i + k < line.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(line[i + k]) & 0x3F);
    const bool wide = (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
                      (cp >= 0xFF00 && cp <= 0xFF60);
    w += wide ? 2 : 1;
    i += len;
  }
  return w;
}

// What a terminal of `columns` received: every escape sequence whole (ESC
// [ ... final byte), every colour reset before its line ends, and (with
// `fits`) no line wider than the terminal.  Returns how many colour
// sequences it saw.
int CheckScreen(const std::string& out, std::size_t columns, const std::string& what,
                bool fits = true) {
  int colours = 0;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    bool open = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] != 0x1B) continue;
      REQUIRE_MESSAGE(i + 1 < line.size(), what << ": an escape cut at the end of: " << line);
      CHECK_MESSAGE(line[i + 1] == '[', what << ": not a CSI in: " << line);
      std::size_t j = i + 2;
      while (j < line.size() && ((line[j] >= '0' && line[j] <= '9') || line[j] == ';')) ++j;
      REQUIRE_MESSAGE(j < line.size(), what << ": an escape cut short in: " << line);
      CHECK_MESSAGE(line[j] == 'm', what << ": not a colour in: " << line);
      const std::string params = line.substr(i + 2, j - i - 2);
      open = !(params.empty() || params == "0");
      if (open) ++colours;
      i = j;
    }
    CHECK_MESSAGE(!open, what << ": a colour runs past the end of: " << line);
    CHECK_MESSAGE((!fits || Columns(line) <= columns), what << ": " << Columns(line)
                                                            << " columns on a terminal of "
                                                            << columns << ": " << line);
    start = end + 1;
  }
  return colours;
}

// A session with a long title (CJK in it), long messages, a tool call and
// a long tool result; and a second session named by a long CJK prompt.
void WriteSessions(DaemonFixture& f) {
  std::string s1 = R"({"type":"custom-title","customTitle":")" +
                   Words(120, "Deploy 部署 the catalog service") +
                   R"(","sessionId":"s1","timestamp":"2026-01-05T10:00:00.000Z"})" + "\n";
  for (int i = 0; i < 12; ++i) {
    const std::string n = std::to_string(10 + i);
    s1 += Line(i % 2 == 0 ? "user" : "assistant", "m" + n, "s1", kDay + n + ":00.000Z",
               Quoted(Words(300, "deploy step" + n + " 生产环境")));
  }
  s1 += Line("assistant", "c1", "s1", std::string(kDay) + "30:00.000Z",
             R"([{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"deploy --all"}}])");
  s1 += Line("user", "r1", "s1", std::string(kDay) + "31:00.000Z",
             R"([{"type":"tool_result","tool_use_id":"t1","content":")" +
                 Words(10000, "deploy output") + R"("}])");
  WriteFile(f.claude() + "/projects/-home-dev-app/s1.jsonl", s1);
  WriteFile(
      f.claude() + "/projects/-home-dev-app/s2.jsonl",
      Line("user", "p1", "s2", std::string(kDay) + "40:00.000Z",
           Quoted(
               "部署生产环境的时候请先检查数据库迁移和所有的配置文件然后再通知团队成员确认所有服务"
               "都已经准备好了 deploy")));
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE(
      "cli: on an 80-column terminal every line fits and every colour is closed; a pipe is not "
      "cut") {
    DaemonFixture f;
    WriteSessions(f);
    f.Start({"--rescan-ms", "600000"});
    REQUIRE(f.Cli({"remember", "Deploys of the catalog go through CI 部署", "--cite",
                   "claude-code:m10"})
                .status == 0);
    REQUIRE(f.Cli({"forget", "claude-code:m11", "--reason", "not needed", "--yes"}).status == 0);
    const std::vector<std::vector<std::string>> commands = {
        {"timeline", "--days", "100000"},
        {"timeline", "claude-code:s1", "--all"},
        {"search", "deploy"},
        {"search", "deploy", "--all", "--context", "1"},
        {"search", "生产"},
        {"entries"},
        {"projects"},
        {"forgotten"},
        {"status"},
        {"show", "claude-code:r1#0"}};
    for (std::size_t columns : {80u, 50u}) {
      for (const auto& args : commands) {
        RunResult r = f.CliInTerminal(args, {}, static_cast<unsigned short>(columns));
        CHECK_MESSAGE(r.status == 0, args[0] << ": " << r.out);
        std::string what = std::to_string(columns) + " columns, origin";
        for (const auto& a : args) what += " " + a;
        // show prints an event's fields and text whole, as they are (the
        // terminal wraps a long line): its colours are checked.
        CHECK_MESSAGE(CheckScreen(r.out, columns, what, args[0] != "show") > 0,
                      what << ": no colour at all");
      }
    }
    // Matches in colour on a terminal; in brackets without colour.
    RunResult r = f.CliInTerminal({"search", "catalog"});
    CHECK(r.out.find("\033[1;33mcatalog\033[0m") != std::string::npos);
    CHECK(r.out.find("[catalog]") == std::string::npos);
    r = f.CliInTerminal({"search", "catalog"}, {{"NO_COLOR", "1"}});
    CHECK(r.out.find("\033[") == std::string::npos);
    CHECK(r.out.find("[catalog]") != std::string::npos);
    r = f.CliInTerminal({"search", "catalog", "--color=never"});
    CHECK(r.out.find("\033[") == std::string::npos);
    r = f.Cli({"search", "catalog", "--color", "always"});
    CHECK(r.out.find("\033[1;33mcatalog\033[0m") != std::string::npos);
    // A pipe: nothing cut to a width (the title whole), no colour.
    r = f.Cli({"timeline", "--days", "100000"});
    CHECK(r.out.find(Words(120, "Deploy 部署 the catalog service")) != std::string::npos);
    CHECK(r.out.find("\033[") == std::string::npos);
    // Words in the name, in any case; none: said so.
    r = f.Cli({"timeline", "--days", "100000", "--name", "CATALOG deploy"});
    CHECK(r.out.find(Words(120, "Deploy 部署 the catalog service")) != std::string::npos);
    r = f.Cli({"timeline", "--days", "100000", "--name", "catalog zebra"});
    CHECK(r.status == 0);
    CHECK(r.out.find("No sessions named with \"catalog zebra\" between") == 0);
    // Bad usage of --color.
    r = f.Cli({"search", "x", "--color=sometimes"});
    CHECK(r.status == 2);
    CHECK(r.err.find("--color takes auto, always or never") != std::string::npos);
    f.Stop();
  }

  TEST_CASE("cli: long output goes through the user's pager on a terminal, never on a pipe") {
    DaemonFixture f;
    WriteSessions(f);
    f.Start({"--rescan-ms", "600000"});
    const std::map<std::string, std::string> pager = {{"PAGER", "sed s/^/paged:/"}};
    RunResult r = f.CliInTerminal({"timeline", "claude-code:s1"}, pager);
    CHECK(r.status == 0);
    CHECK(r.out.find("paged:") != std::string::npos);
    // Colour goes through the pager: it was a terminal's to begin with.
    CHECK(r.out.find("\033[") != std::string::npos);
    // ORIGIN_PAGER comes first; set to nothing, it means no pager.
    r = f.CliInTerminal({"timeline", "claude-code:s1"},
                        {{"PAGER", "sed s/^/paged:/"}, {"ORIGIN_PAGER", "sed s/^/mine:/"}});
    CHECK(r.out.find("mine:") != std::string::npos);
    CHECK(r.out.find("paged:") == std::string::npos);
    r = f.CliInTerminal({"timeline", "claude-code:s1"},
                        {{"PAGER", "sed s/^/paged:/"}, {"ORIGIN_PAGER", ""}});
    CHECK(r.out.find("paged:") == std::string::npos);
    r = f.CliInTerminal({"timeline", "claude-code:s1", "--no-pager"}, pager);
    CHECK(r.status == 0);
    CHECK(r.out.find("paged:") == std::string::npos);
    CHECK(r.out.find("deploy step") != std::string::npos);
    r = f.CliInTerminal({"timeline", "claude-code:s1", "--json"}, pager);
    CHECK(r.out.find("paged:") == std::string::npos);
    r = f.Cli({"timeline", "claude-code:s1"}, pager);  // a pipe
    CHECK(r.out.find("paged:") == std::string::npos);
    CHECK(r.out.find("deploy step") != std::string::npos);
    // A pager quit before the end does not fail the command.
    r = f.CliInTerminal({"timeline", "claude-code:s1", "--all"}, {{"PAGER", "true"}});
    CHECK(r.status == 0);
    f.Stop();
  }

  TEST_CASE("cli: nothing is cut without saying what was left out and how to get it") {
    DaemonFixture f;
    WriteSessions(f);
    // 120 tool results holding a word no message holds: counted up to 100.
    std::string s3;
    for (int i = 0; i < 120; ++i)
      s3 += Line("user", "q" + std::to_string(i), "s3",
                 "2026-01-06T10:" + std::to_string(10 + i / 50) + ":" +
                     std::to_string(10 + i % 50) + ".000Z",
                 R"([{"type":"tool_result","tool_use_id":"u)" + std::to_string(i) +
                     R"(","content":"grep found quokkafile )" + std::to_string(i) + R"("}])");
    WriteFile(f.claude() + "/projects/-home-dev-app/s3.jsonl", s3);
    f.Start({"--rescan-ms", "600000"});
    const std::string whole = Words(10000, "deploy output");
    // A tool result ingestion cut at 4,000 characters.
    RunResult r = f.Cli({"show", "claude-code:r1#0"});
    REQUIRE(r.status == 0);
    CHECK(r.out.find(whole.substr(0, 4000)) != std::string::npos);
    CHECK(r.out.find(whole.substr(0, 4001)) == std::string::npos);
    CHECK(r.out.find("cut at ingestion: 4,000 of 10,000 characters shown; origin show "
                     "claude-code:r1#0 --full shows them all") != std::string::npos);
    r = f.Cli({"show", "claude-code:r1#0", "--full"});
    REQUIRE(r.status == 0);
    CHECK(r.out.find(whole) != std::string::npos);
    CHECK(r.out.find("cut at ingestion") == std::string::npos);
    auto d = Json(f.Cli({"show", "claude-code:r1#0", "--json"}).out);
    CHECK(d["event"]["truncated"].GetBool());
    CHECK(d["event"]["text_chars"].GetInt64() == 4000);
    CHECK(d["event"]["full_chars"].GetInt64() == 10000);
    d = Json(f.Cli({"show", "claude-code:r1#0", "--full", "--json"}).out);
    CHECK_FALSE(d["event"]["truncated"].GetBool());
    CHECK(std::string(d["event"]["text"].GetString()) == whole);
    d = Json(f.Cli({"show", "claude-code:m10", "--json"}).out);  // a message: never cut
    CHECK_FALSE(d["event"]["truncated"].GetBool());
    CHECK_FALSE(d["event"].HasMember("full_chars"));

    // Search: what the limit left out, per section, and the matches in tool
    // events when --all was not given.
    r = f.Cli({"search", "deploy", "--limit", "2"});
    REQUIRE(r.status == 0);
    CHECK(r.out.find("… 11 more events: --limit 13") != std::string::npos);
    CHECK(r.out.find("2 more in tool calls and results: --all") != std::string::npos);
    CHECK(r.out.find("[deploy]") != std::string::npos);  // brackets without colour
    d = Json(f.Cli({"search", "deploy", "--limit", "2", "--json"}).out);
    CHECK(d["events"].Size() == 2);
    CHECK(d["events_total"].GetInt64() == 13);
    CHECK(d["tool_matches"].GetInt64() == 2);
    CHECK(d["truncated"].GetBool());
    d = Json(f.Cli({"search", "deploy", "--all", "--json"}).out);
    CHECK(d["events"].Size() == 16);  // the session's title event too
    CHECK_FALSE(d["truncated"].GetBool());
    CHECK_FALSE(d.HasMember("tool_matches"));
    // Words only in a tool result: nothing among the messages, but said where.
    r = f.Cli({"search", "w0500"});
    CHECK(r.out.find("Nothing found.") != std::string::npos);
    CHECK(r.out.find("1 more in tool calls and results: --all") != std::string::npos);
    // More than 100 of them: "100+" (kToolMatchesUpto), a hint, not a total.
    r = f.Cli({"search", "quokkafile"});
    CHECK(r.out.find("Nothing found.") != std::string::npos);
    CHECK(r.out.find("100+ more in tool calls and results: --all") != std::string::npos);
    d = Json(f.Cli({"search", "quokkafile", "--json"}).out);
    CHECK(d["tool_matches"].GetInt64() == 100);
    CHECK(d["tool_matches_at_least"].GetBool());
    CHECK(Json(f.Cli({"search", "quokkafile", "--all", "--limit", "1000", "--json"}).out)["events"]
              .Size() == 120);

    // A session's events: what comes after the page, and where it starts.
    r = f.Cli({"timeline", "claude-code:s1", "--limit", "5"});
    // (12 messages and the title event; tool events with --all)
    CHECK(r.out.find("… 8 more events: --offset 5 (or --limit 13)") != std::string::npos);
    d = Json(f.Cli({"timeline", "claude-code:s1", "--limit", "5", "--offset", "10", "--json"}).out);
    CHECK(d["events"].Size() == 3);
    CHECK(d["events_total"].GetInt64() == 13);
    CHECK(d["truncated"].GetBool());
    CHECK(f.Cli({"timeline", "claude-code:s1", "--offset", "10"})
              .out.find("10 events before these") != std::string::npos);
    // Sessions, entries and forgets past the limit.
    r = f.Cli({"timeline", "--days", "100000", "--limit", "1"});
    CHECK(r.out.find("… 2 more sessions: --limit 3") != std::string::npos);
    CHECK(
        Json(
            f.Cli({"timeline", "--days", "100000", "--limit", "1", "--json"}).out)["sessions_total"]
            .GetInt64() == 3);
    for (const char* id : {"claude-code:m10", "claude-code:m12"})
      REQUIRE(f.Cli({"remember", std::string("note ") + id, "--cite", id}).status == 0);
    r = f.Cli({"entries", "--limit", "1"});
    CHECK(r.out.find("older ones not shown: a --limit above 1 lists them") != std::string::npos);
    CHECK(Json(f.Cli({"entries", "--limit", "1", "--json"}).out)["truncated"].GetBool());
    CHECK_FALSE(Json(f.Cli({"entries", "--json"}).out)["truncated"].GetBool());

    // Bad usage of the new options.
    auto fails = [&](std::vector<std::string> args, const char* msg) {
      RunResult b = f.Cli(args);
      CHECK_MESSAGE(b.status == 2, args[0] << " " << b.err);
      CHECK_MESSAGE(b.err.find(msg) != std::string::npos, b.err);
    };
    fails({"timeline", "claude-code:s1", "--offset", "-1"}, "--offset takes a number, 0 or more");
    fails({"timeline", "claude-code:s1", "--offset", "x"}, "--offset takes a number");
    fails({"timeline", "--offset", "3"}, "--offset is for a session's events");
    fails({"show", "claude-code:r1#0", "--full=yes"}, "--full takes no value");
    fails({"sources", "claude-code:r1#0", "--full"}, "--full is for show");
    fails({"search", "x", "--offset", "2"}, "--offset is for timeline");
    // A source no adapter has would find nothing, silently.
    fails({"search", "deploy", "--source", "claude"},
          "unknown source claude (claude-code, codex, cursor, zcode, grok)");
    fails({"timeline", "--source", "bogus"}, "unknown source bogus (");
    fails({"timeline", "--days", "3", "--since", "2026-01-01"}, "days and since go apart");
    CHECK(f.Cli({"search", "deploy", "--source", "claude-code"}).status == 0);
    for (const char* bad : {"nan", "inf", "-inf", "1e400"})
      fails({"remember", "a note", "--cite", "claude-code:r1#0", "--confidence", bad},
            "--confidence takes a number from 0 to 1");
    // Any number of words: one query, as one quoted argument is.
    std::vector<std::string> many = {"search"};
    for (int i = 0; i < 150; ++i) many.push_back(i % 2 == 0 ? "deploy" : "DEPLOY");
    r = f.Cli(many);
    CHECK_MESSAGE(r.status == 0, r.err);
    CHECK_MESSAGE(r.out.find("[deploy]") != std::string::npos, r.out);
    // An offset past the session's last event: nothing, and said so.
    r = f.Cli({"timeline", "claude-code:s1", "--offset", "9999"});
    CHECK(r.status == 0);
    CHECK_MESSAGE(r.out.find("(none from --offset 9999: there are ") != std::string::npos, r.out);
    CHECK(r.out.find("9,999 events before these") == std::string::npos);
    f.Stop();
  }

  TEST_CASE(
      "cli: a search shows each hit's session, the events around it, and takes relative "
      "dates") {
    DaemonFixture f;
    WriteSessions(f);
    // Two messages of today's: one an hour old, one 30 hours old.
    WriteFile(f.claude() + "/projects/-home-dev-app/s3.jsonl",
              Line("user", "n1", "s3", HoursAgo(30), Quoted("recent rollout of billing")) +
                  Line("user", "n2", "s3", HoursAgo(1), Quoted("another rollout of billing")));
    f.Start({"--rescan-ms", "600000"});
    auto d = Json(f.Cli({"search", "生产环境的时候", "--json"}).out);
    REQUIRE(d["events"].Size() == 1);
    CHECK(std::string(d["events"][0]["session_title"].GetString()).rfind("部署生产环境", 0) == 0);
    d = Json(f.Cli({"search", "step13", "--json"}).out);
    REQUIRE(d["events"].Size() == 1);
    CHECK(std::string(d["events"][0]["session_title"].GetString())
              .rfind("Deploy 部署 the catalog service", 0) == 0);
    RunResult r = f.Cli({"search", "step13"});
    CHECK(r.out.find("Deploy 部署 the catalog service") != std::string::npos);
    CHECK(r.out.find("assistant") != std::string::npos);
    // --context N: the N events before and after, in the session's order.
    d = Json(f.Cli({"search", "step13", "--context", "2", "--json"}).out);
    REQUIRE(d["events"].Size() == 1);
    const auto& hit = d["events"][0];
    REQUIRE(hit["before"].Size() == 2);
    REQUIRE(hit["after"].Size() == 2);
    CHECK(std::string(hit["before"][0]["id"].GetString()) == "claude-code:m11");
    CHECK(std::string(hit["before"][1]["id"].GetString()) == "claude-code:m12");
    CHECK(std::string(hit["after"][0]["id"].GetString()) == "claude-code:m14");
    // At the end of a session there is less after; tool events only with --all.
    d = Json(f.Cli({"search", "step21", "--context", "3", "--json"}).out);
    CHECK(d["events"][0]["after"].Size() == 0);
    d = Json(f.Cli({"search", "step21", "--context", "3", "--all", "--json"}).out);
    CHECK(d["events"][0]["after"].Size() == 2);
    r = f.Cli({"search", "step13", "--context", "1"});
    CHECK(r.out.find("\n  > ") != std::string::npos);
    CHECK(r.out.find("deploy step12") != std::string::npos);
    CHECK(r.out.find("deploy step14") != std::string::npos);
    CHECK(r.out.find("deploy step15") == std::string::npos);
    // Relative dates, wherever dates are taken.
    auto ids = [&](std::vector<std::string> args) {
      args.push_back("--json");
      std::string out;
      auto j = Json(f.Cli(args).out);
      for (const auto& e : j["events"].GetArray()) out += std::string(e["id"].GetString()) + " ";
      return out;
    };
    CHECK(ids({"search", "rollout", "--recent"}) == "claude-code:n2 claude-code:n1 ");
    CHECK(ids({"search", "rollout", "--recent", "--since", "2d"}) ==
          "claude-code:n2 claude-code:n1 ");
    CHECK(ids({"search", "rollout", "--recent", "--since", "12h"}) == "claude-code:n2 ");
    CHECK(ids({"search", "rollout", "--recent", "--until", "12h"}) == "claude-code:n1 ");
    CHECK(ids({"search", "rollout", "--recent", "--since", "300m", "--until", "now"}) ==
          "claude-code:n2 ");
    CHECK(ids({"search", "deploy", "--since", "1w"}).empty());
    CHECK(Json(f.Cli({"timeline", "--since", "yesterday", "--json"}).out)["sessions"].Size() == 1);
    CHECK(Json(f.Cli({"timeline", "--since", "2w", "--json"}).out)["sessions"].Size() == 1);
    r = f.Cli({"remember", "billing rolls out", "--quote", "another rollout", "--valid-from",
               "today", "--json"});
    REQUIRE(r.status == 0);
    CHECK(Json(r.out)["entry"]["valid_from"].IsString());
    // Bad usage.
    auto fails = [&](std::vector<std::string> args, const char* msg) {
      RunResult b = f.Cli(args);
      CHECK_MESSAGE(b.status == 2, args[0] << " " << b.err);
      CHECK_MESSAGE(b.err.find(msg) != std::string::npos, b.err);
    };
    fails({"search", "x", "--context", "0"}, "--context takes a positive number");
    fails({"search", "x", "--context", "21"}, "--context takes a number from 1 to 20");
    fails({"search", "x", "--context", "two"}, "--context takes a positive number");
    fails({"search", "x", "--context"}, "--context needs a value");
    fails({"timeline", "--context", "2"}, "--context is for search");
    fails({"search", "x", "--since", "2x"}, "--since takes a date, not '2x'");
    fails({"search", "x", "--since", "last week"}, "or a time ago such as 30m, 12h, 2d or 1w");
    fails({"search", "x", "--since", "-2d"}, "--since takes a date");
    fails({"timeline", "--until", "tomorrow"}, "--until takes a date");
    fails({"search", "x", "--since", "1h", "--until", "2d"}, "since is after until");
    f.Stop();
  }

  TEST_CASE(
      "cli: remember takes a note with a source and nothing else; errors name the fix "
      "(invariant 1)") {
    DaemonFixture f;
    WriteSessions(f);
    f.Start({"--rescan-ms", "600000"});
    RunResult r = f.Cli({"remember", "We deploy with CI", "--quote", "deploy step13", "--json"});
    REQUIRE(r.status == 0);
    auto d = Json(r.out);
    CHECK(std::string(d["entry"]["kind"].GetString()) == "knowledge");
    CHECK(d["entry"]["confidence"].GetDouble() == 1.0);
    CHECK(std::string(d["entry"]["project"].GetString()) == "app");  // the cited event's
    CHECK(std::string(d["entry"]["sources"][0]["event_id"].GetString()) == "claude-code:m13");
    // What is given wins.
    r = f.Cli({"remember", "Maybe deploys are slow", "--cite", "claude-code:m14", "--kind",
               "cognition", "--confidence", "0.3", "--project", "ops", "--json"});
    REQUIRE(r.status == 0);
    d = Json(r.out);
    const std::string second = d["entry"]["id"].GetString();
    CHECK(std::string(d["entry"]["kind"].GetString()) == "cognition");
    CHECK(d["entry"]["confidence"].GetDouble() == 0.3);
    CHECK(std::string(d["entry"]["project"].GetString()) == "ops");
    // A correction keeps what it does not change.
    r = f.Cli({"correct", second, "Deploys are slow", "--json"});
    REQUIRE(r.status == 0);
    CHECK(std::string(Json(r.out)["entry"]["kind"].GetString()) == "cognition");
    // Bad usage: each error says what would be right.
    auto fails = [&](std::vector<std::string> args, const char* msg) {
      RunResult b = f.Cli(args);
      CHECK_MESSAGE(b.status == 2, args[0] << " " << b.err);
      CHECK_MESSAGE(b.err.find(msg) != std::string::npos, b.err);
      CHECK_MESSAGE(b.err.find("not ''") == std::string::npos, b.err);
    };
    fails({"remember", "a note"},
          "an entry needs at least one source (invariant 1): add --cite EVENT_ID or --quote WORDS");
    fails({"remember", "a note", "--kind", "", "--cite", "claude-code:m10"},
          "--kind must be memory, knowledge or cognition");
    fails({"remember", "a note", "--kind=", "--cite", "claude-code:m10"},
          "--kind must be memory, knowledge or cognition");
    fails({"remember", "a note", "--kind", "fact", "--cite", "claude-code:m10"},
          "--kind must be memory, knowledge or cognition, not 'fact'");
    fails({"correct", "ent_000000000000000000000000", "--kind", "fact"},
          "--kind must be memory, knowledge or cognition, not 'fact'");
    fails({"remember", "a note", "--kind"}, "--kind needs a value (memory|knowledge|cognition)");
    fails({"remember", "a note", "--cite", "claude-code:m10", "--confidence", "sure"},
          "--confidence takes a number from 0 to 1");
    CHECK(Json(f.Cli({"entries", "--history", "--json"}).out)["entries"].Size() == 3);
    f.Stop();
  }

  TEST_CASE("cli: under --json an error is JSON on stderr, with the same exit code") {
    DaemonFixture f;
    WriteSessions(f);
    auto error = [&](std::vector<std::string> args, int status, const char* code,
                     const char* message) {
      RunResult r = f.Cli(args);
      CHECK_MESSAGE(r.status == status, args[0] << ": " << r.err);
      CHECK(r.out.empty());
      auto d = Json(r.err);
      REQUIRE(d.IsObject());
      REQUIRE(d.HasMember("error"));
      CHECK(std::string(d["error"]["code"].GetString()) == code);
      CHECK_MESSAGE(
          std::string(d["error"]["message"].GetString()).find(message) != std::string::npos, r.err);
    };
    // No daemon, and none may be started.
    error({"status", "--json"}, 3, "unavailable", "");
    f.Start({"--rescan-ms", "600000"});
    error({"show", "claude-code:nope", "--json"}, 4, "not_found", "no event or entry");
    error({"search", "x", "--json", "--limit", "0"}, 2, "usage", "--limit takes");
    error({"--json", "search", "x", "--scope", "all"}, 2, "invalid_argument", "scope is");
    error({"search", "x", "--bogus", "--json"}, 2, "usage", "unknown option --bogus");
    error({"remember", "x", "--json"}, 2, "usage", "add --cite EVENT_ID or --quote WORDS");
    error({"frobnicate", "--json"}, 2, "usage", "unknown command frobnicate");
    error({"timeline", "--json", "--color=pink"}, 2, "usage", "--color takes");
    REQUIRE(f.Cli({"remember", "x", "--cite", "claude-code:m10"}).status == 0);
    auto id = std::string(Json(f.Cli({"entries", "--json"}).out)["entries"][0]["id"].GetString());
    REQUIRE(f.Cli({"correct", id, "y"}).status == 0);
    error({"correct", id, "z", "--json"}, 1, "conflict", "not the current version");
    // Without --json: the same error for people.
    RunResult r = f.Cli({"show", "claude-code:nope"});
    CHECK(r.status == 4);
    CHECK(r.err.rfind("origin: no event or entry", 0) == 0);
    f.Stop();
  }

  TEST_CASE(
      "cli: remember and correct quote a line written a moment ago: what changed is ingested "
      "first") {
    DaemonFixture f;
    const std::string file = f.claude() + "/projects/-home-dev-app/s1.jsonl";
    WriteFile(file, ClaudeLine("u1", "We chose SQLite for the store"));
    // The watcher waits 5 s after a change: only the write's own sync takes
    // the new lines in time.
    f.Start({"--rescan-ms", "600000", "--debounce-ms", "5000"});
    REQUIRE(f.WaitFor([&] { return f.Events() == 1; }));
    AppendFile(file, ClaudeLine("u2", "The catalog deploys with blue green"));
    RunResult r = f.Cli(
        {"remember", "catalog deploys blue-green", "--quote", "deploys with BLUE green", "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    rapidjson::Document d = Json(r.out);
    const std::string id = d["entry"]["id"].GetString();
    CHECK(std::string(d["entry"]["sources"][0]["event_id"].GetString()) == "claude-code:u2");
    AppendFile(file, ClaudeLine("u3", "Now the catalog deploys canary first"));
    r = f.Cli({"correct", id, "catalog deploys canary first", "--quote", "deploys canary first",
               "--json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    d = Json(r.out);
    // The correction cites the new line beside the sources it keeps.
    const rapidjson::Value& cited = d["entry"]["sources"];
    CHECK(std::any_of(cited.Begin(), cited.End(), [](const rapidjson::Value& v) {
      return std::string(v["event_id"].GetString()) == "claude-code:u3";
    }));
    f.Stop();
  }

  TEST_CASE("cli: counts read as words: 1 event, 1 changed file, tool result") {
    DaemonFixture f;
    const std::string file = f.claude() + "/projects/-home-dev-app/s1.jsonl";
    WriteFile(file, Line("user", "u1", "s1", std::string(kDay) + "00:00.000Z", Quoted("hello")));
    f.Start({"--rescan-ms", "600000"});
    RunResult r = f.Cli({"timeline", "claude-code:s1"});
    CHECK(r.out.find("· 1 event\n") != std::string::npos);
    AppendFile(file, Line("user", "u2", "s1", std::string(kDay) + "01:00.000Z",
                          R"([{"type":"tool_result","tool_use_id":"t9","content":"hello out"}])"));
    // The watcher may ingest the line before the sync does: whatever the
    // counts, each agrees with its noun.
    r = f.Cli({"sync"});
    REQUIRE(r.status == 0);
    long long n[3] = {};
    char noun[3][16] = {};
    REQUIRE_MESSAGE(
        std::sscanf(r.out.c_str(),
                    "synced: %lld new %15s from %lld %15s (%*[^)]) in %lld changed %15s", &n[0],
                    noun[0], &n[1], noun[1], &n[2], noun[2]) == 6,
        r.out);
    for (int i = 0; i < 3; ++i)
      CHECK_MESSAGE((n[i] == 1) == (std::string(noun[i]).back() != 's'), r.out);
    r = f.Cli({"sync"});
    CHECK(r.out == "synced: 0 new events from 0 lines (0 B) in 0 changed files\n");
    r = f.Cli({"search", "hello", "--all"});
    CHECK(r.out.find("tool result") != std::string::npos);
    CHECK(r.out.find("tool tool_result") == std::string::npos);
    CHECK(r.out.find("user") != std::string::npos);
    r = f.Cli({"timeline", "claude-code:s1", "--all"});
    CHECK(r.out.find("tool result") != std::string::npos);
    f.Stop();
  }
}
