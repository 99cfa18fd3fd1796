// SPDX-License-Identifier: MIT
// Backups and verify on a store without a daemon: MirrorStore::ReadRange
// reads a range of the content wherever it lies (frames, tail, or frames
// sealed from the tail since: invariant 3, the content only grows); a
// backup's mirrors equal the live ones; the next backup copies only what is
// new; a backup interrupted in its swap is completed by the next one, and
// one interrupted before it is undone; verify finds a frame that does not
// decompress.
#include "core/store/backup.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>

#include <filesystem>
#include <random>

#include "core/c/fd.hpp"
#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "core/store/verify.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

std::string Lines(int count, int seed) {
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::string out;
  for (int i = 0; i < count; ++i) {
    std::string l = "line " + std::to_string(seed) + "." + std::to_string(i) + " ";
    while (l.size() < 999) l.push_back(static_cast<char>('a' + rng() % 26));
    out += l + "\n";
  }
  return out;
}

std::int64_t CountNl(std::string_view s) { return std::count(s.begin(), s.end(), '\n'); }

void Append(TestStore& s, std::int64_t id, std::string_view data, bool seal = false) {
  Transaction tx(*s.db);
  AppendResult r = s.mirrors->Append(MirrorStore::Load(*s.db, id), data, CountNl(data), seal);
  MirrorStore::RecordAppend(*s.db, r);
  tx.Commit();
  s.mirrors->AfterCommit(r);
}

// A reader of the store, as the daemon's: read-only, index.db attached.
struct Reader {
  explicit Reader(TestStore& s)
      : index(s.dir / "index.db", s.db_path()), db(OpenReadConnection(s.db_path())) {
    AttachIndex(*db, s.dir / "index.db");
  }
  EventIndex index;
  std::unique_ptr<Db> db;
};

std::string Content(const std::string& home, std::int64_t id) {
  auto db = OpenReadConnection(home + "/origin.db");
  return MirrorStore(home + "/raw").ReadContent(*db, id);
}

}  // namespace

TEST_SUITE("backup") {
  TEST_CASE(
      "mirror: ReadRange gives the content's bytes from frames and tail, also once a seal moved "
      "them") {
    TestStore s;
    const std::int64_t id = NewRawFile(*s.db, "t/a.jsonl");
    std::string all;
    for (int i = 0; i < 5; ++i) {
      const std::string more = Lines(700, i);  // ~0.7 MiB: every other append seals
      Append(s, id, more);
      all += more;
    }
    const MirrorState m = MirrorStore::Load(*s.db, id);
    REQUIRE(m.tail_offset > 0);
    REQUIRE(m.bytes > m.tail_offset);
    const std::int64_t cuts[][2] = {{0, m.bytes},
                                    {1, 2},
                                    {m.tail_offset - 10, m.tail_offset + 10},
                                    {m.tail_offset, m.bytes},
                                    {m.bytes - 1, m.bytes},
                                    {1 << 20, (1 << 20) + 3000}};
    for (const auto& c : cuts)
      CHECK(s.mirrors->ReadRange(*s.db, id, c[0], c[1]) ==
            all.substr(static_cast<std::size_t>(c[0]), static_cast<std::size_t>(c[1] - c[0])));
    // The tail is sealed: the same range now comes from a frame.
    Append(s, id, "", /*seal=*/true);
    CHECK(MirrorStore::Load(*s.db, id).tail_offset == m.bytes);
    CHECK(s.mirrors->ReadRange(*s.db, id, m.tail_offset, m.bytes) ==
          all.substr(static_cast<std::size_t>(m.tail_offset)));
    CHECK_THROWS_AS(s.mirrors->ReadRange(*s.db, id, 0, m.bytes + 1), MirrorBroken);
  }

  TEST_CASE(
      "backup: mirrors as the snapshot records them; the next backup copies only new frames and "
      "tail bytes") {
    TestStore s;
    ScopedTempDir out;
    const std::string dir = out / "b";
    const std::int64_t a = NewRawFile(*s.db, "t/a.jsonl"), b = NewRawFile(*s.db, "t/b.jsonl");
    Append(s, a, Lines(1500, 1));  // sealed frames
    Append(s, a, Lines(100, 2));   // and a tail
    Append(s, b, Lines(10, 3));    // a tail only
    Reader r(s);
    BackupReport one = Backup(*r.db, *s.mirrors, s.dir.path(), dir);
    CHECK_FALSE(one.incremental);
    CHECK(one.mirrors == 2);
    CHECK(one.frames_copied == s.db->QueryInt("SELECT count(*) FROM raw_chunk"));
    CHECK(one.tails_written == 2);
    CHECK(Content(dir, a) == s.mirrors->ReadContent(*s.db, a));
    CHECK(Content(dir, b) == s.mirrors->ReadContent(*s.db, b));

    SUBCASE("nothing new: nothing of the mirrors is copied") {
      BackupReport two = Backup(*r.db, *s.mirrors, s.dir.path(), dir);
      CHECK(two.incremental);
      CHECK(two.frames_copied == 0);
      CHECK(two.tails_written == 0);
      CHECK(two.mirrors_changed == 0);
      CHECK(two.bytes_written == two.db_bytes);  // the databases, and the marker's 0 bytes
    }
    SUBCASE("a tail extended, another sealed into a frame") {
      const std::int64_t frames = s.db->QueryInt("SELECT count(*) FROM raw_chunk");
      Append(s, b, Lines(5, 4));
      Append(s, a, Lines(1000, 5));  // seals a's tail with these lines
      BackupReport two = Backup(*r.db, *s.mirrors, s.dir.path(), dir);
      CHECK(two.frames_copied == s.db->QueryInt("SELECT count(*) FROM raw_chunk") - frames);
      CHECK(two.tails_written == 2);
      CHECK(two.tail_bytes == 5 * 1000);  // b's new lines; a's tail is empty now
      CHECK(Content(dir, a) == s.mirrors->ReadContent(*s.db, a));
      CHECK(Content(dir, b) == s.mirrors->ReadContent(*s.db, b));
      CHECK_FALSE(std::filesystem::exists(dir + "/backup.swap"));
    }
    SUBCASE("a backup stopped in its swap is completed by the next") {
      // As left after origin.db was renamed and before the tails were.
      std::filesystem::rename(dir + "/raw/t/b.jsonl.tail", dir + "/raw/t/b.jsonl.tail.next");
      WriteFile(dir + "/backup.swap", "t/b.jsonl.tail\n");
      CHECK_FALSE(VerifyNoInterruptedBackup(dir).ok());
      Backup(*r.db, *s.mirrors, s.dir.path(), dir);
      CHECK(VerifyNoInterruptedBackup(dir).ok());
      CHECK(Content(dir, b) == s.mirrors->ReadContent(*s.db, b));
    }
    SUBCASE("a backup stopped before its swap is undone by the next") {
      WriteFile(dir + "/origin.db.next", "half a database");
      WriteFile(dir + "/raw/t/b.jsonl.tail.next", "half a tail");
      WriteFile(dir + "/backup.swap", "t/b.jsonl.tail\n");
      Append(s, b, Lines(5, 6));
      Backup(*r.db, *s.mirrors, s.dir.path(), dir);
      CHECK_FALSE(std::filesystem::exists(dir + "/raw/t/b.jsonl.tail.next"));
      CHECK_FALSE(std::filesystem::exists(dir + "/origin.db.next"));
      CHECK(Content(dir, b) == s.mirrors->ReadContent(*s.db, b));
    }
    SUBCASE("verify finds a frame that does not decompress, and a tail cut short") {
      Db copy(dir + "/origin.db", Db::Mode::kReadOnly);
      MirrorStore backed(dir + "/raw");
      std::int64_t checked = 0;
      CHECK(VerifyMirror(copy, backed, a, &checked).empty());
      // Each frame and the tail.
      CHECK(checked ==
            s.db->QueryInt("SELECT count(*) FROM raw_chunk WHERE file_id = " + std::to_string(a)) +
                1);
      std::string zst = ReadAll(dir + "/raw/t/a.jsonl.zst");
      zst[zst.size() / 2] ^= 1;
      WriteFile(dir + "/raw/t/a.jsonl.zst", zst);
      std::vector<std::string> p = VerifyMirror(copy, backed, a, &checked);
      REQUIRE(p.size() == 1);
      CHECK(p[0].find("mirror t/a.jsonl: frame at content offset") == 0);
      std::string tail = ReadAll(dir + "/raw/t/b.jsonl.tail");
      WriteFile(dir + "/raw/t/b.jsonl.tail", tail.substr(0, tail.size() - 1));
      p = VerifyMirror(copy, backed, b, &checked);
      REQUIRE(p.size() == 1);
      CHECK(p[0].find("t/b.jsonl.tail is truncated") != std::string::npos);
    }
  }

  TEST_CASE("backup: refuses a relative directory and one inside the store") {
    TestStore s;
    Reader r(s);
    CHECK_THROWS_WITH_AS(Backup(*r.db, *s.mirrors, s.dir.path(), "b"),
                         doctest::Contains("not an absolute path"), OpError);
    CHECK_THROWS_WITH_AS(Backup(*r.db, *s.mirrors, s.dir.path(), s.dir / "raw/x"),
                         doctest::Contains("inside the store"), OpError);
    CHECK_THROWS_WITH_AS(Backup(*r.db, *s.mirrors, s.dir / "raw", s.dir.path()),
                         doctest::Contains("holds the store"), OpError);
  }
}
