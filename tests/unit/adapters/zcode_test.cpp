// SPDX-License-Identifier: MIT
// ZCode's database as a generated source (spec: Ingestion, Generated
// sources; sources.md 4.2): a message is written out once it will no longer
// change and never again; the stream is the same when read from scratch on
// another store; ZCode writing its database during a sync is neither
// blocked nor harmed, and what it wrote arrives at the next look.
#include "adapters/zcode/zcode.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/ingest/ingester.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

struct Zcode {
  ScopedTempDir root;
  TestStore store;
  adapters::ZcodeAdapter adapter{root / "zcode"};
  std::string db = root / "zcode/cli/db/db.sqlite";
  Zcode() { BuildZcodeDb(db); }
  SyncReport Sync() {
    Ingester ing(*store.db, *store.mirrors, store.clock);
    return ing.Sync({&adapter}, {});
  }
  std::string Mirror() {
    return store.mirrors->ReadContent(
        *store.db, store.db->QueryInt("SELECT id FROM raw_file WHERE key = 'sessions/db.jsonl'"));
  }
  std::int64_t Count(const char* where) {
    return store.db->QueryInt(std::string("SELECT count(*) FROM event WHERE ") + where);
  }
};

void Exec(const std::string& path, const std::string& sql) {
  Db db(path, Db::Mode::kReadWrite);
  db.Exec("PRAGMA busy_timeout = 5000");
  db.Exec(sql);
}

}  // namespace

TEST_SUITE("adapters") {
  TEST_CASE("zcode: a streaming message is written once it completes, and never again") {
    Zcode z;
    auto r = z.Sync();
    CHECK(r.sources.at(0).errors.empty());
    CHECK(z.Count("id = 'zcode:msg_05'") == 0);  // still streaming
    // The agent finishes it, and rewrites an earlier part in place.
    Exec(z.db,
         "UPDATE part SET data = '{\"type\":\"text\",\"text\":\"Updating the docs now.\"}' "
         "WHERE id = 'prt_08';"
         "UPDATE message SET data = json_set(data, '$.finish', 'stop') WHERE id = 'msg_05';"
         "UPDATE part SET data = '{\"type\":\"text\",\"text\":\"CHANGED LATER\"}' "
         "WHERE id = 'prt_01';");
    z.Sync();
    Stmt st(z.store.db->get(), "SELECT text FROM event WHERE id = 'zcode:msg_05'");
    REQUIRE(st.Step());
    CHECK(st.Text(0) == "Updating the docs now.");
    // What was written out stays the version its events come from (invariant 1).
    CHECK(z.Count("text = 'CHANGED LATER'") == 0);
    CHECK(z.Count("id = 'zcode:msg_01'") == 1);
    // Nothing changed: the token holds, and the adapter is not asked.
    const std::string mirror = z.Mirror();
    CHECK(z.Sync().events == 0);
    CHECK(z.Mirror() == mirror);
    // A new message of the session completes the one before it too.
    Exec(z.db,
         "INSERT INTO message VALUES ('msg_06', 'sess_8c1f', 6, 1767600000600, "
         "'{\"role\":\"user\"}');"
         "INSERT INTO part VALUES ('prt_09', 'msg_06', 'sess_8c1f', 1, 1767600000600, "
         "'{\"type\":\"text\",\"text\":\"And the changelog.\"}');");
    z.Sync();
    CHECK(z.Count("id = 'zcode:msg_06'") == 1);
    // Two stores reading the same database from scratch write the same
    // lines, and so derive the same events.
    auto finished = [](Zcode& w) {
      Exec(w.db,
           "UPDATE message SET data = json_set(data, '$.finish', 'stop') WHERE id = 'msg_05';"
           "INSERT INTO message VALUES ('msg_06', 'sess_8c1f', 6, 1767600000600, "
           "'{\"role\":\"user\"}');");
      w.Sync();
    };
    Zcode a, b;
    finished(a);
    finished(b);
    CHECK(a.Mirror() == b.Mirror());
    auto ids = [](Zcode& w) {
      std::string out;
      Stmt q(w.store.db->get(), "SELECT id FROM event ORDER BY seq");
      while (q.Step()) out += std::string(q.Text(0)) + "\n";
      return out;
    };
    CHECK(ids(a) == ids(b));
  }

  TEST_CASE("zcode: ZCode writing during a sync is neither blocked nor harmed") {
    Zcode z;
    z.Sync();
    const int kMessages = 300;
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      // The agent: one transaction per message, as fast as it can.
      int rc = 0;
      try {
        Db db(z.db, Db::Mode::kReadWrite);
        db.Exec("PRAGMA busy_timeout = 2000");
        for (int i = 0; i < kMessages; ++i) {
          std::string n = std::to_string(i);
          db.Exec(
              "BEGIN IMMEDIATE;"
              "INSERT INTO message VALUES ('w" +
              n + "', 'sess_w', " + n +
              ", 1767600000000, '{\"role\":\"user\"}');"
              "INSERT INTO part VALUES ('wp" +
              n + "', 'w" + n +
              "', 'sess_w', 1, 1767600000000, '{\"type\":\"text\",\"text\":\"message " + n +
              "\"}');COMMIT;");
        }
      } catch (...) {
        rc = 1;  // blocked past its busy timeout, or a write failed
      }
      ::_exit(rc);
    }
    // Meanwhile, Origin looks again and again.
    int status = 0, looks = 0;
    while (::waitpid(child, &status, WNOHANG) == 0) {
      auto r = z.Sync();
      CHECK(r.sources.at(0).errors.empty());
      ++looks;
    }
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);  // the agent was never blocked
    z.Sync();                         // the next look brings the rest
    CHECK(z.Count("id LIKE 'zcode:w%'") == kMessages);
    CHECK(z.Count("text LIKE 'message %'") == kMessages);
    MESSAGE("looks during the writes: " << looks);
  }
}
