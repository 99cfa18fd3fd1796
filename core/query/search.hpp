// SPDX-License-Identifier: MIT
#pragma once
// Event search (spec: Search and timeline).  Every term of the query must
// occur in an event's text, ignoring case, as a substring.  Candidates come
// from an index of index.db chosen by the terms, for the events it has
// reached (seq <= upto), plus the newer events, read directly:
//   - a term of three or more characters: message_fts (messages; each such
//     term a phrase, ranked by BM25) and, with tool events, event_fts for
//     the others (the AND of every trigram of every term); with tool events
//     both are ranked by BM25 over trigrams, as one table;
//   - else one or two CJK letters: event_cjk (a letter and a pair are each a
//     token);
//   - else only other short terms (AI, C#): the text of at most the newest
//     25,000 events in scope (kScanLimit).
// Without an index (none attached, or one found damaged, see SearchEvents)
// every event in scope is read, newest first, until enough match.
// A candidate's text is then checked against every term, so results are
// exact whatever the index; only where the index is exact by itself is the
// check left out (ASCII phrases in message_fts, whose case FTS5 folds as
// FoldCase does; CJK letters in event_cjk).  Order: with a term of three or
// more characters, not `recent`, and an index that has reached something,
// BM25 over the newest 2,000 matches (kRankWindow), ties newest first, after
// the matches the index has not reached yet (newest first); otherwise newest
// first by timestamp, later arrival first.  One read transaction: how far
// the index has got and what it holds are read at the same moment.
//
// Candidates are read newest arrival first in chains of blocks (event_block:
// a block more than a day older than its chain so far starts a new chain),
// always from the chain whose unread part may hold the newest candidate, and
// reading stops once no chain can hold one newer than those kept.
// Read-only; the connection should have index.db attached as `idx`
// (AttachIndex).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/c/sqlite.hpp"
#include "core/query/events.hpp"
#include "core/query/terms.hpp"

namespace origin {

class MessageStamps;  // core/store/message_stamps.hpp

inline constexpr int kScanLimit = 25000;
inline constexpr int kRankWindow = 2000;
/// A search with totals (the CLI's, the web UI's) counts each section's
/// matches up to kTotalsUpto, and the tool calls and results that --all
/// would add up to kToolMatchesUpto: a hint that they exist ("100+ more"),
/// not a total.  Each candidate of `event_fts` is checked by reading its
/// text, so that count's cost grows with it: at 1,000 it read about 1,000
/// texts (2 MB) for a rare word and took longer than the search it runs
/// beside (docs/performance.md, issue 15).
inline constexpr int kTotalsUpto = 1000;
inline constexpr int kToolMatchesUpto = 100;

/// What a search read, for benchmarks and tests (filled when asked).
struct SearchCost {
  std::int64_t rows = 0;        // candidates read from an index or the events
  std::int64_t texts = 0;       // candidates whose text was read and checked
  std::int64_t text_bytes = 0;  // the bytes of those texts
  std::int64_t matches = 0;     // checked texts that held every term
  // Ranked searches answered by reading every match oldest first
  // (EventQuery::read_all_upto); one that found more than the window read
  // newest first after all, and its rows count both reads.
  std::int64_t read_all = 0;
  // Searches (and counts) whose index candidates were stamped from
  // EventQuery::stamps.
  std::int64_t stamped = 0;
  // Ranked searches whose window filled up with candidates left unchecked
  // (EventQuery::leave_checks_upto), read again with their checks.
  std::int64_t reread = 0;
};

struct EventQuery {
  std::string query;
  bool include_tools = false;  // every event, not only messages
  std::optional<std::string> kind;  // only events of this kind (overrides include_tools)
  bool tools_only = false;  // only the events that are not messages (what --all adds)
  bool recent = false;         // newest first instead of by relevance
  std::optional<std::string> source, project;
  std::optional<std::int64_t> from_ms, to_ms;
  int limit = 20;
  /// When > 0, SearchEvents says how many events match, counted up to this
  /// many (at most kRankWindow): ranked, from the window it gathers anyway;
  /// newest first, counted apart from the hits, as CountEvents counts.
  int count_upto = 0;
  /// Called (on the searching thread) when an index of index.db turned out
  /// to be damaged: the search then answers from the events alone, and
  /// calls this only once they did (damage in origin.db is thrown).
  std::function<void(const std::string& what)> index_failed;
  /// When given, gets what the search read (added to what it holds).
  SearchCost* cost = nullptr;
  /// For terms no index can find: how many of the newest events in scope
  /// are looked in (kScanLimit; tests look in fewer).
  int scan_limit = kScanLimit;
  /// Ranked: when the matches the indexes are estimated to hold (counted in
  /// a share of the arrivals, scaled to the store: EstimateMatches in
  /// search.cpp) are at most this many, every match is read oldest first
  /// (cheaper for FTS5) instead of the newest first, as long as there are
  /// no more than kRankWindow; beyond, the search reads newest first after
  /// all.  The answer is the same either way (tests compare -1, never, with
  /// INT_MAX, always).
  int read_all_upto = kRankWindow / 2;
  /// Ranked, without a count: when the candidates are estimated at most
  /// this many (and the search does not read every match oldest first), the
  /// texts of those an index cannot match exactly are checked only as the
  /// answer reaches them, in its order, and the window is exact as long as
  /// it keeps every candidate; when it fills up after all, the search reads
  /// again with the checks.  The answer is the same either way (tests
  /// compare -1, never, with INT_MAX, always).
  int leave_checks_upto = kRankWindow;
  /// The chains of blocks (core/query/gather.hpp) of fewer blocks than
  /// this are read by an index's statements as part of the chain before
  /// them (0: never).  The answer is the same (tests compare).
  int join_chains_below = 4;
  /// When given, the timestamps and lengths of the messages a search
  /// reads from message_fts come from these (extended as needed) instead
  /// of a seek in event_seq_ts each, where no filter needs more of the
  /// event's row.  The answer is the same (tests compare).
  MessageStamps* stamps = nullptr;
};

struct EventHit {
  EventRow event;
  std::string snippet;
  SnippetMarks marks;  // where the snippet's matches are
  std::optional<double> score;  // BM25 (lower is better), when ranked
};

/// The best `q.limit` matches.  `matches`, when given, gets how many events
/// match, counted up to at least q.count_upto (a count that reaches it may
/// be short of the whole).
std::vector<EventHit> SearchEvents(Db& db, const EventQuery& q, std::int64_t* matches = nullptr);

/// How many events match q, counted up to `upto`: exact below it, and at
/// least `upto` when it is reached.  q's limit, order and count_upto do not
/// matter: a count reads in whatever order costs least (without an index
/// for its terms, the events a search looks in: the newest q.scan_limit in
/// scope).
std::int64_t CountEvents(Db& db, const EventQuery& q, std::int64_t upto);

}  // namespace origin
