// SPDX-License-Identifier: MIT
// Every page of the web UI (daemon/ui/, issue 16) rendered from a real
// daemon's answers to the params the page itself makes, on a store whose
// messages hold hostile content (HTML, script, javascript: and data: links,
// a huge line, deep Markdown): each page must be well-formed
// (tests/unit/daemon/html_check.hpp), show what the store holds, keep the
// hostile content as text, and show no hidden text but on a tombstone's own
// page (invariant 2).
#include <doctest/doctest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <chrono>

#include "daemon/ui/pages.hpp"
#include "tests/e2e/daemon_fixture.hpp"
#include "tests/unit/daemon/html_check.hpp"

using namespace origin;
using namespace origin::test;

namespace {

std::string JsonString(std::string_view s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return {buf.GetString(), buf.GetSize()};
}

std::string Line(const std::string& type, const std::string& uuid, const std::string& ts,
                 const std::string& content) {
  return R"({"type":")" + type + R"(","uuid":")" + uuid + R"(","sessionId":"s-ui","timestamp":"2026-01-05T10:)" +
         ts + R"(.000Z","cwd":"/home/dev/app","version":"2.1.12","message":{"role":")" + type +
         R"(","content":)" + content + "}}\n";
}

// One request on the daemon's socket, as the HTTP server makes it through
// Operations::Call: the answer's "result", or its "error" (`*failed`).
rapidjson::Document Call(DaemonFixture& f, std::string_view method, const std::string& params,
                         bool* failed = nullptr) {
  const int fd = UnixSocket(f.home() + "/run/originsd.sock");
  REQUIRE(fd >= 0);
  const std::string msgs = "{\"proto\":1,\"client\":\"origin\"}\n{\"id\":1,\"method\":" +
                           JsonString(method) + ",\"params\":" + params + "}\n";
  REQUIRE(::write(fd, msgs.data(), msgs.size()) == static_cast<ssize_t>(msgs.size()));
  std::string got;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) {
    got.append(buf, static_cast<std::size_t>(n));
    const std::size_t at = got.find("{\"id\":1,");
    if (at != std::string::npos && got.find('\n', at) != std::string::npos) break;
  }
  ::close(fd);
  const std::size_t at = got.find("{\"id\":1,");
  REQUIRE_MESSAGE(at != std::string::npos, got);
  rapidjson::Document d;
  d.Parse(got.substr(at, got.find('\n', at) - at).c_str());
  REQUIRE(!d.HasParseError());
  rapidjson::Document out;
  const bool error = d.HasMember("error");
  if (failed != nullptr) *failed = error;
  else REQUIRE_MESSAGE(!error, method << " " << params << ": " << got);
  out.CopyFrom(error ? d["error"] : d["result"], out.GetAllocator());
  return out;
}

const ui::Page& PageAt(std::string_view path) {
  for (const ui::Page& p : ui::AllPages())
    if (p.path == path) return p;
  FAIL("no page " << path);
  return ui::AllPages()[0];
}

struct Rendered {
  std::string html;
  HtmlCheck check;
};

// The page at `path` for `query`, from the daemon's answer to its params;
// REQUIREs it well-formed.  `answer`: the answer to use instead (an
// operation this branch's daemon does not have yet).
Rendered Render(DaemonFixture& f, std::string_view path, ui::Fields query,
                const rapidjson::Value* answer = nullptr) {
  const ui::Page& page = PageAt(path);
  std::string params, error;
  REQUIRE_MESSAGE(page.params(query, &params, &error), path << ": " << error);
  ui::PageContext ctx;
  ctx.csrf = "csrf-\"token\"";
  ctx.target = "/admin" + std::string(path);
  ctx.query = query;
  ctx.store_name = "dev<box>";
  ctx.now_ms = 1767607200000;  // 2026-01-05T10:00Z
  Rendered r;
  if (answer != nullptr) {
    r.html = page.render(*answer, ctx);
  } else {
    const rapidjson::Document a = Call(f, page.operation, params);
    r.html = page.render(a, ctx);
  }
  r.check = CheckHtml(r.html);
  REQUIRE_MESSAGE(r.check.ok(), path << ": " << r.check.error);
  CHECK(r.check.Tag("script") == 1);   // the asset, and no other
  CHECK(r.check.Tag("main") == 1);
  CHECK(r.html.find("<meta name=\"csrf\" content=\"csrf-&quot;token&quot;\">") != std::string::npos);
  for (const std::string& href : r.check.hrefs) {
    CHECK_MESSAGE(href.find("javascript") == std::string::npos, path << ": " << href);
    CHECK_MESSAGE(href.find("data:") == std::string::npos, path << ": " << href);
  }
  return r;
}

bool Shows(const Rendered& r, std::string_view text) { return r.check.text.find(text) != std::string::npos; }

// Hostile contents: the prompt, the reply (Markdown), a huge line, deep Markdown.
const std::string kPrompt = "Why <script>alert('p')</script> & [x](javascript:alert(1))?";
const std::string kReply =
    "# Fix\n\nUse **ninja** <img src=x onerror=alert(2)> and see "
    "[docs](https://example.com/d) or [bad](data:text/html,<script>alert(3)</script>).\n\n"
    "| a | b |\n|---|---|\n| <b>1</b> | `2` |\n\n```\n</pre><script>alert(4)</script>\n```\n";
const std::string kSecret = "SECRET-FORGOTTEN-MARKER";

}  // namespace

TEST_SUITE("ui") {
  TEST_CASE("ui pages: each page renders a real daemon's answer, hostile content as text, hidden text nowhere") {
    DaemonFixture f;
    const std::string deep = std::string(5000, '>') + " deep " + std::string(3000, '*');
    const std::string huge(300000, 'h');
    std::string log;
    log += Line("user", "u1", "00:00", JsonString(kPrompt));
    log += Line("assistant", "a1", "00:01", "[{\"type\":\"text\",\"text\":" + JsonString(kReply) + "}]");
    log += Line("user", "u2", "01:00", JsonString("second " + deep));
    log += Line("assistant", "a2", "01:01", "[{\"type\":\"text\",\"text\":" + JsonString(huge) + "}]");
    log += Line("user", "u3", "02:00", JsonString("third: " + kSecret));
    WriteFile(f.claude() + "/projects/-home-dev-app/s-ui.jsonl", log);
    f.Start({"--rescan-ms", "600000"});
    REQUIRE(f.Cli({"sync"}).status == 0);

    // The timeline: the session, named by its hostile first prompt, as text.
    Rendered r = Render(f, "/timeline", {{{"since", "2026-01-01"}, {"until", "2026-01-06"}}});
    CHECK(Shows(r, "alert('p')"));
    CHECK(r.html.find("&lt;script&gt;alert(&#39;p&#39;)&lt;/script&gt;") != std::string::npos);
    CHECK(Shows(r, "2026-01-05"));
    Rendered words = Render(f, "/timeline", {{{"since", "2026-01-01"}, {"until", "2026-01-06"}, {"q", "no such words"}}});
    CHECK(!Shows(words, "alert('p')"));
    words = Render(f, "/timeline", {{{"since", "2026-01-01"}, {"until", "2026-01-06"}, {"q", "ALERT why"}}});
    CHECK(Shows(words, "alert('p')"));  // the daemon filters by the name, in any case

    // The session's events, to find their ids.
    const rapidjson::Document s = Call(f, "timeline", R"({"session":"claude-code:s-ui","include_tools":true})");
    REQUIRE(s["events"].Size() == 5);
    auto id_of = [&](int i) { return std::string(s["events"][i]["id"].GetString()); };
    const std::string prompt_id = id_of(0), reply_id = id_of(1), deep_id = id_of(2), huge_id = id_of(3),
                      secret_id = id_of(4);

    // The reply's page: its Markdown rendered, its HTML as text, only the https link a link.
    r = Render(f, "/event", {{{"id", reply_id}}});
    CHECK(r.html.find("<h3>Fix</h3>") != std::string::npos);
    CHECK(r.html.find("<strong>ninja</strong>") != std::string::npos);
    CHECK(Shows(r, "<img src=x onerror=alert(2)>"));
    CHECK(r.check.Tag("img") == 0);
    CHECK(r.html.find("href=\"https://example.com/d\" rel=\"noopener noreferrer\" target=\"_blank\"") != std::string::npos);
    CHECK(Shows(r, "</pre><script>alert(4)</script>"));
    CHECK(r.html.find("action=\"/admin/remember\"") != std::string::npos);
    CHECK(r.html.find("name=\"_csrf\" value=\"csrf-&quot;token&quot;\"") != std::string::npos);
    // Deep Markdown and a huge line render, bounded.
    r = Render(f, "/event", {{{"id", deep_id}}});
    CHECK(r.check.Tag("blockquote") <= 9);
    r = Render(f, "/event", {{{"id", huge_id}}});
    CHECK(r.html.find(std::string(1000, 'h')) != std::string::npos);

    // Its provenance: the raw line, cut at 4,000 characters with a note.
    r = Render(f, "/source", {{{"id", huge_id}}});
    CHECK(Shows(r, "s-ui.jsonl"));
    CHECK(Shows(r, "Cut at 4,000 characters"));
    CHECK(r.html.find(std::string(4001, 'h')) == std::string::npos);
    r = Render(f, "/source", {{{"id", prompt_id}}});
    CHECK(!Shows(r, "Cut at"));
    CHECK(Shows(r, "\"uuid\":\"u1\""));

    // Search, with the CLI's options.
    r = Render(f, "/search", {{{"q", "ninja"}, {"scope", "events"}, {"source", "claude-code"}}});
    CHECK(r.check.Tag("mark") >= 1);
    CHECK(Shows(r, "ninja"));
    r = Render(f, "/search", {{{"q", ""}}});

    // Remember from the event page's form, then the entry and the entries.
    const ui::Action* remember = nullptr;
    for (const ui::Action& a : ui::AllActions())
      if (a.path == "/remember") remember = &a;
    REQUIRE(remember != nullptr);
    std::string params, error;
    REQUIRE(remember->params({{{"_csrf", "x"}, {"cite", reply_id}, {"text", "use <b>ninja</b> " + kSecret}, {"kind", "knowledge"}, {"confidence", "0.7"}}},
                             &params, &error));
    const rapidjson::Document written = Call(f, "remember", params);
    const std::string to = remember->redirect(written);
    REQUIRE(to.rfind("/admin/entry?id=ent_", 0) == 0);
    const std::string entry_id = to.substr(std::string("/admin/entry?id=").size());
    r = Render(f, "/entry", {{{"id", entry_id}}});
    CHECK(Shows(r, "use <b>ninja</b>"));
    CHECK(Shows(r, "confidence 0.7"));
    CHECK(r.html.find("action=\"/admin/correct\"") != std::string::npos);
    r = Render(f, "/entries", {});
    CHECK(Shows(r, "use <b>ninja</b>"));

    // The forget preview: what it would hide, and a form with the reason.
    r = Render(f, "/forget", {{{"target", secret_id}}});
    CHECK(Shows(r, "1 event"));
    CHECK(r.html.find("action=\"/admin/forget\"") != std::string::npos);
    CHECK(r.html.find("name=\"digest\"") != std::string::npos);

    // Forget the secret's event and the entry holding the secret: then no
    // page but a tombstone's shows their text.
    REQUIRE(f.Cli({"forget", secret_id, "--reason", "private <i>x</i>", "--yes"}).status == 0);
    REQUIRE(f.Cli({"forget", entry_id, "--reason", "wrong", "--yes"}).status == 0);
    r = Render(f, "/forgotten", {});
    CHECK(Shows(r, "private <i>x</i>"));
    CHECK(Shows(r, secret_id));
    CHECK(r.check.Tag("tr") == 3);
    for (const auto& page_query : std::initializer_list<std::pair<std::string_view, ui::Fields>>{
             {"/forgotten", {}},
             {"/entries", {{{"history", "1"}}}},
             {"/search", {{{"q", "MARKER"}, {"tools", "1"}, {"history", "1"}}}},
             {"/timeline", {{{"since", "2026-01-01"}, {"until", "2026-01-06"}}}}}) {
      const std::string_view path = page_query.first;  // no structured binding: clang 14
      r = Render(f, path, page_query.second);
      CHECK_MESSAGE(!Shows(r, kSecret), path);
    }
    bool failed = false;
    Call(f, "show", "{\"id\":" + JsonString(secret_id) + "}", &failed);
    CHECK(failed);  // a page for it is an error page (http's mapping), without its text

    // The pages of the web UI's own operations, from the daemon's answers
    // once it has them (issue 16's uiops); the next test renders them from
    // the shapes docs/architecture.md gives.
    Call(f, "overview", "{}", &failed);
    if (!failed) {
      r = Render(f, "/", {});
      CHECK(!Shows(r, kSecret));
    }
    Call(f, "turns", R"({"session":"claude-code:s-ui"})", &failed);
    if (!failed) {
      r = Render(f, "/session", {{{"id", "claude-code:s-ui"}}});
      CHECK(Shows(r, "alert('p')"));
      CHECK(!Shows(r, kSecret));
      r = Render(f, "/session", {{{"id", "claude-code:s-ui"}, {"at", huge_id}}});  // the reply is hidden: the entry forgotten cites it
      CHECK(r.html.find("class=\"turn at\"") != std::string::npos);
    }
    const rapidjson::Document forgotten = Call(f, "forgotten", "{}");
    std::string secret_tombstone;
    for (const rapidjson::Value& t : forgotten["tombstones"].GetArray())
      if (std::string_view(t["target"].GetString()) == secret_id) secret_tombstone = t["id"].GetString();
    REQUIRE(!secret_tombstone.empty());
    Call(f, "tombstone", "{\"id\":" + JsonString(secret_tombstone) + "}", &failed);
    if (!failed) {  // the one page that shows what the forget hides
      r = Render(f, "/tombstone", {{{"id", secret_tombstone}}});
      CHECK(Shows(r, kSecret));
      CHECK(r.html.find("action=\"/admin/restore\"") != std::string::npos);
    }
    f.Stop();
  }

  TEST_CASE("ui pages: the overview, a session by turns and a tombstone from their documented answers") {
    // The answers' shapes of docs/architecture.md ("Operations of the web
    // UI"), holding hostile text.
    DaemonFixture f;
    rapidjson::Document overview;
    overview.Parse(R"J({"now_ts":1764582000000,
      "counts":{"sessions":2,"events":1234567,"entries":1,"forgets_in_effect":1,"tombstones":1,"sources":2},
      "days":[{"day":"2026-11-30","start_ts":1,"total":7,"by_source":{"claude-code":5,"codex":2}},
              {"day":"2026-12-01","start_ts":2,"total":3,"by_source":{"codex":3}}],
      "sources_in_days":["claude-code","codex"],
      "recent_sessions":[{"id":"claude-code:s1","source":"claude-code","title":null,"prompt":"<script>alert(1)</script>",
        "project":"app","events":3,"messages":2,"last_ts":1764580000000,"last_time":"2026-12-01T09:26:40+00:00"}],
      "projects":[{"project":"<b>app</b>","events":10,"sessions":2,"last_ts":1,"last_time":"2026-12-01T09:26:40+00:00"}],
      "sources":[{"source":"claude-code","agent_version":"2.0.14","sessions":1,"last_ingestion_ts":1,
        "last_ingestion":"2026-12-01T09:39:50+00:00","parse_errors_7d":4,"files":1}],
      "entries":[{"id":"ent_1","kind":"knowledge","text":"an entry","confidence":1.0,"author":"user@dev","status":"active","sources":[]}],
      "tombstones":[{"id":"tmb_1","kind":"forget","target":"ent_2","reason":"why <i>","created":"2026-12-01T09:00:00+00:00",
        "origin":"dev","author":"user@dev","in_effect":true,"restored_by":null,"entries":2,"events":1}],
      "storage":{"database_bytes":912384000,"index_bytes":401000000,"mirror_bytes":210000000,"mirror_files":402}})J");
    REQUIRE(!overview.HasParseError());
    Rendered r = Render(f, "/", {}, &overview);
    CHECK(Shows(r, "1,234,567"));
    CHECK(Shows(r, "“<script>alert(1)</script>”"));
    CHECK(Shows(r, "<b>app</b>"));
    CHECK(Shows(r, "why <i>"));
    CHECK(Shows(r, "912.4 MB"));
    CHECK(r.check.Tag("svg") >= 1);
    CHECK(r.check.Tag("rect") == 3);

    rapidjson::Document turns;
    turns.Parse(R"J({"session":{"id":"claude-code:s1","source":"claude-code","title":"T <u>","project":"app","events":9,
        "first_time":"2026-12-01T09:00:00+00:00","last_time":"2026-12-01T09:30:00+00:00"},
      "page":2,"pages":3,"turns_total":45,"turns_per_page":20,"part":1,"parts":2,"at":null,
      "turns":[{"index":21,"kind":"prompt","events":4,
        "prompt":{"id":"claude-code:s1:1","kind":"message","role":"user","text":"do <it>","session":"claude-code:s1"},
        "command":null,
        "items":[{"type":"message","event":{"id":"claude-code:s1:2","kind":"message","role":"assistant","text":"**thinking**"}},
                 {"type":"tool","call":{"id":"claude-code:s1:3","kind":"tool_call","tool":"Bash","text":"rm -rf <x>"},
                  "result":{"id":"claude-code:s1:4","kind":"tool_result","text":"ok","is_error":true},"outcome":"error"},
                 {"type":"note","note":"command","event":{"id":"claude-code:s1:5","kind":"message","text":"<command-name>/model</command-name>"}}],
        "reply":{"id":"claude-code:s1:6","kind":"message","role":"assistant","text":"# Done\n[x](javascript:alert(1))"},
        "summary":{"messages":1,"tool_calls":1,"errors":1,"notes":1}},
        {"index":22,"kind":"command","events":1,"prompt":{"id":"claude-code:s1:7","kind":"message","text":"<command-name>/review</command-name>"},
         "command":{"name":"/review","args":"<all>"},"items":[],"reply":null,"summary":{"messages":0,"tool_calls":0,"errors":0,"notes":0}}]})J");
    REQUIRE(!turns.HasParseError());
    r = Render(f, "/session", {{{"id", "claude-code:s1"}, {"page", "2"}}}, &turns);
    CHECK(Shows(r, "T <u>"));
    CHECK(Shows(r, "Turn 21"));
    CHECK(Shows(r, "do <it>"));
    CHECK(Shows(r, "rm -rf <x>"));
    CHECK(Shows(r, "1 tool call, 1 message before the reply, 1 error, 1 note"));
    CHECK(r.html.find("<h3>Done</h3>") != std::string::npos);
    CHECK(Shows(r, "[x](javascript:alert(1))"));
    CHECK(Shows(r, "/review"));
    CHECK(Shows(r, "<all>"));
    CHECK(Shows(r, "Page 2 of 3"));
    CHECK(Shows(r, "Part 1 of 2"));
    CHECK(r.html.find("href=\"/admin/session?id=claude-code:s1&amp;page=1\"") != std::string::npos);
    CHECK(r.html.find("class=\"turn at\"") == std::string::npos);
    // at=: the turn holding the event is marked, its folded items open.
    r = Render(f, "/session", {{{"id", "claude-code:s1"}, {"at", "claude-code:s1:4"}}}, &turns);
    CHECK(r.html.find("<article class=\"turn at\" id=\"turn-21\"") != std::string::npos);
    CHECK(r.html.find("<details class=\"folded\" open=\"\">") != std::string::npos);
    CHECK(r.html.find("<article class=\"turn\" id=\"turn-22\"") != std::string::npos);

    rapidjson::Document tomb;
    tomb.Parse(R"J({"tombstone":{"id":"tmb_1","kind":"forget","target":"ent_2","reason":"why","created":"2026-12-01T09:00:00+00:00",
        "origin":"dev","author":"user@dev","in_effect":true,"restored_by":null,"entries":1,"events":1},
      "forget":null,"restore":null,
      "hidden":{"entries":[{"id":"ent_2","kind":"knowledge","text":"the hidden <text>","confidence":1.0,"author":"user@dev","status":"active","sources":[]}],
        "entries_total":1,"events":[{"id":"claude-code:s1:9","kind":"message","role":"user","text":"hidden event <b>"}],
        "events_total":1,"page":1,"pages":1,"events_per_page":100},
      "restore_preview":{"kind":"restore","target":"tmb_1","target_kind":"forget","dry_run":true,"chains":[],"chains_count":1,
        "entries":["ent_2"],"entries_count":1,"events":["claude-code:s1:9"],"events_count":1,"sessions":[],"sessions_count":1,"titles":[],"titles_count":0}})J");
    REQUIRE(!tomb.HasParseError());
    r = Render(f, "/tombstone", {{{"id", "tmb_1"}}}, &tomb);
    CHECK(Shows(r, "the hidden <text>"));
    CHECK(Shows(r, "hidden event <b>"));
    CHECK(r.html.find("action=\"/admin/restore\"") != std::string::npos);
    CHECK(Shows(r, "1 entry version"));
    // No link to what is hidden: its pages would only say it is forgotten.
    CHECK(r.html.find("href=\"/admin/entry?id=ent_2\"") == std::string::npos);
    CHECK(r.html.find("href=\"/admin/event?id=claude-code:s1:9\"") == std::string::npos);
  }
}
