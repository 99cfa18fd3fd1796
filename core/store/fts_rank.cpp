// SPDX-License-Identifier: MIT
#include "core/store/fts_rank.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/store/schema.hpp"

namespace origin {

namespace {

void Bm25(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int n_args,
          sqlite3_value** args) noexcept {
  constexpr double k1 = 1.2, b = 0.75;
  sqlite3_int64 rows = 0, total = 0;
  int len = 0, insts = 0;
  // The row's length in tokens: from its length in characters when given
  // (one trigram a character but the last two), else FTS5's docsize.
  auto row_length = [&]() -> bool {
    if (n_args > 2 && sqlite3_value_type(args[2]) == SQLITE_INTEGER) {
      len = static_cast<int>(
          std::min<std::int64_t>(TrigramsOfChars(sqlite3_value_int64(args[2])), INT32_MAX));
      return true;
    }
    return api->xColumnSize(fts, -1, &len) == SQLITE_OK;
  };
  // With the collection given ('rows tokens'), every df given is a term
  // counted once (the score of a detail=none table of trigrams): the score
  // search computes itself for the texts it reads (TrigramRank).
  if (n_args > 1 && sqlite3_value_type(args[1]) == SQLITE_TEXT) {
    try {
      const TrigramRank rank = TrigramRank::Parse(
          sqlite3_value_type(args[0]) == SQLITE_TEXT
              ? reinterpret_cast<const char*>(sqlite3_value_text(args[0]))
              : "",
          reinterpret_cast<const char*>(sqlite3_value_text(args[1])));
      sqlite3_result_double(ctx, row_length() ? rank.Score(len) : 0);
    } catch (...) {
      sqlite3_result_error_nomem(ctx);
    }
    return;
  }
  const int phrases = api->xPhraseCount(fts);
  if (api->xRowCount(fts, &rows) != SQLITE_OK ||
      api->xColumnTotalSize(fts, -1, &total) != SQLITE_OK || !row_length() || rows <= 0 ||
      phrases <= 0) {
    sqlite3_result_double(ctx, 0);
    return;
  }
  // Occurrences of each phrase in this row; none recorded (detail=none): one.
  std::vector<double> tf;
  try {
    tf.assign(static_cast<std::size_t>(phrases), 0);
  } catch (...) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (api->xInstCount(fts, &insts) == SQLITE_OK) {
    for (int i = 0; i < insts; ++i) {
      int phrase = 0, col = 0, off = 0;
      if (api->xInst(fts, i, &phrase, &col, &off) == SQLITE_OK && phrase >= 0 && phrase < phrases)
        tf[static_cast<std::size_t>(phrase)] += 1;
    }
  }
  // The document frequencies, "df1 df2 ...", in the order of the phrases
  // (the arguments after the table).
  std::vector<double> dfs(static_cast<std::size_t>(phrases), static_cast<double>(rows) / 2);
  if (n_args > 0 && sqlite3_value_type(args[0]) == SQLITE_TEXT) {
    const char* p = reinterpret_cast<const char*>(sqlite3_value_text(args[0]));
    for (std::size_t i = 0; p != nullptr && i < dfs.size(); ++i) {
      char* end = nullptr;
      double v = std::strtod(p, &end);
      if (end == p) break;
      if (v >= 0 && v <= static_cast<double>(rows)) dfs[i] = v;
      p = end;
    }
  }
  const double avgdl = static_cast<double>(total) / static_cast<double>(rows);
  const double norm = k1 * (1 - b + b * len / (avgdl > 0 ? avgdl : 1));
  double score = 0;
  for (int p = 0; p < phrases; ++p) {
    double f = tf[static_cast<std::size_t>(p)] > 0 ? tf[static_cast<std::size_t>(p)] : 1;
    double df = dfs[static_cast<std::size_t>(p)];
    double idf = std::log((static_cast<double>(rows) - df + 0.5) / (df + 0.5));
    if (idf <= 0) idf = 1e-6;  // as FTS5's bm25: a phrase in most rows still counts a little
    score += idf * (f * (k1 + 1)) / (f + norm);
  }
  sqlite3_result_double(ctx, -score);
}

void Gate(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  const auto* gate =
      argc == 3 ? static_cast<const RankGate*>(sqlite3_value_pointer(argv[0], kRankGateType))
                : nullptr;
  bool wanted = gate == nullptr || gate->wanted == nullptr ||
                gate->wanted(gate->ctx, sqlite3_value_int64(argv[1]), sqlite3_value_int64(argv[2]));
  sqlite3_result_int(ctx, wanted ? 1 : 0);
}

void Scope(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  auto* scope =
      argc == 2 ? static_cast<ScopeFilter*>(sqlite3_value_pointer(argv[0], kScopeFilterType))
                : nullptr;
  bool in = true;
  if (scope != nullptr && scope->blocks != nullptr) {
    ++scope->seen;
    const std::int64_t block = sqlite3_value_int64(argv[1]) >> kScopeBlockBits;
    in = block >= 0 && static_cast<std::size_t>(block) < scope->blocks->size() &&
         (*scope->blocks)[static_cast<std::size_t>(block)];
  }
  sqlite3_result_int(ctx, in ? 1 : 0);
}

}  // namespace

TrigramRank TrigramRank::Parse(const char* dfs, const char* totals) {
  TrigramRank r;
  char* end = nullptr;
  r.rows = static_cast<double>(std::strtoll(totals, &end, 10));
  r.tokens = static_cast<double>(std::strtoll(end, nullptr, 10));
  for (const char* p = dfs;;) {
    double v = std::strtod(p, &end);
    if (end == p) break;
    // A missing or out-of-range df: a term in half the rows, as origin_bm25.
    r.dfs.push_back(v >= 0 && v <= r.rows ? v : r.rows / 2);
    p = end;
  }
  return r;
}

double TrigramRank::Score(double len) const {
  constexpr double k1 = 1.2, b = 0.75, f = 1;  // every term once
  if (rows <= 0 || dfs.empty()) return 0;
  const double avgdl = tokens / rows;
  const double norm = k1 * (1 - b + b * len / (avgdl > 0 ? avgdl : 1));
  double score = 0;
  for (double df : dfs) {
    double idf = std::log((rows - df + 0.5) / (df + 0.5));
    if (idf <= 0) idf = 1e-6;  // as FTS5's bm25: a phrase in most rows still counts a little
    score += idf * (f * (k1 + 1)) / (f + norm);
  }
  return -score;
}

void RegisterFtsRank(Db& db) {
  // Not deterministic: its answer changes as the search keeps candidates.
  int g = sqlite3_create_function_v2(db.get(), "origin_gate", 3, SQLITE_UTF8, nullptr, Gate,
                                     nullptr, nullptr, nullptr);
  if (g != SQLITE_OK) throw SqliteError(g, "register origin_gate");
  // Not deterministic either: it counts its calls.
  g = sqlite3_create_function_v2(db.get(), "origin_scope", 2, SQLITE_UTF8, nullptr, Scope, nullptr,
                                 nullptr, nullptr);
  if (g != SQLITE_OK) throw SqliteError(g, "register origin_scope");
  fts5_api* api = nullptr;
  {
    Stmt st(db.get(), "SELECT fts5(?1)");
    int rc = sqlite3_bind_pointer(st.get(), 1, &api, "fts5_api_ptr", nullptr);
    if (rc != SQLITE_OK) throw SqliteError(rc, "fts5 api");
    st.Step();
  }
  if (api == nullptr) throw std::runtime_error("this SQLite has no FTS5");
  int rc = api->xCreateFunction(api, "origin_bm25", nullptr, Bm25, nullptr);
  if (rc != SQLITE_OK) throw SqliteError(rc, "register origin_bm25");
}

}  // namespace origin
