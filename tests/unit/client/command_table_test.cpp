// SPDX-License-Identifier: MIT
// The CLI's command table: parsing (--opt value, --opt=value, --, usage
// errors), help made from the entries, and requests built with the typed
// structs of proto/requests.hpp.
#include "client/command_table.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "proto/requests.hpp"

using namespace origin::client;

namespace {

const Command& Cmd(const char* name) {
  const Command* c = FindCommand(name);
  REQUIRE(c != nullptr);
  return *c;
}

Invocation P(const char* name, const std::vector<std::string>& words) {
  bool help = false;
  Invocation inv = Parse(Cmd(name), words, &help);
  CHECK_FALSE(help);
  return inv;
}

std::string UsageMessage(const char* name, const std::vector<std::string>& words) {
  bool help = false;
  try {
    Parse(Cmd(name), words, &help);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

rapidjson::Document Params(const char* name, const std::vector<std::string>& words) {
  Invocation inv = P(name, words);
  rapidjson::Document d;
  d.Parse(inv.command->build(inv).c_str());
  REQUIRE_FALSE(d.HasParseError());
  return d;
}

}  // namespace

TEST_SUITE("client") {
  TEST_CASE("command table: --opt value, --opt=value and -- all parse") {
    Invocation a = P("search", {"deploy", "--limit", "5", "--since=2026-01-02", "--all"});
    CHECK(a.args == std::vector<std::string>{"deploy"});
    CHECK(a.Value("limit") == "5");
    CHECK(a.Value("since") == "2026-01-02");
    CHECK(a.Flag("all"));
    CHECK_FALSE(a.Flag("recent"));
    Invocation b = P("search", {"--limit=3", "--", "--force-with-lease", "--json"});
    CHECK(b.args == std::vector<std::string>{"--force-with-lease", "--json"});
    CHECK_FALSE(b.json());
    // A value may start with a dash, and may hold '='.
    CHECK(P("search", {"x", "--project", "-p"}).Value("project") == "-p");
    CHECK(P("search", {"x", "--project=a=b"}).Value("project") == "a=b");
    // The last value counts; --cite and --quote keep their order.
    CHECK(P("search", {"x", "--limit", "1", "--limit", "2"}).Value("limit") == "2");
    Invocation r = P("remember", {"t", "--cite", "e1", "--quote", "q1", "--quote", "q2"});
    CHECK(r.options.size() == 3);
  }

  TEST_CASE("command table: help before --, and nothing else checked then") {
    bool help = false;
    Parse(Cmd("search"), {"--bogus", "--help"}, &help);
    CHECK(help);
    Parse(Cmd("show"), {"-h"}, &help);  // without its id
    CHECK(help);
    Parse(Cmd("search"), {"--", "--help"}, &help);
    CHECK_FALSE(help);
  }

  TEST_CASE("command table: usage errors say what is wrong") {
    CHECK(UsageMessage("status", {"--bogus"}) == "unknown option --bogus");
    CHECK(UsageMessage("status", {"-x"}) == "unknown option -x");
    CHECK(UsageMessage("timeline", {"--history"}) ==
          "--history is for entries and search; it is not an option of timeline");
    CHECK(UsageMessage("search", {"x", "--limit"}) == "--limit needs a value (N)");
    CHECK(UsageMessage("search", {"x", "--json=yes"}) == "--json takes no value");
    CHECK(UsageMessage("show", {}) == "show needs an id");
    CHECK(UsageMessage("remember", {}) == "remember needs the entry's text");
    CHECK(UsageMessage("show", {"a", "b"}) == "unexpected argument b");
  }

  TEST_CASE("command table: the help lists exactly what each command takes") {
    const std::string global = GlobalHelp();
    for (const Command* c : Commands()) {
      CAPTURE(c->name);
      CHECK(global.find("  " + std::string(c->name)) != std::string::npos);
      const std::string help = CommandHelp(*c);
      for (const Option& o : c->options) {
        CHECK(global.find("--" + std::string(o.name) + " ") != std::string::npos);
        CHECK(help.find("--" + std::string(o.name)) != std::string::npos);
      }
      if (c->run == nullptr) {
        CHECK(help.rfind("usage: origin " + std::string(c->name), 0) == 0);
        CHECK(help.find("examples:\n  origin " + std::string(c->name)) != std::string::npos);
      }
      for (std::size_t at = 0, end; at < help.size(); at = end + 1) {
        end = help.find('\n', at);
        CHECK(end - at <= 80);
      }
    }
    // --since is search's too (the old help said "(timeline)").
    const std::size_t since = global.find("  --since");
    CHECK(global.substr(since, global.find('\n', since) - since).find("search") !=
          std::string::npos);
  }

  TEST_CASE("command table: requests are the typed structs, encoded") {
    auto s = Params("search", {"a", "b", "--scope=events", "--limit", "7", "--recent"});
    origin::proto::SearchRequest sr;
    std::string err;
    REQUIRE(origin::proto::Decode(&s, &sr, &err));
    CHECK(sr.query == "a b");
    CHECK(sr.scope == "events");
    CHECK(sr.limit == 7);
    CHECK(sr.recent);
    auto r = Params("remember", {"t", "--kind", "memory", "--confidence", "0.5", "--cite", "e1",
                                 "--quote", "q1", "--quote", "q2", "--project=p"});
    origin::proto::EntryRequest er;
    REQUIRE(origin::proto::Decode(&r, &er, &err, false));
    CHECK(er.text == "t");
    CHECK(er.confidence == 0.5);
    REQUIRE(er.sources.size() == 2);
    CHECK(er.sources[0].event_id == "e1");
    CHECK(er.sources[0].quote == "q1");
    CHECK_FALSE(er.sources[1].event_id);
    CHECK(er.sources[1].quote == "q2");
    auto f = Params("forget", {"e1", "--reason", "why"});
    CHECK(f["target"] == "e1");
    CHECK(f["dry_run"].GetBool());
    CHECK_FALSE(Params("forget", {"e1", "--reason", "why", "--yes"}).HasMember("dry_run"));
    CHECK(Params("restore", {"tmb_1", "--reason", "why"})["id"] == "tmb_1");
    CHECK_THROWS_AS(Params("forget", {"e1", "--reason", "  "}), UsageError);
    CHECK_THROWS_AS(Params("timeline", {"--days", "0"}), UsageError);
    CHECK_THROWS_AS(Params("timeline", {"--since", "tomorrow"}), UsageError);
  }
}
