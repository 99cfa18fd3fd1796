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
                 t.text.find("\xE2\x84\xAA") == std::string::npos &&  // Kelvin sign
                 t.text.find("\xC5\xBF") == std::string::npos;        // long s
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
  // decoding the text: in a copy of the text with ASCII lowered, made once
  // and searched with find (memchr, then memcmp), several times faster than
  // comparing every byte through a folding predicate (a search of tool
  // events checks megabytes of text).  Other terms compare folded code
  // points.
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  thread_local std::string lowered;
  bool lowered_made = false;
  std::u32string folded;
  bool decoded = false;
  for (const Term& t : terms) {
    if (t.bytewise) {
      if (!lowered_made) {
        lowered.resize(text.size());
        std::transform(text.begin(), text.end(), lowered.begin(), lower);
        lowered_made = true;
      }
      std::string needle = t.text;
      std::transform(needle.begin(), needle.end(), needle.begin(), lower);
      if (std::string_view(lowered).find(needle) != std::string_view::npos) continue;
      // Not in the bytes: found only if a Kelvin sign or a long s stands for
      // a k or an s, which only decoding sees.
      if (text.find("\xE2\x84\xAA") == std::string_view::npos &&
          text.find("\xC5\xBF") == std::string_view::npos)
        return false;
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

std::string Snippet(std::string_view text, const std::vector<Term>& terms, std::size_t max_chars,
                    SnippetMarks* marks) {
  if (marks != nullptr) marks->clear();
  Decoded d = Decode(text);
  const std::size_t n = d.folded.size();
  // Every match, as [begin, end) in code points, merged where they overlap.
  std::vector<std::pair<std::size_t, std::size_t>> hits;
  for (const Term& t : terms) {
    if (t.folded.empty()) continue;
    for (std::size_t p = d.folded.find(t.folded); p != std::u32string::npos;
         p = d.folded.find(t.folded, p + 1))
      hits.push_back({p, p + t.folded.size()});
  }
  std::sort(hits.begin(), hits.end());
  std::vector<std::pair<std::size_t, std::size_t>> merged;
  for (auto h : hits) {
    if (!merged.empty() && h.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, h.second);
    else
      merged.push_back(h);
  }
  // A window of max_chars around the first match, starting a little before it.
  std::size_t first = merged.empty() ? 0 : merged.front().first;
  std::size_t begin = first > max_chars / 4 ? first - max_chars / 4 : 0;
  std::size_t end = std::min(n, begin + max_chars);
  if (end - begin < max_chars && begin > 0) begin = end > max_chars ? end - max_chars : 0;
  std::string out;
  if (begin > 0) out += "…";
  std::size_t pos = begin;
  auto emit = [&](std::size_t from, std::size_t to) {
    std::string_view piece = text.substr(d.offset[from], d.offset[to] - d.offset[from]);
    for (char c : piece) out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
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
  if (end < n) out += "…";
  return out;
}

}  // namespace origin
