// SPDX-License-Identifier: MIT
#pragma once
// The reading engine of search (core/query/search.cpp): the chains of
// blocks an event's timestamp is bounded by, the sources a search reads
// candidates from, and Gather, which reads them newest first until no
// unread row could be kept.  Search decides which sources to read (which
// index, which statement); this file reads them.  Internal to core/query.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/query/search.hpp"
#include "core/query/terms.hpp"
#include "core/store/fts_rank.hpp"
#include "core/store/message_stamps.hpp"

namespace origin::search_read {

struct Candidate {
  std::int64_t seq, ts;
  double score;         // BM25 when ranked, else 0
  bool scored = false;  // read from an index that ranks (else: not reached by it yet)
  // Its text is yet to be checked: GatherAll and Gather, with
  // `leave_checks`, leave the check to the search, which makes it only of
  // the candidates its answer reaches.
  bool unchecked = false;
};

// The statements of a search number their parameters: ?1 the MATCH
// expression, ?2 and ?3 the range of seqs read, ?4 the document frequencies
// for origin_bm25, and from ?5 the filters below.
// ?11: the collection ('rows tokens') when origin_bm25 scores trigrams.
// ?12: the scope's blocks (origin_scope), with a project or source filter.
// ?13: the messages' stamps (origin_ts, origin_len), EventQuery::stamps.
enum Param {
  kMatch = 1,
  kLo,
  kHi,
  kDfs,
  kKind,
  kSource,
  kProject,
  kFrom,
  kTo,
  kGate,
  kTotals,
  kScope,
  kStamps
};

// Binds what `st` uses of the parameters above.
void BindParams(Stmt& st, const EventQuery& q, const std::string& match, std::int64_t lo,
                std::int64_t hi, const std::string& dfs, const std::string& totals,
                const RankGate* gate, const ScopeFilter* scope = nullptr);

// The chains of blocks (spec: Storage, arrival order).  Blocks of 4,096
// arrivals are cut into chains of consecutive blocks: a block whose latest
// timestamp is more than a day older than the latest of its chain so far
// starts a new chain (old data arriving after newer data: another source's
// history, a device's old sessions on a hub).  Within a chain, the latest
// timestamp up to a block bounds every event in it and before it, so a
// chain read newest arrival first can stop as soon as that bound falls
// below what is needed.  At most kMaxChains: beyond, blocks join the last
// chain, which stays correct and only stops later.
//
// Each chain costs a source one statement, and FTS5 starts a statement
// newest first dearly: it finds the doclist's newest end, then walks back to
// the chain's last arrival (0.2 to 0.65 ms for `retry_handler` at 2M
// events, docs/performance.md).  So the sources that read an FTS5 index
// read joined(): each chain of fewer than `join_below` blocks read as part
// of the chain before it (its candidates read before that chain's, under
// its bound: still exact), which costs them at most the candidates of those
// few blocks.
class Chains {
 public:
  struct Chain {
    std::int64_t first_block = 0;
    std::vector<std::int64_t> upto;  // latest timestamp in the chain up to first_block + i
    std::int64_t lo() const { return first_block << 12; }
    std::int64_t hi() const {
      return ((first_block + static_cast<std::int64_t>(upto.size())) << 12) - 1;
    }
    /// The latest timestamp of any event of the chain with seq <= `seq`.
    std::int64_t Bound(std::int64_t seq) const {
      std::int64_t i = (seq >> 12) - first_block;
      if (seq < lo()) return INT64_MIN;
      return upto[static_cast<std::size_t>(
          std::min<std::int64_t>(i, static_cast<std::int64_t>(upto.size()) - 1))];
    }
  };
  static constexpr std::size_t kMaxChains = 32;
  static constexpr std::int64_t kDayMs = 24 * 3600 * 1000;

  explicit Chains(Db& db, int join_below = 0);
  const std::vector<Chain>& list() const { return list_; }
  const std::vector<Chain>& joined() const { return joined_; }

 private:
  std::vector<Chain> list_, joined_;
};

// Keeps the `need` newest candidates by (ts, seq).
class NewestK {
 public:
  explicit NewestK(std::size_t need) : need_(need) {}
  /// Whether an unread candidate with a timestamp of at most `bound` and a
  /// seq of at most `seq` could still be kept.
  bool MayEnter(std::int64_t bound, std::int64_t seq) const {
    if (need_ == 0) return false;
    if (kept_.size() < need_) return true;
    const Candidate& oldest = kept_.front();
    return oldest.ts < bound || (oldest.ts == bound && oldest.seq < seq);
  }
  /// Whether `c` would be kept (so its text is worth reading).
  bool CouldEnter(const Candidate& c) const {
    return kept_.size() < need_ || (need_ > 0 && Newer(c, kept_.front()));
  }
  void Offer(const Candidate& c) {
    if (need_ == 0) return;
    if (kept_.size() < need_) {
      kept_.push_back(c);
      std::push_heap(kept_.begin(), kept_.end(), Newer);
    } else if (Newer(c, kept_.front())) {
      std::pop_heap(kept_.begin(), kept_.end(), Newer);
      kept_.back() = c;
      std::push_heap(kept_.begin(), kept_.end(), Newer);
    }
  }
  /// Whether it holds as many as it keeps.
  bool Full() const { return kept_.size() >= need_; }
  /// The kept candidates, newest first.
  std::vector<Candidate> Take() {
    std::sort(kept_.begin(), kept_.end(), Newer);
    return std::move(kept_);
  }
  // A heap whose front is the oldest kept: "greater" is newer.
  static bool Newer(const Candidate& a, const Candidate& b) {
    return a.ts != b.ts ? a.ts > b.ts : a.seq > b.seq;
  }

 private:
  std::size_t need_;
  std::vector<Candidate> kept_;
};

// One way to read candidates: `sql` yields (seq, ts, score) for the rows with
// seq in [?2, ?3], newest arrival first (parameters: Param).  `check`: the
// text must be checked (false when the index alone is exact).
struct Source {
  std::string sql;
  std::string match;
  bool check = true;
  std::int64_t lo = 0, hi = INT64_MAX;  // the seqs this source covers
  std::string dfs;                      // for origin_bm25
  bool scored = false;                  // its third column is a BM25 score
  std::string totals;                   // for origin_bm25 of trigrams ('rows tokens')
  // Its fourth and fifth columns are the text and whether the event is a
  // tool call or result: the text is checked from the row the statement
  // read (and, when `rank`, scored by its length) instead of read again.
  bool text_in_row = false;
  const TrigramRank* rank = nullptr;
  // Read with the checks left (GatherAll's and Gather's `leave_checks`): for
  // a source whose texts are read in the row, a statement of the same rows,
  // scored, that reads no text (none: its checks are not left); and a MATCH
  // that costs the index less for more candidates, checked later (none:
  // `match`).
  std::string unchecked_sql;
  std::string unchecked_match;
};

// With a scope (a project or a source), each candidate's block is looked up
// in it (origin_scope) before the event's row is read for the filters:
// Gather then reads across a gap between two ranges of the scope at the
// cost of the index alone, and learns from the filter how many candidates
// a block holds.
std::string ScopeSql(bool scoped, const std::string& rowid);

using Ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;

// Counts one checked text in `cost`.
void CountText(SearchCost* cost, std::string_view text, bool match);

// The tokens FTS5's trigram tokenizer makes of `text`: one per character
// but the last two (the length origin_bm25 reads from FTS5's docsize), of
// the text up to a NUL, as SQLite's length() counts it.
double TrigramTokens(std::string_view text);

// Whether the text of the event `seq` holds every term (and, when
// `tools_only`, whether it is a tool call or result: read with the text).
bool TextMatches(Db& db, std::int64_t seq, const std::vector<Term>& terms, SearchCost* cost,
                 bool tools_only = false);

// Whether the kind of a candidate is checked with its text: a tool_only
// search of event_fts, which holds meta events too, learns the kind with
// the text (which it checks anyway).
bool ChecksKind(const EventQuery& q);

// Whether a candidate whose check was left (Candidate::unchecked) holds
// after all, from its event as read for the hit: what RowMatches checks,
// counted alike.
bool LeftCheckHolds(const EventRow& e, const EventQuery& q, const std::vector<Term>& terms);

// The ranges of seqs that may hold events of the query's project and source
// (scope_block: the blocks that do), consecutive blocks merged; nullopt
// when the query has neither filter.
std::optional<Ranges> ScopeRanges(Db& db, const EventQuery& q);

// Reads `sources` over every chain (and only the ranges of `scope`, when
// given), always from the cursor whose unread part may hold the newest
// candidate, offers the rows whose text holds every term, and stops as soon
// as no cursor can offer one that would be kept.  With a `budget`, reads at
// most that many rows: false when it stopped for want of more.  With
// `leave_checks`, the rows a source would check are offered unchecked, as
// GatherAll offers them: then `k` holds the newest matches only if it
// kept every row offered (it holds fewer than it can).
//
// One statement per chain and source: it reads the chain's ranges of the
// scope newest first, one after the other, and reads across a gap between
// two of them when the candidates it has met per block read so far say the
// gap holds at most kGapRows (origin_scope drops them before the event's row
// is read): a scope of many small ranges costs a few statements, not one per
// range.
bool Gather(Db& db, const Chains& chains, const std::vector<Source>& sources, const EventQuery& q,
            const std::vector<Term>& terms, const std::optional<Ranges>& scope, NewestK& k,
            std::int64_t budget = -1, bool leave_checks = false);

// How many rows of `sources` hold every term (of the scope's ranges, when
// given), counted up to `upto`: exact below it.  A count needs no order,
// so it reads what costs least: each source by one statement (no chains,
// no timestamps compared; a scope's ranges read one after the other, and
// across the gaps worth reading across, as Gather does), oldest first,
// since FTS5 reads a doclist newest first a page at a time, each page
// decoded whole before its last row is known (on a large doclist, the
// reading of an AND of trigrams newest first cost several times as much).
std::int64_t Count(Db& db, const std::vector<Source>& sources, const EventQuery& q,
                   const std::vector<Term>& terms, const std::optional<Ranges>& scope,
                   std::int64_t upto);

// Every row of `sources` that holds every term (of the scope's ranges, when
// given), read as Count reads them (oldest first, which costs FTS5 less),
// offered to `k`, scored: true when there were at most `cap`; false, with
// `k` holding some of them, when there were more.  With `leave_checks`,
// the texts are not checked here: each candidate a source would check is
// offered unchecked (Gather's `leave_checks`), and counted against `cap` as
// a match.  Of the few hundred to two thousand candidates a ranked search
// reads this way, an answer needs a page, in the order of their scores,
// known without the texts.
bool GatherAll(Db& db, const std::vector<Source>& sources, const EventQuery& q,
               const std::vector<Term>& terms, const std::optional<Ranges>& scope, NewestK& k,
               std::size_t cap, bool leave_checks);

}  // namespace origin::search_read
