// SPDX-License-Identifier: MIT
#include "core/query/search.hpp"

#include <algorithm>
#include <set>

#include "core/store/visible.hpp"
#include "core/query/terms.hpp"
#include "core/store/event_index.hpp"
#include "core/store/fts_rank.hpp"
#include "core/store/sessions.hpp"
#include "core/util/text.hpp"

namespace origin {

namespace {

struct Candidate {
  std::int64_t seq, ts;
  double score;         // BM25 when ranked, else 0
  bool scored = false;  // read from an index that ranks (else: not reached by it yet)
};

// The statements of a search number their parameters: ?1 the MATCH
// expression, ?2 and ?3 the range of seqs read, ?4 the document frequencies
// for origin_bm25, and from ?5 the filters below.
// ?11: the collection ('rows tokens') when origin_bm25 scores trigrams.
// ?12: the scope's blocks (origin_scope), with a project or source filter.
enum Param {
  kMatch = 1, kLo, kHi, kDfs, kKind, kSource, kProject, kFrom, kTo, kGate, kTotals, kScope
};

// What the rows of a source are: any event, messages only (message_fts),
// or only events that are not messages (event_fts).
enum class Holds { kAny, kMessages, kOthers };

// Whether a source holding `holds` needs the filter of the event's kind.
bool KindFilter(const EventQuery& q, Holds holds) {
  if (holds == Holds::kMessages) return false;
  if (q.kind) return true;
  // event_fts holds meta events too, but a tool_only search checks the
  // text of each of its candidates, and reads the kind with it (Gather).
  if (q.tools_only) return holds != Holds::kOthers;
  return !q.include_tools;
}

// The scope and filters, on `e`, for a source holding `holds`.
std::string Where(const EventQuery& q, Holds holds = Holds::kAny) {
  std::string w = " AND " + VisibleEventSql("e.seq");  // invariant 2
  if (KindFilter(q, holds))
    w += q.kind ? " AND e.kind = ?5"
         : q.tools_only ? " AND e.kind IN ('tool_call', 'tool_result')"
                        : " AND e.kind = 'message'";
  if (q.source) w += " AND e.source = ?6";
  if (q.project) w += " AND " + EventProjectSql("e") + " = ?7";
  if (q.from_ms) w += " AND e.ts >= ?8";
  if (q.to_ms) w += " AND e.ts <= ?9";
  return w;
}

// Binds what `st` uses of the parameters above.
void BindParams(Stmt& st, const EventQuery& q, const std::string& match, std::int64_t lo,
                std::int64_t hi, const std::string& dfs, const std::string& totals,
                const RankGate* gate, const ScopeFilter* scope = nullptr) {
  const int n = sqlite3_bind_parameter_count(st.get());
  if (kGate <= n) {
    int rc =
        sqlite3_bind_pointer(st.get(), kGate, const_cast<RankGate*>(gate), kRankGateType, nullptr);
    if (rc != SQLITE_OK) throw SqliteError(rc, "bind the rank gate");
  }
  auto bind = [&](int i, const auto& v) {
    if (i <= n) st.Bind(i, v);
  };
  bind(kMatch, match);
  bind(kLo, lo);
  bind(kHi, hi);
  bind(kDfs, dfs);
  bind(kTotals, totals);
  if (kScope <= n && scope != nullptr) {
    int rc = sqlite3_bind_pointer(st.get(), kScope, const_cast<ScopeFilter*>(scope),
                                  kScopeFilterType, nullptr);
    if (rc != SQLITE_OK) throw SqliteError(rc, "bind the scope filter");
  }
  if (q.kind) bind(kKind, *q.kind);
  if (q.source) bind(kSource, *q.source);
  if (q.project) bind(kProject, *q.project);
  if (q.from_ms) bind(kFrom, *q.from_ms);
  if (q.to_ms) bind(kTo, *q.to_ms);
}

std::string Quoted(std::u32string_view letters) {
  std::string s = "\"";
  for (char32_t c : letters) {
    if (c == '"') s += '"';
    AppendUtf8(s, c);
  }
  return s + "\"";
}

// Every trigram of every long term, quoted, for event_fts (detail=none
// refuses phrases, so a term is the AND of its trigrams).
std::vector<std::string> Trigrams(const std::vector<Term>& terms) {
  std::set<std::u32string> grams;
  for (const Term& t : terms) {
    if (t.kind != Term::Kind::kTrigram) continue;
    for (std::size_t i = 0; i + 3 <= t.folded.size(); ++i) grams.insert(t.folded.substr(i, 3));
  }
  std::vector<std::string> out;
  for (const auto& g : grams) out.push_back(Quoted(g));
  return out;
}

std::string JoinAnd(const std::vector<std::string>& phrases) {
  std::string out;
  for (const auto& p : phrases) out += (out.empty() ? "" : " AND ") + p;
  return out;
}

// How many arrivals the document frequencies of origin_bm25 are counted in.
constexpr std::int64_t kProbeSeqs = 1 << 14;

// How a candidate's timestamp is read: from the narrow (seq, ts) index when
// nothing else of the event is needed (source and project filters need the
// row; a kind filter too, which a source of one kind of rows may not need).
std::string EventJoin(const EventQuery& q, Holds holds) {
  const bool narrow = !q.source && !q.project && !KindFilter(q, holds);
  return narrow ? " JOIN event e INDEXED BY event_seq_ts" : " JOIN event e";
}

// Estimates of how many rows of `table` hold each phrase, for origin_bm25
// (core/store/fts_rank.hpp): its rows among the newest kProbeSeqs arrivals,
// scaled to every arrival; exact on a store with no more arrivals than that.
// FTS5's bm25() would count every row, at a cost that grows with the store.
// With several tables (which hold disjoint rows), a phrase's rows in all.
std::string EstimateDfs(Db& db, const std::vector<std::string>& tables,
                        const std::vector<std::string>& phrases, std::int64_t probe = kProbeSeqs) {
  const std::int64_t max_seq = db.QueryInt("SELECT coalesce(max(seq), 0) FROM event");
  const std::int64_t from = std::max<std::int64_t>(0, max_seq - probe);
  const double scale =
      max_seq > from ? static_cast<double>(max_seq) / static_cast<double>(max_seq - from) : 1;
  std::string out;
  for (const std::string& p : phrases) {
    double n = 0;
    for (const std::string& table : tables) {
      auto st = db.Prepare("SELECT count(*) FROM " + table + " WHERE " +
                           table.substr(table.find('.') + 1) + " MATCH ? AND rowid > ?");
      st.Bind(1, p).Bind(2, from);
      n += st.Step() ? static_cast<double>(st.Int(0)) : 0;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f ", n * scale);
    out += buf;
  }
  return out;
}

// The rows and tokens of the FTS5 tables `tables` (e.g. "idx.event_fts")
// together, as "rows tokens" for origin_bm25: FTS5 keeps both in the
// table's averages record (id 1 of <table>_data: the row count, then the
// tokens of each column, as SQLite varints), which its own bm25() reads.
std::string CollectionTotals(Db& db, const std::vector<std::string>& tables) {
  std::uint64_t rows = 0, tokens = 0;
  for (const std::string& table : tables) {
    auto st = db.Prepare("SELECT block FROM " + table + "_data WHERE id = 1");
    if (!st.Step()) continue;
    const std::string_view b = st.Text(0);
    std::size_t i = 0;
    auto varint = [&] {
      std::uint64_t v = 0;
      for (int n = 0; i < b.size(); ++n) {
        const auto c = static_cast<unsigned char>(b[i++]);
        if (n == 8) return (v << 8) | c;
        v = (v << 7) | (c & 0x7f);
        if ((c & 0x80) == 0) break;
      }
      return v;
    };
    rows += varint();
    tokens += varint();
  }
  return std::to_string(rows) + " " + std::to_string(tokens);
}

// Tokens of event_cjk for the short CJK terms: a pair, or a letter.
std::string CjkMatch(const std::vector<Term>& terms) {
  std::string out;
  for (const Term& t : terms) {
    if (t.kind != Term::Kind::kCjkShort) continue;
    out += (out.empty() ? "" : " AND ") + Quoted(t.folded);
  }
  return out;
}

bool HasIndex(Db& db) {
  try {
    Stmt st(db.get(), "SELECT 1 FROM idx.index_state LIMIT 1");
    st.Step();
    return true;
  } catch (const SqliteError&) {
    return false;
  }
}

// The chains of blocks (spec: Storage, arrival order).  Blocks of 4,096
// arrivals are cut into chains of consecutive blocks: a block whose latest
// timestamp is more than a day older than the latest of its chain so far
// starts a new chain (old data arriving after newer data: another source's
// history, a device's old sessions on a hub).  Within a chain, the latest
// timestamp up to a block bounds every event in it and before it, so a
// chain read newest arrival first can stop as soon as that bound falls
// below what is needed.  At most kMaxChains: beyond, blocks join the last
// chain, which stays correct and only stops later.
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

  explicit Chains(Db& db) {
    auto st = db.Prepare("SELECT block, max_ts FROM event_block ORDER BY block");
    while (st.Step()) {
      std::int64_t block = st.Int(0), ts = st.Int(1);
      bool start =
          list_.empty() || (ts < list_.back().upto.back() - kDayMs && list_.size() < kMaxChains);
      if (start) {
        list_.push_back({block, {}});
      } else {
        // Blocks without a row (none yet) take the bound before them.
        Chain& c = list_.back();
        while (c.first_block + static_cast<std::int64_t>(c.upto.size()) < block)
          c.upto.push_back(c.upto.back());
      }
      Chain& c = list_.back();
      c.upto.push_back(c.upto.empty() ? ts : std::max(ts, c.upto.back()));
    }
  }
  const std::vector<Chain>& list() const { return list_; }

 private:
  std::vector<Chain> list_;
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
};

// With a scope (a project or a source), each candidate's block is looked up
// in it (origin_scope) before the event's row is read for the filters:
// Gather then reads across a gap between two ranges of the scope at the
// cost of the index alone, and learns from the filter how many candidates
// a block holds.
std::string ScopeSql(bool scoped, const std::string& rowid) {
  return scoped ? " AND origin_scope(?12, " + rowid + ")" : "";
}

// The statement of a Source reading the FTS5 table `name` (in `schema`) as
// `alias`, scored by origin_bm25 when `ranked` (as trigrams over the
// collection ?11 when `trigrams`).
std::string FtsSql(const std::string& schema, const std::string& name, const std::string& alias,
                   bool ranked, const std::string& join, const std::string& where, bool scoped,
                   bool trigrams = false) {
  const std::string column = alias + "." + name;  // the table's hidden column
  const std::string rowid = alias + ".rowid";
  return "SELECT e.seq, e.ts, " +
         (ranked ? "CASE WHEN origin_gate(?10, e.ts, e.seq) THEN origin_bm25(" + column +
                       (trigrams ? ", ?4, ?11)" : ", ?4)") + " ELSE 0 END"
                 : std::string("0.0")) +
         " FROM " + schema + "." + name + " " + alias + join + " ON e.seq = " + rowid + " WHERE " +
         column + " MATCH ?1 AND " + rowid + " BETWEEN ?2 AND ?3" + ScopeSql(scoped, rowid) +
         where + " ORDER BY " + rowid + " DESC";
}

// The statement of a Source reading the FTS5 table `name` whose candidates'
// texts are all checked (event_fts): the event's row is read by the
// statement, text included (Source::text_in_row), in one lookup of the
// event table rather than one of event_seq_ts for the timestamp and another
// of the event table for the text; no score (Gather computes it from the
// text when ranked).
std::string FtsTextSql(const std::string& schema, const std::string& name, const std::string& alias,
                       const std::string& where, bool scoped) {
  const std::string column = alias + "." + name;
  const std::string rowid = alias + ".rowid";
  return "SELECT e.seq, e.ts, 0.0, e.text, e.kind IN ('tool_call', 'tool_result')" +
         std::string(" FROM ") + schema + "." + name + " " + alias + " JOIN event e ON e.seq = " +
         rowid + " WHERE " + column + " MATCH ?1 AND " + rowid + " BETWEEN ?2 AND ?3" +
         ScopeSql(scoped, rowid) + where + " ORDER BY " + rowid + " DESC";
}

// Counts one checked text in `cost`.
void CountText(SearchCost* cost, std::string_view text, bool match) {
  if (cost == nullptr) return;
  ++cost->texts;
  cost->text_bytes += static_cast<std::int64_t>(text.size());
  cost->matches += match ? 1 : 0;
}

// The tokens FTS5's trigram tokenizer makes of `text`: one per character
// but the last two (the length origin_bm25 reads from FTS5's docsize).
double TrigramTokens(std::string_view text) {
  std::size_t chars = 0;
  for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return chars >= 3 ? static_cast<double>(chars - 2) : 0;
}

// Whether the text of the event `seq` holds every term (and, when
// `tools_only`, whether it is a tool call or result: read with the text).
bool TextMatches(Db& db, std::int64_t seq, const std::vector<Term>& terms, SearchCost* cost,
                 bool tools_only = false) {
  auto st = db.Prepare("SELECT text, kind IN ('tool_call', 'tool_result') FROM event WHERE seq = ?");
  st.Bind(1, seq);
  if (!st.Step() || (tools_only && st.Int(1) == 0)) return false;
  const std::string_view text = st.Text(0);
  const bool match = MatchesAll(text, terms);
  CountText(cost, text, match);
  return match;
}

using Ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;

// The ranges of seqs that may hold events of the query's project and source
// (scope_block: the blocks that do), consecutive blocks merged; nullopt
// when the query has neither filter.
std::optional<Ranges> ScopeRanges(Db& db, const EventQuery& q) {
  std::vector<std::string> scopes;
  if (q.project) scopes.push_back("project:" + *q.project);
  if (q.source) scopes.push_back("source:" + *q.source);
  if (scopes.empty()) return std::nullopt;
  auto st = db.Prepare(
      "SELECT a.block FROM scope_block a WHERE a.scope = ?1 AND (?2 IS NULL OR EXISTS "
      "(SELECT 1 FROM scope_block b WHERE b.scope = ?2 AND b.block = a.block)) ORDER BY a.block");
  st.Bind(1, scopes[0]);
  if (scopes.size() > 1)
    st.Bind(2, scopes[1]);
  else
    st.Bind(2, nullptr);
  Ranges out;
  while (st.Step()) {
    std::int64_t lo = st.Int(0) << 12, hi = lo + 4095;
    if (!out.empty() && out.back().second + 1 == lo)
      out.back().second = hi;
    else
      out.push_back({lo, hi});
  }
  return out;
}

// A gap between two ranges of a scope that one statement reads across
// rather than starting another, in candidates it is expected to hold: each
// statement costs FTS5 a seek in every segment of every phrase to start
// (150 to 250 us at 2M events), and a candidate origin_scope drops little.
// Measured (docs/performance.md): 2,048 to 8,192 alike, 16,384 slower for a
// frequent word.
constexpr std::int64_t kGapRows = 4096;

// Reads `sources` over every chain (and only the ranges of `scope`, when
// given), always from the cursor whose unread part may hold the newest
// candidate, offers the rows whose text holds every term, and stops as soon
// as no cursor can offer one that would be kept.  With a `budget`, reads at
// most that many rows: false when it stopped for want of more.
//
// One statement per chain and source: it reads the chain's ranges of the
// scope newest first, one after the other, and reads across a gap between
// two of them when the candidates it has met per block read so far say the
// gap holds at most kGapRows (origin_scope drops them before the event's row
// is read): a scope of many small ranges costs a few statements, not one per
// range.
bool Gather(Db& db, const Chains& chains, const std::vector<Source>& sources, const EventQuery& q,
            const std::vector<Term>& terms, const std::optional<Ranges>& scope, NewestK& k,
            std::int64_t budget = -1) {
  struct Cursor {
    Stmt st;
    const Chains::Chain* chain;
    const Source* src;
    Ranges left;         // to read, ascending: the newest last
    bool open = false;   // st is bound to a range and not done
    std::int64_t next;   // every unread row has seq <= next
    std::int64_t bound;  // the latest timestamp an unread row may have
    // The candidates the statement met (counted by origin_scope, before
    // the filters), and the blocks of the ranges it read them in.
    std::unique_ptr<ScopeFilter> filter;
    std::int64_t blocks = 0;
  };
  // The scope's blocks, for origin_scope.
  std::vector<bool> in_scope;
  if (scope)
    for (const auto& [from, to] : *scope) {
      if (in_scope.size() <= static_cast<std::size_t>(to >> 12))
        in_scope.resize(static_cast<std::size_t>(to >> 12) + 1);
      for (std::int64_t b = from >> 12; b <= to >> 12; ++b)
        in_scope[static_cast<std::size_t>(b)] = true;
    }
  // Scores are computed only for candidates that could be kept.
  RankGate gate{[](const void* ctx, std::int64_t ts, std::int64_t seq) {
                  return static_cast<const NewestK*>(ctx)->CouldEnter({seq, ts, 0});
                },
                &k};
  std::vector<Cursor> cursors;
  const Ranges everything = {{0, INT64_MAX}};
  for (const Chains::Chain& c : chains.list()) {
    for (const Source& src : sources) {
      Ranges left;
      for (const auto& [from, to] : scope ? *scope : everything) {
        std::int64_t lo = std::max({c.lo(), src.lo, from}), hi = std::min({c.hi(), src.hi, to});
        if (lo <= hi) left.push_back({lo, hi});
      }
      if (left.empty()) continue;
      Stmt st(db.get(), src.sql);
      const std::int64_t next = left.back().second;
      cursors.push_back({std::move(st), &c, &src, std::move(left), false, next, c.Bound(next),
                         std::make_unique<ScopeFilter>(ScopeFilter{&in_scope, 0})});
    }
  }
  // Binds the cursor's statement to its newest ranges left, read as one
  // while the gaps between them are worth reading across.
  auto open = [&](Cursor& cur) {
    auto [lo, hi] = cur.left.back();
    cur.left.pop_back();
    // Candidates per block met so far (one more than met, so that none met
    // is not taken for none to come), rounded up; nothing is known before
    // the first range.
    const std::int64_t seen = cur.filter->seen;
    const std::int64_t per_block =
        cur.blocks == 0 ? kGapRows + 1 : (seen + 1 + cur.blocks - 1) / cur.blocks;
    while (!cur.left.empty()) {
      const std::int64_t gap_blocks = ((lo - cur.left.back().second - 1) >> 12) + 1;
      if (gap_blocks * per_block > kGapRows) break;
      lo = cur.left.back().first;
      cur.left.pop_back();
    }
    cur.blocks += ((hi - lo) >> 12) + 1;
    cur.st.Reset();
    BindParams(cur.st, q, cur.src->match, lo, hi, cur.src->dfs, cur.src->totals, &gate,
               cur.filter.get());
    cur.open = true;
  };
  for (;;) {
    Cursor* cur = nullptr;
    for (Cursor& c : cursors)
      if (c.bound != INT64_MIN && (cur == nullptr || c.bound > cur->bound)) cur = &c;
    if (cur == nullptr || !k.MayEnter(cur->bound, cur->next)) break;
    if (!cur->open) open(*cur);
    if (!cur->st.Step()) {
      cur->open = false;
      cur->next = cur->left.empty() ? 0 : cur->left.back().second;
      cur->bound = cur->left.empty() ? INT64_MIN : cur->chain->Bound(cur->next);
      continue;
    }
    if (budget >= 0 && budget-- == 0) return false;
    const Source& src = *cur->src;
    Candidate c{cur->st.Int(0), cur->st.Int(1), cur->st.Double(2), src.scored};
    if (q.cost != nullptr) ++q.cost->rows;
    cur->next = c.seq - 1;
    cur->bound = cur->chain->Bound(c.seq - 1);
    if (!k.CouldEnter(c)) continue;  // older than all kept: its text is not checked
    // A tool_only search of event_fts, which holds meta events too, learns
    // the kind with the text (which it checks anyway).
    const bool tools_only = q.tools_only && !q.kind;
    if (src.text_in_row) {
      if (tools_only && cur->st.Int(4) == 0) continue;
      const std::string_view text = cur->st.Text(3);
      const bool match = MatchesAll(text, terms);
      CountText(q.cost, text, match);
      if (!match) continue;
      if (src.rank != nullptr) c.score = src.rank->Score(TrigramTokens(text));
    } else if (src.check && !TextMatches(db, c.seq, terms, q.cost, tools_only)) {
      continue;
    }
    k.Offer(c);
  }
  return true;
}

// The newest q.scan_limit events in scope (by their timestamps, `where`),
// then their texts newest first until `need` match: the answer for terms
// no index can find.
std::vector<Candidate> NewestScanned(Db& db, const Chains& chains, const EventQuery& q,
                                     const std::vector<Term>& terms,
                                     const std::optional<Ranges>& scope, bool messages_only,
                                     const std::string& where, std::size_t need) {
  NewestK scan(static_cast<std::size_t>(std::max(q.scan_limit, 0)));
  const bool messages = !q.source && !q.project && messages_only;
  Gather(db, chains,
         {{std::string("SELECT e.seq, e.ts, 0.0 FROM event e") +
               (messages ? " INDEXED BY event_message_seq_ts" : "") +
               " WHERE e.seq BETWEEN ?2 AND ?3" + where + " ORDER BY e.seq DESC",
           "", false}},
         q, terms, scope, scan);
  // Newest first, so the first matches found are the ones needed.
  std::vector<Candidate> out;
  for (const Candidate& c : scan.Take()) {
    if (out.size() == need) break;
    if (TextMatches(db, c.seq, terms, q.cost)) out.push_back(c);
  }
  return out;
}

// Whether every term is found exactly by message_fts (detail=full, each term
// a phrase of its trigrams): ASCII terms of three or more characters, whose
// case FTS5 folds as FoldCase does.
bool PhrasesExact(const std::vector<Term>& terms) {
  return std::all_of(terms.begin(), terms.end(), [](const Term& t) {
    return t.kind == Term::Kind::kTrigram &&
           std::all_of(t.folded.begin(), t.folded.end(), [](char32_t c) { return c < 0x80; });
  });
}


// The search itself; `use_index`: read index.db's tables (else every
// candidate is read from the events).
std::vector<EventHit> Search(Db& db, const EventQuery& q, bool use_index, std::int64_t* matches) {
  std::vector<Term> terms = ParseTerms(q.query);
  std::vector<EventHit> out;
  if (matches != nullptr) *matches = 0;
  if (terms.empty() || q.limit <= 0) return out;
  const std::string where = Where(q);
  const bool has_long = !TrigramMatch(terms).empty();
  const bool indexed = use_index && HasIndex(db);
  // The events the indexes have not reached are read directly, the others
  // through an index of index.db.
  const std::int64_t upto = indexed ? IndexedUpto(db) : 0;
  // By relevance: the newest kRankWindow matches are ranked; else the
  // newest `limit`.  Without an index that has reached anything (none
  // attached, damaged, or built again from the start), nothing can be
  // ranked: newest first.
  const bool ranked = has_long && !q.recent && upto > 0;
  const std::size_t need =
      std::max(ranked ? static_cast<std::size_t>(kRankWindow) : static_cast<std::size_t>(q.limit),
               static_cast<std::size_t>(std::clamp(q.count_upto, 0, kRankWindow)));
  NewestK k(need);
  const Chains chains(db);
  const std::optional<Ranges> scope = ScopeRanges(db, q);
  const bool scoped = scope.has_value();
  const bool messages_only =
      q.kind ? *q.kind == "message" : !q.include_tools && !q.tools_only;
  std::vector<Candidate> cands;
  const std::string cjk = CjkMatch(terms);
  const Source direct{"SELECT e.seq, e.ts, 0.0 FROM event e WHERE e.seq BETWEEN ?2 AND ?3" +
                          ScopeSql(scoped, "e.seq") + where + " ORDER BY e.seq DESC",
                      "", true, upto + 1};
  if (has_long && messages_only && indexed) {
    std::vector<std::string> phrases = TrigramPhrases(terms);
    Source src{FtsSql("idx", "message_fts", "m", ranked, EventJoin(q, Holds::kMessages),
                      Where(q, Holds::kMessages), scoped),
               JoinAnd(phrases), !PhrasesExact(terms), 0, upto, "", ranked};
    if (ranked) src.dfs = EstimateDfs(db, {"idx.message_fts"}, phrases);
    Gather(db, chains, {direct, src}, q, terms, scope, k);
    cands = k.Take();
  } else if (has_long && indexed) {
    // Messages from message_fts (each term a phrase), every other event
    // from event_fts (the AND of every trigram): the two hold every event
    // once.  Both are scored as one table of trigrams would score them
    // (detail=none: every candidate holds each trigram once), over the two
    // together, so that the order is by length whichever table a candidate
    // comes from.
    std::vector<std::string> grams = Trigrams(terms);
    // Not with a kind (one other than message) nor with tool events only.
    const bool with_messages = !q.kind && !q.tools_only;
    // event_fts's candidates are all checked: each is read with its row,
    // and scored by the length of the text read (TrigramRank), only once it
    // matched.
    std::vector<Source> sources = {direct};
    Source others{FtsTextSql("idx", "event_fts", "f", Where(q, Holds::kOthers), scoped),
                  JoinAnd(grams),
                  true, 0, upto, "", ranked};
    others.text_in_row = true;
    sources.push_back(others);
    if (with_messages)
      sources.push_back({FtsSql("idx", "message_fts", "m", ranked, EventJoin(q, Holds::kMessages),
                                Where(q, Holds::kMessages), scoped, true),
                         TrigramMatch(terms), !PhrasesExact(terms), 0, upto, "", ranked});
    TrigramRank rank;
    if (ranked) {
      // The frequencies scale every score alike and do not change the
      // order: a smaller probe does.
      const std::vector<std::string> tables = {"idx.event_fts", "idx.message_fts"};
      const std::string dfs = EstimateDfs(db, tables, grams, kProbeSeqs / 4);
      const std::string totals = CollectionTotals(db, tables);
      rank = TrigramRank::Parse(dfs.c_str(), totals.c_str());
      sources[1].rank = &rank;
      for (std::size_t i = 1; i < sources.size(); ++i) {
        sources[i].dfs = dfs;
        sources[i].totals = totals;
      }
    }
    Gather(db, chains, sources, q, terms, scope, k);
    cands = k.Take();
  } else if (!has_long && !cjk.empty() && indexed) {
    const bool exact = std::all_of(terms.begin(), terms.end(),
                                   [](const Term& t) { return t.kind == Term::Kind::kCjkShort; });
    const Source pairs{
        FtsSql("idx", "event_cjk", "c", false, EventJoin(q, Holds::kAny), where, scoped), cjk,
        !exact, 0, upto};
    Gather(db, chains, {direct, pairs}, q, terms, scope, k);
    cands = k.Take();
  } else if (has_long || !cjk.empty()) {
    // No index to read (none attached, or being rebuilt): every event in
    // scope, newest first, until enough match.
    Gather(db, chains, {{direct.sql, "", true}}, q, terms, scope, k);
    cands = k.Take();
  } else {
    // Terms no index can find: the newest q.scan_limit (kScanLimit) events
    // in scope, then their text, newest first, until `need` match.  Read
    // first newest first, each row with its text, keeping the newest `need`
    // matches: when Gather has them within scan_limit rows, they are that
    // answer (every row newer than the oldest kept was read, so it is among
    // the newest scan_limit), and a frequent term reads a few thousand rows
    // where the scan reads scan_limit.
    NewestK near(need);
    Source rows{"SELECT e.seq, e.ts, 0.0, e.text, e.kind IN ('tool_call', 'tool_result') "
                "FROM event e WHERE e.seq BETWEEN ?2 AND ?3" + ScopeSql(scoped, "e.seq") + where +
                    " ORDER BY e.seq DESC",
                "", true};
    rows.text_in_row = true;
    if (Gather(db, chains, {rows}, q, terms, scope, near, std::max(q.scan_limit, 0)))
      cands = near.Take();
    else
      cands = NewestScanned(db, chains, q, terms, scope, messages_only, where, need);
  }
  if (matches != nullptr) *matches = static_cast<std::int64_t>(cands.size());
  const bool by_relevance = ranked;
  if (by_relevance) {
    if (cands.size() > static_cast<std::size_t>(kRankWindow)) cands.resize(kRankWindow);
    // What the index has not reached yet (the newest events, as a rule)
    // has no score: it comes first, newest first, then the ranked ones.
    std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
      if (a.scored != b.scored) return !a.scored;
      return a.scored && a.score < b.score;
    });
  }
  if (cands.size() > static_cast<std::size_t>(q.limit))
    cands.resize(static_cast<std::size_t>(q.limit));
  for (const Candidate& c : cands) {
    EventHit h;
    h.event = *GetEventBySeq(db, c.seq);
    h.snippet = Snippet(h.event.text, terms, 200, &h.marks);
    if (by_relevance && c.scored) h.score = c.score;
    out.push_back(std::move(h));
  }
  return out;
}

// Runs `fn` in one read transaction of `db` (and what it attached), unless
// one is open already: how far the index has got and what it holds are
// then read at the same moment, even while it is rebuilt.
template <class Fn>
auto InOneSnapshot(Db& db, Fn fn) {
  if (db.InTransaction()) return fn();
  db.Exec("BEGIN");
  try {
    auto out = fn();
    db.Exec("COMMIT");
    return out;
  } catch (...) {
    try {
      if (db.InTransaction()) db.Exec("ROLLBACK");
    } catch (const SqliteError&) {
      // The error being thrown says more.
    }
    throw;
  }
}

}  // namespace

std::vector<EventHit> SearchEvents(Db& db, const EventQuery& q, std::int64_t* matches) {
  try {
    return InOneSnapshot(db, [&] { return Search(db, q, true, matches); });
  } catch (const SqliteError& e) {
    if (!IsCorruption(e) || !HasIndex(db)) throw;
    // Damage: the events answer without the indexes.  Only when they can
    // is the damage the index's, and the indexer told.
    auto out = InOneSnapshot(db, [&] { return Search(db, q, false, matches); });
    if (q.index_failed) q.index_failed(e.what());
    return out;
  }
}

}  // namespace origin
