// SPDX-License-Identifier: MIT
// Short references and ids as people type them (core/store/refs.hpp,
// core/query/ids.hpp): references unique in the store and as short as that
// allows, prefixes of references and of ids, a session's bare UUID,
// ambiguity listing the candidates, and nothing hidden matched (invariant 2).
#include "core/query/ids.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>

#include "core/forget/forget.hpp"
#include "core/store/refs.hpp"
#include "core/store/schema.hpp"
#include "core/util/op_error.hpp"
#include "core/util/text.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

using Code = OpError::Code;

void AddEvent(Db& db, const std::string& id, const std::string& session, const std::string& text) {
  db.Prepare(
        "INSERT INTO event(id, source, session, ts, role, kind, text, file_id, line) "
        "VALUES (?, 'claude-code', ?, 1767225600000, 'user', 'message', ?, 1, 1)")
      .Bind(1, id)
      .Bind(2, session)
      .Bind(3, text)
      .Run();
  db.Prepare("INSERT OR IGNORE INTO session(id, source, event_count) VALUES (?, 'claude-code', 1)")
      .Bind(1, session)
      .Run();
}

std::string Message(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const OpError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("ids") {
  TEST_CASE("ids: a reference spells the hash's top bits; a prefix is the range of hashes under it") {
    const std::int64_t h = RefHash("claude-code:u1#0");
    CHECK(h == RefHash("claude-code:u1#0"));
    CHECK(h != RefHash("claude-code:u1#1"));
    const std::string full = RefText(h, kMaxRef);
    CHECK(full.size() == 12);
    CHECK(full.find_first_not_of("0123456789abcdefghjkmnpqrstvwxyz") == std::string::npos);
    for (int n = 1; n <= kMaxRef; ++n) {
      auto r = RefRange(full.substr(0, static_cast<std::size_t>(n)));
      REQUIRE(r);
      CHECK(r->first <= h);
      CHECK(h <= r->second);
      CHECK(RefText(r->first, n) == full.substr(0, static_cast<std::size_t>(n)));
      CHECK(RefText(r->second, n) == full.substr(0, static_cast<std::size_t>(n)));
    }
    std::string upper = full;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    CHECK(RefRange(upper) == RefRange(full));
    CHECK_FALSE(RefRange("abcl"));  // l is not in the alphabet
    CHECK_FALSE(RefRange("claude-code"));
    CHECK_FALSE(RefRange(""));
    CHECK_FALSE(RefRange("0123456789abc"));  // 13 characters
  }

  TEST_CASE("ids: each reference is unique in the store and no longer than that needs (migration 6 fills the table)") {
    TestStore s;
    Db& db = *s.db;
    CHECK(db.QueryInt("PRAGMA user_version") == kSchemaVersion);
    std::vector<std::string> ids;
    for (int i = 0; i < 3000; ++i) {
      ids.push_back("claude-code:m" + std::to_string(i) + "#0");
      AddEvent(db, ids.back(), "claude-code:sess" + std::to_string(i % 40), "text " + std::to_string(i));
    }
    // Every event and session has its row, by the triggers.
    CHECK(db.QueryInt("SELECT count(*) FROM ref WHERE kind = 0") == 3000);
    CHECK(db.QueryInt("SELECT count(*) FROM ref WHERE kind = 2") == 40);
    std::map<std::string, std::string> by_ref;
    std::set<std::string> all_full;
    for (const auto& id : ids) all_full.insert(RefText(RefHash(id), kMaxRef));
    for (int i = 0; i < 40; ++i)
      all_full.insert(RefText(RefHash("claude-code:sess" + std::to_string(i)), kMaxRef));
    for (const auto& id : ids) {
      const std::string ref = ShortRef(db, id);
      CAPTURE(id);
      CHECK(ref.size() >= static_cast<std::size_t>(kMinRef));
      CHECK(RefText(RefHash(id), kMaxRef).rfind(ref, 0) == 0);
      // Unique: no other id's reference starts with it ...
      int sharing = 0;
      for (const auto& f : all_full) sharing += f.rfind(ref, 0) == 0 ? 1 : 0;
      CHECK(sharing == 1);
      // ... and one character less would not be, unless it is at the floor.
      if (ref.size() > static_cast<std::size_t>(kMinRef)) {
        const std::string shorter = ref.substr(0, ref.size() - 1);
        int n = 0;
        for (const auto& f : all_full) n += f.rfind(shorter, 0) == 0 ? 1 : 0;
        CHECK(n > 1);
      }
      CHECK(ResolveId(db, ref, kEventIds) == id);
      by_ref[ref] = id;
    }
    CHECK(by_ref.size() == ids.size());
    // Another item with the same 64 bits: the reference is all of them.
    db.Prepare("INSERT INTO ref(h, kind, item) VALUES (?, 3, 999999)")
        .Bind(1, RefHash(ids[7]))
        .Run();
    CHECK(ShortRef(db, ids[7]).size() == static_cast<std::size_t>(kMaxRef));
    CHECK(ShortRef(db, ids[8]).size() < static_cast<std::size_t>(kMaxRef));
    db.Exec("DELETE FROM ref WHERE item = 999999");
    // A store opened again (a migration that ran already) adds nothing.
    s.db = OpenWriteConnection(s.db_path());
    CHECK(s.db->QueryInt("SELECT count(*) FROM ref") == 3040);
  }

  TEST_CASE("ids: full ids, prefixes of ids and references, bare session UUIDs; ambiguity lists the candidates") {
    TestStore s;
    Db& db = *s.db;
    const std::string sess = "claude-code:4f0c2a91-7a3e-4d5b-9c1e-2b8f6a0d3e71";
    AddEvent(db, "claude-code:aaaa1111#0", sess, "first words of it");
    AddEvent(db, "claude-code:aaaa2222#0", sess, "second");
    AddEvent(db, "claude-code:bbbb3333#0", "claude-code:77e0c3d2-0000-4000-8000-000000000000", "other");
    // Full ids, blanks around them ignored.
    CHECK(ResolveId(db, " claude-code:aaaa1111#0\n", kEventIds) == "claude-code:aaaa1111#0");
    // A full id of another kind goes to the operation as it is (its own error).
    CHECK(ResolveId(db, sess, kEventIds) == sess);
    // A unique prefix of an id.
    CHECK(ResolveId(db, "claude-code:bbbb", kEventIds) == "claude-code:bbbb3333#0");
    // A bare session UUID, and a prefix of one.
    CHECK(ResolveId(db, "4f0c2a91-7a3e-4d5b-9c1e-2b8f6a0d3e71", kSessionIds) == sess);
    CHECK(ResolveId(db, "4f0c2a91", kSessionIds) == sess);
    CHECK(ResolveId(db, "4f0c2a91", kEventIds | kSessionIds) == sess);
    // A reference of a session.
    CHECK(ResolveId(db, ShortRef(db, sess), kSessionIds | kEventIds) == sess);
    // ... which names a session where an event is needed, saying where its events are.
    CHECK(Message([&] { ResolveId(db, ShortRef(db, sess), kEventIds | kEntryIds); })
              .ends_with("an event or an entry is needed here, and timeline lists the session's "
                         "events"));
    // Ambiguous: both events share the prefix; the message lists them with
    // their references, and the CLI exits 2 (proto::ExitCodeFor).
    CHECK(OpErrorOf([&] { ResolveId(db, "claude-code:aaaa", kEventIds); }) == Code::kAmbiguous);
    const std::string msg = Message([&] { ResolveId(db, "claude-code:aaaa", kEventIds); });
    CHECK(msg.find("claude-code:aaaa1111#0") != std::string::npos);
    CHECK(msg.find("claude-code:aaaa2222#0") != std::string::npos);
    CHECK(msg.find(ShortRef(db, "claude-code:aaaa1111#0")) != std::string::npos);
    CHECK(msg.find("first words of it") != std::string::npos);
    // The kinds an operation takes narrow the candidates.
    CHECK(OpErrorOf([&] { ResolveId(db, "claude-code:", kSessionIds); }) == Code::kAmbiguous);
    CHECK(ResolveId(db, "claude-code:7", kSessionIds) ==
          "claude-code:77e0c3d2-0000-4000-8000-000000000000");
    // Too short, unknown, or a kind the operation does not take.
    CHECK(OpErrorOf([&] { ResolveId(db, "abc", kEventIds); }) == Code::kInvalidArgument);
    CHECK(OpErrorOf([&] { ResolveId(db, "", kEventIds); }) == Code::kInvalidArgument);
    CHECK(OpErrorOf([&] { ResolveId(db, "claude-code:zzzz", kEventIds); }) == Code::kNotFound);
    CHECK(Message([&] { ResolveId(db, "claude-code:nope", kEventIds | kEntryIds); }) ==
          "no event or entry claude-code:nope");
    CHECK(OpErrorOf([&] { ResolveId(db, "4f0c2a91", kEventIds); }) == Code::kInvalidArgument);
  }

  TEST_CASE("ids: an error echoing an id of 100 KB is bounded, cut between characters") {
    TestStore s;
    Db& db = *s.db;
    const std::string id = "claude-code:" + std::string(100000, 'x') + "-end";
    const std::string msg = Message([&] { ResolveId(db, id, kEventIds | kEntryIds); });
    CHECK(msg.size() <= kMaxErrorMessage + 40);
    CHECK(msg.starts_with("no event or entry claude-code:xxxx"));
    CHECK(msg.ends_with("xxxx-end"));
    CHECK(msg.find(" bytes cut) ") != std::string::npos);
    // Bytes that are no UTF-8 (stray continuation bytes) are cut all the same.
    CHECK(std::string(OpError(Code::kNotFound, "no event " + std::string(100000, '\x80')).what())
              .size() <= kMaxErrorMessage + 40);
    // Letters of two, three and four bytes are never split.
    for (const char* letter : {"\u00e9", "\u90e8", "\U0001F600"}) {
      std::string many;
      while (many.size() < 3 * kMaxErrorMessage) many += letter;
      for (std::size_t shift = 0; shift < 4; ++shift) {
        const std::string bounded = OpError(Code::kNotFound, std::string(shift, 'a') + many).what();
        CHECK(bounded.size() < many.size());
        CHECK(ValidUtf8(bounded));
      }
    }
  }

  TEST_CASE("ids: a hidden event is matched by its full id only, never by a prefix or reference (invariant 2)") {
    TestStore s;
    Db& db = *s.db;
    AddEvent(db, "claude-code:cccc1111#0", "claude-code:s1", "secret");
    AddEvent(db, "claude-code:cccc2222#0", "claude-code:s1", "kept");
    const std::string ref = ShortRef(db, "claude-code:cccc1111#0");
    REQUIRE(Forget(db, s.clock, "box", {"claude-code:cccc1111#0", "private", "user@box", "cli", false})
                .tombstone);
    // The prefix both shared now names the visible one alone.
    CHECK(ResolveId(db, "claude-code:cccc", kEventIds) == "claude-code:cccc2222#0");
    CHECK(OpErrorOf([&] { ResolveId(db, ref, kEventIds); }) == Code::kNotFound);
    // The full id still reaches the operation, which answers `forgotten`.
    CHECK(ResolveId(db, "claude-code:cccc1111#0", kEventIds) == "claude-code:cccc1111#0");
    // Tombstones have references too (restore takes them).
    auto st = db.Prepare("SELECT id FROM tombstone LIMIT 1");
    REQUIRE(st.Step());
    const std::string tmb(st.Text(0));
    st.Reset();
    CHECK(ResolveId(db, ShortRef(db, tmb), kTombstoneIds) == tmb);
    CHECK(ResolveId(db, tmb.substr(0, 8), kTombstoneIds) == tmb);
  }
}
