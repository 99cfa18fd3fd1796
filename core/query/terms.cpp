// SPDX-License-Identifier: MIT
#include "core/query/terms.hpp"

#include <algorithm>

#include "core/util/text.hpp"

namespace origin {

namespace {

char32_t Fold(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x391 && c <= 0x3A9) ||
      (c >= 0x410 && c <= 0x42F))
    return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  // The two letters outside ASCII that FTS5 folds into it: the Kelvin sign
  // and the long s.  With them, an ASCII term's phrase in a trigram index
  // matches exactly what this folding matches.
  if (c == 0x212A) return 'k';
  if (c == 0x17F) return 's';
  return c;
}

bool IsSpace(char32_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == 0xA0 ||
         c == 0x3000;
}

// Whether `s` holds a Kelvin sign or a long s: the two letters outside
// ASCII that fold into it (Fold), which only decoding sees.
bool FoldsIntoAscii(std::string_view s) {
  return s.find("\xE2\x84\xAA") != std::string_view::npos ||
         s.find("\xC5\xBF") != std::string_view::npos;
}

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

// `text` with ASCII lowered, in a buffer of the thread's that the next call
// on the thread overwrites: a bytewise term is found in it with find
// (memchr, then memcmp), several times faster than comparing every byte
// through a folding predicate (a search of tool events checks megabytes).
std::string_view LoweredAscii(std::string_view text) {
  thread_local std::string lowered;
  lowered.resize(text.size());
  std::transform(text.begin(), text.end(), lowered.begin(), LowerAscii);
  return lowered;
}

// A bytewise term as LoweredAscii's bytes hold it.
std::string Needle(const Term& t) {
  std::string n = t.text;
  std::transform(n.begin(), n.end(), n.begin(), LowerAscii);
  return n;
}

// Code points of `text` with the byte offset where each starts.
struct Decoded {
  std::u32string folded;
  std::vector<std::size_t> offset;  // one per code point, plus the end
};

Decoded Decode(std::string_view text) {
  Decoded d;
  std::size_t i = 0;
  while (i < text.size()) {
    d.offset.push_back(i);
    d.folded.push_back(Fold(DecodeUtf8(text, i)));
  }
  d.offset.push_back(text.size());
  return d;
}

}  // namespace

std::u32string FoldCase(std::string_view text) { return Decode(text).folded; }

std::vector<Term> ParseTerms(std::string_view query) {
  std::vector<Term> out;
  std::size_t i = 0;
  while (i < query.size()) {
    std::size_t start = i;
    char32_t c = DecodeUtf8(query, i);
    if (IsSpace(c)) continue;
    std::size_t end = i;
    while (end < query.size()) {
      std::size_t j = end;
      if (IsSpace(DecodeUtf8(query, j))) break;
      end = j;
    }
    Term t;
    t.text = SanitizeUtf8(query.substr(start, end - start));
    t.folded = FoldCase(t.text);
    t.chars = t.folded.size();
    bool all_cjk = std::all_of(t.folded.begin(), t.folded.end(), IsCjkLetter);
    // Fold maps only ASCII A-Z within ASCII, and Latin-1, Greek and Cyrillic
    // letters within their blocks: a term with none of the latter is found in
    // the bytes (CJK, symbols, ASCII with its case folded).
    t.bytewise = std::none_of(t.folded.begin(), t.folded.end(),
                              [](char32_t f) {
                                return (f >= 0xC0 && f <= 0xFF) || (f >= 0x370 && f <= 0x4FF);
                              }) &&
                 !FoldsIntoAscii(t.text);
    t.kind = t.chars >= 3 ? Term::Kind::kTrigram
             : all_cjk    ? Term::Kind::kCjkShort
                          : Term::Kind::kShort;
    i = end;
    bool dup =
        std::any_of(out.begin(), out.end(), [&](const Term& o) { return o.folded == t.folded; });
    if (!dup) out.push_back(std::move(t));
  }
  return out;
}

bool MatchesAll(std::string_view text, const std::vector<Term>& terms) {
  // A bytewise term is found in the bytes with ASCII case folded, without
  // decoding the text (LoweredAscii, made once); other terms compare folded
  // code points.
  std::string_view lowered;
  bool lowered_made = false;
  std::u32string folded;
  bool decoded = false;
  for (const Term& t : terms) {
    if (t.bytewise) {
      if (!lowered_made) {
        lowered = LoweredAscii(text);
        lowered_made = true;
      }
      if (lowered.find(Needle(t)) != std::string_view::npos) continue;
      // Not in the bytes: found only if a Kelvin sign or a long s stands for
      // a k or an s, which only decoding sees.
      if (!FoldsIntoAscii(text)) return false;
    }
    if (!decoded) {
      folded = FoldCase(text);
      decoded = true;
    }
    if (folded.find(t.folded) == std::u32string::npos) return false;
  }
  return true;
}

std::vector<std::string> TrigramPhrases(const std::vector<Term>& terms) {
  std::vector<std::string> out;
  for (const Term& t : terms) {
    if (t.kind != Term::Kind::kTrigram) continue;
    std::string p = "\"";
    for (char c : t.text) {
      if (c == '"') p += '"';  // FTS5 escapes a quote by doubling it
      p += c;
    }
    out.push_back(p + "\"");
  }
  return out;
}

std::string TrigramMatch(const std::vector<Term>& terms) {
  std::string out;
  for (const std::string& p : TrigramPhrases(terms)) out += (out.empty() ? "" : " AND ") + p;
  return out;
}

namespace {

using Ranges = std::vector<std::pair<std::size_t, std::size_t>>;

// `hits` sorted and merged where they overlap or touch.
Ranges Merged(Ranges hits) {
  std::sort(hits.begin(), hits.end());
  Ranges merged;
  for (auto h : hits) {
    if (!merged.empty() && h.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, h.second);
    else
      merged.push_back(h);
  }
  return merged;
}

// The bytes [begin, end) of `text` on one line, `merged` (byte ranges of
// matches, ascending) in brackets where they fall in it, "…" where text
// was cut.
std::string Cut(std::string_view text, std::size_t begin, std::size_t end, const Ranges& merged,
                SnippetMarks* marks) {
  std::string out;
  if (begin > 0) out += "…";
  std::size_t pos = begin;
  auto emit = [&](std::size_t from, std::size_t to) {
    for (char c : text.substr(from, to - from))
      out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  };
  for (auto [b, e] : merged) {
    if (e <= begin || b >= end) continue;
    b = std::max(b, begin);
    e = std::min(e, end);
    emit(pos, b);
    out += '[';
    const std::size_t mark = out.size();
    emit(b, e);
    if (marks != nullptr) marks->push_back({mark, out.size()});
    out += ']';
    pos = e;
  }
  emit(pos, end);
  if (end < text.size()) out += "…";
  return out;
}

// Byte `pos` of valid UTF-8 `s` moved back over `chars` code points (to 0
// at most), or forward (to the end at most), counting those passed in
// `*moved`.
std::size_t Back(std::string_view s, std::size_t pos, std::size_t chars) {
  for (; chars > 0 && pos > 0; --chars) do
      --pos;
    while (pos > 0 && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80);
  return pos;
}
std::size_t Forward(std::string_view s, std::size_t pos, std::size_t chars, std::size_t* moved) {
  *moved = 0;
  for (; *moved < chars && pos < s.size(); ++*moved) do
      ++pos;
    while (pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80);
  return pos;
}

// Snippet's window: `max_chars` code points from a quarter of them before
// the first match (0 without one), moved back when the text ends first;
// in the units of `back` and `forward` (code points, or bytes of valid
// UTF-8).
template <class BackFn, class ForwardFn>
std::pair<std::size_t, std::size_t> Window(std::size_t first, std::size_t max_chars, BackFn back,
                                           ForwardFn forward) {
  std::size_t begin = back(first, max_chars / 4);
  std::size_t moved = 0;
  const std::size_t end = forward(begin, max_chars, &moved);
  if (moved < max_chars && begin > 0) begin = back(end, max_chars);
  return {begin, end};
}

// Snippet of a valid UTF-8 text whose terms are all bytewise (and which
// holds no Kelvin sign nor long s): the matches found in the bytes with
// ASCII case folded, as MatchesAll finds them, and only the window's code
// points walked, where decoding would fold the whole text (a search's tool
// results run to megabytes).
std::string BytewiseSnippet(std::string_view text, const std::vector<Term>& terms,
                            std::size_t max_chars, SnippetMarks* marks) {
  std::vector<std::string> needles;
  for (const Term& t : terms)
    if (!t.folded.empty()) needles.push_back(Needle(t));
  std::string_view low;
  std::size_t first = std::string_view::npos;
  if (!needles.empty()) {
    low = LoweredAscii(text);
    for (const std::string& n : needles) first = std::min(first, low.find(n));
  }
  if (first == std::string_view::npos) first = 0;
  const auto [begin, end] = Window(
      first, max_chars, [&](std::size_t pos, std::size_t chars) { return Back(text, pos, chars); },
      [&](std::size_t pos, std::size_t chars, std::size_t* moved) {
        return Forward(text, pos, chars, moved);
      });
  // The matches in the window (none starts before the first).
  Ranges hits;
  for (const std::string& n : needles)
    for (std::size_t p = low.find(n, first); p != std::string_view::npos && p < end;
         p = low.find(n, p + 1))
      hits.push_back({p, p + n.size()});
  return Cut(text, begin, end, Merged(std::move(hits)), marks);
}

}  // namespace

std::string Snippet(std::string_view text, const std::vector<Term>& terms, std::size_t max_chars,
                    SnippetMarks* marks) {
  if (marks != nullptr) marks->clear();
  const bool bytewise =
      std::all_of(terms.begin(), terms.end(), [](const Term& t) { return t.bytewise; }) &&
      (terms.empty() || !FoldsIntoAscii(text)) && ValidUtf8(text);
  if (bytewise) return BytewiseSnippet(text, terms, max_chars, marks);
  return SnippetDecoded(text, terms, max_chars, marks);
}

std::string SnippetDecoded(std::string_view text, const std::vector<Term>& terms,
                           std::size_t max_chars, SnippetMarks* marks) {
  if (marks != nullptr) marks->clear();
  Decoded d = Decode(text);
  const std::size_t n = d.folded.size();
  // Every match, as [begin, end) in code points, merged where they overlap.
  Ranges hits;
  for (const Term& t : terms) {
    if (t.folded.empty()) continue;
    for (std::size_t p = d.folded.find(t.folded); p != std::u32string::npos;
         p = d.folded.find(t.folded, p + 1))
      hits.push_back({p, p + t.folded.size()});
  }
  Ranges merged = Merged(std::move(hits));
  const auto [begin, end] = Window(
      merged.empty() ? 0 : merged.front().first, max_chars,
      [](std::size_t pos, std::size_t chars) { return pos > chars ? pos - chars : 0; },
      [&](std::size_t pos, std::size_t chars, std::size_t* moved) {
        const std::size_t to = std::min(n, pos + chars);
        *moved = to - pos;
        return to;
      });
  // In bytes from here.
  for (auto& [b, e] : merged) b = d.offset[b], e = d.offset[e];
  return Cut(text, d.offset[begin], d.offset[end], merged, marks);
}

}  // namespace origin
