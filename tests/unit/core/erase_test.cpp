// SPDX-License-Identifier: MIT
// Erasure (issue 18; core/erase/erase.hpp): the recorded exception to
// invariant 3.  A secret in a mirror's tail, in a sealed frame, in an entry
// and in its correction is erased; then every byte of the store is searched
// for it (each zstd frame found in a .zst decompressed, whether the store
// records it or not; origin.db, index.db and their WALs as they are) and
// found nowhere, while every other mirror line stays byte-identical and
// every id, line number and offset stays as it was.
#include "core/erase/erase.hpp"

#include <doctest/doctest.h>
#include <zstd.h>

#include <filesystem>
#include <map>
#include <set>

#include "adapters/claude_code/claude_code.hpp"
#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/ingest/verify_events.hpp"
#include "core/store/event_index.hpp"
#include "core/store/verify.hpp"
#include "core/util/op_error.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

using Code = OpError::Code;

constexpr const char* kSecret = "sk-live-7Qx9Zp2Lm4Vb8Nc1Rt6Yw";

std::string Line(const std::string& uuid, const std::string& session, const std::string& text) {
  return "{\"type\":\"user\",\"uuid\":\"" + uuid + "\",\"sessionId\":\"" + session +
         "\",\"timestamp\":\"2026-01-05T10:00:00.000Z\",\"cwd\":\"/home/dev/app\","
         "\"message\":{\"role\":\"user\",\"content\":\"" +
         text + "\"}}\n";
}

// Whether `needle` is in `path`: a .zst is read frame by frame wherever a
// zstd frame starts (also frames no row records: an old one not zeroed
// would be found), every other file as it is.
bool FileHolds(const std::string& path, std::string_view needle) {
  const std::string bytes = ReadAll(path);
  if (bytes.find(needle) != std::string::npos) return true;
  if (path.size() < 4 || path.substr(path.size() - 4) != ".zst") return false;
  for (std::size_t p = 0; p + 4 <= bytes.size(); ++p) {
    if (static_cast<unsigned char>(bytes[p]) != 0x28 || bytes.compare(p, 4, "\x28\xb5\x2f\xfd") != 0)
      continue;
    const std::size_t n = ZSTD_findFrameCompressedSize(bytes.data() + p, bytes.size() - p);
    if (ZSTD_isError(n)) continue;
    const unsigned long long size = ZSTD_getFrameContentSize(bytes.data() + p, n);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) continue;
    std::string out(size, '\0');
    const std::size_t got = ZSTD_decompress(out.data(), out.size(), bytes.data() + p, n);
    if (!ZSTD_isError(got) && out.find(needle) != std::string::npos) return true;
  }
  return false;
}

// Every file of the store that holds `needle`: raw/ and the databases
// (the agents' logs of these tests live beside them, in claude/).
std::vector<std::string> StoreHolds(const std::string& home, std::string_view needle) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(home)) {
    const std::string path = e.path().string();
    if (path.rfind(home + "/claude", 0) == 0) continue;
    if (e.is_regular_file() && FileHolds(path, needle)) out.push_back(path);
  }
  return out;
}

struct World {
  TestStore s;
  std::string root = s.dir / "claude";
  adapters::ClaudeCodeAdapter adapter{root};
  std::string index_path = s.dir / "index.db";
  std::unique_ptr<EventIndex> index = std::make_unique<EventIndex>(index_path, s.db_path());

  std::string File(const std::string& session) const {
    return root + "/projects/-home-dev-app/" + session + ".jsonl";
  }
  void Sync() {
    s.clock.Tick(1000);
    s.ingester->Sync({&adapter}, {});
    index->CatchUp();
  }
  // Session "big": the secret on line 3, then over 1 MiB of lines, so that
  // it is sealed in a frame; session "small": the secret on line 2 of the tail.
  void Build() {
    std::string big;
    for (int i = 1; i <= 700; ++i) {
      std::string text = i == 3 ? std::string("the key is ") + kSecret
                                : "line " + std::to_string(i) + " " + std::string(1600, 'a' + i % 26);
      big += Line("b" + std::to_string(i), "big", text);
    }
    WriteFile(File("big"), big);
    WriteFile(File("small"), Line("s1", "small", "hello") +
                                 Line("s2", "small", std::string("use ") + kSecret + " here") +
                                 Line("s3", "small", "bye"));
    Sync();
  }
  std::int64_t FileId(const std::string& session, int generation = 1) {
    auto st = s.db->Prepare("SELECT id FROM raw_file WHERE key LIKE ? AND generation = ?");
    st.Bind(1, "%" + session + ".jsonl").Bind(2, generation);
    REQUIRE(st.Step());
    return st.Int(0);
  }
  std::vector<std::string> Lines(std::int64_t file_id) {
    std::vector<std::string> out;
    std::string content = s.mirrors->ReadContent(*s.db, file_id);
    std::size_t pos = 0;
    while (pos < content.size()) {
      std::size_t nl = content.find('\n', pos);
      out.push_back(content.substr(pos, nl - pos));
      pos = nl + 1;
    }
    return out;
  }
  // Every event's id, file and line, by seq.
  std::map<std::int64_t, std::string> Events() {
    std::map<std::int64_t, std::string> out;
    auto st = s.db->Prepare("SELECT seq, id, file_id, line FROM event");
    while (st.Step())
      out[st.Int(0)] = std::string(st.Text(1)) + "@" + std::to_string(st.Int(2)) + ":" +
                       std::to_string(st.Int(3));
    return out;
  }
  // An entry citing both secret events, corrected once: both texts hold it.
  std::string Remember() {
    RememberInput in;
    in.kind = "knowledge";
    in.text = std::string("the API key ") + kSecret + " leaked";
    in.confidence = 0.9;
    in.author = "user@box";
    in.sources = {{std::string("claude-code:b3"), std::string(kSecret)},
                  {std::string("claude-code:s2"), std::nullopt}};
    const std::string id = origin::Remember(*s.db, s.clock, "box", in).id;
    s.clock.Tick(1000);
    CorrectInput c;
    c.text = std::string("rotate ") + kSecret + " now";
    c.author = "user@box";
    return origin::Correct(*s.db, s.clock, "box", id, c);
  }
  std::string Forget(const std::string& target) {
    auto o = origin::Forget(*s.db, s.clock, "box", {target, "a leaked key", "user@box"});
    REQUIRE(o.tombstone);
    return *o.tombstone;
  }
  EraseOutcome Erase(const std::string& forget, bool dry_run = false,
                     EraseFromIndex idx = nullptr) {
    if (!idx) idx = [this](const std::vector<std::int64_t>& seqs) { index->EraseEvents(seqs); };
    return origin::Erase(*s.db, *s.mirrors, s.clock,
                         {forget, "leaked API key", "user@box", "cli", dry_run}, idx);
  }
  std::int64_t Matches(const char* table, const std::string& phrase) {
    Db db(index_path, Db::Mode::kReadOnly);
    auto st = db.Prepare(std::string("SELECT count(*) FROM ") + table + " WHERE " + table +
                         " MATCH ?");
    st.Bind(1, "\"" + phrase + "\"");
    REQUIRE(st.Step());
    return st.Int(0);
  }
};

}  // namespace

TEST_SUITE("erase") {
  TEST_CASE(
      "erase: a secret in a tail, a sealed frame, an entry and its correction is in no byte of "
      "the store afterwards; every other line and id is as it was (invariant 3's exception)") {
    World w;
    w.Build();
    const std::int64_t big = w.FileId("big"), small = w.FileId("small");
    REQUIRE(MirrorStore::Load(*w.s.db, big).tail_line >= 3);  // line 3 is in a sealed frame
    REQUIRE(MirrorStore::Load(*w.s.db, small).tail_line == 0);  // line 2 is in the tail
    const std::string current = w.Remember();
    REQUIRE(w.Matches("message_fts", kSecret) == 2);
    REQUIRE(!StoreHolds(w.s.dir.path(), kSecret).empty());
    const auto big_before = w.Lines(big), small_before = w.Lines(small);
    const auto events_before = w.Events();
    const std::string forget = w.Forget(current);

    SUBCASE("the preview names what goes and changes nothing") {
      EraseOutcome p = w.Erase(forget, /*dry_run=*/true);
      CHECK(!p.erasure);
      CHECK(p.lines == 2);
      CHECK(std::set<std::string>(p.events.begin(), p.events.end()) ==
            std::set<std::string>{"claude-code:b3", "claude-code:s2"});
      CHECK(p.entries.size() == 2);
      REQUIRE(p.files.size() == 2);
      CHECK(p.files[0].path_exists);  // the agents' files still hold it
      CHECK(p.files[1].path_exists);
      CHECK(w.Lines(big) == big_before);
      CHECK(w.s.db->QueryInt("SELECT count(*) FROM erasure") == 0);
    }

    SUBCASE("erased") {
      EraseOutcome o = w.Erase(forget);
      REQUIRE(o.erasure);
      CHECK(o.lines == 2);
      CHECK(o.frames == 1);
      CHECK(o.entries.size() == 2);
      // No byte of the store holds it: mirrors (every frame decompressed),
      // origin.db and its WAL, index.db and its WAL.
      CHECK(StoreHolds(w.s.dir.path(), kSecret).empty());
      CHECK(w.Matches("message_fts", kSecret) == 0);
      CHECK(w.index->Check().empty());
      CHECK(RepairEntryIndex(*w.s.db) == "");  // entry_fts agrees with the entries
      // Every other line byte-identical; the erased ones a filler as long.
      const auto big_after = w.Lines(big), small_after = w.Lines(small);
      REQUIRE(big_after.size() == big_before.size());
      REQUIRE(small_after.size() == small_before.size());
      for (std::size_t i = 0; i < big_before.size(); ++i) {
        if (i == 2) {
          CHECK(big_after[i] == ErasedFiller(*o.erasure, big_before[i].size()));
          continue;
        }
        CHECK(big_after[i] == big_before[i]);
      }
      CHECK(small_after[0] == small_before[0]);
      CHECK(small_after[1] == ErasedFiller(*o.erasure, small_before[1].size()));
      CHECK(small_after[2] == small_before[2]);
      // Ids, files and line numbers as they were; reading a line still works.
      CHECK(w.Events() == events_before);
      CHECK(w.s.mirrors->ReadLine(*w.s.db, big, 4) == big_before[3]);
      CHECK(w.s.mirrors->ReadLine(*w.s.db, big, 700) == big_before[699]);
      // origin verify finds the store whole: a rewritten frame is read from
      // its replacement, and an erased event's line (a filler) is not
      // expected to give it.
      {
        const VerifyCheck v = VerifyMirrors(*w.s.db, *w.s.mirrors);
        const std::string first = v.problems.empty() ? "" : v.problems[0];
        INFO(first);
        CHECK(v.ok());
      }
      {
        std::vector<std::unique_ptr<SourceAdapter>> adapters;
        adapters.push_back(std::make_unique<adapters::ClaudeCodeAdapter>(w.root));
        const VerifyCheck v = VerifyEvents(*w.s.db, *w.s.mirrors, adapters, /*all=*/true, 0);
        const std::string first = v.problems.empty() ? "" : v.problems[0];
        INFO(first);
        CHECK(v.ok());
        CHECK(v.checked == static_cast<std::int64_t>(w.Events().size()) - 2);  // all but the erased
      }
      CHECK(w.s.db->QueryInt("SELECT count(*) FROM event WHERE text = ''") == 2);
      CHECK(w.s.db->QueryInt("SELECT count(*) FROM entry WHERE text = ''") == 2);
      // The record: listed with its forget, which can no longer be restored.
      auto rows = ListTombstones(*w.s.db, 10);
      REQUIRE(rows.size() == 1);
      REQUIRE(rows[0].erasure);
      CHECK(rows[0].erasure->id == *o.erasure);
      CHECK(rows[0].erasure->done_at);
      CHECK(OpErrorOf([&] {
              origin::Restore(*w.s.db, w.s.clock, "box", {forget, "oops", "user@box"});
            }) == Code::kConflict);
      CHECK(OpErrorOf([&] { w.Erase(forget); }) == Code::kConflict);
      CHECK(w.s.db->QueryInt("SELECT count(*) FROM audit_log WHERE action = 'erase'") == 1);

      // It stays in effect: the file rewritten (a new generation, read from
      // its start) is mirrored with the filler where the line is.
      WriteFile(w.File("small"), Line("s0", "small", "a new first line") +
                                     Line("s1", "small", "hello") +
                                     Line("s2", "small", std::string("use ") + kSecret + " here") +
                                     Line("s3", "small", "bye"));
      w.Sync();
      const auto gen2 = w.Lines(w.FileId("small", 2));
      REQUIRE(gen2.size() == 4);
      CHECK(gen2[2] == ErasedFiller(*o.erasure, small_before[1].size()));
      CHECK(gen2[3] == small_before[2]);
      CHECK(StoreHolds(w.s.dir.path(), kSecret).empty());
      CHECK(w.s.db->QueryInt("SELECT count(*) FROM event WHERE id = 'claude-code:s0'") == 1);
    }
  }

  TEST_CASE(
      "erase: afterwards secure_delete is as it was on origin.db's connection and on index.db's "
      "(on, as Debian builds SQLite), so that what either deletes later is zeroed too") {
    World w;
    w.Build();
    Db& idx = w.index->connection();
    REQUIRE(w.s.db->QueryInt("PRAGMA secure_delete") == 1);
    REQUIRE(idx.QueryInt("PRAGMA secure_delete") == 1);
    REQUIRE(w.Erase(w.Forget(w.Remember())).erasure);
    CHECK(w.s.db->QueryInt("PRAGMA secure_delete") == 1);
    CHECK(idx.QueryInt("PRAGMA secure_delete") == 1);
  }

  TEST_CASE("erase: an erasure interrupted after its record is taken up again by running it again") {
    World w;
    w.Build();
    const std::string forget = w.Forget(w.Remember());
    // A crash between the mirrors and the index: the erasure is pending.
    CHECK_THROWS_WITH(w.Erase(forget, false,
                              [](const std::vector<std::int64_t>&) {
                                throw std::runtime_error("power cut");
                              }),
                      doctest::Contains("power cut"));
    auto rows = ListTombstones(*w.s.db, 10);
    REQUIRE(rows[0].erasure);
    CHECK(!rows[0].erasure->done_at);
    CHECK(OpErrorOf([&] {
            origin::Restore(*w.s.db, w.s.clock, "box", {forget, "oops", "user@box"});
          }) == Code::kConflict);
    EraseOutcome again = w.Erase(forget);
    CHECK(again.resumed);
    CHECK(again.erasure == rows[0].erasure->id);
    CHECK(StoreHolds(w.s.dir.path(), kSecret).empty());
    CHECK(w.index->Check().empty());
  }

  TEST_CASE("erase: only a forget in effect, with a reason") {
    World w;
    w.Build();
    const std::string forget = w.Forget("claude-code:s2");
    CHECK(OpErrorOf([&] { w.Erase("tmb_nosuch"); }) == Code::kNotFound);
    CHECK(OpErrorOf([&] {
            origin::Erase(*w.s.db, *w.s.mirrors, w.s.clock, {forget, " ", "user@box"}, nullptr);
          }) == Code::kInvalidArgument);
    auto r = origin::Restore(*w.s.db, w.s.clock, "box", {forget, "not a secret", "user@box"});
    CHECK(OpErrorOf([&] { w.Erase(*r.tombstone); }) == Code::kInvalidArgument);
    CHECK(OpErrorOf([&] { w.Erase(forget); }) == Code::kConflict);
    CHECK(w.s.db->QueryInt("SELECT count(*) FROM erasure") == 0);
  }

  TEST_CASE(
      "erase: an event the index had not reached is indexed empty, even when the indexer reaches "
      "it before the erasure has emptied its text") {
    // The erasure's index step runs on the indexer's connection, its texts
    // step after it on the writer's: an indexer catching up in between
    // read the text still there (invariant 3's exception, issue 18).
    TestStore s;
    s.db->Exec(
        "INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
        "VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    auto add = [&](int i, const std::string& text) {
      s.db->Prepare(
              "INSERT INTO event(id, source, ts, role, kind, text, file_id, line) "
              "VALUES (?, 't', ?, 'user', ?, ?, 1, ?)")
          .Bind(1, "t:" + std::to_string(i))
          .Bind(2, i)
          .Bind(3, i % 2 == 0 ? "message" : "tool_result")
          .Bind(4, text)
          .Bind(5, i)
          .Run();
    };
    for (int i = 1; i <= 10; ++i) add(i, "nothing to hide " + std::to_string(i));
    EventIndex index(s.dir / "index.db", s.db_path());
    index.CatchUp(1 << 20, [] { return false; });
    add(11, "the key sk-live-QUOKKA4242 部署");    // a tool result
    add(12, "again sk-live-QUOKKA4242 部署");      // a message
    index.EraseEvents({11, 12});                   // the index's step: not indexed yet
    index.CatchUp(1 << 20, [] { return false; });  // before the texts' step
    CHECK(index.Upto() == 12);
    Db idx(s.dir / "index.db", Db::Mode::kReadOnly);
    for (const char* table : {"event_fts", "message_fts"})
      CHECK(idx.QueryInt(std::string("SELECT count(*) FROM ") + table + " WHERE " + table +
                         " MATCH '\"okk\"'") == 0);
    CHECK(idx.QueryInt("SELECT count(*) FROM event_cjk WHERE event_cjk MATCH '\"部署\"'") == 0);
    CHECK(index.Check() == "");
    // Built again from the events (a damaged index), still before the
    // texts' step: the same.
    index.Rebuild();
    index.CatchUp(1 << 20, [] { return false; });
    CHECK(idx.QueryInt("SELECT count(*) FROM message_fts WHERE message_fts MATCH '\"okk\"'") == 0);
    CHECK(idx.QueryInt("SELECT count(*) FROM message_fts WHERE message_fts MATCH '\"hide\"'") == 5);
  }
}
