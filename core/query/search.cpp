// SPDX-License-Identifier: MIT
#include "core/query/search.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <set>

#include "core/query/gather.hpp"
#include "core/query/terms.hpp"
#include "core/store/event_index.hpp"
#include "core/store/fts_rank.hpp"
#include "core/store/sessions.hpp"
#include "core/store/visible.hpp"
#include "core/util/text.hpp"

namespace origin {

namespace {

using namespace search_read;

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

// The scope and filters, on `e`, for a source holding `holds`; `seq` and
// `ts` are the event's seq and timestamp (other columns are read from `e`).
std::string Where(const EventQuery& q, Holds holds = Holds::kAny, const std::string& seq = "e.seq",
                  const std::string& ts = "e.ts") {
  std::string w = " AND " + VisibleEventSql(seq);  // invariant 2
  if (KindFilter(q, holds))
    w += q.kind ? " AND e.kind = ?5"
         : q.tools_only ? " AND e.kind IN ('tool_call', 'tool_result')"
                        : " AND e.kind = 'message'";
  if (q.source) w += " AND e.source = ?6";
  if (q.project) w += " AND " + EventProjectSql("e") + " = ?7";
  if (q.from_ms) w += " AND " + ts + " >= ?8";
  if (q.to_ms) w += " AND " + ts + " <= ?9";
  return w;
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

// At most this many trigrams of a search's terms are asked of event_fts
// (detail=none: a term is the AND of its trigrams), the rarest: FTS5 reads
// the doclist of each, most of a search with tool events, and the
// candidates that hold those few but not the others are few, and dropped
// by the text check every candidate of event_fts gets.  On 2M events
// (docs/performance.md): `schema migrate`'s 9 trigrams 11.6 ms for 697
// rows, its rarest 4 2.9 ms for 773; `retry_handler`'s 11, 22.4 ms for
// 5,179, its rarest 4 3.1 ms for 5,229.
constexpr std::size_t kMatchGrams = 4;

// The kMatchGrams of `grams` with the lowest `freq` (one a gram, in the
// same order); all of them when there are no more, or no frequencies.
std::vector<std::string> Rarest(const std::vector<std::string>& grams,
                                const std::vector<double>& freq) {
  if (grams.size() <= kMatchGrams || freq.size() != grams.size()) return grams;
  std::vector<std::size_t> order(grams.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return freq[a] < freq[b]; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < kMatchGrams; ++i) out.push_back(grams[order[i]]);
  return out;
}

std::string JoinAnd(const std::vector<std::string>& phrases) {
  std::string out;
  for (const auto& p : phrases) out += (out.empty() ? "" : " AND ") + p;
  return out;
}

// How many arrivals the document frequencies of origin_bm25 are counted in.
constexpr std::int64_t kProbeSeqs = 1 << 14;
// The stretches of arrivals a search with tool events estimates its
// candidates in (EstimateMatches).
constexpr int kEstimateWindows = 4;

// How a candidate's timestamp is read: from the narrow (seq, ts) index when
// nothing else of the event is needed (source and project filters need the
// row; a kind filter too, which a source of one kind of rows may not need).
bool NarrowJoin(const EventQuery& q, Holds holds) {
  return !q.source && !q.project && !KindFilter(q, holds);
}
std::string EventJoin(const EventQuery& q, Holds holds) {
  return NarrowJoin(q, holds) ? " JOIN event e INDEXED BY event_seq_ts" : " JOIN event e";
}

// How many rows of `table` (e.g. "idx.message_fts") match `match`: its
// rows among the `probe` arrivals up to seq `top`, scaled to `top`
// arrivals; exact on a store with no more arrivals than that.  FTS5's
// bm25() would count every row, at a cost that grows with the store.
// `newest`: the probe reaches the newest arrivals, and the rows are counted
// newest first, since FTS5 finds them from a doclist's newest end (the
// newest 4,096 arrivals of a common trigram: 50 us against 90).  Anywhere
// else oldest first: newest first, FTS5 walks each doclist back from its
// end to `top` (a rare trigram's 4,096 arrivals three quarters of the way
// up the hub's 2M: 0.86 ms against 0.09; docs/performance.md).
double EstimateRows(Db& db, const std::string& table, const std::string& match, std::int64_t top,
                    std::int64_t probe, bool newest = true) {
  const std::int64_t from = std::max<std::int64_t>(0, top - probe);
  const double scale = top > from ? static_cast<double>(top) / static_cast<double>(top - from) : 1;
  auto st = db.Prepare("SELECT count(*) FROM (SELECT rowid FROM " + table + " WHERE " +
                       table.substr(table.find('.') + 1) +
                       " MATCH ? AND rowid > ? AND rowid <= ? ORDER BY rowid " +
                       (newest ? "DESC)" : "ASC)"));
  st.Bind(1, match).Bind(2, from).Bind(3, top);
  return (st.Step() ? static_cast<double>(st.Int(0)) : 0) * scale;
}

// Estimates of how many rows of `tables` hold each phrase, for origin_bm25
// (core/store/fts_rank.hpp), by EstimateRows up to the store's last
// arrival.  With several tables (which hold disjoint rows), a phrase's rows
// in all.
std::string EstimateDfs(Db& db, const std::vector<std::string>& tables,
                        const std::vector<std::string>& phrases, std::int64_t last,
                        std::int64_t probe) {
  std::string out;
  for (const std::string& p : phrases) {
    double n = 0;
    for (const std::string& table : tables) n += EstimateRows(db, table, p, last, probe);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f ", n);
    out += buf;
  }
  return out;
}

std::int64_t LastSeq(Db& db) {
  auto st = db.Prepare("SELECT coalesce(max(seq), 0) FROM event");
  return st.Step() ? st.Int(0) : 0;
}

// How many rows a ranked search is expected to read from `reads` (FTS5
// tables of index.db and their MATCH expressions), for the choice of reading
// every match oldest first (EventQuery::read_all_upto): their rows among
// kProbeSeqs arrivals the indexes have reached (up to `upto`), scaled to
// `upto`.  The probe is the newest arrivals, or `windows` stretches spread
// evenly over the arrivals, the newest first: on a hub, the newest arrivals
// can be a device's history unlike the rest (measured on the 2M hub,
// docs/performance.md: `schema migrate` with tool events, 1,135 rows in
// all, estimated 3,193 by the newest arrivals, 766 by four stretches).
// Returns as soon as the stretches counted so far exceed `stop_above`.
// Exact on a store with no more arrivals than kProbeSeqs.  Unbounded when
// the indexes lag further behind the store (`last`) than that: the events
// read directly, which the probe does not see, could be many.
double EstimateMatches(Db& db, const std::vector<std::pair<std::string, std::string>>& reads,
                       std::int64_t last, std::int64_t upto, int windows, double stop_above) {
  if (last - upto > kProbeSeqs) return std::numeric_limits<double>::infinity();
  if (upto <= kProbeSeqs) windows = 1;
  double n = 0;
  for (int i = windows; i >= 1 && n <= stop_above; --i) {
    const std::int64_t top = upto * i / windows;
    // Each stretch's rows scaled to `upto`, one `windows`-th of the estimate.
    double rows = 0;
    for (const auto& [table, match] : reads)
      rows += EstimateRows(db, table, match, top, kProbeSeqs / windows, i == windows);
    n += rows * static_cast<double>(upto) / static_cast<double>(top) / windows;
  }
  return n;
}

// The share of the arrivals up to `upto` that `scope`'s ranges hold: 1
// without a scope.
double ScopeShare(const std::optional<Ranges>& scope, std::int64_t upto) {
  if (!scope || upto <= 0) return 1;
  std::int64_t n = 0;
  for (const auto& [lo, hi] : *scope)
    if (lo <= upto) n += std::min(hi, upto) - lo + 1;
  // At least one arrival's: a scope the indexes have not reached yet (its
  // events read directly) is expected to hold few, not none, so that the
  // estimate stays a number (an unbounded one, times none, is not).
  return std::clamp(static_cast<double>(n) / static_cast<double>(upto),
                    1 / static_cast<double>(upto), 1.0);
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
    db.Prepare("SELECT 1 FROM idx.index_state LIMIT 1").Step();
    return true;
  } catch (const SqliteError&) {
    return false;
  }
}

// The statement of a Source reading the FTS5 table `name` (in `schema`) as
// `alias`, for rows holding `holds` that q's filters keep, scored by
// origin_bm25 when `ranked` (as trigrams over the collection ?11 when
// `trigrams`).  A message's timestamp and length come from the stamps
// when `stamped` (where the filters need nothing else of the event);
// otherwise from a join to the events: through event_seq_ts, where they
// need nothing else, with the length (kEventLengthVersion); through the
// event's row, with the length from FTS5's docsize (length(e.text) would
// read the whole text).
std::string FtsSql(const std::string& schema, const std::string& name, const std::string& alias,
                   bool ranked, const EventQuery& q, Holds holds, bool scoped,
                   bool trigrams = false, bool stamped = false) {
  const std::string column = alias + "." + name;  // the table's hidden column
  const std::string rowid = alias + ".rowid";
  const bool narrow = NarrowJoin(q, holds);
  stamped = stamped && narrow && holds == Holds::kMessages;
  const std::string seq = stamped ? rowid : "e.seq";
  const std::string ts = stamped ? "origin_ts(?13, " + rowid + ")" : "e.ts";
  const std::string length = stamped  ? ", origin_len(?13, " + rowid + ")"
                             : narrow ? ", length(e.text)"
                                      : "";
  // origin_bm25(table, dfs[, collection][, length]): the collection NULL
  // when only the length follows.
  const std::string collection = trigrams ? ", ?11" : narrow ? ", NULL" : "";
  return "SELECT " + seq + ", " + ts + ", " +
         (ranked ? "CASE WHEN origin_gate(?10, " + ts + ", " + seq + ") THEN origin_bm25(" +
                       column + ", ?4" + collection + length + ") ELSE 0 END"
                 : std::string("0.0")) +
         " FROM " + schema + "." + name + " " + alias +
         (stamped ? "" : EventJoin(q, holds) + " ON e.seq = " + rowid) + " WHERE " + column +
         " MATCH ?1 AND " + rowid + " BETWEEN ?2 AND ?3" + ScopeSql(scoped, rowid) +
         (stamped ? " AND " + ts + " IS NOT NULL" : "") + Where(q, holds, seq, ts) + " ORDER BY " +
         rowid + " DESC";
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

// What a search reads its candidates from.
struct Plan {
  std::vector<Term> terms;
  std::string where;      // the scope and filters, on `e`
  std::int64_t upto = 0;  // how far the indexes have got
  bool ranked = false;    // by relevance (else newest first)
  std::optional<Ranges> scope;
  bool messages_only = false;
  // The sources, newest first; none for terms no index can find (the
  // newest events in scope are scanned instead).
  std::optional<std::vector<Source>> sources;
  std::unique_ptr<TrigramRank> rank;  // what sources[1] of event_fts is scored by
  // Ranked: how many matches the indexes are estimated to hold, for the
  // choice of reading them all oldest first (EstimateMatches).
  double estimated = std::numeric_limits<double>::infinity();
};

// The plan of a search of q; `use_index`: read index.db's tables (else
// every candidate is read from the events); `rank`: by relevance when the
// terms can be (a count is not: its sources need no score).
Plan MakePlan(Db& db, const EventQuery& q, bool use_index, bool rank) {
  Plan p;
  p.terms = ParseTerms(q.query);
  if (p.terms.empty()) return p;  // nothing to read
  const std::vector<Term>& terms = p.terms;
  p.where = Where(q);
  const std::string& where = p.where;
  const bool has_long = !TrigramMatch(terms).empty();
  const bool indexed = use_index && HasIndex(db);
  // The events the indexes have not reached are read directly, the others
  // through an index of index.db.
  const std::int64_t upto = p.upto = indexed ? IndexedUpto(db) : 0;
  // By relevance: the newest kRankWindow matches are ranked; else the
  // newest `limit`.  Without an index that has reached anything (none
  // attached, damaged, or built again from the start), nothing can be
  // ranked: newest first.
  const bool ranked = p.ranked = rank && has_long && !q.recent && upto > 0;
  p.scope = ScopeRanges(db, q);
  const bool scoped = p.scope.has_value();
  // The estimates count the whole store's matches; a scope (a project, a
  // source) is expected to hold its share of them.
  const double share = ScopeShare(p.scope, upto);
  // How far the estimate counts: until past both choices it makes (read
  // every match oldest first; leave the checks), in the scope.
  const double estimate_upto = std::max(q.read_all_upto, q.leave_checks_upto) / share;
  p.messages_only = q.kind ? *q.kind == "message" : !q.include_tools && !q.tools_only;
  const std::string cjk = CjkMatch(terms);
  // What message_fts gives is stamped from memory when the stamps can
  // cover every event it has reached (not asked when no message is looked
  // for: the tool count beside a search).
  const bool reads_messages = has_long && !q.tools_only && (!q.kind || *q.kind == "message");
  const bool stamped = indexed && reads_messages && q.stamps != nullptr &&
                       NarrowJoin(q, Holds::kMessages) && q.stamps->Cover(db, upto);
  // Counted once: `stamped` implies an indexed search of messages, which
  // either plan below reads from message_fts.
  if (stamped && q.cost != nullptr) ++q.cost->stamped;
  const Source direct{"SELECT e.seq, e.ts, 0.0 FROM event e WHERE e.seq BETWEEN ?2 AND ?3" +
                          ScopeSql(scoped, "e.seq") + where + " ORDER BY e.seq DESC",
                      "", true, upto + 1};
  if (has_long && p.messages_only && indexed) {
    std::vector<std::string> phrases = TrigramPhrases(terms);
    Source src{
        FtsSql("idx", "message_fts", "m", ranked, q, Holds::kMessages, scoped, false, stamped),
        JoinAnd(phrases),
        !PhrasesExact(terms),
        0,
        upto,
        "",
        ranked};
    if (ranked) {
      const std::int64_t last = LastSeq(db);
      src.dfs = EstimateDfs(db, {"idx.message_fts"}, phrases, last, kProbeSeqs);
      // One phrase, counted up to `upto`: its frequency is the estimate.
      p.estimated = share * (phrases.size() == 1 && last == upto
                                 ? std::strtod(src.dfs.c_str(), nullptr)
                                 : EstimateMatches(db, {{"idx.message_fts", src.match}}, last, upto,
                                                   1, estimate_upto));
    }
    p.sources = {direct, src};
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
    // Read with its checks left (Reading, gather.cpp), its candidates are
    // scored by origin_bm25 from their lengths, with no text read: only
    // those an answer reaches are checked.  Not where the filters read the
    // event's row anyway (a project, a source, a kind): the text is then in
    // the row read, and the length would be looked up in FTS5's docsize
    // besides.
    if (ranked && NarrowJoin(q, Holds::kOthers))
      others.unchecked_sql = FtsSql("idx", "event_fts", "f", true, q, Holds::kOthers, scoped, true);
    sources.push_back(others);
    if (with_messages)
      sources.push_back(
          {FtsSql("idx", "message_fts", "m", ranked, q, Holds::kMessages, scoped, true, stamped),
           TrigramMatch(terms), !PhrasesExact(terms), 0, upto, "", ranked});
    const std::int64_t last = ranked ? LastSeq(db) : 0;
    if (ranked) {
      // The frequencies scale every score alike and do not change the
      // order: a smaller probe does.
      const std::vector<std::string> tables = {"idx.event_fts", "idx.message_fts"};
      const std::string dfs = EstimateDfs(db, tables, grams, last, kProbeSeqs / 4);
      const std::string totals = CollectionTotals(db, tables);
      p.rank = std::make_unique<TrigramRank>(TrigramRank::Parse(dfs.c_str(), totals.c_str()));
      sources[1].rank = p.rank.get();
      for (std::size_t i = 1; i < sources.size(); ++i) {
        sources[i].dfs = dfs;
        sources[i].totals = totals;
      }
    }
    // event_fts is asked for the rarest trigrams only (Rarest), by the
    // frequencies estimated for the score, else counted for this.
    std::vector<double> freq;
    if (ranked) {
      freq = p.rank->dfs;
    } else if (grams.size() > kMatchGrams) {
      for (const std::string& g : grams)
        freq.push_back(EstimateRows(db, "idx.event_fts", g, upto, kProbeSeqs / 4));
    }
    sources[1].match = JoinAnd(Rarest(grams, freq));
    // With the checks left, message_fts too is asked for the rarest
    // trigrams only: fewer doclists, and no phrase's positions compared
    // (its FTS5 part 6.2 to 1.6 ms for `schema migrate` on the 2M hub,
    // docs/performance.md), for candidates checked only as the answer
    // reaches them.
    if (ranked && with_messages && grams.size() > kMatchGrams)
      sources[2].unchecked_match = sources[1].match;
    if (ranked) {
      // Candidates of event_fts before their texts are checked: more than
      // its matches, which errs towards reading newest first; and of
      // message_fts, as read with the checks left.
      std::vector<std::pair<std::string, std::string>> reads = {
          {"idx.event_fts", sources[1].match}};
      if (with_messages)
        reads.push_back({"idx.message_fts", sources[2].unchecked_match.empty()
                                                ? sources[2].match
                                                : sources[2].unchecked_match});
      p.estimated = share * EstimateMatches(db, reads, last, upto, kEstimateWindows, estimate_upto);
    }
    p.sources = std::move(sources);
  } else if (!has_long && !cjk.empty() && indexed) {
    const bool exact = std::all_of(terms.begin(), terms.end(),
                                   [](const Term& t) { return t.kind == Term::Kind::kCjkShort; });
    const Source pairs{FtsSql("idx", "event_cjk", "c", false, q, Holds::kAny, scoped), cjk, !exact,
                       0, upto};
    p.sources = {direct, pairs};
  } else if (has_long || !cjk.empty()) {
    // No index to read (none attached, or being rebuilt): every event in
    // scope, newest first, until enough match.
    p.sources = {{direct.sql, "", true}};
  }
  return p;
}

// The newest `need` matches of a plan without sources (terms no index can
// find): the newest q.scan_limit (kScanLimit) events in scope, then their
// text, newest first, until `need` match.  Read first newest first, each
// row with its text, keeping the newest `need` matches: when Gather has
// them within scan_limit rows, they are that answer (every row newer than
// the oldest kept was read, so it is among the newest scan_limit), and a
// frequent term reads a few thousand rows where the scan reads scan_limit.
std::vector<Candidate> Scanned(Db& db, const Chains& chains, const EventQuery& q, const Plan& p,
                               std::size_t need) {
  NewestK near(need);
  Source rows{
      "SELECT e.seq, e.ts, 0.0, e.text, e.kind IN ('tool_call', 'tool_result') "
      "FROM event e WHERE e.seq BETWEEN ?2 AND ?3" +
          ScopeSql(p.scope.has_value(), "e.seq") + p.where + " ORDER BY e.seq DESC",
      "", true};
  rows.text_in_row = true;
  if (Gather(db, chains, {rows}, q, p.terms, p.scope, near, std::max(q.scan_limit, 0)))
    return near.Take();
  return NewestScanned(db, chains, q, p.terms, p.scope, p.messages_only, p.where, need);
}

// How many events match q, counted up to `upto` (see CountEvents).
std::int64_t CountMatches(Db& db, const EventQuery& q, bool use_index, std::int64_t upto) {
  if (upto <= 0) return 0;
  const Plan p = MakePlan(db, q, use_index, false);
  if (p.terms.empty()) return 0;
  if (p.sources) return Count(db, *p.sources, q, p.terms, p.scope, upto);
  // Terms no index can find: the matches among the newest events in scope,
  // as a search finds them.
  return static_cast<std::int64_t>(Scanned(db, Chains(db), q, p, upto).size());
}

// The search itself; `use_index`: read index.db's tables (else every
// candidate is read from the events).
std::vector<EventHit> Search(Db& db, const EventQuery& q, bool use_index, std::int64_t* matches) {
  std::vector<EventHit> out;
  if (matches != nullptr) *matches = 0;
  if (q.limit <= 0) return out;
  const Plan p = MakePlan(db, q, use_index, true);
  const std::vector<Term>& terms = p.terms;
  if (terms.empty()) return out;
  const bool ranked = p.ranked;
  const auto count = static_cast<std::size_t>(std::clamp(q.count_upto, 0, kRankWindow));
  // Ranked, the count comes with the window; newest first, only the newest
  // `limit` are needed, and the matches beyond them are counted apart, in
  // any order (Count), which costs less than gathering them newest first.
  const bool count_apart =
      matches != nullptr && p.sources && !ranked && count > static_cast<std::size_t>(q.limit);
  const std::size_t need =
      ranked ? std::max(static_cast<std::size_t>(kRankWindow), count)
             : std::max(static_cast<std::size_t>(q.limit), count_apart ? 0 : count);
  const Chains chains(db, q.join_chains_below);
  NewestK k(need);
  std::vector<Candidate> cands;
  if (p.sources) {
    // Few matches expected: all of them, oldest first, which FTS5 reads
    // at about half the cost of newest first (docs/performance.md); more
    // than the window after all, newest first from the start.
    // Without a count, the texts are checked only of the candidates the
    // answer reaches (Candidate::unchecked), where it is exact.
    const bool leave_checks = matches == nullptr;
    const bool read_all = ranked && p.estimated <= q.read_all_upto;
    if (read_all && GatherAll(db, *p.sources, q, terms, p.scope, k, need, leave_checks)) {
      if (q.cost != nullptr) ++q.cost->read_all;
      cands = k.Take();
    } else {
      // Fewer candidates than the window expected (and GatherAll did not
      // find more): their checks left, as GatherAll leaves them, which is
      // exact when the window kept every candidate (it then holds every
      // match); when it filled up instead, read again with the checks.
      const bool leave = leave_checks && ranked && !read_all &&
                         p.estimated <= static_cast<double>(q.leave_checks_upto);
      k = NewestK(need);
      Gather(db, chains, *p.sources, q, terms, p.scope, k, -1, leave);
      const bool full = k.Full();
      cands = k.Take();
      if (full &&
          std::any_of(cands.begin(), cands.end(), [](const Candidate& c) { return c.unchecked; })) {
        if (q.cost != nullptr) ++q.cost->reread;
        k = NewestK(need);
        Gather(db, chains, *p.sources, q, terms, p.scope, k);
        cands = k.Take();
      }
    }
  } else {
    cands = Scanned(db, chains, q, p, need);
  }
  if (matches != nullptr)
    *matches = std::max(
        static_cast<std::int64_t>(cands.size()),
        count_apart ? Count(db, *p.sources, q, terms, p.scope, static_cast<std::int64_t>(count))
                    : 0);
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
  // The checks left, in the answer's order, until it has its page.
  for (const Candidate& c : cands) {
    if (out.size() == static_cast<std::size_t>(q.limit)) break;
    EventHit h;
    h.event = *GetEventBySeq(db, c.seq);
    if (c.unchecked && !LeftCheckHolds(h.event, q, terms)) continue;
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
  ReadSnapshot snapshot(db);
  return fn();
}

// Runs `fn(use_index)` in one snapshot; on damage to index.db, again from
// the events alone (damage in origin.db is thrown), and tells the indexer
// only once they did.
template <class Fn>
auto WithIndexOrEvents(Db& db, const EventQuery& q, Fn fn) {
  try {
    return InOneSnapshot(db, [&] { return fn(true); });
  } catch (const SqliteError& e) {
    if (!IsCorruption(e) || !HasIndex(db)) throw;
    auto out = InOneSnapshot(db, [&] { return fn(false); });
    if (q.index_failed) q.index_failed(e.what());
    return out;
  }
}

}  // namespace

std::vector<EventHit> SearchEvents(Db& db, const EventQuery& q, std::int64_t* matches) {
  return WithIndexOrEvents(db, q,
                           [&](bool use_index) { return Search(db, q, use_index, matches); });
}

std::int64_t CountEvents(Db& db, const EventQuery& q, std::int64_t upto) {
  return WithIndexOrEvents(db, q,
                           [&](bool use_index) { return CountMatches(db, q, use_index, upto); });
}

}  // namespace origin
