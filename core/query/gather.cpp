// SPDX-License-Identifier: MIT
#include "core/query/gather.hpp"

#include <stdexcept>

#include "core/store/schema.hpp"
#include "core/util/text.hpp"

namespace origin::search_read {

void BindParams(Stmt& st, const EventQuery& q, const std::string& match, std::int64_t lo,
                std::int64_t hi, const std::string& dfs, const std::string& totals,
                const RankGate* gate, const ScopeFilter* scope) {
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
  if (kStamps <= n) {
    int rc =
        sqlite3_bind_pointer(st.get(), kStamps, q.stamps, MessageStamps::kPointerType, nullptr);
    if (rc != SQLITE_OK) throw SqliteError(rc, "bind the stamps");
  }
  if (q.kind) bind(kKind, *q.kind);
  if (q.source) bind(kSource, *q.source);
  if (q.project) bind(kProject, *q.project);
  if (q.from_ms) bind(kFrom, *q.from_ms);
  if (q.to_ms) bind(kTo, *q.to_ms);
}

Chains::Chains(Db& db, int join_below) {
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
  for (const Chain& c : list_) {
    if (joined_.empty() || c.upto.size() >= static_cast<std::size_t>(std::max(join_below, 0))) {
      joined_.push_back(c);
      continue;
    }
    Chain& before = joined_.back();
    while (before.first_block + static_cast<std::int64_t>(before.upto.size()) < c.first_block)
      before.upto.push_back(before.upto.back());  // blocks without a row between
    for (std::int64_t ts : c.upto) before.upto.push_back(std::max(ts, before.upto.back()));
  }
}

std::string ScopeSql(bool scoped, const std::string& rowid) {
  return scoped ? " AND origin_scope(?12, " + rowid + ")" : "";
}

void CountText(SearchCost* cost, std::string_view text, bool match) {
  if (cost == nullptr) return;
  ++cost->texts;
  cost->text_bytes += static_cast<std::int64_t>(text.size());
  cost->matches += match ? 1 : 0;
}

double TrigramTokens(std::string_view text) {
  // Up to a NUL, as SQLite's length() counts what the unchecked reads and
  // the stamps score by (docs/architecture.md, BM25).
  text = text.substr(0, text.find('\0'));
  std::size_t chars = 0;
  for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return static_cast<double>(TrigramsOfChars(static_cast<std::int64_t>(chars)));
}

bool TextMatches(Db& db, std::int64_t seq, const std::vector<Term>& terms, SearchCost* cost,
                 bool tools_only) {
  auto st = db.Prepare("SELECT text, kind IN ('tool_call', 'tool_result') FROM event WHERE seq = ?");
  st.Bind(1, seq);
  if (!st.Step() || (tools_only && st.Int(1) == 0)) return false;
  const std::string_view text = st.Text(0);
  const bool match = MatchesAll(text, terms);
  CountText(cost, text, match);
  return match;
}

bool ChecksKind(const EventQuery& q) { return q.tools_only && !q.kind; }

bool LeftCheckHolds(const EventRow& e, const EventQuery& q, const std::vector<Term>& terms) {
  if (ChecksKind(q) && e.kind != "tool_call" && e.kind != "tool_result") return false;
  const bool match = MatchesAll(e.text, terms);
  CountText(q.cost, e.text, match);
  return match;
}

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
    const std::int64_t lo = st.Int(0) << kScopeBlockBits, hi = lo + (1 << kScopeBlockBits) - 1;
    if (!out.empty() && out.back().second + 1 == lo)
      out.back().second = hi;
    else
      out.push_back({lo, hi});
  }
  return out;
}

namespace {

// The scope's blocks, for origin_scope (empty without a scope).
std::vector<bool> ScopeBlocks(const std::optional<Ranges>& scope) {
  std::vector<bool> in_scope;
  if (scope)
    for (const auto& [from, to] : *scope) {
      if (in_scope.size() <= static_cast<std::size_t>(to >> kScopeBlockBits))
        in_scope.resize(static_cast<std::size_t>(to >> kScopeBlockBits) + 1);
      for (std::int64_t b = from >> kScopeBlockBits; b <= to >> kScopeBlockBits; ++b)
        in_scope[static_cast<std::size_t>(b)] = true;
    }
  return in_scope;
}

// Whether the row `st` read from `src` holds every term (and, for a
// tool_only search, is a tool call or result): from the text in the row
// when the statement read it, else from the event's.
bool RowMatches(Db& db, Stmt& st, const Source& src, const EventQuery& q,
                const std::vector<Term>& terms, std::string_view* text) {
  const bool tools_only = ChecksKind(q);
  if (src.text_in_row) {
    if (tools_only && st.Int(4) == 0) return false;
    *text = st.Text(3);
    const bool match = MatchesAll(*text, terms);
    CountText(q.cost, *text, match);
    return match;
  }
  return !src.check || TextMatches(db, st.Int(0), terms, q.cost, tools_only);
}

// `sql` (a Source's: newest first) oldest first.
std::string OldestFirst(const std::string& sql) {
  constexpr std::string_view kDesc = " DESC";
  if (!std::string_view(sql).ends_with(kDesc))
    throw std::logic_error("a source's statement does not end newest first: " + sql);
  return sql.substr(0, sql.size() - kDesc.size()) + " ASC";
}

// A gap between two ranges of a scope that one statement reads across
// rather than starting another, in candidates it is expected to hold: each
// statement costs FTS5 a seek in every segment of every phrase to start
// (150 to 250 us at 2M events), and a candidate origin_scope drops little.
// Measured (docs/performance.md): 2,048 to 8,192 alike, 16,384 slower for a
// frequent word.
constexpr std::int64_t kGapRows = 4096;

// `read` with the seqs lo to hi added, at most INT64_MAX (a source reads up
// to INT64_MAX when nothing bounds it).
std::int64_t PlusSeqs(std::int64_t read, std::int64_t lo, std::int64_t hi) {
  const std::int64_t n = hi - lo;  // lo >= 0
  return n >= INT64_MAX - read ? INT64_MAX : read + n + 1;
}

// Whether the gap between a range of a scope ending at `hi` and the next,
// from `lo`, is worth reading across for a statement that met `seen`
// candidates (counted by origin_scope) in the `read` seqs of the ranges it
// read so far: the gap is expected to hold seen + 1 per `read` seqs (one
// more than met, so that none met is not taken for none to come); nothing
// is known before the first range.
bool ReadAcross(std::int64_t hi, std::int64_t lo, std::int64_t seen, std::int64_t read) {
  if (read <= 0) return false;
  const double gap = static_cast<double>(lo - hi - 1);
  return gap * static_cast<double>(seen + 1) <=
         static_cast<double>(kGapRows) * static_cast<double>(read);
}

// The ranges of `scope` (or everything) within [lo, hi], ascending.
Ranges Within(const std::optional<Ranges>& scope, std::int64_t lo, std::int64_t hi) {
  static const Ranges kEverything = {{0, INT64_MAX}};
  Ranges out;
  for (const auto& [from, to] : scope ? *scope : kEverything) {
    const std::int64_t a = std::max(lo, from), b = std::min(hi, to);
    if (a <= b) out.push_back({a, b});
  }
  return out;
}

// How a source is read: whether the checks of its rows are left to the
// search (`leave_checks`: GatherAll's and Gather's), and so by which
// statement and MATCH.  Only an index's candidates are left unchecked (the
// events it has not reached, read directly, are candidates all, mostly not
// matches): those it cannot match exactly, or all of them when it has an
// unchecked_match; of a source that reads its texts in the row, only when
// it has an unchecked_sql.  A row read with its text is scored by it
// (Source::rank).
struct Reading {
  bool leave = false;  // its rows are offered unchecked
  const std::string& sql;
  const std::string& match;
  bool by_text = false;  // scored by the text read in the row
  Reading(const Source& src, bool leave_checks)
      : leave(leave_checks && !src.match.empty() && (src.check || !src.unchecked_match.empty()) &&
              (!src.text_in_row || !src.unchecked_sql.empty())),
        sql(leave && src.text_in_row ? src.unchecked_sql : src.sql),
        match(leave && !src.unchecked_match.empty() ? src.unchecked_match : src.match),
        by_text(src.rank != nullptr && src.text_in_row && !leave) {}
  /// The candidate of the row `st` read, if it may be one: its text holds
  /// every term, or its check is left.
  std::optional<Candidate> Row(Db& db, Stmt& st, const Source& src, const EventQuery& q,
                               const std::vector<Term>& terms) const {
    std::string_view text;
    if (!leave && !RowMatches(db, st, src, q, terms, &text)) return std::nullopt;
    Candidate c{st.Int(0), st.Int(1), st.Double(2), src.scored, leave};
    if (by_text) c.score = src.rank->Score(TrigramTokens(text));
    return c;
  }
};

// Reads every source oldest first, each by one statement (a scope's ranges
// one after the other, across the gaps Gather would read across), and
// hands the candidate of each row whose text holds every term to
// `on_match` (Reading: with `leave_checks`, each row a source would check
// is handed on unchecked) until it returns false.  Returns false when
// `on_match` stopped it.
template <class OnMatch>
bool ReadOldestFirst(Db& db, const std::vector<Source>& sources, const EventQuery& q,
                     const std::vector<Term>& terms, const std::optional<Ranges>& scope,
                     const RankGate* gate, bool leave_checks, OnMatch on_match) {
  const std::vector<bool> in_scope = ScopeBlocks(scope);
  for (const Source& src : sources) {
    const Ranges left = Within(scope, src.lo, src.hi);
    if (left.empty()) continue;
    const Reading reading(src, leave_checks);
    StmtLease st = db.Prepare(OldestFirst(reading.sql));
    ScopeFilter filter{&in_scope, 0};
    std::int64_t read = 0;
    for (std::size_t i = 0; i < left.size();) {
      auto [lo, hi] = left[i++];
      while (i < left.size() && ReadAcross(hi, left[i].first, filter.seen, read))
        hi = left[i++].second;
      read = PlusSeqs(read, lo, hi);
      st.Reset();
      BindParams(st, q, reading.match, lo, hi, src.dfs, src.totals, gate, &filter);
      while (st.Step()) {
        if (q.cost != nullptr) ++q.cost->rows;
        const std::optional<Candidate> c = reading.Row(db, st, src, q, terms);
        if (c && !on_match(*c)) return false;
      }
    }
  }
  return true;
}

}  // namespace

std::int64_t Count(Db& db, const std::vector<Source>& sources, const EventQuery& q,
                   const std::vector<Term>& terms, const std::optional<Ranges>& scope,
                   std::int64_t upto) {
  std::int64_t n = 0;
  if (upto <= 0) return 0;
  ReadOldestFirst(db, sources, q, terms, scope, nullptr, false,
                  [&](const Candidate&) { return ++n < upto; });
  return n;
}

bool GatherAll(Db& db, const std::vector<Source>& sources, const EventQuery& q,
               const std::vector<Term>& terms, const std::optional<Ranges>& scope, NewestK& k,
               std::size_t cap, bool leave_checks) {
  // Every match is kept while there are at most `cap`: each is scored.
  const RankGate gate{[](const void*, std::int64_t, std::int64_t) { return true; }, nullptr};
  std::size_t n = 0;
  return ReadOldestFirst(db, sources, q, terms, scope, &gate, leave_checks,
                         [&](const Candidate& c) {
                           if (++n > cap) return false;
                           k.Offer(c);
                           return true;
                         });
}

bool Gather(Db& db, const Chains& chains, const std::vector<Source>& sources, const EventQuery& q,
            const std::vector<Term>& terms, const std::optional<Ranges>& scope, NewestK& k,
            std::int64_t budget, bool leave_checks) {
  struct Cursor {
    StmtLease st;  // the connection's cached statement (a second chain: its own)
    const Chains::Chain* chain;
    const Source* src;
    Reading reading;
    Ranges left;         // to read, ascending: the newest last
    bool open = false;   // st is bound to a range and not done
    std::int64_t next;   // every unread row has seq <= next
    std::int64_t bound;  // the latest timestamp an unread row may have
    // The candidates the statement met (counted by origin_scope, before
    // the filters), and the seqs of the ranges it read them in.
    std::unique_ptr<ScopeFilter> filter;
    std::int64_t read = 0;
  };
  const std::vector<bool> in_scope = ScopeBlocks(scope);
  // Scores are computed only for candidates that could be kept.
  RankGate gate{[](const void* ctx, std::int64_t ts, std::int64_t seq) {
                  return static_cast<const NewestK*>(ctx)->CouldEnter({seq, ts, 0});
                },
                &k};
  std::vector<Cursor> cursors;
  for (const Source& src : sources) {
    // An index's statements read the joined chains (Chains).
    for (const Chains::Chain& c : src.match.empty() ? chains.list() : chains.joined()) {
      Ranges left = Within(scope, std::max(c.lo(), src.lo), std::min(c.hi(), src.hi));
      if (left.empty()) continue;
      const Reading reading(src, leave_checks);
      StmtLease st = db.Prepare(reading.sql);
      const std::int64_t next = left.back().second;
      cursors.push_back({std::move(st), &c, &src, reading, std::move(left), false, next,
                         c.Bound(next), std::make_unique<ScopeFilter>(ScopeFilter{&in_scope, 0})});
    }
  }
  // Binds the cursor's statement to its newest ranges left, read as one
  // while the gaps between them are worth reading across.
  auto open = [&](Cursor& cur) {
    auto [lo, hi] = cur.left.back();
    cur.left.pop_back();
    while (!cur.left.empty() &&
           ReadAcross(cur.left.back().second, lo, cur.filter->seen, cur.read)) {
      lo = cur.left.back().first;
      cur.left.pop_back();
    }
    cur.read = PlusSeqs(cur.read, lo, hi);
    cur.st.Reset();
    BindParams(cur.st, q, cur.reading.match, lo, hi, cur.src->dfs, cur.src->totals, &gate,
               cur.filter.get());
    cur.open = true;
  };
  for (;;) {
    Cursor* cur = nullptr;
    for (Cursor& c : cursors)
      if (c.bound != INT64_MIN && (cur == nullptr || c.bound > cur->bound)) cur = &c;
    if (cur == nullptr || !k.MayEnter(cur->bound, cur->next)) return true;
    if (!cur->open) open(*cur);
    if (!cur->st.Step()) {
      cur->open = false;
      cur->next = cur->left.empty() ? 0 : cur->left.back().second;
      cur->bound = cur->left.empty() ? INT64_MIN : cur->chain->Bound(cur->next);
      continue;
    }
    if (budget >= 0 && budget-- == 0) return false;
    const std::int64_t seq = cur->st.Int(0);
    if (q.cost != nullptr) ++q.cost->rows;
    cur->next = seq - 1;
    cur->bound = cur->chain->Bound(seq - 1);
    // Older than all kept: its text is not checked.
    if (!k.CouldEnter({seq, cur->st.Int(1), 0})) continue;
    if (const std::optional<Candidate> c = cur->reading.Row(db, cur->st, *cur->src, q, terms))
      k.Offer(*c);
  }
}

}  // namespace origin::search_read
