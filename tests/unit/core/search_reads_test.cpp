// SPDX-License-Identifier: MIT
// How a search reads what it cannot answer newest first: the counts beside
// an answer (count_upto, CountEvents), and a ranked search's matches when few
// are expected, both read oldest first; each against the brute-force
// reference, or against the search reading newest first; and the same
// searches with the candidates' timestamps and lengths from MessageStamps.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>

#include "core/query/gather.hpp"
#include "core/query/search.hpp"
#include "core/query/terms.hpp"
#include "core/store/event_index.hpp"
#include "core/store/message_stamps.hpp"
#include "tests/support/support.hpp"
#include "tests/unit/core/search_corpus.hpp"

using namespace origin;
using namespace origin::test;

namespace {

// Two histories (arrival goes back in time at the middle: several chains),
// an index that lags behind the second (read directly), a project in three
// stretches blocks apart (a scope of ranges and gaps), a source in one
// stretch, every seventh event forgotten (invariant 2).
struct Histories {
  static constexpr int kEvents = 24000;
  TestStore s;
  Histories() {
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) VALUES (1, "
        "'t', 'k', 1, '/x', 't/k', 0)");
    std::mt19937 rng(5);
    const std::vector<std::string> kinds = {"message", "message", "tool_call", "tool_result",
                                            "meta"};
    {
      Transaction tx(*s.db);
      auto ins = s.db->Prepare(
          "INSERT INTO event(id, source, session, ts, project, role, kind, text, file_id, line) "
          "VALUES (?, ?, 's', ?, ?, 'user', ?, ?, 1, ?)");
      auto forget = s.db->Prepare(
          "INSERT INTO excluded_event(seq, event_id, tombstone) VALUES (?, ?, 'tmb')");
      for (int i = 1; i <= kEvents; ++i) {
        const int j = i <= kEvents / 2 ? i : i - kEvents / 2;
        const std::int64_t ts =
            1700000000000 + j * 60000LL + static_cast<std::int64_t>(rng() % 600000);
        const bool rare =
            (i > 100 && i < 300) || (i > 13000 && i < 13200) || (i > 23500 && i < 23700);
        std::string text;
        for (int k = 0, len = 2 + static_cast<int>(rng() % 3); k < len; ++k)
          text += (k ? " " : "") + kWords[rng() % kWords.size()];
        ins.Reset();
        ins.Bind(1, "t:" + std::to_string(i))
            .Bind(2, i > 15000 && i < 15300 ? "grok" : (i <= kEvents / 2 ? "claude-code" : "codex"))
            .Bind(3, ts)
            .Bind(4, rare ? "rare" : "app")
            .Bind(5, kinds[rng() % kinds.size()])
            .Bind(6, text)
            .Bind(7, i)
            .Run();
        if (i % 7 == 0) {
          forget.Reset();
          forget.Bind(1, std::int64_t{i}).Bind(2, "t:" + std::to_string(i)).Run();
        }
      }
      tx.Commit();
    }
    EventIndex index(s.dir / "index.db", s.db_path());
    index.CatchUp(4096, [&] { return index.Upto() >= 14000; });
    AttachIndex(*s.db, s.dir / "index.db");
  }
};

// One store for the tests that only read it: made once.
Histories& SharedHistories() {
  static Histories h;
  return h;
}

}  // namespace

TEST_SUITE("search") {
  TEST_CASE(
      "search: ranked, reading every match oldest first (few expected) answers as reading the "
      "newest first does, and goes back to that when there are more than the window") {
    // Arrival mostly in time order over three blocks; and two histories
    // (chains) with an index that lags (the newest events read directly), a
    // project in stretches (a scope of ranges and gaps) and forgotten events.
    Corpus ordered(9000, 21, 9000, /*ordered=*/true);
    Histories& histories = SharedHistories();
    struct Store {
      Db* db;
      const char* project;  // in stretches in `histories`, everywhere in `ordered`
      const char* source;
      MessageStamps stamps;  // made by the first search that uses them
    };
    int few = 0, many = 0, read_all = 0, stamped = 0, reread = 0;
    int scoped_few = 0, scoped_read_all = 0;
    // The texts checked with a count and without, in the store whose index
    // is complete (the events an index has not reached are checked alike).
    SearchCost counted, left;
    int halved = 0;         // searches that checked less than half the texts (no row filter)
    int left_read_all = 0;  // searches that read every candidate oldest first, unchecked
    Store stores[] = {{ordered.s.db.get(), "lib", "codex", {}},
                      {histories.s.db.get(), "rare", "grok", {}}};
    for (Store& st : stores) {
      for (const char* text :
           {"catalog", "deploy parser", "kelvin schema", "部署 catalog", "atalo", "zzz"}) {
        for (int mode : {0, 1, 2}) {  // messages, every event, tool calls and results
          for (int filter = 0; filter < 5; ++filter) {
            EventQuery q;
            q.query = text;
            q.include_tools = mode == 1;
            q.tools_only = mode == 2;
            q.limit = 50;
            if (filter == 1) q.project = st.project;
            if (filter == 2) q.source = st.source;
            if (filter == 3) {
              q.from_ms = 1700000000000 + 3000 * 60000LL;
              q.to_ms = 1700000000000 + 300000 * 60000LL;
            }
            if (filter == 4) q.kind = "tool_result";
            const std::size_t matches = Reference(*st.db, q).size();
            const bool within = matches <= static_cast<std::size_t>(kRankWindow);
            (within ? few : many) += matches > 0;
            auto answer = [&](int read_all_upto, SearchCost* cost, MessageStamps* stamps = nullptr,
                              int join_chains_below = -1) {
              EventQuery r = q;
              r.read_all_upto = read_all_upto;
              if (join_chains_below >= 0) r.join_chains_below = join_chains_below;
              r.stamps = stamps;
              r.count_upto = 100;
              r.cost = cost;
              std::int64_t total = 0;
              std::vector<std::pair<std::int64_t, double>> out;
              for (const auto& h : SearchEvents(*st.db, r, &total))
                out.push_back({h.event.seq, h.score.value_or(-1)});
              out.push_back({total, 0});
              return out;
            };
            INFO("query '" << text << "' mode " << mode << " filter " << filter << ", " << matches
                           << " matches");
            SearchCost always, never, by_default;
            CHECK(answer(std::numeric_limits<int>::max(), &always) == answer(-1, &never));
            // Read oldest first exactly when the window holds every match,
            // messages or tool events alike.
            CHECK(always.read_all == (within ? 1 : 0));
            CHECK(never.read_all == 0);
            // An index's statements reading the two histories' chains apart
            // rather than joined (Chains::joined): the same answer.
            CHECK(answer(-1, nullptr, nullptr, 0) == answer(-1, &never));
            // The candidates' timestamps and lengths from the stamps:
            // the same answer, read either way.
            SearchCost stamped_all, stamped_never;
            CHECK(answer(std::numeric_limits<int>::max(), &stamped_all, &st.stamps) ==
                  answer(-1, &never));
            CHECK(answer(-1, &stamped_never, &st.stamps) == answer(-1, &never));
            stamped += static_cast<int>(stamped_all.stamped + stamped_never.stamped);
            answer(kRankWindow / 2, &by_default);
            read_all += static_cast<int>(by_default.read_all);
            // A project of few matches in a store of many: expected to hold
            // its share of them (its blocks' share of the arrivals), so all
            // read oldest first.
            if (filter == 1 && matches > 0 && matches * 4 < kRankWindow / 2) {
              EventQuery all = q;
              all.project.reset();
              if (Reference(*st.db, all).size() > static_cast<std::size_t>(kRankWindow)) {
                ++scoped_few;
                scoped_read_all += static_cast<int>(by_default.read_all);
              }
            }
            // Without a count, the texts are checked only as the answer
            // reaches them: the same hits, in the same order, whether every
            // match is read oldest first (GatherAll leaves the checks
            // whenever nothing is counted) or newest first (Gather leaves
            // them when the candidates are expected to fit the window, by
            // default; always; or never), with the stamps or without, and
            // read again with the checks when they did not fit after all;
            // a page of the whole window too, whose edge is then compared.
            const bool indexed = st.db == ordered.s.db.get();
            auto counted_hits = [&](int limit) {
              EventQuery r = q;
              r.read_all_upto = -1;
              r.limit = limit;
              std::int64_t total = 0;
              std::vector<std::pair<std::int64_t, double>> out;
              for (const auto& h : SearchEvents(*st.db, r, &total))
                out.push_back({h.event.seq, h.score.value_or(-1)});
              return out;
            };
            const std::vector<std::pair<std::int64_t, double>> hits = counted_hits(q.limit);
            auto uncounted = [&](int read_all_upto, int leave_checks_upto, SearchCost* cost,
                                 MessageStamps* stamps = nullptr, int limit = 0) {
              EventQuery r = q;
              r.read_all_upto = read_all_upto;
              r.leave_checks_upto = leave_checks_upto;
              r.cost = cost;
              r.stamps = stamps;
              if (limit > 0) r.limit = limit;
              std::vector<std::pair<std::int64_t, double>> out;
              for (const auto& h : SearchEvents(*st.db, r))
                out.push_back({h.event.seq, h.score.value_or(-1)});
              return out;
            };
            SearchCost forced, unchecked;
            CHECK(uncounted(kRankWindow / 2, kRankWindow, &unchecked) == hits);
            left_read_all += static_cast<int>(unchecked.read_all);
            if (indexed) {
              counted.texts += by_default.texts;
              left.texts += unchecked.texts;
              // Where the filters read no event's row: a project's, a
              // source's and a kind's read the text with it, and their
              // tool events' checks are not left (MakePlan).
              if (filter == 0 || filter == 3) halved += unchecked.texts * 2 < by_default.texts;
            }
            CHECK(uncounted(std::numeric_limits<int>::max(), -1, nullptr) == hits);
            CHECK(uncounted(-1, -1, nullptr) == hits);
            CHECK(uncounted(-1, std::numeric_limits<int>::max(), &forced) == hits);
            CHECK(uncounted(kRankWindow / 2, kRankWindow, nullptr, &st.stamps) == hits);
            CHECK(uncounted(-1, std::numeric_limits<int>::max(), &forced, nullptr, kRankWindow) ==
                  counted_hits(kRankWindow));
            reread += static_cast<int>(forced.reread);
          }
        }
      }
    }
    CHECK(few > 20);
    CHECK(many > 5);
    CHECK(read_all > 20);  // by default, most of the few
    CHECK(scoped_few >= 2);
    CHECK(scoped_read_all == scoped_few);
    CHECK(stamped > 50);   // the searches without filters of the event's row
    CHECK(reread > 0);     // a window filled with candidates left unchecked
    CHECK(left_read_all > 20);
    // The texts a search without a count checked: those its answer reached.
    CHECK(left.texts < counted.texts);
    CHECK(halved > 5);
  }

  TEST_CASE(
      "search: counts (a search's count_upto, CountEvents) equal the reference's, up to their "
      "cap") {
    // A count reads its sources oldest first, a scope's ranges across the
    // gaps worth reading across, and must count exactly what a search newest
    // first would gather, the hits beside it unchanged (Histories: several
    // chains, a lagging index, scopes of ranges and gaps, forgotten events,
    // which are never counted).
    TestStore& s = SharedHistories().s;
    const int n = Histories::kEvents;
    CHECK(IndexedUpto(*s.db) < n);
    CHECK(search_read::Chains(*s.db).list().size() >= 2);
    int capped = 0, whole = 0, searches = 0;
    for (const char* text : {"catalog", "deploy parser", "atalo", "über", "AI", "部署", "库", "x",
                             "ok c#", "zzz", "schema"}) {
      for (int filter = 0; filter < 7; ++filter) {
        for (int mode : {0, 1, 2}) {  // messages, every event, tool calls and results only
          for (int scan : {kScanLimit, 3000}) {
            // Terms no index can find look in the newest scan_limit events in scope.
            const std::vector<Term> terms = ParseTerms(text);
            const bool scanned = std::all_of(terms.begin(), terms.end(), [](const Term& t) {
              return t.kind == Term::Kind::kShort;
            });
            if (!scanned && scan != kScanLimit) continue;  // the window is theirs alone
            EventQuery q;
            q.query = text;
            q.include_tools = mode == 1;
            q.tools_only = mode == 2;
            q.scan_limit = scan;
            if (filter == 1) q.project = "rare";  // three ranges, blocks apart
            if (filter == 2) q.source = "grok";
            if (filter == 3) {
              q.project = "rare";
              q.source = "codex";
            }
            if (filter == 4) q.project = "nowhere";  // an empty scope
            if (filter == 5) {
              q.from_ms = 1700000000000 + 3000 * 60000LL;
              q.to_ms = 1700000000000 + 9000 * 60000LL;
            }
            if (filter == 6) q.kind = "tool_result";
            const auto ref =
                static_cast<std::int64_t>(Reference(*s.db, q, scanned ? scan : -1).size());
            INFO("'" << text << "' filter " << filter << " mode " << mode << " scan " << scan);
            for (std::int64_t upto : {1, 7, 100, 1000, 2000}) {
              CHECK(CountEvents(*s.db, q, upto) == std::min(ref, upto));
              capped += ref > upto;
              whole += ref <= upto && ref > 0;
            }
            for (bool recent : {false, true}) {
              for (int limit : {1, 20}) {
                q.recent = recent;
                q.limit = limit;
                q.count_upto = 0;
                std::vector<std::int64_t> alone;
                for (const auto& h : SearchEvents(*s.db, q)) alone.push_back(h.event.seq);
                for (int count : {0, 100, 1000}) {
                  q.count_upto = count;
                  const bool ranked = !recent && !TrigramMatch(terms).empty();
                  const std::int64_t need =
                      std::max<std::int64_t>(ranked ? kRankWindow : limit, count);
                  std::int64_t got = -1;
                  std::vector<std::int64_t> hits;
                  for (const auto& h : SearchEvents(*s.db, q, &got)) hits.push_back(h.event.seq);
                  INFO("recent " << recent << " limit " << limit << " count_upto " << count);
                  CHECK(got == std::min(ref, need));
                  CHECK(hits == alone);  // a count beside them changes no hit
                  capped += ref > need;
                  ++searches;
                }
              }
            }
          }
        }
      }
    }
    CHECK(searches > 1500);
    CHECK(capped > 300);  // many counts reached their cap
    CHECK(whole > 100);   // and many counted every match
  }
}
