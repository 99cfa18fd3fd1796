// SPDX-License-Identifier: MIT
// An import's transactions in groups (core/ingest/ingester.hpp, Sync): past
// bulk_bytes, one enclosing transaction holds consecutive transactions, so
// that what a reader sees moves a group at a time; a write waiting ends the
// group; a tail sealed in a group is emptied only once the group is in.
// What a full disk or an I/O error does to a group is in fault_test.cpp.
#include <doctest/doctest.h>

#include "adapters/claude_code/claude_code.hpp"
#include "core/store/schema.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

std::string Line(const std::string& uuid, const std::string& session, const std::string& text) {
  return R"({"type":"user","uuid":")" + uuid + R"(","sessionId":")" + session +
         R"(","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/home/dev/app","version":"2.1.12",)"
         R"("message":{"role":"user","content":")" +
         text + "\"}}\n";
}

struct Import {
  TestStore s;
  std::string root = s.dir / "claude";
  adapters::ClaudeCodeAdapter adapter{root};
  std::string File(int i) const {
    return root + "/projects/-home-dev-app/s" + std::to_string(i) + ".jsonl";
  }
  // Files 0..n-1 of one line each, oldest first.
  void Files(int n) {
    for (int i = 0; i < n; ++i) {
      WriteFile(File(i), Line("u" + std::to_string(i), "s" + std::to_string(i), "line"));
      SetMtime(File(i), (s.clock.NowMs() - 60'000 + i) * 1000000);
    }
  }
  // The events a reader sees after each file, and after the sync.
  std::vector<std::int64_t> Seen(SyncOptions so) {
    auto reader = OpenReadConnection(s.db_path());
    std::vector<std::int64_t> seen;
    so.progress = [&](const SyncProgress&) {
      seen.push_back(reader->QueryInt("SELECT count(*) FROM event"));
    };
    s.clock.Tick(1000);
    SyncReport r = s.ingester->Sync({&adapter}, so);
    CHECK_FALSE(r.store_fault);
    seen.push_back(reader->QueryInt("SELECT count(*) FROM event"));
    return seen;
  }
};

}  // namespace

TEST_SUITE("ingest") {
  TEST_CASE(
      "ingest: past bulk_bytes, an import's transactions are nested in one group: a reader sees "
      "the files of a group when it commits, each line once, and `between` runs at its end") {
    Import im;
    im.Files(4);
    SyncOptions so;
    so.bulk_bytes = 0;  // an import from its first transaction
    int asked = 0;
    so.between = [&] {
      ++asked;
      return true;
    };
    // The first file's transaction is its own; the group opens after it.
    CHECK(im.Seen(so) == std::vector<std::int64_t>{1, 1, 1, 1, 4});
    CHECK(asked == 2);  // after the first transaction, and after the group (the indexer's notice)
    CHECK_FALSE(im.s.db->InTransaction());
    for (int i = 0; i < 4; ++i)
      CHECK(im.s.mirrors->ReadContent(*im.s.db, i + 1) == ReadAll(im.File(i)));

    SUBCASE("without groups (group_bytes 0) each file is seen once it is in") {
      Import plain;
      plain.Files(4);
      so.group_bytes = 0;
      asked = 0;
      CHECK(plain.Seen(so) == std::vector<std::int64_t>{1, 2, 3, 4, 4});
      CHECK(asked == 4);
    }
    SUBCASE("a group ends once it has read group_bytes") {
      Import small;
      small.Files(4);
      so.group_bytes = static_cast<std::int64_t>(ReadAll(small.File(0)).size()) * 2;
      CHECK(small.Seen(so) == std::vector<std::int64_t>{1, 1, 3, 3, 4});
    }
  }

  TEST_CASE(
      "ingest: a write waiting for the writer ends an import's group at once: it then waits for "
      "one transaction, as without groups") {
    Import im;
    im.Files(4);
    SyncOptions so;
    so.bulk_bytes = 0;
    int waiting = 0;
    so.waiting = [&] {
      ++waiting;
      return true;
    };
    CHECK(im.Seen(so) == std::vector<std::int64_t>{1, 2, 3, 4, 4});
    CHECK(waiting == 3);  // asked inside a group only: after files 1, 2 and 3
  }

  TEST_CASE(
      "ingest: a tail sealed inside a group is emptied once the group is in, and the file's "
      "next transaction comes after: a file of three transactions, sealed in its second, is "
      "mirrored byte for byte") {
    Import im;
    std::string lines;
    for (int i = 0; lines.size() < (std::size_t{5} << 19); ++i)
      lines += Line("v" + std::to_string(i), "s0", std::string(2000, 'a' + i % 26));
    WriteFile(im.File(0), lines);
    SyncOptions so;
    so.bulk_bytes = 0;
    // Inside the group, the second transaction brings the tail past this:
    // a seal, which ends the group; the third goes to the emptied tail.
    so.group_tail_limit = std::size_t{3} << 19;
    int asked = 0;
    so.between = [&] {
      ++asked;
      return true;
    };
    im.s.clock.Tick(1000);
    SyncReport r = im.s.ingester->Sync({&im.adapter}, so);
    CHECK_FALSE(r.store_fault);
    CHECK(r.bytes == static_cast<std::int64_t>(lines.size()));
    CHECK(asked == 3);  // after the first transaction, the seal, and the last group
    CHECK(im.s.db->QueryInt("SELECT count(*) FROM raw_chunk") > 0);
    const std::int64_t tail =
        im.s.db->QueryInt("SELECT bytes_ingested - tail_offset FROM raw_file");
    CHECK(tail > 0);
    CHECK(tail < (std::int64_t{1} << 20));
    CHECK(im.s.mirrors->ReadContent(*im.s.db, 1) == lines);
    Stmt st(im.s.db->get(), "SELECT mirror FROM raw_file");
    REQUIRE(st.Step());
    CHECK(ReadAll(im.s.mirrors->PathOf(std::string(st.Text(0)), ".tail")).size() ==
          static_cast<std::size_t>(tail));

    SUBCASE("below the group's tail limit, nothing is sealed until the file is idle") {
      Import more;
      WriteFile(more.File(0), lines);
      so.group_tail_limit = kGroupTailLimit;
      more.s.clock.Tick(1000);
      CHECK_FALSE(more.s.ingester->Sync({&more.adapter}, so).store_fault);
      CHECK(more.s.db->QueryInt("SELECT count(*) FROM raw_chunk") == 0);
      CHECK(more.s.mirrors->ReadContent(*more.s.db, 1) == lines);
    }
  }
}
