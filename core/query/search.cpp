// SPDX-License-Identifier: MIT
#include "core/query/search.hpp"

#include <algorithm>
#include <set>

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
  std::string w;
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

// Runs `sql` (seq, ts, text, score) and keeps the rows whose text holds every term.
void Collect(Db& db, const std::string& sql, const std::string* match, const EventQuery& q,
             const std::vector<Term>& terms, std::vector<Candidate>& out, int cap = -1,
             std::optional<std::int64_t> after = std::nullopt) {
  auto& st = db.Prepare(sql);
  int i = 1;
  if (match != nullptr) st.Bind(i++, *match);
  if (after) st.Bind(i++, *after);
  i = BindWhere(st, i, q);
  if (cap > 0) st.Bind(i, cap);
  while (st.Step())
    if (MatchesAll(st.Text(2), terms)) out.push_back({st.Int(0), st.Int(1), st.Double(3)});
  st.Reset();
}

}  // namespace

std::vector<EventHit> SearchEvents(Db& db, const EventQuery& q) {
  std::vector<Term> terms = ParseTerms(q.query);
  std::vector<EventHit> out;
  if (terms.empty() || q.limit <= 0) return out;
  const std::string where = Where(q);
  const bool has_long = !TrigramMatch(terms).empty();
  std::vector<Candidate> cands;
  bool ranked = false;
  const bool messages_only = q.kind ? *q.kind == "message" : !q.include_tools;
  if (has_long && messages_only) {
    std::string match = TrigramMatch(terms);
    Collect(db,
            "SELECT e.seq, e.ts, e.text, bm25(message_fts) FROM message_fts "
            "JOIN event e ON e.seq = message_fts.rowid WHERE message_fts MATCH ?" + where,
            &match, q, terms, cands);
    ranked = true;
  } else if (has_long && HasIndex(db)) {
    std::string match = TrigramsAnd(terms);
    Collect(db,
            "SELECT e.seq, e.ts, e.text, bm25(event_fts) FROM idx.event_fts f "
            "JOIN event e ON e.seq = f.rowid WHERE f.event_fts MATCH ?" + where,
            &match, q, terms, cands);
    // What the index has not reached yet is read directly (score 0: ranked last).
    Collect(db, "SELECT e.seq, e.ts, e.text, 0.0 FROM event e WHERE e.seq > ?" + where, nullptr,
            q, terms, cands, -1, IndexedUpto(db));
    ranked = true;
  } else if (has_long) {
    // No index attached (the writer's connection): the newest kScanLimit
    // events in scope are read.
    Collect(db,
            "SELECT e.seq, e.ts, e.text, 0.0 FROM event e WHERE 1" + where +
                " ORDER BY e.ts DESC, e.seq DESC LIMIT ?",
            nullptr, q, terms, cands, kScanLimit);
  } else if (std::string cjk = CjkMatch(terms); !cjk.empty()) {
    Collect(db,
            "SELECT e.seq, e.ts, e.text, 0.0 FROM event_cjk c JOIN event e ON e.seq = c.rowid "
            "WHERE event_cjk MATCH ?" + where,
            &cjk, q, terms, cands);
  } else {
    // Only terms no index can find: the newest kScanLimit events in scope.
    Collect(db,
            "SELECT e.seq, e.ts, e.text, 0.0 FROM event e WHERE 1" + where +
                " ORDER BY e.ts DESC, e.seq DESC LIMIT ?",
            nullptr, q, terms, cands, kScanLimit);
  }
  auto newest_first = [](const Candidate& a, const Candidate& b) {
    return a.ts != b.ts ? a.ts > b.ts : a.seq > b.seq;
  };
  std::sort(cands.begin(), cands.end(), newest_first);
  const bool by_relevance = ranked && !q.recent;
  if (by_relevance) {
    if (cands.size() > static_cast<std::size_t>(kRankWindow)) cands.resize(kRankWindow);
    std::stable_sort(cands.begin(), cands.end(),
                     [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  }
  if (cands.size() > static_cast<std::size_t>(q.limit)) cands.resize(static_cast<std::size_t>(q.limit));
  for (const Candidate& c : cands) {
    auto& st = db.Prepare("SELECT id FROM event WHERE seq = ?");
    st.Bind(1, c.seq);
    st.Step();
    std::string id(st.Text(0));
    st.Reset();
    EventHit h;
    h.event = *GetEvent(db, id);
    h.snippet = Snippet(h.event.text, terms);
    if (by_relevance) h.score = c.score;
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace origin
