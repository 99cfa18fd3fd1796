// SPDX-License-Identifier: MIT
#pragma once
// origin_bm25(<fts5 table>, 'df1 df2 ... dfN'): BM25 as FTS5's bm25() computes it
// (k1 = 1.2, b = 0.75, lower is better), but with the document frequency of
// each phrase of the MATCH given by the caller instead of counted.  FTS5's
// bm25() counts, once per statement, every row that holds each phrase: a
// scan of the whole doclist, which on two million events takes hundreds of
// milliseconds for a common word (docs/performance.md).  Search estimates
// the frequencies from the newest arrivals instead (core/query/search.cpp).
// A missing or out-of-range df counts as a phrase in half the rows.  On
// detail=none tables, whose rows record no positions, each phrase counts
// once per row that matches.
//
// origin_bm25(<fts5 table>, 'df1 ... dfN', 'rows tokens'): the score a
// detail=none table of trigrams gives, on any table of trigrams: N terms
// (one per df given, whatever the MATCH), each counted once, over a
// collection of `rows` rows holding `tokens` tokens in all, with the row's
// own length.  Search ranks events from two tables this way (message_fts and
// event_fts, which together hold every event once) as if they were one.
//
// Either form takes, after those, the row's length in characters (NULL for
// the collection when there is none): a table of trigrams holds one token a
// character but the last two, so that the row's length in tokens need not
// be read from FTS5's docsize (a lookup a candidate; search reads the
// length with the timestamp, from event_seq_ts: kEventLengthVersion).

//
// origin_gate(?, ts, seq) asks a RankGate, bound as a pointer of type
// "origin_gate", whether a candidate could still be kept; search computes
// origin_bm25 only for those (CASE WHEN origin_gate(...) THEN ... END), as
// the candidates it reads beyond the ones it keeps need no score.

#include <cstdint>
#include <vector>

#include "core/c/sqlite.hpp"

namespace origin {

struct RankGate {
  bool (*wanted)(const void* ctx, std::int64_t ts, std::int64_t seq) = nullptr;
  const void* ctx = nullptr;
};
inline constexpr const char* kRankGateType = "origin_gate";

/// origin_scope(?, seq) says whether the block of `seq` (seq >> kScopeBlockBits) is one of
/// `blocks` (a scope's blocks: search's project and source filters), and
/// counts each call in `seen`; bound as a pointer of type "origin_scope".
/// Unbound, it holds every seq.
struct ScopeFilter {
  const std::vector<bool>* blocks = nullptr;
  std::int64_t seen = 0;
};
inline constexpr const char* kScopeFilterType = "origin_scope";

/// The tokens FTS5's trigram tokenizer makes of a text of `chars`
/// characters: one a character but the last two.
inline std::int64_t TrigramsOfChars(std::int64_t chars) { return chars >= 3 ? chars - 2 : 0; }

/// The score origin_bm25(table, dfs, 'rows tokens') gives, for a row of
/// `len` tokens; search computes it itself for the texts it reads anyway
/// (a trigram tokenizer makes n - 2 tokens of n characters), so that
/// origin_bm25 reads no row's length from FTS5 for a candidate the text
/// check then drops.
struct TrigramRank {
  double rows = 0, tokens = 0;  // the collection
  std::vector<double> dfs;      // one per term
  std::vector<double> idf;      // of each term, from its df: computed once by Parse
  /// Parses 'df1 df2 ...' and 'rows tokens'; a df out of [0, rows] counts
  /// as rows / 2.
  static TrigramRank Parse(const char* dfs, const char* totals);
  /// Lower is better; 0 without rows or terms.
  double Score(double len) const;
};

/// Registers origin_bm25 with the connection's FTS5, origin_gate and origin_scope.
void RegisterFtsRank(Db& db);

}  // namespace origin
