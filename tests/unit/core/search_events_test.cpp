// SPDX-License-Identifier: MIT
// Event search against a brute-force reference: on generated corpora (Latin,
// CJK, code identifiers, one- and two-character terms, mixed case, events
// arriving out of time order, an index that lags), every query's results
// equal a case-insensitive substring-AND scan of the events in scope, in the
// order the spec defines.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>

#include "core/query/gather.hpp"
#include "core/query/search.hpp"
#include "core/query/terms.hpp"
#include "core/store/event_index.hpp"
#include "core/store/fts_rank.hpp"
#include "core/store/schema.hpp"
#include "tests/support/support.hpp"
#include "tests/unit/core/search_corpus.hpp"

using namespace origin;
using namespace origin::test;

namespace {

// Events of `c`'s store beyond its corpus, from a file of their own (id 900,
// named `key`): one for each text, by the assistant, of `kinds` in turn, at
// `ts` plus its line.
void AddEvents(Corpus& c, const std::string& key, const std::vector<std::string>& texts,
               const std::vector<std::string>& kinds, std::int64_t ts) {
  c.s.db
      ->Prepare(
          "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
          "VALUES (900, 't', ?1, 1, '/' || ?1, 't/' || ?1, 0)")
      .Bind(1, key)
      .Run();
  for (std::size_t i = 0; i < texts.size(); ++i)
    c.s.db
        ->Prepare(
            "INSERT INTO event(id, source, ts, role, kind, text, file_id, line) "
            "VALUES (?, 't', ?, 'assistant', ?, ?, 900, ?)")
        .Bind(1, "t:" + key + std::to_string(i + 1))
        .Bind(2, ts + static_cast<std::int64_t>(i) + 1)
        .Bind(3, kinds[i % kinds.size()])
        .Bind(4, texts[i])
        .Bind(5, static_cast<std::int64_t>(i) + 1)
        .Run();
}

}  // namespace

TEST_SUITE("search") {
  TEST_CASE("search: origin_bm25 with exact document frequencies equals FTS5's bm25") {
    Corpus c(3000, 5, 3000);
    for (std::string text : {"catalog", "catalog deploy", "parse_line über", "部署"}) {
      auto phrases = TrigramPhrases(ParseTerms(text));
      std::string match, dfs;
      for (const auto& p : phrases) {
        match += (match.empty() ? "" : " AND ") + p;
        Stmt n(c.s.db->get(), "SELECT count(*) FROM idx.message_fts WHERE message_fts MATCH ?");
        n.Bind(1, p);
        n.Step();
        dfs += std::to_string(n.Int(0)) + " ";
      }
      if (phrases.empty()) continue;
      Stmt st(c.s.db->get(),
              "SELECT bm25(message_fts), origin_bm25(message_fts, ?2) FROM idx.message_fts WHERE message_fts MATCH ?1");
      st.Bind(1, match).Bind(2, dfs);
      int rows = 0;
      while (st.Step()) {
        ++rows;
        CHECK(st.Double(1) == doctest::Approx(st.Double(0)).epsilon(1e-9));
      }
      INFO(text);
      CHECK(rows > 0);
    }
    // event_fts (detail=none) records no occurrences, so FTS5's bm25() scores
    // every row 0; origin_bm25 counts each trigram once per row, which leaves
    // the length: the shorter the text, the better the score.
    std::string dfs;
    for (const char* g : {"cat", "ata", "dep"}) {
      Stmt n(c.s.db->get(), "SELECT count(*) FROM idx.event_fts WHERE event_fts MATCH ?");
      n.Bind(1, std::string("\"") + g + "\"");
      n.Step();
      dfs += std::to_string(n.Int(0)) + " ";
    }
    Stmt st(c.s.db->get(),
            "SELECT origin_bm25(f.event_fts, ?2), length(e.text) FROM idx.event_fts f JOIN event e ON e.seq = f.rowid "
            "WHERE f.event_fts MATCH ?1 ORDER BY 1");
    st.Bind(1, "\"cat\" AND \"ata\" AND \"dep\"").Bind(2, dfs);
    int rows = 0;
    std::int64_t last_len = 0;
    while (st.Step()) {
      ++rows;
      CHECK(st.Double(0) < 0);
      CHECK(st.Int(1) >= last_len);
      last_len = st.Int(1);
    }
    CHECK(rows > 0);
  }

  TEST_CASE(
      "search: origin_bm25 scores by each query's own collection and frequencies: a statement run "
      "anew, a call with other arguments, FTS5 filtered again as a join's inner loop") {
    Corpus c(3000, 9, 3000);
    const std::string match = "\"cat\" AND \"dep\"";
    // Each phrase's rows, counted: with them origin_bm25 is FTS5's bm25().
    auto dfs = [&] {
      std::string out;
      for (const char* p : {"\"cat\"", "\"dep\""}) {
        Stmt n(c.s.db->get(), "SELECT count(*) FROM idx.message_fts WHERE message_fts MATCH ?");
        n.Bind(1, p);
        n.Step();
        out += std::to_string(n.Int(0)) + " ";
      }
      return out;
    };
    // One statement, prepared once, run again after the index grew: the
    // collection FTS5 holds then, not the one the first run read.
    Stmt st(c.s.db->get(),
            "SELECT bm25(m.message_fts), origin_bm25(m.message_fts, ?2), "
            "origin_bm25(m.message_fts, '1 1'), origin_bm25(m.message_fts, '1 1', '500 9000'), "
            "origin_bm25(m.message_fts, ?2), e.text FROM idx.message_fts m JOIN event e ON e.seq = "
            "m.rowid WHERE m.message_fts MATCH ?1");
    const TrigramRank trigrams = TrigramRank::Parse("1 1", "500 9000");
    int first_rows = 0;
    for (int run = 0; run < 2; ++run) {
      if (run == 1) {
        c.s.db->Exec(
            "INSERT INTO event(id, source, session, ts, role, kind, text, file_id, line) "
            "SELECT 'more:' || seq, source, session, ts + 1, role, kind, text || ' catalog "
            "deploy', "
            "file_id, line + 100000 FROM event WHERE seq <= 1500");
        EventIndex(c.s.dir / "index.db", c.s.db_path()).CatchUp();
      }
      const std::string exact = dfs();
      st.Reset();
      st.Bind(1, match).Bind(2, exact);
      int rows = 0;
      while (st.Step()) {
        ++rows;
        // Every call in the row by its own arguments: a df of 1 makes a
        // phrase rarer, so better (lower) than its counted df does.
        CHECK(st.Double(1) == doctest::Approx(st.Double(0)).epsilon(1e-9));
        CHECK(st.Double(2) < st.Double(1));
        CHECK(st.Double(4) == st.Double(1));
        // A trigram tokenizer makes n - 2 tokens of n characters.
        CHECK(st.Double(3) == trigrams.Score(static_cast<double>(FoldCase(st.Text(5)).size()) - 2));
      }
      INFO("run " << run);
      CHECK(rows > first_rows);
      first_rows = rows;
    }
    // FTS5 as the inner loop of a join, filtered again for each outer row
    // with another MATCH (one phrase, then two) and the same arguments: each
    // MATCH's query is its own (FTS5 frees the data at each filtering).
    Stmt inner(c.s.db->get(),
               "SELECT bm25(m.message_fts), origin_bm25(m.message_fts, ?1) FROM (SELECT '\"cat\"' "
               "AS q UNION ALL SELECT '\"cat\" AND \"dep\"') v CROSS JOIN idx.message_fts m "
               "WHERE m.message_fts MATCH v.q");
    inner.Bind(1, dfs());
    int rows = 0;
    while (inner.Step()) {
      ++rows;
      CHECK(inner.Double(1) == doctest::Approx(inner.Double(0)).epsilon(1e-9));
    }
    CHECK(rows > first_rows);
  }

  TEST_CASE("search: origin_bm25 with the collection given scores trigrams by length, as TrigramRank does from a text") {
    Corpus c(500, 3, 500);
    const TrigramRank rank = TrigramRank::Parse("40 7 300", "2000 90000");
    for (const char* table : {"message_fts", "event_fts"}) {
      Stmt st(c.s.db->get(), std::string("SELECT origin_bm25(t.") + table +
                                 ", '40 7 300', '2000 90000'), e.text FROM idx." + table +
                                 " t JOIN event e ON e.seq = t.rowid WHERE t." + table +
                                 " MATCH '\"log\"'");
      int rows = 0;
      while (st.Step()) {
        ++rows;
        // A trigram tokenizer makes n - 2 tokens of n characters.
        const double len = static_cast<double>(FoldCase(st.Text(1)).size()) - 2;
        CHECK(st.Double(0) < 0);
        CHECK(st.Double(0) == rank.Score(len));
      }
      INFO(table);
      CHECK(rows > 0);
    }
  }

  TEST_CASE(
      "search: origin_bm25 given each row's length in characters scores as with FTS5's docsize "
      "(kEventLengthVersion)") {
    Corpus c(3000, 5, 3000);
    AddEvents(c, "len",
              {"ab", "abc", "catalog", "部署 catalog 到生产环境", "über catalog 🙂🙂",
               "catalog\ttab and  spaces  "},
              {"message"}, 4);
    EventIndex index(c.s.dir / "index.db", c.s.db_path());
    index.CatchUp();
    for (const char* match : {"\"cat\"", "\"catalog\"", "\"ata\" AND \"log\""}) {
      for (const char* totals : {"NULL", "'9000 400000'"}) {
        Stmt st(c.s.db->get(), std::string("SELECT origin_bm25(m.message_fts, '40 7', ") + totals +
                                   "), origin_bm25(m.message_fts, '40 7', " + totals +
                                   ", length(e.text)), origin_bm25(m.message_fts, '40 7', " +
                                   totals +
                                   ", length(e.text) + 50) FROM idx.message_fts m JOIN event e "
                                   "INDEXED BY event_seq_ts ON e.seq = m.rowid WHERE "
                                   "m.message_fts MATCH ?");
        st.Bind(1, match);
        int rows = 0;
        while (st.Step()) {
          ++rows;
          CHECK(st.Double(1) == st.Double(0));
          CHECK(st.Double(2) > st.Double(1));  // the length given is the one used: longer, worse
        }
        INFO(match << " " << totals);
        CHECK(rows > 0);
      }
    }
  }

  TEST_CASE(
      "search: a text holding a NUL scores alike whether its check is left to the answer or made "
      "as it is read") {
    // SQLite's length() counts up to a NUL: the length a candidate left
    // unchecked is scored by (event_seq_ts), and the stamps'; a candidate
    // checked as it is read is scored from its text, counted the same way.
    Corpus c(400, 3, 400);
    std::vector<std::string> texts;
    for (int i = 1; i <= 40; ++i) {
      texts.push_back("retry_handler " + std::string(static_cast<std::size_t>(i), 'x'));
      if (i % 2 == 0)
        texts.back() += std::string(1, '\0') + std::string(static_cast<std::size_t>(90 - i), 'y');
    }
    AddEvents(c, "nul", texts, {"tool_result", "tool_result", "message"}, 1700000000000);
    EventIndex(c.s.dir / "index.db", c.s.db_path()).CatchUp();
    EventQuery q;
    q.query = "retry_handler";
    q.include_tools = true;
    q.limit = 40;
    auto hits = [&](bool counted, int read_all_upto) {
      EventQuery r = q;
      r.read_all_upto = read_all_upto;
      std::int64_t total = 0;
      std::vector<std::pair<std::int64_t, double>> out;
      for (const auto& h : SearchEvents(*c.s.db, r, counted ? &total : nullptr))
        out.push_back({h.event.seq, h.score.value_or(0)});
      return out;
    };
    const auto checked = hits(true, kRankWindow / 2);
    CHECK(checked.size() == 40);
    for (int read_all_upto : {-1, kRankWindow / 2}) {
      INFO("read all up to " << read_all_upto);
      CHECK(hits(false, read_all_upto) == checked);
      CHECK(hits(true, read_all_upto) == checked);
    }
  }

  TEST_CASE("search: event search equals a substring scan, in the spec's order") {
    for (int indexed : {3000, 1200}) {  // an index that is complete, and one that lags
      Corpus c(3000, 77 + static_cast<std::uint32_t>(indexed), indexed);
      INFO("indexed up to " << indexed);
      std::int64_t upto = IndexedUpto(*c.s.db);
      CHECK(upto >= indexed);
      if (indexed < 3000) CHECK(upto < 3000);  // the index lags: newer events are read directly
      int nonempty = 0;
      std::vector<std::string> queries = {
          "catalog", "CATALOG deploy", "atalo", "ment", "über", "ÜBER log", "parse_line",
          "case_n", "zzz", "c# 部署 parser", "eplo ai", "AI", "ai c#", "x", "og", "ok",
          "部署", "库", "环境", "生", "部", "ダ", "한국", "5号", "部署 AI", "catalog 库",
          "KELVIN", "elvi", "schema", "\u017Fchem", "\u212A", "k"};
      // Messages, every event (--all), and tool calls and results only (what
      // --all adds: the daemon counts them).
      for (int mode : {0, 1, 2}) {
        const bool tools = mode != 0;
        for (bool recent : {false, true}) {
          for (const std::string& text : queries) {
            EventQuery q;
            q.query = text;
            q.include_tools = mode == 1;
            q.tools_only = mode == 2;
            q.recent = recent;
            q.limit = 5000;
            auto ref = Reference(*c.s.db, q);
            nonempty += !ref.empty();
            auto hits = SearchEvents(*c.s.db, q);
            std::vector<std::int64_t> got;
            for (const auto& h : hits) got.push_back(h.event.seq);
            INFO("query '" << text << "' mode " << mode << " recent " << recent);
            bool ranked = !recent && !TrigramMatch(ParseTerms(text)).empty();
            if (!ranked) {
              CHECK(got == ref);  // newest first, ties by later arrival: exactly
            } else {
              // By relevance over the newest kRankWindow matches: the same events.
              std::vector<std::int64_t> window(ref.begin(),
                                               ref.begin() + std::min<std::size_t>(ref.size(), kRankWindow));
              std::sort(window.begin(), window.end());
              std::sort(got.begin(), got.end());
              CHECK(got == window);
              // What the index has not reached (no score) first, then by score.
              bool scored = false;
              double last = 0;
              const EventHit* prev = nullptr;
              for (const auto& h : hits) {
                if (!h.score) {
                  CHECK_FALSE(scored);
                  continue;
                }
                if (scored) CHECK(last <= *h.score);
                // With tool events, messages (message_fts) and the others
                // (event_fts) are scored as one table of trigrams: by length,
                // ties newest first, whichever table each came from.
                if (tools && prev != nullptr) {
                  auto chars = [](const std::string& t) { return FoldCase(t).size(); };
                  const auto a = chars(prev->event.text), b = chars(h.event.text);
                  CHECK(a <= b);
                  if (a == b) {
                    CHECK(last == *h.score);
                    CHECK((prev->event.ts > h.event.ts ||
                           (prev->event.ts == h.event.ts && prev->event.seq > h.event.seq)));
                  }
                }
                scored = true;
                last = *h.score;
                prev = &h;
              }
            }
          }
        }
      }
      CHECK(nonempty > 80);  // most queries find something
      // Filters.
      EventQuery q;
      q.query = "deploy";
      q.recent = true;
      q.limit = 5000;
      q.source = "codex";
      q.project = "app";
      q.from_ms = 1700000000000 + 30000 * 1000LL;
      q.to_ms = 1700000000000 + 60000 * 1000LL;
      std::vector<std::int64_t> got;
      for (const auto& h : SearchEvents(*c.s.db, q)) got.push_back(h.event.seq);
      CHECK(got == Reference(*c.s.db, q));
      CHECK_FALSE(got.empty());
      q.limit = 3;
      CHECK(SearchEvents(*c.s.db, q).size() == 3);
    }
  }

  TEST_CASE("search: terms no index can find look in the newest scan_limit events in scope, read early or not") {
    // Short terms (no trigram, no CJK letter) are looked for in the newest
    // scan_limit events in scope.  A frequent term's newest matches are
    // found by reading rows newest first (well within the window); a rare
    // one's are not, and the window is scanned as a whole: both must give
    // the window's answer exactly, at every size of window and answer.
    Corpus c(3000, 91, 3000);
    int windows_hit = 0;
    for (int window : {0, 1, 40, 400, 2999, 5000}) {
      for (const char* text : {"AI", "og", "x", "ok", "ai c#"}) {
        for (int mode : {0, 1, 2}) {
          for (int limit : {1, 5, 200}) {
            for (bool project : {false, true}) {
              EventQuery q;
              q.query = text;
              q.include_tools = mode == 1;
              q.tools_only = mode == 2;
              q.limit = limit;
              q.scan_limit = window;
              if (project) q.project = "app";
              std::vector<std::int64_t> ref = Reference(*c.s.db, q, window);
              const bool whole = ref.size() <= static_cast<std::size_t>(limit);
              if (ref.size() > static_cast<std::size_t>(limit)) ref.resize(static_cast<std::size_t>(limit));
              std::vector<std::int64_t> got;
              for (const auto& h : SearchEvents(*c.s.db, q)) got.push_back(h.event.seq);
              INFO("'" << text << "' window " << window << " mode " << mode << " limit " << limit
                       << " project " << project);
              CHECK(got == ref);
              windows_hit += !whole;
            }
          }
        }
      }
    }
    CHECK(windows_hit > 100);  // many answers were cut by the limit, not the window
  }

  TEST_CASE("search: the newest few, read newest arrival first, stop early and stay exact") {
    // Blocks of 4,096 arrivals: enough events for several, arriving mostly in time order.
    Corpus c(20000, 9, 20000, /*ordered=*/true);
    for (const char* text : {"catalog", "deploy parser", "AI", "部署", "库", "x", "ok c#"}) {
      for (int tools : {0, 1, 2}) {  // messages, every event, tool calls and results
        for (int limit : {1, 7, 50}) {
          EventQuery q;
          q.query = text;
          q.include_tools = tools == 1;
          q.tools_only = tools == 2;
          q.recent = true;
          q.limit = limit;
          auto ref = Reference(*c.s.db, q);
          if (ref.size() > static_cast<std::size_t>(limit)) ref.resize(static_cast<std::size_t>(limit));
          std::vector<std::int64_t> got;
          for (const auto& h : SearchEvents(*c.s.db, q)) got.push_back(h.event.seq);
          INFO("query '" << text << "' tools " << tools << " limit " << limit);
          CHECK(got == ref);
        }
      }
    }
    // A frequent short term's few newest matches are read in the newest
    // blocks, not in all of the newest kScanLimit events.
    {
      SearchCost cost;
      EventQuery q;
      q.query = "o";
      q.include_tools = true;
      q.limit = 5;
      q.cost = &cost;
      CHECK(SearchEvents(*c.s.db, q).size() == 5);
      CHECK(cost.rows <= 2 * 4096);
    }
    // By relevance, the window is the newest kRankWindow matches.
    EventQuery q;
    q.query = "catalog";
    q.limit = 5000;
    auto ref = Reference(*c.s.db, q);
    REQUIRE(ref.size() > static_cast<std::size_t>(kRankWindow));
    ref.resize(kRankWindow);
    std::vector<std::int64_t> got;
    for (const auto& h : SearchEvents(*c.s.db, q)) got.push_back(h.event.seq);
    std::sort(ref.begin(), ref.end());
    std::sort(got.begin(), got.end());
    CHECK(got == ref);
  }

  TEST_CASE("search: chains of blocks and scoped reads stay exact when old data arrives after new") {
    // Two histories, as when a second source's sessions arrive after the
    // first's: arrival goes back in time at the middle.  A rare project lives
    // in two short stretches, a rare source in one.
    TestStore s;
    s.db->Exec("INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    std::mt19937 rng(3);
    const int n = 24000;
    {
      Transaction tx(*s.db);
      for (int i = 1; i <= n; ++i) {
        int j = i <= n / 2 ? i : i - n / 2;
        std::int64_t ts = 1700000000000 + j * 60000LL + static_cast<std::int64_t>(rng() % 600000);
        bool rare = (i > 5000 && i < 5100) || (i > 20000 && i < 20040);
        std::string text = kWords[rng() % kWords.size()] + " " + kWords[rng() % kWords.size()];
        s.db->Prepare("INSERT INTO event(id, source, session, ts, project, role, kind, text, file_id, line) "
                      "VALUES (?, ?, 's', ?, ?, 'user', ?, ?, 1, ?)")
            .Bind(1, "t:" + std::to_string(i))
            .Bind(2, i > 15000 && i < 15300 ? "grok" : (i <= n / 2 ? "claude-code" : "codex"))
            .Bind(3, ts)
            .Bind(4, rare ? "rare" : "app")
            .Bind(5, i % 3 == 0 ? "tool_result" : "message")
            .Bind(6, text)
            .Bind(7, i)
            .Run();
      }
      tx.Commit();
    }
    EventIndex index(s.dir / "index.db", s.db_path());
    index.CatchUp(4096, [&] { return index.Upto() >= n; });
    AttachIndex(*s.db, s.dir / "index.db");
    // Two chains of three blocks each; an index's statements read them as
    // two, or joined as one (Chains::joined): the same answer.
    CHECK(search_read::Chains(*s.db).list().size() == 2);
    CHECK(search_read::Chains(*s.db).joined().size() == 2);
    CHECK(search_read::Chains(*s.db, 4).joined().size() == 1);
    for (const char* text : {"catalog", "deploy", "AI", "部署", "库", "x"}) {
      for (int filter = 0; filter < 3; ++filter) {
        for (int case_ = 0; case_ < 8; ++case_) {
          const bool recent = case_ & 1, tools = case_ & 2;
          EventQuery q;
          q.query = text;
          q.recent = recent;
          q.include_tools = tools;
          q.join_chains_below = case_ & 4 ? 4 : 0;
          q.limit = 30;
          if (filter == 1) q.project = "rare";
          if (filter == 2) q.source = "grok";
          auto ref = Reference(*s.db, q);
          std::vector<std::int64_t> got;
          for (const auto& h : SearchEvents(*s.db, q)) got.push_back(h.event.seq);
          INFO("query '" << text << "' filter " << filter << " recent " << recent << " tools "
                         << tools << " chains joined below " << q.join_chains_below);
          if (recent || TrigramMatch(ParseTerms(text)).empty()) {
            if (ref.size() > 30) ref.resize(30);
            CHECK(got == ref);
          } else {
            if (ref.size() > static_cast<std::size_t>(kRankWindow)) ref.resize(kRankWindow);
            std::set<std::int64_t> window(ref.begin(), ref.end());
            CHECK(got.size() == std::min<std::size_t>(30, ref.size()));
            for (auto g : got) CHECK(window.count(g) == 1);
          }
        }
      }
    }
  }

  TEST_CASE(
      "search: a filter's scope is the blocks of 256 arrivals holding its events, so that the "
      "candidates of another project a few hundred arrivals away are not read") {
    TestStore s;
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) VALUES (1, "
        "'t', 'k', 1, '/x', 't/k', 0)");
    auto ins = s.db->Prepare(
        "INSERT INTO event(seq, id, source, ts, project, role, kind, text, file_id, line) "
        "VALUES (?, ?, ?, ?, ?, 'user', 'message', 'deploy', 1, ?)");
    // "a" in arrivals 1 to 200 and 5,000 to 5,100; "b" and another source
    // between, in the same blocks of 4,096.
    for (int i = 1; i <= 6000; ++i) {
      const bool a = i <= 200 || (i >= 5000 && i <= 5100);
      ins.Reset();
      ins.Bind(1, i)
          .Bind(2, "t:" + std::to_string(i))
          .Bind(3, i > 3000 && i <= 3010 ? "grok" : "codex")
          .Bind(4, std::int64_t{1700000000000} + i)
          .Bind(5, a ? "a" : "b")
          .Bind(6, i)
          .Run();
    }
    EventQuery q;
    q.query = "deploy";
    q.project = "a";
    CHECK(search_read::ScopeRanges(*s.db, q) == search_read::Ranges{{0, 255}, {4864, 5119}});
    q.project.reset();
    q.source = "grok";
    CHECK(search_read::ScopeRanges(*s.db, q) == search_read::Ranges{{2816, 3071}});
    q.project = "b";  // both: the blocks of each
    CHECK(search_read::ScopeRanges(*s.db, q) == search_read::Ranges{{2816, 3071}});
    q.source.reset();
    q.limit = 1000;
    EventIndex index(s.dir / "index.db", s.db_path());
    index.CatchUp(1 << 20, [&] { return index.Upto() >= 6000; });
    AttachIndex(*s.db, s.dir / "index.db");
    for (const char* project : {"a", "b"}) {
      q.project = project;
      auto ref = Reference(*s.db, q);
      std::set<std::int64_t> got;
      for (const auto& h : SearchEvents(*s.db, q)) got.insert(h.event.seq);
      CHECK(got.size() == std::min<std::size_t>(1000, ref.size()));
      for (auto g : got) CHECK(std::count(ref.begin(), ref.end(), g) == 1);
    }
  }

  TEST_CASE("search: a scope of many ranges is read across the gaps worth reading, and stays exact") {
    // 16 blocks of one history; the project "spread" in a short stretch of
    // every other block (8 ranges of the scope, gaps of one block), so that
    // Gather reads several ranges in one statement for any word's frequency
    // here: "every" is in every event, "half" in half, "rare" in one in 500.
    TestStore s;
    s.db->Exec("INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    const int n = 16 * 4096;
    {
      Transaction tx(*s.db);
      auto ins = s.db->Prepare(
          "INSERT INTO event(id, source, session, ts, project, role, kind, text, file_id, line) "
          "VALUES (?, 'claude-code', 's', ?, ?, 'user', ?, ?, 1, ?)");
      for (int i = 1; i <= n; ++i) {
        const bool spread = (i >> 12) % 2 == 1 && i % 4096 < 40;
        std::string text = "every";
        if (i % 2 == 0) text += " half";
        if (i % 500 == 0 || (spread && i % 7 == 0)) text += " rare";
        ins.Reset();
        ins.Bind(1, "t:" + std::to_string(i))
            .Bind(2, std::int64_t{1700000000000} + std::int64_t{i} * 1000)
            .Bind(3, spread ? "spread" : "app")
            .Bind(4, i % 3 == 0 ? "tool_result" : "message")
            .Bind(5, text)
            .Bind(6, i)
            .Run();
      }
      tx.Commit();
    }
    EventIndex index(s.dir / "index.db", s.db_path());
    index.CatchUp(1 << 20, [&] { return index.Upto() >= n; });
    AttachIndex(*s.db, s.dir / "index.db");
    for (const char* text : {"every", "half", "rare", "every rare"}) {
      for (bool recent : {false, true}) {
        for (int tools = 0; tools < 3; ++tools) {
          EventQuery q;
          q.query = text;
          q.recent = recent;
          q.include_tools = tools == 1;
          q.tools_only = tools == 2;
          q.limit = 2000;
          q.project = "spread";
          auto ref = Reference(*s.db, q);
          std::set<std::int64_t> got;
          for (const auto& h : SearchEvents(*s.db, q)) got.insert(h.event.seq);
          INFO("query '" << text << "' recent " << recent << " tools " << tools);
          // Every match in the scope (fewer than the limit), whatever the order.
          CHECK(got == std::set<std::int64_t>(ref.begin(), ref.end()));
        }
      }
    }
  }

  TEST_CASE("search: merging the indexes' segments changes no answer") {
    TestStore s;
    s.db->Exec("INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    std::mt19937 rng(8);
    EventIndex index(s.dir / "index.db", s.db_path());
    for (int batch = 0, i = 1; batch < 12; ++batch) {  // a segment per transaction
      Transaction tx(*s.db);
      for (int j = 0; j < 50; ++j, ++i)
        s.db->Prepare("INSERT INTO event(id, source, session, ts, role, kind, text, file_id, line) "
                      "VALUES (?, 't', 's', ?, 'user', 'message', ?, 1, ?)")
            .Bind(1, "t:" + std::to_string(i)).Bind(2, std::int64_t{1700000000000} + i * 1000)
            .Bind(3, kWords[rng() % kWords.size()] + " " + kWords[rng() % kWords.size()]).Bind(4, i).Run();
      tx.Commit();
      index.CatchUp();
    }
    AttachIndex(*s.db, s.dir / "index.db");
    auto answer = [&](const char* text) {
      EventQuery q;
      q.query = text;
      q.limit = 1000;
      std::vector<std::pair<std::int64_t, double>> out;
      for (const auto& h : SearchEvents(*s.db, q)) out.push_back({h.event.seq, h.score.value_or(0)});
      return out;
    };
    auto before = answer("catalog"), before_cjk = answer("部署");
    REQUIRE_FALSE(before.empty());
    int steps = 0;
    while (index.MergeStep(8) && steps < 10000) ++steps;
    CHECK(steps > 0);
    CHECK_FALSE(index.MergeStep(8));  // one segment a level left: nothing to do
    CHECK(index.Check() == "");
    auto after = answer("catalog");
    REQUIRE(after.size() == before.size());
    for (std::size_t i = 0; i < after.size(); ++i) {
      CHECK(after[i].first == before[i].first);
      CHECK(after[i].second == doctest::Approx(before[i].second));
    }
    CHECK(answer("部署") == before_cjk);
  }

  TEST_CASE("search: hits carry a snippet with the matches in brackets") {
    Corpus c(200, 5, 200);
    EventQuery q;
    q.query = "catalog";
    for (const auto& h : SearchEvents(*c.s.db, q)) {
      CHECK(h.snippet.find('[') != std::string::npos);
      CHECK(h.score.has_value());
    }
    q.query = "   ";
    CHECK(SearchEvents(*c.s.db, q).empty());
  }

  TEST_CASE("search: a damaged index answers exactly from the events, and says so") {
    Corpus c(3000, 11, 3000);
    {
      Db raw(c.s.dir / "index.db", Db::Mode::kReadWrite);
      for (const char* t : {"event_fts", "message_fts", "event_cjk"})
        raw.Exec(std::string("UPDATE ") + t + "_data SET block = substr(block, 1, 6) WHERE id = 10");
    }
    int reported = 0;
    for (const char* text : {"catalog", "deploy parser", "部署", "库", "AI"}) {
      for (bool tools : {false, true}) {
        EventQuery q;
        q.query = text;
        q.recent = true;
        q.include_tools = tools;
        q.limit = 25;
        q.index_failed = [&](const std::string& what) {
          CHECK_FALSE(what.empty());
          ++reported;
        };
        auto ref = Reference(*c.s.db, q);
        if (ref.size() > 25) ref.resize(25);
        std::vector<std::int64_t> got;
        for (const auto& h : SearchEvents(*c.s.db, q)) got.push_back(h.event.seq);
        INFO("query '" << text << "' tools " << tools);
        CHECK(got == ref);
        // Counted from the events too, read to the end of the store: no
        // bound of the reading overflows (UBSan, in the sanitizer build).
        q.limit = 5000;
        const auto all = static_cast<std::int64_t>(Reference(*c.s.db, q).size());
        CHECK(CountEvents(*c.s.db, q, 5000) == all);
      }
    }
    CHECK(reported >= 6);  // every search that read an index ("AI" reads none)
  }
}
