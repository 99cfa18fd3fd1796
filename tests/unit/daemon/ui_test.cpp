// SPDX-License-Identifier: MIT
// The web UI's builder, Markdown, chart, assets and page tables (issue 16):
// every value escaped, only safe links, hostile Markdown rendered as text in
// bounded work, and every document well-formed (html_check.hpp).
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <regex>
#include <set>

#include "core/util/hash.hpp"
#include "daemon/ui/assets.hpp"
#include "daemon/ui/chart.hpp"
#include "daemon/ui/html.hpp"
#include "daemon/ui/markdown.hpp"
#include "daemon/ui/pages.hpp"
#include "tests/unit/daemon/html_check.hpp"

using namespace origin::ui;
using origin::test::CheckHtml;

namespace {

std::string Md(std::string_view text) {
  Html h;
  h.Open("div");
  RenderMarkdown(h, text);
  return h.Finish();
}

// Markdown rendered inside a whole page's frame, checked well-formed.
std::string MdChecked(std::string_view text) {
  const std::string out = Md(text);
  const auto check = CheckHtml(out);
  CHECK_MESSAGE(check.ok(), check.error);
  return out;
}

bool Has(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

double Seconds(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_SUITE("ui") {
  TEST_CASE("ui: Escape turns every markup character into a reference, and bad bytes into U+FFFD") {
    CHECK(Escape("<script>alert(\"x\")</script>&'") ==
          "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
    CHECK(Escape("a\tb\nc\rd") == "a\tb\nc\nd");
    CHECK(Escape(std::string("x\0y", 3)) == "x\xEF\xBF\xBDy");
    CHECK(Escape("\x1b[31m") == "\xEF\xBF\xBD[31m");
    CHECK(Escape("bad \xff\xfe bytes") == "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes");
    CHECK(Escape("构建 ok ✓") == "构建 ok ✓");
  }

  TEST_CASE("ui: only http, https and our own /admin links pass") {
    for (std::string_view ok : {"https://example.com/a?b=c#d", "http://localhost:7079/x", "/admin/", "/admin",
                                "/admin/event?id=claude-code:1", "#main", "HTTPS://EXAMPLE.COM"})
      CHECK_MESSAGE(SafeUrl(ok), ok);
    for (std::string_view bad : {"javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)",
                                 "java\tscript:alert(1)", "data:text/html,<script>", "vbscript:x", "//evil.com/x",
                                 "/etc/passwd", "/administrator", "https://", "http:///x", "https://a b",
                                 "https://a\\b", "/admin/../etc", "file:///etc/passwd", ""})
      CHECK_MESSAGE(!SafeUrl(bad), bad);
    CHECK(!ExternalUrl("/admin/"));
    CHECK(ExternalUrl("https://example.com"));
  }

  TEST_CASE("ui: the builder escapes text and attributes, drops unsafe links, and closes what is open") {
    Html h;
    h.Open("p", {{"title", "a\"b<c>"}, {"class", "x", false}});
    h.Element("a", {{"href", "javascript:alert(1)"}}, "<b>click</b>");
    h.Element("a", {{"HREF", "javascript:alert(1)"}, {"FormAction", "data:x"}}, "");
    static_assert(Name("viewBox").Is("viewbox") && !Name("class").Is("style"));
    h.Element("a", {{"href", "https://example.com/?a=1&b=2"}}, "ok");
    h.Open("span");
    const std::string out = h.Finish();
    CHECK(out ==
          "<p title=\"a&quot;b&lt;c&gt;\"><a>&lt;b&gt;click&lt;/b&gt;</a><a></a>"
          "<a href=\"https://example.com/?a=1&amp;b=2\">ok</a><span></span></p>");
    CHECK(CheckHtml(out).ok());
  }

  TEST_CASE("ui: Markdown renders each construct of the spec's subset") {
    const std::string out = MdChecked(
        "# Title\n\nA *word*, **strong**, _em_, __bold__, ***both*** and `a < b`.\n"
        "Second line.\n\n"
        "```cpp\nint main() { return a<b && c; }\n```\n\n"
        "- one\n- two\n  - nested\n\n"
        "3. three\n4. four\n\n"
        "> quoted\n> > deeper\n\n"
        "---\n\n"
        "| a | b |\n|:--|--:|\n| 1 | `x\\|y` |\n\n"
        "See [the docs](https://example.com/docs) and \\*not em\\*.\n");
    CHECK(Has(out, "<h3>Title</h3>"));
    CHECK(Has(out, "<em>word</em>"));
    CHECK(Has(out, "<strong>strong</strong>"));
    CHECK(Has(out, "<em>em</em>"));
    CHECK(Has(out, "<strong>bold</strong>"));
    CHECK(Has(out, "<strong><em>both</em></strong>"));
    CHECK(Has(out, "<code>a &lt; b</code>"));
    CHECK(Has(out, "<pre tabindex=\"0\" data-lang=\"cpp\"><code>int main() { return a&lt;b &amp;&amp; c; }\n</code></pre>"));
    CHECK(Has(out, "<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>"));
    CHECK(Has(out, "<ol start=\"3\"><li>three</li><li>four</li></ol>"));
    CHECK(Has(out, "<blockquote><p>quoted</p><blockquote><p>deeper</p></blockquote></blockquote>"));
    CHECK(Has(out, "<hr>"));
    CHECK(Has(out, "<th class=\"al-r\">b</th>"));
    CHECK(Has(out, "<td class=\"al-r\"><code>x\\|y</code></td>"));
    CHECK(Has(out, "<a href=\"https://example.com/docs\" rel=\"noopener noreferrer\" target=\"_blank\">the docs</a>"
                   "<span class=\"link-url\"> (https://example.com/docs)</span>"));
    CHECK(Has(out, "and *not em*."));
  }

  TEST_CASE("ui: HTML, script and links other than http(s) in Markdown stay text") {
    const std::string out = MdChecked(
        "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n"
        "[click](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=) [v](vbscript:x)\n\n"
        "<a href=\"javascript:alert(1)\">x</a> &amp; &#x3C;\n\n"
        "| <b>h</b> |\n|---|\n| <i onmouseover=x>c</i> |\n\n"
        "```\n</code></pre><script>x</script>\n```\n");
    CHECK(Has(out, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    CHECK(Has(out, "&lt;img src=x onerror=alert(1)&gt;"));
    CHECK(!Has(out, "<a "));
    CHECK(Has(out, "[click](javascript:alert(1))"));
    CHECK(Has(out, "&amp;amp; &amp;#x3C;"));
    CHECK(Has(out, "&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;"));
    const auto check = CheckHtml(out);
    CHECK(check.Tag("script") == 0);
    CHECK(check.Tag("img") == 0);
  }

  TEST_CASE("ui: deep nesting is capped, and huge or pathological Markdown renders in linear time") {
    // Quotes and lists nested 100,000 deep: at most kMaxMarkdownDepth elements deep.
    const std::string quotes(100000, '>');
    std::string out = MdChecked(quotes + " deep");
    CHECK(CheckHtml(out).Tag("blockquote") <= kMaxMarkdownDepth + 1);
    std::string lists;
    for (int i = 0; i < 2000; ++i) lists += std::string(static_cast<std::size_t>(i) * 2, ' ') + "- x\n";
    out = MdChecked(lists);
    CHECK(CheckHtml(out).Tag("ul") <= 2000);
    std::string dashes;
    for (int i = 0; i < 50000; ++i) dashes += "- ";
    MdChecked(dashes + "x");
    // Each of these, 1 MB, renders in well under a second (a quadratic scan
    // would take minutes).
    const std::size_t n = 1 << 20;
    std::string emph, brackets, ticks, under, mixed, line(n, 'a');
    for (std::size_t i = 0; emph.size() < n; ++i) emph += "*a ";
    for (std::size_t i = 0; brackets.size() < n; ++i) brackets += "[a](";
    for (std::size_t i = 0; ticks.size() < n; ++i) ticks += "``a`";
    for (std::size_t i = 0; under.size() < n; ++i) under += "_a**b__c ";
    for (std::size_t i = 0; mixed.size() < n; ++i) mixed += "**[`*_ ";
    for (const std::string* s : {&emph, &brackets, &ticks, &under, &mixed, &line}) {
      const double t = Seconds([&] { MdChecked(*s); });
      CHECK_MESSAGE(t < 2.0, "took " << t << " s");
    }
  }

  TEST_CASE("ui: the chart stacks each day's sources, labels its axis, and has a text alternative") {
    std::vector<std::string> series = {"claude-code", "codex", "<b>odd</b>"};
    std::vector<ChartDay> days;
    for (int d = 1; d <= 30; ++d)
      days.push_back({"2026-11-" + std::string(d < 10 ? "0" : "") + std::to_string(d), {d * 10, d % 3, d == 30 ? 5 : 0}});
    Html h;
    RenderDayChart(h, series, days);
    const std::string out = h.Finish();
    const auto check = CheckHtml(out);
    CHECK_MESSAGE(check.ok(), check.error);
    CHECK(check.Tag("g") == 30);
    CHECK(check.Tag("rect") == 30 + 20 + 1);  // a bar per non-zero count
    CHECK(Has(out, "role=\"img\""));
    CHECK(Has(out, "<title id=\"chart-title\">Visible events per day, by source</title>"));
    CHECK(Has(check.text, "2026-11-30"));
    CHECK(Has(out, "&lt;b&gt;odd&lt;/b&gt;"));
    CHECK(check.Tag("tr") == 31);  // the table: a header and a row a day
    // The axis's labels at their own heights: a busiest day of 5 (or 4)
    // labels 0, 2 and 5, the 2 two fifths up; of 1, only 0 and 1.
    auto axis = [](std::int64_t busiest) {
      Html c;
      std::vector<ChartDay> one = {{"2026-11-30", {busiest}}};
      RenderDayChart(c, std::vector<std::string>{"claude-code"}, one);
      const std::string svg = c.Finish();
      std::vector<std::pair<std::string, int>> labels;  // text, y
      for (std::size_t at = svg.find("class=\"axis\""); at != std::string::npos;
           at = svg.find("class=\"axis\"", at + 1)) {
        const std::size_t y = svg.find(" y=\"", at) + 4, gt = svg.find('>', at) + 1;
        if (svg.substr(at, gt - at).find("text-anchor=\"end\"") == std::string::npos)
          continue;  // a day's label, under the bars
        labels.emplace_back(svg.substr(gt, svg.find('<', gt) - gt), std::stoi(svg.substr(y)));
      }
      return labels;
    };
    const auto five = axis(4);
    REQUIRE(five.size() == 3);
    CHECK(five[0].first == "0");
    CHECK(five[1].first == "2");
    CHECK(five[2].first == "5");
    const double rise = five[0].second - five[2].second;
    CHECK(std::abs((five[0].second - five[1].second) - rise * 2 / 5) <= 1.0);
    const auto single = axis(1);
    REQUIRE(single.size() == 2);
    CHECK(single[1].first == "1");
    CHECK(NiceCeiling(0) == 1);
    CHECK(NiceCeiling(301) == 500);
    CHECK(NiceCeiling(1000) == 1000);
    CHECK(NiceCeiling(1001) == 2000);
  }

  TEST_CASE("ui: assets are embedded under names with the first 12 hex digits of their SHA-256") {
    std::set<std::string> files;
    for (const EmbeddedAsset& a : EmbeddedAssets()) {
      files.insert(std::string(a.file));
      const std::string hash = origin::Sha256Hex(a.asset.body).substr(0, 12);
      const std::string_view f = a.file;
      const std::size_t dot = f.rfind('.');
      CHECK(a.asset.name == std::string(f.substr(0, dot)) + "." + hash + std::string(f.substr(dot)));
      CHECK(!a.asset.body.empty());
      CHECK(AssetUrl(a.file) == "/admin/assets/" + std::string(a.asset.name));
    }
    CHECK(files == std::set<std::string>{"origin.css", "origin.js", "favicon.svg"});
    CHECK(AllAssets().size() == 3);
    for (const Asset& a : AllAssets()) {
      if (a.name.ends_with(".js")) {
        CHECK(a.content_type == "text/javascript; charset=utf-8");
        CHECK(!Has(a.body, "innerHTML"));
        CHECK(!Has(a.body, "eval("));
        CHECK(Has(a.body, "X-CSRF-Token"));
        CHECK(Has(a.body, "/admin/api/sources"));
      }
      if (a.name.ends_with(".css")) {
        CHECK(Has(a.body, "prefers-color-scheme: dark"));
        CHECK(Has(a.body, ":focus-visible"));
      }
    }
  }

  TEST_CASE("ui: the tables route every page and form of the interface, and refuse what lacks an id") {
    std::set<std::string> pages, actions;
    for (const Page& p : AllPages()) pages.insert(std::string(p.path));
    for (const Action& a : AllActions()) actions.insert(std::string(a.path));
    CHECK(pages == std::set<std::string>{"/", "/timeline", "/session", "/event", "/source", "/search", "/entries",
                                         "/entry", "/forgotten", "/forget", "/tombstone"});
    CHECK(actions == std::set<std::string>{"/remember", "/correct", "/forget", "/restore"});
    const Fields none;
    for (const Page& p : AllPages()) {
      std::string params, error;
      const bool needs_id = p.path == "/session" || p.path == "/event" || p.path == "/source" ||
                            p.path == "/entry" || p.path == "/forget" || p.path == "/tombstone";
      CHECK_MESSAGE(p.params(none, &params, &error) == !needs_id, p.path);
      if (needs_id) CHECK(Has(error, "is required"));
    }
    for (const Action& a : AllActions()) {
      std::string params, error;
      CHECK_MESSAGE(!a.params(none, &params, &error), a.path);
    }
    Fields bad{{{"id", "x"}, {"page", "-1"}}};
    std::string params, error;
    CHECK(!AllPages()[2].params(bad, &params, &error));
    CHECK(error == "page must be a whole number");
    Fields when{{{"since", "not a date"}}};
    CHECK(!AllPages()[1].params(when, &params, &error));
    CHECK(Has(error, "since: not a date"));
  }

  TEST_CASE("ui: forms' fields become the operations' params") {
    auto action = [](std::string_view path) {
      for (const Action& a : AllActions())
        if (a.path == path) return a;
      FAIL("no action " << path);
      return AllActions()[0];
    };
    std::string params, error;
    Fields remember{{{"_csrf", "t"}, {"text", " a fact "}, {"cite", "codex:s:6"}, {"kind", "memory"}, {"confidence", "0.5"}, {"request_key", "k1"}}};
    REQUIRE(action("/remember").params(remember, &params, &error));
    CHECK(Has(params, "\"text\":\"a fact\""));
    CHECK(Has(params, "\"kind\":\"memory\""));
    CHECK(Has(params, "\"confidence\":0.5"));
    CHECK(Has(params, "\"event_id\":\"codex:s:6\""));
    CHECK(Has(params, "\"request_key\":\"k1\""));
    Fields correct{{{"id", "ent_1"}, {"text", "better"}}};
    REQUIRE(action("/correct").params(correct, &params, &error));
    CHECK(Has(params, "\"confidence\":1"));  // 1 unless given
    Fields forget{{{"target", "ent_1"}, {"reason", "wrong"}, {"digest", "ab12"}}};
    REQUIRE(action("/forget").params(forget, &params, &error));
    CHECK(params == "{\"target\":\"ent_1\",\"reason\":\"wrong\",\"digest\":\"ab12\"}");
    Fields no_reason{{{"target", "ent_1"}, {"reason", "  "}, {"digest", "ab12"}}};
    CHECK(!action("/forget").params(no_reason, &params, &error));
    CHECK(error == "reason is required");
    Fields bad_conf{{{"id", "ent_1"}, {"confidence", "2"}}};
    CHECK(!action("/correct").params(bad_conf, &params, &error));
    rapidjson::Document restored;
    restored.Parse(R"({"kind":"restore","target":"tmb_f","tombstone":"tmb_r"})");
    CHECK(action("/restore").redirect(restored) == "/admin/tombstone?id=tmb_f");
    rapidjson::Document entry;
    entry.Parse(R"({"entry":{"id":"ent_9"}})");
    CHECK(action("/remember").redirect(entry) == "/admin/entry?id=ent_9");
  }

  TEST_CASE("ui: the error page escapes its message and is a whole, well-formed page") {
    PageContext ctx;
    ctx.csrf = "tok\"en";
    ctx.store_name = "<laptop>";
    const std::string out = RenderError(404, "no event <script>x</script>", ctx);
    const auto check = CheckHtml(out);
    CHECK_MESSAGE(check.ok(), check.error);
    CHECK(Has(out, "no event &lt;script&gt;x&lt;/script&gt;"));
    CHECK(Has(out, "<meta name=\"csrf\" content=\"tok&quot;en\">"));
    CHECK(Has(out, "<html lang=\"en\">"));
    CHECK(Has(check.text, "<laptop>"));
    CHECK(check.Tag("script") == 1);
    CHECK(check.Tag("main") == 1);
    CHECK(check.Tag("nav") == 1);
    // Only the icons it uses: the nav's five (search among them, used twice)
    // and the warning.
    CHECK(check.Tag("symbol") == 6);
  }
}
