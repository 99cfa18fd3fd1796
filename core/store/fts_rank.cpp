// SPDX-License-Identifier: MIT
#include "core/store/fts_rank.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/schema.hpp"

namespace origin {

namespace {

// The inverse document frequency of a term in `df` of `rows` rows, as
// FTS5's bm25() computes it: a term in most rows still counts a little.
double Idf(double rows, double df) {
  const double idf = std::log((rows - df + 0.5) / (df + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

// The frequencies 'df1 df2 ...' of `dfs` (none for nullptr), at most
// `most` of them: one out of [0, rows] counts as a term in half the rows.
std::vector<double> ParseDfs(const char* dfs, double rows, std::size_t most) {
  std::vector<double> out;
  for (const char* p = dfs; p != nullptr && out.size() < most;) {
    char* end = nullptr;
    const double v = std::strtod(p, &end);
    if (end == p) break;
    out.push_back(v >= 0 && v <= rows ? v : rows / 2);
    p = end;
  }
  return out;
}

// BM25 (higher is better) of a row of `len` tokens in a collection whose
// rows hold `avgdl` tokens on average: each term's inverse frequency,
// weighed by its occurrences in the row (`tf`; a term recorded nowhere,
// and every term without `tf`: once).
double Bm25Sum(const std::vector<double>& idf, double len, double avgdl,
               const std::vector<double>* tf) {
  constexpr double k1 = 1.2, b = 0.75;
  const double norm = k1 * (1 - b + b * len / (avgdl > 0 ? avgdl : 1));
  double score = 0;
  for (std::size_t i = 0; i < idf.size(); ++i) {
    const double f = tf != nullptr && (*tf)[i] > 0 ? (*tf)[i] : 1;
    score += idf[i] * (f * (k1 + 1)) / (f + norm);
  }
  return score;
}

// What origin_bm25 needs of a query once rather than for every row: the
// collection (FTS5's xRowCount and xColumnTotalSize read the table's
// averages record again at every call: two reads of a page a row, a fifth
// of a search of messages on the 2M hub, docs/performance.md) and the
// frequencies, parsed, as inverse frequencies.  The function's auxiliary
// data for the query (xSetAuxdata), which FTS5 frees when the statement
// runs again (with other parameters, so other frequencies), made again
// when called with other arguments.
struct Bm25Query {
  // The arguments it was made of (a NULL one: nullopt): a statement may
  // call the function twice with others, which share the query's data.
  std::optional<std::string> dfs_arg, totals_arg;
  bool trigrams = false;    // the collection was given: TrigramRank
  TrigramRank rank;         // trigrams: the collection and frequencies given
  double avgdl = 0;         // phrases: the collection's mean length
  std::vector<double> idf;  // phrases: one a phrase
  std::vector<double> tf;   // phrases: a row's occurrences of each
};

// The text of args[i], when there is one.
std::optional<std::string_view> TextArg(int n_args, sqlite3_value** args, int i) {
  if (n_args <= i || sqlite3_value_type(args[i]) != SQLITE_TEXT) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(sqlite3_value_text(args[i])),
                          static_cast<std::size_t>(sqlite3_value_bytes(args[i])));
}

// The query's Bm25Query, made at its first row; nullptr when FTS5 does not
// give the collection (no rows, no phrases, an error): the row is scored 0,
// and the next row asks again, as each row did before.
Bm25Query* QueryOf(const Fts5ExtensionApi* api, Fts5Context* fts, int n_args,
                   sqlite3_value** args) {
  const std::optional<std::string_view> dfs_arg = TextArg(n_args, args, 0),
                                        totals_arg = TextArg(n_args, args, 1);
  if (auto* q = static_cast<Bm25Query*>(api->xGetAuxdata(fts, 0));
      q != nullptr && q->dfs_arg == dfs_arg && q->totals_arg == totals_arg)
    return q;
  auto q = std::make_unique<Bm25Query>();
  if (dfs_arg) q->dfs_arg.emplace(*dfs_arg);
  if (totals_arg) q->totals_arg.emplace(*totals_arg);
  // NUL-terminated, as SQLite's texts are.
  const char* dfs = dfs_arg ? q->dfs_arg->c_str() : nullptr;
  // With the collection given ('rows tokens'), every df given is a term
  // counted once (the score of a detail=none table of trigrams): the score
  // search computes itself for the texts it reads (TrigramRank).
  if (totals_arg) {
    q->trigrams = true;
    q->rank = TrigramRank::Parse(dfs != nullptr ? dfs : "", q->totals_arg->c_str());
  } else {
    sqlite3_int64 rows = 0, total = 0;
    const int phrases = api->xPhraseCount(fts);
    if (api->xRowCount(fts, &rows) != SQLITE_OK ||
        api->xColumnTotalSize(fts, -1, &total) != SQLITE_OK || rows <= 0 || phrases <= 0)
      return nullptr;
    // The document frequencies, "df1 df2 ...", in the order of the phrases
    // (the arguments after the table); a phrase without one: in half the rows.
    std::vector<double> df =
        ParseDfs(dfs, static_cast<double>(rows), static_cast<std::size_t>(phrases));
    df.resize(static_cast<std::size_t>(phrases), static_cast<double>(rows) / 2);
    for (double d : df) q->idf.push_back(Idf(static_cast<double>(rows), d));
    q->avgdl = static_cast<double>(total) / static_cast<double>(rows);
    q->tf.resize(df.size());
  }
  Bm25Query* out = q.get();
  // Fails only for want of memory (FTS5 has then deleted it).
  if (api->xSetAuxdata(fts, q.release(), [](void* p) { delete static_cast<Bm25Query*>(p); }) !=
      SQLITE_OK)
    throw std::bad_alloc();
  return out;
}

void Bm25(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int n_args,
          sqlite3_value** args) noexcept {
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
  Bm25Query* q = nullptr;
  try {
    q = QueryOf(api, fts, n_args, args);
  } catch (...) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (q == nullptr || !row_length()) {
    sqlite3_result_double(ctx, 0);
    return;
  }
  if (q->trigrams) {
    sqlite3_result_double(ctx, q->rank.Score(len));
    return;
  }
  // Occurrences of each phrase in this row; none recorded (detail=none): one.
  std::fill(q->tf.begin(), q->tf.end(), 0);
  const int phrases = static_cast<int>(q->tf.size());
  if (api->xInstCount(fts, &insts) == SQLITE_OK) {
    for (int i = 0; i < insts; ++i) {
      int phrase = 0, col = 0, off = 0;
      if (api->xInst(fts, i, &phrase, &col, &off) == SQLITE_OK && phrase >= 0 && phrase < phrases)
        q->tf[static_cast<std::size_t>(phrase)] += 1;
    }
  }
  sqlite3_result_double(ctx, -Bm25Sum(q->idf, len, q->avgdl, &q->tf));
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
  r.dfs = ParseDfs(dfs, r.rows, std::numeric_limits<std::size_t>::max());
  for (double df : r.dfs) r.idf.push_back(Idf(r.rows, df));
  return r;
}

double TrigramRank::Score(double len) const {
  if (rows <= 0 || dfs.empty()) return 0;
  // Parse computed the inverse frequencies; for one made otherwise, here.
  std::vector<double> made;
  if (idf.size() != dfs.size())
    for (double df : dfs) made.push_back(Idf(rows, df));
  // Every term once (detail=none records no occurrences).
  return -Bm25Sum(idf.size() == dfs.size() ? idf : made, len, tokens / rows, nullptr);
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
