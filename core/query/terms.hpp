// SPDX-License-Identifier: MIT
#pragma once
// Search terms (spec: Search and timeline, Terms): a query is split on
// whitespace, and every term must occur in the text, ignoring case, as a
// substring.  How a term can be found depends on its length in characters:
// three or more through a trigram index, one or two CJK letters through the
// CJK bigram index, other short terms only by reading the text.  This module
// parses terms, matches them against a text, builds the FTS5 queries that
// find candidates, and cuts snippets; the searches themselves use it.
//
// Case: FTS5's trigram tokenizer folds case over all of Unicode; the text
// checks here fold ASCII, Latin-1, Greek and Cyrillic, and the Kelvin sign
// and long s into k and s (FoldCase), which covers the short terms that only
// a text check can find (AI, C#, 5号) and makes an ASCII term's trigram
// phrase exact: FTS5 folds no other letter into ASCII.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace origin {

struct Term {
  enum class Kind { kTrigram, kCjkShort, kShort };
  std::string text;       // as typed
  std::u32string folded;  // case folded, for text checks
  std::size_t chars = 0;
  Kind kind = Kind::kShort;
  bool bytewise = false;  // matched byte by byte, ASCII case folded (no letter folding touches it)
};

/// The terms of a query, in order, duplicates dropped.
std::vector<Term> ParseTerms(std::string_view query);
/// Whether every term occurs in `text`.
bool MatchesAll(std::string_view text, const std::vector<Term>& terms);
/// Case folding used by the text checks.
std::u32string FoldCase(std::string_view text);
/// The FTS5 phrase of each term of three or more characters (its trigrams in
/// order: a substring), in the order of the terms.
std::vector<std::string> TrigramPhrases(const std::vector<Term>& terms);
/// The AND of TrigramPhrases; empty when there is none.
std::string TrigramMatch(const std::vector<Term>& terms);
/// Where a snippet's matches are: [begin, end) in bytes of the snippet, the
/// brackets around each left out (so that a bracket of the text itself is
/// never taken for one).
using SnippetMarks = std::vector<std::pair<std::size_t, std::size_t>>;
/// At most `max_chars` characters of `text` around the first match, with
/// every match in brackets; "…" marks a cut.  `marks`, when given, gets
/// where the matches are.
std::string Snippet(std::string_view text, const std::vector<Term>& terms,
                    std::size_t max_chars = 200, SnippetMarks* marks = nullptr);
/// Snippet by decoding and folding every code point of the text, as it
/// cuts the texts its bytes cannot answer (invalid UTF-8, terms with
/// letters that fold outside ASCII); the others' reference in the tests.
std::string SnippetDecoded(std::string_view text, const std::vector<Term>& terms,
                           std::size_t max_chars = 200, SnippetMarks* marks = nullptr);

}  // namespace origin
