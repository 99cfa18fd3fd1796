// SPDX-License-Identifier: MIT
// The statistics of a corpus of agent logs that decide what indexing it
// costs (issue 15), measured the way the store sees the text: every line is
// parsed by the real adapters (Claude Code, Codex), and each event's text is
// what the search indexes get.  For each agent and for both together:
//   - files, bytes, lines, and the line lengths (percentiles, bytes);
//   - events by kind, and the indexable share: event text bytes / log bytes;
//   - message lengths (characters, user and assistant), tool calls' and tool
//     results' lengths;
//   - trigrams as the trigram tokenizer sees them (every three consecutive
//     characters, case-folded): distinct trigrams in the first 1, 2, 4 and
//     8 MiB of text, events taken in a fixed shuffled order (the count grows
//     slower than the text, so corpora are compared at equal volumes), and
//     postings per KiB of text (the distinct trigrams of each event, summed:
//     the rows a detail=none index writes);
//   - the mix of tool results: code, JSON, shell output, file listings,
//     prose (heuristics in Classify below);
//   - the CJK share: CJK letters among all characters, and events with any.
// A program, not a test: nothing here is timed.
//
//   corpus_stats [--claude DIR] [--codex DIR]        logs laid out as the agents do
//   corpus_stats --generate MIB [--corpus synthetic|real-shaped|small] [--seed S]
//                                                     tests/support/loggen's output
//
// Figures and how they were used: docs/performance.md (issue 15).

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/codex/codex.hpp"
#include "core/util/text.hpp"
#include "tests/bench/bench_util.hpp"
#include "tests/support/loggen.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;
using origin::bench::Options;

namespace {

struct Event {
  std::string kind;  // message | tool_call | tool_result | meta
  std::string role;
  std::string text;
};

struct Corpus {
  std::int64_t files = 0, bytes = 0, lines = 0, parse_errors = 0;
  std::vector<std::int64_t> line_bytes;
  std::map<std::string, std::int64_t> bytes_by_type;  // top-level line type
  std::vector<Event> events;
  void Add(Corpus&& o) {
    files += o.files, bytes += o.bytes, lines += o.lines, parse_errors += o.parse_errors;
    line_bytes.insert(line_bytes.end(), o.line_bytes.begin(), o.line_bytes.end());
    for (auto& [k, v] : o.bytes_by_type) bytes_by_type[k] += v;
    for (auto& e : o.events) events.push_back(std::move(e));
  }
};

// Case folding as FTS5's trigram tokenizer does by default (case_sensitive 0:
// Unicode simple case folding); the scripts that matter here are covered.
char32_t Fold(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0xC0) return c;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x391 && c <= 0x3AB && c != 0x3A2) ||
      (c >= 0x410 && c <= 0x42F))
    return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  if (c >= 0x100 && c <= 0x17F && c % 2 == 0) return c + 1;
  return c;
}

std::vector<char32_t> FoldedChars(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) out.push_back(Fold(DecodeUtf8(s, i)));
  return out;
}

std::uint64_t Trigram(const std::vector<char32_t>& c, std::size_t i) {
  return (static_cast<std::uint64_t>(c[i]) << 42) | (static_cast<std::uint64_t>(c[i + 1]) << 21) |
         c[i + 2];
}

// The kind of a tool result's text, by its lines:
//   json     starts with { or [ and holds "key": pairs (a result may be cut);
//   code     a file's content (Claude Code's Read numbers lines "   12→"), or
//            at least 30% of the lines look like code (end in ; { } ) or
//            start with a keyword of a common language);
//   listing  at least 60% of the non-empty lines are one path-like word or
//            an `ls -l` line;
//   prose    at most 3% of the characters are code punctuation and lines
//            average more than 60 characters or the text is one line of
//            words;
//   shell    anything else (command output, test runs, diffs, errors).
std::string Classify(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\n' || t.front() == '\t'))
    t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\t'))
    t.remove_suffix(1);
  if (t.empty()) return "empty";
  if ((t.front() == '{' || t.front() == '[') && t.find("\":") != std::string_view::npos)
    return "json";
  std::vector<std::string_view> lines;
  for (std::size_t p = 0; p <= t.size();) {
    std::size_t n = t.find('\n', p);
    if (n == std::string_view::npos) n = t.size();
    lines.push_back(t.substr(p, n - p));
    p = n + 1;
  }
  int nonempty = 0, numbered = 0, pathlike = 0, codeish = 0;
  static const char* const kKeywords[] = {
      "def ",    "class ",  "return ", "import ", "from ",   "#include", "function ", "const ",
      "let ",    "var ",    "fn ",     "pub ",    "if (",    "for (",    "while (",   "} else",
      "public ", "private ", "struct ", "static ", "async ", "export ",  "package ",  "use "};
  for (auto l : lines) {
    std::string_view s = l;
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    if (s.empty()) continue;
    ++nonempty;
    std::size_t d = 0;
    while (d < s.size() && s[d] >= '0' && s[d] <= '9') ++d;
    if (d > 0 && d < s.size() &&
        (s[d] == '\t' || s.substr(d, 3) == "\xe2\x86\x92" || s.substr(d, 6) == "\\u2192")) {
      ++numbered;
      continue;
    }
    bool space = s.find(' ') != std::string_view::npos;
    if ((!space && (s.find('/') != std::string_view::npos || s.find('.') != std::string_view::npos)) ||
        (s.size() > 10 && (s[0] == 'd' || s[0] == '-') && s.substr(1, 2) == "rw"))
      ++pathlike;
    char last = s.back();
    bool kw = false;
    for (const char* k : kKeywords)
      if (s.rfind(k, 0) == 0) kw = true;
    if (kw || last == ';' || last == '{' || last == '}' || last == ')' ||
        (last == ':' && s.find(' ') != std::string_view::npos && s.size() < 80 && l.size() > s.size()))
      ++codeish;
  }
  if (nonempty == 0) return "empty";
  if (numbered * 2 >= nonempty) return "code";
  if (nonempty >= 2 && pathlike * 10 >= nonempty * 6) return "listing";
  if (codeish * 10 >= nonempty * 3) return "code";
  std::size_t punct = 0;
  for (char c : t)
    if (c == '{' || c == '}' || c == ';' || c == '=' || c == '<' || c == '>' || c == '|' ||
        c == '$' || c == '[' || c == ']' || c == '_')
      ++punct;
  if (punct * 100 <= t.size() * 3 &&
      (t.size() / static_cast<std::size_t>(nonempty) > 60 || nonempty == 1))
    return "prose";
  return "shell";
}

Corpus Read(SourceAdapter& adapter) {
  Corpus c;
  Discovery d = adapter.Discover();
  std::sort(d.files.begin(), d.files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.key < b.key; });
  for (const SourceFile& f : d.files) {
    if (f.generated || f.zstd) continue;
    std::string data = ReadAll(f.abs_path);
    ++c.files;
    c.bytes += static_cast<std::int64_t>(data.size());
    std::unique_ptr<FileState> state = adapter.LoadState(f.key, "");
    std::int64_t line_no = 0;
    for (std::size_t p = 0; p < data.size();) {
      std::size_t n = data.find('\n', p);
      if (n == std::string::npos) break;  // a torn last line is not read
      std::string_view line(data.data() + p, n - p);
      p = n + 1;
      ++line_no;
      if (line.empty()) continue;
      ++c.lines;
      c.line_bytes.push_back(static_cast<std::int64_t>(line.size()) + 1);
      {
        rapidjson::Document doc;
        doc.Parse(line.data(), line.size());
        std::string type = "?";
        if (!doc.HasParseError() && doc.IsObject()) {
          auto t = doc.FindMember("type");
          if (t != doc.MemberEnd() && t->value.IsString()) type = t->value.GetString();
          auto pl = doc.FindMember("payload");
          if (pl != doc.MemberEnd() && pl->value.IsObject()) {
            auto pt = pl->value.FindMember("type");
            if (pt != pl->value.MemberEnd() && pt->value.IsString())
              type += std::string("/") + pt->value.GetString();
          }
          if (type == "user" && doc.HasMember("toolUseResult")) type = "user/tool_result";
        }
        c.bytes_by_type[type] += static_cast<std::int64_t>(line.size()) + 1;
      }
      ParseContext ctx{f.abs_path, f.key, line_no, state.get()};
      try {
        ParsedLine parsed = adapter.ParseLine(line, ctx);
        for (auto& e : parsed.events) c.events.push_back({e.kind, e.role, std::move(e.text)});
      } catch (const std::exception&) {
        ++c.parse_errors;
      }
    }
  }
  return c;
}

template <typename T>
T Pct(std::vector<T> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t i = static_cast<std::size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

void Dist(const char* label, const std::vector<std::int64_t>& v) {
  double sum = 0;
  for (auto x : v) sum += static_cast<double>(x);
  std::printf("  %-28s n %7zu  mean %7.0f  p10 %6lld  p50 %6lld  p90 %7lld  p99 %7lld  max %8lld\n",
              label, v.size(), v.empty() ? 0.0 : sum / static_cast<double>(v.size()),
              static_cast<long long>(Pct(v, 10)), static_cast<long long>(Pct(v, 50)),
              static_cast<long long>(Pct(v, 90)), static_cast<long long>(Pct(v, 99)),
              static_cast<long long>(v.empty() ? 0 : *std::max_element(v.begin(), v.end())));
}

void Report(const char* name, const Corpus& c) {
  std::printf("\n== %s: %lld files, %.2f MiB, %lld lines, %lld events, %lld parse errors\n", name,
              static_cast<long long>(c.files), c.bytes / 1048576.0,
              static_cast<long long>(c.lines), static_cast<long long>(c.events.size()),
              static_cast<long long>(c.parse_errors));
  if (c.bytes == 0) return;
  Dist("line bytes", c.line_bytes);
  std::printf("  bytes by line type (share of the log bytes):\n   ");
  std::vector<std::pair<std::int64_t, std::string>> by;
  for (auto& [k, v] : c.bytes_by_type) by.push_back({v, k});
  std::sort(by.rbegin(), by.rend());
  for (auto& [v, k] : by)
    if (v * 200 >= c.bytes) std::printf(" %s %.1f%%", k.c_str(), 100.0 * v / c.bytes);
  std::printf("\n");

  std::map<std::string, std::int64_t> kind_bytes, kind_n;
  std::int64_t text = 0, chars = 0, cjk = 0, cjk_events = 0;
  std::vector<std::int64_t> user_msg, asst_msg, call_len, result_len;
  std::map<std::string, std::int64_t> mix_n, mix_bytes;
  std::int64_t results = 0, result_bytes = 0;
  for (const Event& e : c.events) {
    auto n = static_cast<std::int64_t>(e.text.size());
    text += n;
    kind_bytes[e.kind] += n;
    ++kind_n[e.kind];
    std::int64_t ch = 0, k = 0;
    for (std::size_t i = 0; i < e.text.size();) {
      char32_t cp = DecodeUtf8(e.text, i);
      ++ch;
      if (IsCjkLetter(cp)) ++k;
    }
    chars += ch, cjk += k, cjk_events += k > 0;
    if (e.kind == "message" && e.role == "user") user_msg.push_back(ch);
    if (e.kind == "message" && e.role == "assistant") asst_msg.push_back(ch);
    if (e.kind == "tool_call") call_len.push_back(ch);
    if (e.kind == "tool_result") {
      result_len.push_back(ch);
      std::string cls = Classify(e.text);
      ++mix_n[cls], mix_bytes[cls] += n, ++results, result_bytes += n;
    }
  }
  std::printf("  indexable text: %.2f MiB = %.1f%% of the log bytes (messages %.1f%%, tool calls "
              "%.1f%%, tool results %.1f%%, meta %.1f%%)\n",
              text / 1048576.0, 100.0 * text / c.bytes, 100.0 * kind_bytes["message"] / c.bytes,
              100.0 * kind_bytes["tool_call"] / c.bytes,
              100.0 * kind_bytes["tool_result"] / c.bytes, 100.0 * kind_bytes["meta"] / c.bytes);
  if (auto bad = c.bytes_by_type.find("?"); bad != c.bytes_by_type.end())
    std::printf("  lines that are not JSON: %.1f%% of the bytes; indexable share of the rest %.1f%%\n",
                100.0 * bad->second / c.bytes, 100.0 * text / (c.bytes - bad->second));
  std::printf("  events: %lld messages, %lld tool calls, %lld tool results, %lld meta; %.0f bytes "
              "of text per event, %.0f log bytes per event\n",
              static_cast<long long>(kind_n["message"]),
              static_cast<long long>(kind_n["tool_call"]),
              static_cast<long long>(kind_n["tool_result"]), static_cast<long long>(kind_n["meta"]),
              c.events.empty() ? 0.0 : static_cast<double>(text) / c.events.size(),
              c.events.empty() ? 0.0 : static_cast<double>(c.bytes) / c.events.size());
  Dist("user message chars", user_msg);
  Dist("assistant message chars", asst_msg);
  Dist("tool call chars", call_len);
  Dist("tool result chars", result_len);
  std::printf("  tool results (count%% / bytes%%):");
  for (const char* k : {"code", "json", "shell", "listing", "prose", "empty"})
    std::printf(" %s %.0f/%.0f", k, results ? 100.0 * mix_n[k] / results : 0.0,
                result_bytes ? 100.0 * mix_bytes[k] / result_bytes : 0.0);
  std::printf("\n  CJK: %.2f%% of the characters, %.1f%% of the events hold some\n",
              chars ? 100.0 * cjk / chars : 0.0,
              c.events.empty() ? 0.0 : 100.0 * cjk_events / c.events.size());

  // Trigrams, events in a fixed shuffled order so that no one session
  // fills the first megabytes.
  std::vector<std::size_t> order(c.events.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937 rng(12345);
  std::shuffle(order.begin(), order.end(), rng);
  std::unordered_set<std::uint64_t> seen;
  std::int64_t done = 0, postings = 0;
  const std::int64_t marks[] = {1 << 20, 2 << 20, 4 << 20, 8 << 20};
  std::size_t next = 0;
  std::printf("  distinct trigrams in the first MiB of text:");
  std::vector<std::uint64_t> doc;
  for (std::size_t idx : order) {
    const std::string& t = c.events[idx].text;
    auto cps = FoldedChars(t);
    doc.clear();
    for (std::size_t i = 0; i + 2 < cps.size(); ++i) doc.push_back(Trigram(cps, i));
    std::sort(doc.begin(), doc.end());
    doc.erase(std::unique(doc.begin(), doc.end()), doc.end());
    postings += static_cast<std::int64_t>(doc.size());
    seen.insert(doc.begin(), doc.end());
    done += static_cast<std::int64_t>(t.size());
    while (next < 4 && done >= marks[next]) {
      std::printf(" %lld MiB %zu;", static_cast<long long>(marks[next] >> 20), seen.size());
      ++next;
    }
  }
  std::printf(" all (%.2f MiB) %zu\n", done / 1048576.0, seen.size());
  std::printf("  trigram postings: %.0f per KiB of text (distinct trigrams of each event, summed)\n",
              done ? postings * 1024.0 / done : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  std::string claude, codex, corpus = "synthetic";
  std::int64_t generate = 0;
  std::uint32_t seed = 7;
  Options options("corpus_stats");
  options.Add("--claude", &claude, "DIR");
  options.Add("--codex", &codex, "DIR");
  options.Add("--generate", &generate, "MIB");
  options.Add("--corpus", &corpus, "synthetic|real-shaped|small");
  options.Add("--seed", &seed, "S");
  if (!options.Parse(argc, argv)) return 2;
  ScopedTempDir tmp;
  if (generate > 0) {
    CorpusOptions opts;
    opts.total_bytes = generate << 20;
    opts.seed = seed;
    if (!ParseCorpusKind(corpus, &opts)) {
      std::fprintf(stderr, "corpus_stats: unknown corpus %s\n", corpus.c_str());
      return 2;
    }
    claude = tmp / "claude", codex = tmp / "codex";
    GenerateCorpus(claude, codex, opts);
    std::printf("generated %lld MiB, corpus %s, seed %u\n", static_cast<long long>(generate),
                corpus.c_str(), seed);
  }
  Corpus all, cc, cx;
  if (!claude.empty()) {
    adapters::ClaudeCodeAdapter a(claude);
    cc = Read(a);
    Report("Claude Code", cc);
  }
  if (!codex.empty()) {
    adapters::CodexAdapter a(codex);
    cx = Read(a);
    Report("Codex", cx);
  }
  all.Add(std::move(cc));
  all.Add(std::move(cx));
  Report("both", all);
  return 0;
}
