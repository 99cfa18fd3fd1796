// SPDX-License-Identifier: MIT
#pragma once
// The store the web UI's benchmarks measure (ui_bench in process,
// ui_http_bench through a real daemon): written directly, as refs_bench
// does, since the adapters would take far longer at millions of events.

#include <cstdint>

#include "core/c/sqlite.hpp"

namespace origin::bench {

constexpr std::int64_t kDayMs = 86400000;

/// Writes `n` events into the store of `db` (its schema made): sessions of
/// 200 to 3,000 events in turns (a prompt of 20 words; 1 to 12 tool calls,
/// each after a sentence and with its result of 60 words; a reply of 40
/// words), Claude Code and Codex alternately, each starting at random in the
/// 90 days before `now` (ms), 5 s between events; each session's row is made
/// by AddArrivals, as ingestion makes it.  The words come from a vocabulary
/// of 18, so every word is common.  Fixed seed: the same `n` and `now` give
/// the same store.
void FillUiStore(Db& db, std::int64_t n, std::int64_t now);

}  // namespace origin::bench
