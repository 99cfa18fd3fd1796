// SPDX-License-Identifier: MIT
// Raw mirrors: the sealing rule, reading lines, and the crash-safety rules
// (bytes past what the database records are never read and are dropped; a
// file shorter than recorded refuses appends).  Invariants 1 and 3.
#include <doctest/doctest.h>
#include <fcntl.h>

#include <random>

#include "core/c/fd.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

std::string Lines(int count, std::size_t len, int seed) {
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::string out;
  for (int i = 0; i < count; ++i) {
    std::string l = "line " + std::to_string(i) + " ";
    while (l.size() + 1 < len) l.push_back(static_cast<char>('a' + rng() % 26));
    out += l + "\n";
  }
  return out;
}

std::int64_t CountNl(std::string_view s) {
  std::int64_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// Appends in one transaction and records it, as ingestion does.
AppendResult AppendCommitted(TestStore& s, std::int64_t id, std::string_view data,
                             bool seal = false) {
  Transaction tx(*s.db);
  MirrorState m = MirrorStore::Load(*s.db, id);
  AppendResult r = s.mirrors->Append(m, data, CountNl(data), seal);
  MirrorStore::RecordAppend(*s.db, r);
  tx.Commit();
  s.mirrors->AfterCommit(r);
  return r;
}

std::string Nth(std::string_view content, std::int64_t n) {
  std::size_t pos = 0;
  for (std::int64_t i = 1; i < n; ++i) pos = content.find('\n', pos) + 1;
  return std::string(content.substr(pos, content.find('\n', pos) - pos));
}

}  // namespace

TEST_SUITE("mirror") {
  TEST_CASE("mirror: frames end at the first line break past 1 MiB; a short last piece joins") {
    std::string data = Lines(3500, 1000, 1);  // ~3.3 MiB
    auto frames = CutFrames(data);
    std::size_t total = 0;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      total += frames[i];
      CHECK(data[total - 1] == '\n');
      if (i + 1 < frames.size()) {
        CHECK(frames[i] >= kFrameTarget);
        CHECK(frames[i] < kFrameTarget + 1000);
      }
    }
    CHECK(total == data.size());
    // 3.34 MB: three frames of ~1 MiB and a piece of ~0.2 MiB that joins the third.
    CHECK(frames.size() == 3);
    CHECK(frames.back() > kFrameTarget + kFrameMinLast / 4);

    SUBCASE("a last piece of half a MiB or more is a frame of its own") {
      std::string d2 = Lines(1700, 1000, 2);  // ~1.62 MiB
      auto f2 = CutFrames(d2);
      REQUIRE(f2.size() == 2);
      CHECK(f2[1] >= kFrameMinLast);
    }
    SUBCASE("a line longer than a frame fills a frame of its own") {
      std::string big(2 * kFrameTarget, 'x');
      std::string d3 = Lines(100, 1000, 3) + big + "\n" + Lines(900, 1000, 4);
      auto f3 = CutFrames(d3);
      REQUIRE(f3.size() >= 2);
      CHECK(f3[0] == 100 * 1000);
      CHECK(f3[1] == big.size() + 1);
    }
  }

  TEST_CASE("mirror: appends stay in the tail under 1 MiB, then seal into frames (invariant 3)") {
    TestStore s;
    std::int64_t id = NewRawFile(*s.db, "t/a.jsonl");
    std::string expected;
    for (int i = 0; i < 40; ++i) {
      std::string chunk = Lines(97, 1013, 100 + i);
      AppendCommitted(s, id, chunk);
      expected += chunk;
      CHECK(s.mirrors->ReadContent(*s.db, id) == expected);
      MirrorState m = MirrorStore::Load(*s.db, id);
      CHECK(m.bytes - m.tail_offset < static_cast<std::int64_t>(kTailLimit));
      CHECK(FileSize(OpenFile(s.raw_dir() + "/t/a.jsonl.tail", O_RDONLY).get(), "tail") ==
            m.bytes - m.tail_offset);
    }
    CHECK(s.db->QueryInt("SELECT count(*) FROM raw_chunk") >= 3);
    // Every line reads back as written, from its frame or from the tail.
    std::mt19937 rng(7);
    std::int64_t total = CountNl(expected);
    for (int k = 0; k < 200; ++k) {
      std::int64_t n = 1 + static_cast<std::int64_t>(rng() % static_cast<unsigned>(total));
      CHECK(s.mirrors->ReadLine(*s.db, id, n) == Nth(expected, n));
    }
    CHECK_FALSE(s.mirrors->ReadLine(*s.db, id, total + 1));
    CHECK_FALSE(s.mirrors->ReadLine(*s.db, id, 0));
  }

  TEST_CASE("mirror: reading a line decompresses only the frame that holds it") {
    TestStore s;
    std::int64_t id = NewRawFile(*s.db, "t/b.jsonl");
    std::string data = Lines(3000, 1000, 9);
    AppendCommitted(s, id, data, /*seal=*/true);
    REQUIRE(s.db->QueryInt("SELECT count(*) FROM raw_chunk WHERE file_id = " +
                           std::to_string(id)) == 3);
    // Corrupt the first frame on disk: lines of the second still read.
    std::string zst = s.raw_dir() + "/t/b.jsonl.zst";
    UniqueFd fd = OpenFile(zst, O_RDWR);
    PwriteFull(fd.get(), "garbage!", 100, zst);
    CHECK(s.mirrors->ReadLine(*s.db, id, 2900) == Nth(data, 2900));
    CHECK_THROWS(s.mirrors->ReadLine(*s.db, id, 5));
  }

  TEST_CASE("mirror: raw_chunk rejects updates and deletes (invariant 3)") {
    TestStore s;
    std::int64_t id = NewRawFile(*s.db, "t/c.jsonl");
    AppendCommitted(s, id, Lines(10, 100, 1), /*seal=*/true);
    CHECK_THROWS_WITH_AS(s.db->Exec("UPDATE raw_chunk SET line_count = 1"),
                         doctest::Contains("append-only"), SqliteError);
    CHECK_THROWS_WITH_AS(s.db->Exec("DELETE FROM raw_chunk"), doctest::Contains("append-only"),
                         SqliteError);
  }

  TEST_CASE("mirror: bytes past what the database records are never read and are dropped") {
    TestStore s;
    std::int64_t id = NewRawFile(*s.db, "t/d.jsonl");
    std::string first = Lines(5, 200, 1);
    AppendCommitted(s, id, first);
    const std::string tail = s.raw_dir() + "/t/d.jsonl.tail";

    SUBCASE("an append that never committed leaves bytes in the tail") {
      {
        Transaction tx(*s.db);
        MirrorState m = MirrorStore::Load(*s.db, id);
        s.mirrors->Append(m, "{\"lost\":1}\n", 1, false);
        // no commit: the transaction rolls back, as if the process died
      }
      CHECK(ReadAll(tail).size() > first.size());
      CHECK(s.mirrors->ReadContent(*s.db, id) == first);
      CHECK(s.mirrors->ReadLine(*s.db, id, 6) == std::nullopt);
      std::string more = Lines(3, 150, 2);
      AppendCommitted(s, id, more);
      CHECK(s.mirrors->ReadContent(*s.db, id) == first + more);
      CHECK(ReadAll(tail) == first + more);
    }
    SUBCASE("a crash after a frame is written but before its commit drops the frame") {
      std::string big = Lines(1200, 1000, 3);
      {
        Transaction tx(*s.db);
        MirrorState m = MirrorStore::Load(*s.db, id);
        AppendResult r = s.mirrors->Append(m, big, CountNl(big), false);
        CHECK(r.sealed);
      }
      CHECK(s.db->QueryInt("SELECT count(*) FROM raw_chunk") == 0);
      CHECK(s.mirrors->ReadContent(*s.db, id) == first);
      AppendCommitted(s, id, big);
      CHECK(s.mirrors->ReadContent(*s.db, id) == first + big);
      MirrorState m = MirrorStore::Load(*s.db, id);
      CHECK(FileSize(OpenFile(s.raw_dir() + "/t/d.jsonl.zst", O_RDONLY).get(), "zst") ==
            m.zst_bytes);
    }
    SUBCASE("a crash after the commit but before the tail is emptied neither loses nor doubles") {
      std::string big = Lines(1200, 1000, 4);
      {
        Transaction tx(*s.db);
        MirrorState m = MirrorStore::Load(*s.db, id);
        AppendResult r = s.mirrors->Append(m, big, CountNl(big), false);
        MirrorStore::RecordAppend(*s.db, r);
        tx.Commit();
        // AfterCommit never runs.
      }
      CHECK(ReadAll(tail).size() == first.size());  // old lines still in the tail file
      CHECK(s.mirrors->ReadContent(*s.db, id) == first + big);
      std::string more = Lines(2, 100, 5);
      AppendCommitted(s, id, more);
      CHECK(s.mirrors->ReadContent(*s.db, id) == first + big + more);
      CHECK(ReadAll(tail) == more);
    }
    SUBCASE("a tail shorter than recorded refuses appends (invariant 1)") {
      UniqueFd fd = OpenFile(tail, O_RDWR);
      Ftruncate(fd.get(), 10, tail);
      Transaction tx(*s.db);
      MirrorState m = MirrorStore::Load(*s.db, id);
      CHECK_THROWS_AS(s.mirrors->Append(m, "x\n", 1, false), MirrorBroken);
      CHECK_THROWS_AS(s.mirrors->ReadContent(*s.db, id), MirrorBroken);
    }
  }

  TEST_CASE("mirror: an idle tail seals whatever its size, and lines go on in a new tail") {
    TestStore s;
    std::int64_t id = NewRawFile(*s.db, "t/e.jsonl");
    std::string a = Lines(3, 100, 1);
    AppendCommitted(s, id, a);
    AppendResult r = AppendCommitted(s, id, {}, /*seal=*/true);
    CHECK(r.sealed);
    CHECK(r.frames.size() == 1);
    CHECK(ReadAll(s.raw_dir() + "/t/e.jsonl.tail").empty());
    std::string b = Lines(2, 100, 2);
    AppendCommitted(s, id, b);
    CHECK(s.mirrors->ReadContent(*s.db, id) == a + b);
    CHECK(s.mirrors->ReadLine(*s.db, id, 4) == Nth(a + b, 4));
    CHECK(s.mirrors->ReadLine(*s.db, id, 2) == Nth(a + b, 2));
  }
}
