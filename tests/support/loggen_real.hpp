// SPDX-License-Identifier: MIT
#pragma once
// The real-shaped corpus of tests/support/loggen (CorpusOptions::real_shaped):
// sessions generated a turn at a time, whose statistics were calibrated on
// real, published Claude Code and Codex logs (issue 15; the figures and
// their tolerances are in docs/performance.md).  No real text is used: the
// words are drawn from a vocabulary of made-up words (syllables joined at
// random, with a fixed seed) with Zipf frequencies under a list of common
// English and programming words, so that distinct trigrams grow with the
// volume of text as they do in real logs.  What the calibration matched:
//   - line shapes: Claude Code's envelope on every line, thinking blocks
//     with signatures, tool results kept twice (message and toolUseResult,
//     an Edit's whole original file too), progress and file-history lines;
//     Codex's turn_context of about 14 KB before each model step, encrypted
//     reasoning, token_count events, event_msg copies of the messages;
//   - lengths: user and assistant messages, tool calls and tool results
//     drawn from log-normal laws fitted to the real percentiles;
//   - the mix of tool results: code (numbered as Read shows it), shell
//     output, file listings, JSON and prose;
//   - the rare words the search benchmark asks for (quokka, AI,
//     snake_case identifiers) and a small share of Chinese text.
// Deterministic for a seed.  Not thread-safe (one Session per thread).

#include <cstdint>
#include <random>
#include <string>

namespace origin::test::real {

class Session {
 public:
  Session(std::mt19937& rng, bool codex, std::string id, std::string cwd);
  /// Appends the lines of the next turn (a prompt, the agent's steps and its
  /// answer) to `out`, each ending in \n; `ts` (ms) advances line by line.
  void Turn(std::string& out, std::int64_t& ts);

 private:
  void ClaudeTurn(std::string& out, std::int64_t& ts);
  void CodexTurn(std::string& out, std::int64_t& ts);
  std::mt19937& rng_;
  bool codex_;
  std::string id_, cwd_, parent_;
  int line_ = 0, turns_ = 0;
};

}  // namespace origin::test::real
