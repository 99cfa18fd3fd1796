// SPDX-License-Identifier: MIT
#include "core/query/search.hpp"

#include <algorithm>
#include <set>

#include "core/forget/visible.hpp"
#include "core/query/terms.hpp"
#include "core/store/event_index.hpp"
#include "core/util/text.hpp"

namespace origin {

namespace {

struct Candidate {
  std::int64_t seq, ts;
  double score;  // BM25 when ranked, else 0
};

// The scope and filters, on `e`.
std::string Where(const EventQuery& q) {
  std::string w = " AND " + VisibleEventSql("e.seq");  // invariant 2
  if (q.kind)
    w += " AND e.kind = ?";
  else if (!q.include_tools)
    w += " AND e.kind = 'message'";
  if (q.source) w += " AND e.source = ?";
  if (q.project) w += " AND e.project = ?";
  if (q.from_ms) w += " AND e.ts >= ?";
  if (q.to_ms) w += " AND e.ts <= ?";
  return w;
}

int BindWhere(Stmt& st, int i, const EventQuery& q) {
  if (q.kind) st.Bind(i++, *q.kind);
  if (q.source) st.Bind(i++, *q.source);
  if (q.project) st.Bind(i++, *q.project);
  if (q.from_ms) st.Bind(i++, *q.from_ms);
  if (q.to_ms) st.Bind(i++, *q.to_ms);
  return i;
}

std::string Quoted(std::u32string_view letters) {
  std::string s = "\"";
  for (char32_t c : letters) {
    if (c == '"') s += '"';
    AppendUtf8(s, c);
  }
  return s + "\"";
}

// The AND of every trigram of every long term (event_fts has detail=none,
// which refuses phrases).
std::string TrigramsAnd(const std::vector<Term>& terms) {
  std::set<std::u32string> grams;
  for (const Term& t : terms) {
    if (t.kind != Term::Kind::kTrigram) continue;
    for (std::size_t i = 0; i + 3 <= t.folded.size(); ++i) grams.insert(t.folded.substr(i, 3));
  }
  std::string out;
  for (const auto& g : grams) out += (out.empty() ? "" : " AND ") + Quoted(g);
  return out;
}

// Tokens of event_cjk for the short CJK terms: a pair, or a letter as a prefix.
std::string CjkMatch(const std::vector<Term>& terms) {
  std::string out;
  for (const Term& t : terms) {
    if (t.kind != Term::Kind::kCjkShort) continue;
    out += (out.empty() ? "" : " AND ") + Quoted(t.folded) + (t.chars == 1 ? "*" : "");
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

// Keeps the `need` newest candidates by (ts, seq) of a stream read newest
// arrival first, and says when no unread candidate can still enter: every
// unread one has a seq below the last read, so its timestamp is at most the
// latest up to that seq's block (event_block.max_ts_upto), and among equal
// timestamps the later arrival, read earlier, ranks first.
class NewestK {
 public:
  NewestK(Db& db, std::size_t need) : db_(db), need_(need) {}
  /// False once the stream can stop before `seq`.
  bool Wants(std::int64_t seq) {
    if (kept_.size() < need_) return true;
    std::int64_t block = seq >> 12;
    if (block != block_) {
      block_ = block;
      auto& st = db_.Prepare("SELECT max_ts_upto FROM event_block WHERE block = ?");
      st.Bind(1, block);
      bound_ = st.Step() ? st.Int(0) : INT64_MAX;
      st.Reset();
    }
    return kept_.front().ts < bound_;
  }
  /// Whether `c` would be kept (so its text is worth reading).
  bool CouldEnter(const Candidate& c) const {
    return kept_.size() < need_ || Newer(c, kept_.front());
  }
  void Offer(const Candidate& c) {
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
  Db& db_;
  std::size_t need_;
  std::vector<Candidate> kept_;
  std::int64_t block_ = -1, bound_ = INT64_MAX;
};

// Runs `sql`, which yields (seq, ts, text, score) newest arrival first, and
// offers the rows whose text holds every term (all rows when `check` is
// false), until no further row can enter.
void Stream(Db& db, const std::string& sql, const std::string* match,
            std::optional<std::int64_t> after, const EventQuery& q, const std::vector<Term>& terms,
            bool check, NewestK& k) {
  auto& st = db.Prepare(sql);
  int i = 1;
  if (match != nullptr) st.Bind(i++, *match);
  if (after) st.Bind(i++, *after);
  BindWhere(st, i, q);
  while (st.Step()) {
    std::int64_t seq = st.Int(0);
    if (!k.Wants(seq)) break;
    Candidate c{seq, st.Int(1), 0};
    if (!k.CouldEnter(c)) continue;  // older than all kept: its text is not read
    if (check && !MatchesAll(st.Text(2), terms)) continue;
    c.score = st.Double(3);
    k.Offer(c);
  }
  st.Reset();
}

}  // namespace

std::vector<EventHit> SearchEvents(Db& db, const EventQuery& q) {
  std::vector<Term> terms = ParseTerms(q.query);
  std::vector<EventHit> out;
  if (terms.empty() || q.limit <= 0) return out;
  const std::string where = Where(q);
  const bool has_long = !TrigramMatch(terms).empty();
  const bool ranked = has_long && !q.recent;
  // By relevance: the newest kRankWindow matches are ranked; else the newest `limit`.
  NewestK k(db, ranked ? static_cast<std::size_t>(kRankWindow) : static_cast<std::size_t>(q.limit));
  const bool messages_only = q.kind ? *q.kind == "message" : !q.include_tools;
  std::vector<Candidate> cands;
  if (has_long && messages_only) {
    std::string match = TrigramMatch(terms);
    Stream(db,
           "SELECT e.seq, e.ts, e.text, bm25(message_fts) FROM message_fts "
           "JOIN event e ON e.seq = message_fts.rowid WHERE message_fts MATCH ?" +
               where + " ORDER BY message_fts.rowid DESC",
           &match, std::nullopt, q, terms, true, k);
    cands = k.Take();
  } else if (has_long && HasIndex(db)) {
    // Newest arrivals first: those the index has not reached (score 0: ranked
    // last), read directly, then the index's.
    std::int64_t upto = IndexedUpto(db);
    Stream(db,
           "SELECT e.seq, e.ts, e.text, 0.0 FROM event e WHERE e.seq > ?" + where +
               " ORDER BY e.seq DESC",
           nullptr, upto, q, terms, true, k);
    std::string match = TrigramsAnd(terms);
    Stream(db,
           "SELECT e.seq, e.ts, e.text, bm25(event_fts) FROM idx.event_fts f "
           "JOIN event e ON e.seq = f.rowid WHERE f.event_fts MATCH ?" +
               where + " ORDER BY f.rowid DESC",
           &match, std::nullopt, q, terms, true, k);
    cands = k.Take();
  } else if (std::string cjk = CjkMatch(terms); !has_long && !cjk.empty()) {
    Stream(db,
           "SELECT e.seq, e.ts, e.text, 0.0 FROM event_cjk c JOIN event e ON e.seq = c.rowid "
           "WHERE event_cjk MATCH ?" +
               where + " ORDER BY c.rowid DESC",
           &cjk, std::nullopt, q, terms, true, k);
    cands = k.Take();
  } else {
    // Terms no index can find (or no index.db on this connection, the
    // writer's): the newest kScanLimit events in scope, then their text.
    NewestK scan(db, kScanLimit);
    Stream(db, "SELECT e.seq, e.ts, '', 0.0 FROM event e WHERE 1" + where + " ORDER BY e.seq DESC",
           nullptr, std::nullopt, q, terms, false, scan);
    // Newest first, so the first matches found are the ones needed.
    const std::size_t need = ranked ? kRankWindow : static_cast<std::size_t>(q.limit);
    auto& text = db.Prepare("SELECT text FROM event WHERE seq = ?");
    for (const Candidate& c : scan.Take()) {
      if (cands.size() == need) break;
      text.Reset();
      text.Bind(1, c.seq);
      if (text.Step() && MatchesAll(text.Text(0), terms)) cands.push_back(c);
    }
    text.Reset();
  }
  const bool by_relevance = ranked;
  if (by_relevance) {
    if (cands.size() > static_cast<std::size_t>(kRankWindow)) cands.resize(kRankWindow);
    std::stable_sort(cands.begin(), cands.end(),
                     [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  }
  if (cands.size() > static_cast<std::size_t>(q.limit))
    cands.resize(static_cast<std::size_t>(q.limit));
  for (const Candidate& c : cands) {
    EventHit h;
    h.event = *GetEventBySeq(db, c.seq);
    h.snippet = Snippet(h.event.text, terms);
    if (by_relevance) h.score = c.score;
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace origin
