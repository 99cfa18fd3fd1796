// SPDX-License-Identifier: MIT
#pragma once
// Synthetic agent logs shaped like real ones (spec: Raw mirrors, Size):
// Claude Code and Codex sessions with English and Chinese text, tool calls
// with large results, thinking blocks, and base64 screenshots for about a
// quarter of the bytes (or, with small_events, events of about 800
// characters and no screenshots).  Deterministic for a seed.  Used by the crash test
// and by the ingest benchmark.

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace origin::test {

struct CorpusOptions {
  std::int64_t total_bytes = 64 << 20;  // about this many bytes of logs in all
  std::uint32_t seed = 1;
  double codex_share = 0.3;  // of the bytes, in Codex rollouts
  std::int64_t mean_session_bytes = 2 << 20;
  // Events of about 800 characters of text (spec: Storage, Size), without
  // screenshots; their words include a rare word (quokka), short terms (AI)
  // and snake_case identifiers in code.  The search benchmark's corpus.
  bool small_events = false;
  std::int64_t start_ms = 1764000000000;  // the first session's start; one more each hour
  // Text and line shapes calibrated on real, published logs (issue 15;
  // docs/performance.md): the corpus the speed targets are judged on.
  // Overrides small_events.
  bool real_shaped = false;
};

/// Sets `opts` for a corpus named on a benchmark's command line:
/// "synthetic" (the first generator, kept for continuity), "small" (its
/// small_events form) or "real-shaped".  False for any other name.
bool ParseCorpusKind(std::string_view name, CorpusOptions* opts);

/// `n` random base64 characters (a signature, encrypted content, an image):
/// one draw of `rng` each.
std::string RandomBase64(std::mt19937& rng, std::size_t n);

struct CorpusFile {
  std::string path;  // absolute
  std::int64_t bytes = 0;
};

/// Writes sessions under claude_root/projects/... and codex_root/sessions/...
/// Files get modification times spread over the past weeks, oldest first.
std::vector<CorpusFile> GenerateCorpus(const std::string& claude_root,
                                       const std::string& codex_root, const CorpusOptions& opts);

/// Appends `n` more Claude Code lines to an existing session file (a file
/// still growing), numbered from `first`.
void AppendClaudeLines(const std::string& path, int first, int n, std::uint32_t seed);

}  // namespace origin::test
