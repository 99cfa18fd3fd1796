// SPDX-License-Identifier: MIT
// Search terms, snippets, and entry search against a brute-force reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

#include "core/entries/entries.hpp"
#include "core/query/terms.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

TEST_SUITE("search") {
  TEST_CASE("search: terms split on whitespace, each found by its length and letters") {
    auto t = ParseTerms("  Catalog  AI 部署 库 C# catalog 5号 ");
    REQUIRE(t.size() == 6);  // the second catalog is the first, case aside
    CHECK(t[0].kind == Term::Kind::kTrigram);
    CHECK(t[1].kind == Term::Kind::kShort);
    CHECK(t[2].kind == Term::Kind::kCjkShort);
    CHECK(t[3].kind == Term::Kind::kCjkShort);
    CHECK(t[4].kind == Term::Kind::kShort);
    CHECK(t[5].kind == Term::Kind::kShort);  // 5号: not only CJK letters
    CHECK(t[0].bytewise);
    CHECK(t[2].bytewise);
    CHECK_FALSE(ParseTerms("Über")[0].bytewise);
    CHECK(MatchesAll("ÜBER alles", ParseTerms("über")));
    CHECK(MatchesAll("部署 ok", ParseTerms("部署 OK")));
    CHECK(MatchesAll("the CATALOG of AI tools: 部署 to 库, C# and 5号", t));
    CHECK_FALSE(MatchesAll("the catalog of tools", t));
    CHECK(TrigramMatch(ParseTerms("log \"quoted\" AI")) == "\"log\" AND \"\"\"quoted\"\"\"");
    CHECK(TrigramMatch(ParseTerms("AI C#")).empty());
  }

  TEST_CASE("search: matching in the bytes agrees with matching folded code points") {
    // MatchesAll finds ASCII and CJK terms in the bytes; it must agree with
    // comparing folded code points, also where a Kelvin sign or a long s
    // stands for a k or an s, as FTS5 folds them.
    const std::vector<std::string> pieces = {"k", "K", "\u212A", "s", "S", "\u017F", "ch", "部", "Ü", "ü", "a", " "};
    std::mt19937 rng(5);
    for (int i = 0; i < 3000; ++i) {
      std::string text, term;
      for (int j = 0, n = 1 + static_cast<int>(rng() % 8); j < n; ++j) text += pieces[rng() % pieces.size()];
      for (int j = 0, n = 1 + static_cast<int>(rng() % 3); j < n; ++j) term += pieces[rng() % (pieces.size() - 1)];
      auto terms = ParseTerms(term);
      bool plain = true;
      std::u32string folded = FoldCase(text);
      for (const Term& t : terms) plain = plain && folded.find(t.folded) != std::u32string::npos;
      INFO("text '" << text << "' term '" << term << "'");
      CHECK(MatchesAll(text, terms) == plain);
    }
    CHECK(MatchesAll("\u212Aelvin", ParseTerms("kelvin")));
    CHECK(MatchesAll("kelvin", ParseTerms("\u212Aelvin")));
    CHECK(MatchesAll("\u017Fchema", ParseTerms("SCHEMA")));
  }

  TEST_CASE("search: snippets show every match in brackets around the first") {
    auto t = ParseTerms("log");
    CHECK(Snippet("catalog and log", t) == "cata[log] and [log]");
    std::string long_text = std::string(300, 'x') + " the CATALOG " + std::string(300, 'y');
    std::string s = Snippet(long_text, t);
    CHECK(s.find("CATA[LOG]") != std::string::npos);
    CHECK(s.rfind("…", 0) == 0);
    CHECK(s.size() <= 200 + 2 + 2 * std::string("…").size());
    CHECK(Snippet("ab\ncd", ParseTerms("b c")) == "a[b] [c]d");
    CHECK(Snippet("部署到生产", ParseTerms("到生")) == "部署[到生]产");
    CHECK(Snippet("no match here", t) == "no match here");
  }

  TEST_CASE("search: a snippet cut from the bytes equals one cut from decoded code points") {
    // Snippet finds the matches of ASCII-folded terms in the bytes and walks
    // the window's code points only; decoding the whole text is the
    // reference.  Texts of ASCII in both cases, letters of two to four
    // bytes, line breaks and brackets, windows of every size.
    const std::vector<std::string> pieces = {"a",  "B",  "log", "LOG", "é", "É", "部", "署", "😀",
                                             "\n", "\t", "[",   "]",   " ", "x", "Lo", "g"};
    const std::vector<std::string> words = {"log", "LoG", "a", "部署", "xa", "g l", "é", "😀x"};
    std::mt19937 rng(17);
    for (int i = 0; i < 20000; ++i) {
      std::string text, query;
      for (int j = 0, n = static_cast<int>(rng() % 60); j < n; ++j)
        text += pieces[rng() % pieces.size()];
      for (int j = 0, n = static_cast<int>(rng() % 3); j < n; ++j)
        query += words[rng() % words.size()] + " ";
      const std::size_t max_chars = 1 + rng() % 40;
      const auto terms = ParseTerms(query);
      SnippetMarks fast, slow;
      INFO("text '" << text << "' query '" << query << "' max " << max_chars);
      REQUIRE(Snippet(text, terms, max_chars, &fast) ==
              SnippetDecoded(text, terms, max_chars, &slow));
      REQUIRE(fast == slow);
    }
    // Texts the bytes cannot answer are decoded: invalid UTF-8 (each bad
    // byte one character), a long s standing for an s.
    CHECK(Snippet("ab\xFF\xFE"
                  "cd",
                  {}, 3) == "ab\xFF…");
    CHECK(Snippet("the \u017Fchema", ParseTerms("schema")) == "the [\u017Fchema]");
  }

  TEST_CASE("search: entry search equals a substring scan of the visible entries") {
    TestStore s;
    s.db->Exec("INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
               "VALUES (1, 't', 'k', 1, '/x', 't/k', 0);"
               "INSERT INTO event(id, source, ts, role, kind, text, file_id, line) "
               "VALUES ('t:1', 't', 1, 'user', 'message', 'x', 1, 1)");
    const std::vector<std::string> words = {"Catalog", "catalogue", "deploy", "DEPLOYMENT", "parser",
                                            "AI",      "C#",        "部署",   "生产环境",    "库",
                                            "snake_case_name", "Über", "über", "x", "log"};
    std::mt19937 rng(2026);
    std::vector<std::string> ids;
    for (int n = 0; n < 250; ++n) {
      std::string text;
      int len = 2 + static_cast<int>(rng() % 8);
      for (int k = 0; k < len; ++k) text += (k ? " " : "") + words[rng() % words.size()];
      s.clock.Tick(1000 + static_cast<std::int64_t>(rng() % 5000));
      if (!ids.empty() && rng() % 4 == 0) {
        CorrectInput c;
        c.text = text;
        c.author = "user@t";
        std::string target = ids[rng() % ids.size()];
        auto cur = GetEntry(*s.db, target, 0);
        // correct the current version of that chain
        auto hist = EntryHistory(*s.db, cur->root, 0);
        ids.push_back(Correct(*s.db, s.clock, "t", hist.back().status == "active" ? hist.back().id : cur->superseded_by.value_or(target), c));
        continue;
      }
      RememberInput in;
      in.kind = (rng() % 2) ? "memory" : "knowledge";
      in.text = text;
      in.confidence = 0.5;
      in.author = "user@t";
      in.sources = {{std::string("t:1"), std::nullopt}};
      if (rng() % 7 == 0) in.valid_to = s.clock.NowMs() + 10000;  // ends soon
      ids.push_back(Remember(*s.db, s.clock, "t", in).id);
    }
    s.clock.Tick(60000);
    const std::int64_t now = s.clock.NowMs();
    auto queries = std::vector<std::string>{"catalog", "CATALOG deploy", "AI", "ai c#", "部署", "库",
                                            "环境", "生", "atalo", "ment", "über", "ÜBER log", "x",
                                            "case_n", "zzz", "c# 部署 parser", "og", "eplo AI"};
    for (bool history : {false, true}) {
      EntryFilter f;
      f.history = history;
      f.limit = 1000;
      // The reference: every visible entry, its text checked, newest first.
      auto visible = ListEntries(*s.db, f, now);
      for (const auto& q : queries) {
        auto terms = ParseTerms(q);
        std::vector<std::string> expected;
        for (const auto& e : visible)
          if (MatchesAll(e.text, terms)) expected.push_back(e.id);
        auto hits = SearchEntries(*s.db, q, f, now);
        std::vector<std::string> got;
        for (const auto& h : hits) got.push_back(h.entry.id);
        INFO("query: " << q << " history: " << history);
        if (TrigramMatch(terms).empty()) {
          CHECK(got == expected);  // time order, exactly
        } else {
          std::vector<std::string> a = got, b = expected;
          std::sort(a.begin(), a.end());
          std::sort(b.begin(), b.end());
          CHECK(a == b);  // ranked by BM25: the same entries
        }
        for (const auto& h : hits) CHECK(h.snippet.find('[') != std::string::npos);
      }
    }
    EntryFilter all;
    all.limit = 1000;
    CHECK(SearchEntries(*s.db, "catalog", all, now).size() > 20);
    CHECK(SearchEntries(*s.db, "AI 库", all, now).size() > 3);
    CHECK(SearchEntries(*s.db, "über", all, now).size() ==
          SearchEntries(*s.db, "ÜBER", all, now).size());
    EntryFilter few;
    few.limit = 3;
    CHECK(SearchEntries(*s.db, "catalog", few, now).size() <= 3);
    CHECK(SearchEntries(*s.db, "", few, now).size() == 3);
  }
}
