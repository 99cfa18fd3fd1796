// SPDX-License-Identifier: MIT
// `check`: a quick integrity check of the store (SQLite's quick_check of
// origin.db, and of index.db, the derived search index), for origin doctor.
// It runs on a reader: only the daemon opens the store, and a check only
// reads.  quick_check reads every page once (it skips the comparison of
// indexes with their tables that integrity_check makes), so it takes about
// as long as reading the store's files.
#include <chrono>

#include "daemon/operations/operations.hpp"

namespace origin::ops {

namespace {

// At most this many problems are listed for a database.
constexpr int kMaxProblems = 20;

void CheckOne(Db& db, const char* schema, const char* key, rpc::Writer& w) {
  const std::vector<std::string> problems = QuickCheck(db, schema, kMaxProblems);
  w.Key(key);
  w.StartObject();
  w.Key("ok");
  w.Bool(problems.empty());
  w.Key("problems");
  w.StartArray();
  for (const std::string& p : problems) w.String(p);
  w.EndArray();
  w.EndObject();
}

}  // namespace

void Check(Context&, Db& db, const proto::NoRequest&, rpc::Writer& w) {
  const auto start = std::chrono::steady_clock::now();
  w.StartObject();
  CheckOne(db, "main", "store", w);
  CheckOne(db, "idx", "index", w);
  w.Key("ms");
  w.Int64(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                start)
              .count());
  w.EndObject();
}

}  // namespace origin::ops
