// SPDX-License-Identifier: MIT
// A relay's store (core/hub/relay.hpp; spec: Personal hub, Relays): only an
// empty store becomes a relay, a store that holds something is refused
// with what it holds and is left as it was, a relay stays one, and the
// relay's per-file cursors read back as written, whatever the key holds.
#include "core/hub/relay.hpp"

#include <doctest/doctest.h>

#include "core/store/schema.hpp"
#include "core/util/op_error.hpp"
#include "tests/unit/core/forget_world.hpp"

using namespace origin;
using namespace origin::test;
using namespace origin::test::forget_world;

TEST_CASE("relay: an empty store becomes a relay and stays one; one that holds events is "
          "refused, saying what it holds, and nothing changes") {
  World empty;
  CHECK_FALSE(IsRelay(*empty.s.db));
  CHECK(WhatItHolds(*empty.s.db).empty());
  CHECK_FALSE(MakeRelay(*empty.s.db, "/home/me/.origin"));  // made now
  CHECK(IsRelay(*empty.s.db));
  CHECK(MakeRelay(*empty.s.db, "/home/me/.origin"));  // it was one already

  World full;
  full.Say("s1", "a line");
  full.Say("s1", "another line");
  full.Sync();
  try {
    MakeRelay(*full.s.db, "/home/me/.origin");
    FAIL("a store with events became a relay");
  } catch (const OpError& e) {
    CHECK(e.code() == OpError::Code::kInvalidArgument);
    const std::string what = e.what();
    CHECK_MESSAGE(what.find("holds 2 events, 1 mirrored file") != std::string::npos, what);
    CHECK_MESSAGE(what.find("ORIGIN_HOME") != std::string::npos, what);
  }
  CHECK_FALSE(IsRelay(*full.s.db));
}

TEST_CASE("relay: per-file cursors read back as written, keys with spaces included") {
  World w;
  RelayCursor a;
  a.source = "claude-code";
  a.key = "projects/my app/session one.jsonl";
  a.generation = 2;
  a.bytes = 4096;
  a.hash = std::string(64, 'a');
  a.seen = "4096:1700000000000000000";
  a.changed_ms = 1234;
  SaveRelayCursor(*w.s.db, a);
  RelayCursor g;
  g.source = "cursor";
  g.key = "state.vscdb";
  g.bytes = 10;
  g.last_line = R"({"rowid":7,"text":"line with \"quotes\" and \n"})";
  SaveRelayCursor(*w.s.db, g);
  PutSetting(*w.s.db, "relay.fileX", "not a cursor");  // a key past the prefix's range

  std::optional<RelayCursor> back = LoadRelayCursor(*w.s.db, "claude-code", a.key);
  REQUIRE(back);
  CHECK(back->generation == 2);
  CHECK(back->bytes == 4096);
  CHECK(back->hash == a.hash);
  CHECK(back->seen == a.seen);
  CHECK(back->changed_ms == 1234);
  CHECK(back->last_line.empty());
  CHECK_FALSE(LoadRelayCursor(*w.s.db, "codex", a.key));

  std::vector<RelayCursor> all = AllRelayCursors(*w.s.db);
  REQUIRE(all.size() == 2);
  CHECK(all[0].source == "claude-code");
  CHECK(all[0].key == a.key);
  CHECK(all[1].source == "cursor");
  CHECK(all[1].last_line == g.last_line);
  CHECK(all[1].generation == 1);

  // A damaged value is no cursor: the file goes again from where the hub stands.
  PutSetting(*w.s.db, "relay.file codex sessions/x.jsonl", "{broken");
  CHECK_FALSE(LoadRelayCursor(*w.s.db, "codex", "sessions/x.jsonl"));
  CHECK(AllRelayCursors(*w.s.db).size() == 2);
}
