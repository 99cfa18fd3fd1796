// SPDX-License-Identifier: MIT
// The daemon's parts on their own: the instance lock, the home checks, the
// worker threads and the loop poster, and when the indexer checks the index.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <rapidjson/document.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "core/store/schema.hpp"
#include "core/util/text.hpp"
#include "core/util/op_error.hpp"
#include "core/store/event_index.hpp"
#include "daemon/indexer.hpp"
#include "daemon/instance.hpp"
#include "daemon/mcp/tools.hpp"
#include "daemon/rpc_json.hpp"
#include "daemon/server.hpp"
#include "daemon/uv.hpp"
#include "daemon/workers.hpp"
#include "proto/base64.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

TEST_SUITE("daemon") {
  TEST_CASE("daemon: the instance lock is held once, and names its holder") {
    ScopedTempDir d;
    std::string holder;
    auto first = InstanceLock::TryAcquire(d.path(), d / "x.lock", &holder);
    REQUIRE(first);
    first->WritePidAndVersion("9.9.9");
    auto second = InstanceLock::TryAcquire(d.path(), d / "x.lock", &holder);
    CHECK_FALSE(second);
    CHECK(holder == "originsd pid " + std::to_string(::getpid()) + " version 9.9.9");
    first.reset();  // released with its descriptors
    CHECK(InstanceLock::TryAcquire(d.path(), d / "x.lock", &holder));
  }

  TEST_CASE("daemon: the instance lock holds when its lock file is removed or replaced") {
    ScopedTempDir d;
    std::string holder;
    auto first = InstanceLock::TryAcquire(d.path(), d / "x.lock", &holder);
    REQUIRE(first);
    REQUIRE(::unlink((d / "x.lock").c_str()) == 0);
    CHECK_FALSE(InstanceLock::TryAcquire(d.path(), d / "x.lock", &holder));
    CHECK(holder == "another originsd");
    CHECK_FALSE(Exists(d / "x.lock"));  // the refused one did not create it again
    // A lock file held by a daemon of an earlier version (which locks only
    // the file) refuses a new one too.
    first.reset();
    UniqueFd old = OpenFile(d / "x.lock", O_RDWR | O_CREAT);
    REQUIRE(::flock(old.get(), LOCK_EX | LOCK_NB) == 0);
    CHECK_FALSE(InstanceLock::TryAcquire(d.path(), d / "x.lock", &holder));
    old.Reset();
    CHECK(InstanceLock::TryAcquire(d.path(), d / "x.lock", &holder));
  }

  TEST_CASE("daemon: a socket path is unlinked only while it is still the same file") {
    ScopedTempDir d;
    const std::string path = d / "s";
    WriteFile(path, "ours");
    auto ours = FileIdOf(path);
    REQUIRE(ours);
    // The same name, another file (made while ours exists: another inode).
    WriteFile(path + ".new", "theirs");
    REQUIRE(::rename((path + ".new").c_str(), path.c_str()) == 0);
    auto theirs = FileIdOf(path);
    CHECK(theirs != ours);
    CHECK_FALSE(UnlinkIfSame(path, *ours));
    CHECK(ReadAll(path) == "theirs");
    CHECK(UnlinkIfSame(path, *theirs));
    CHECK_FALSE(Exists(path));
    CHECK_FALSE(UnlinkIfSame(path, *theirs));  // gone
  }

  TEST_CASE("daemon: the home is created 0700 and refused when others can write it") {
    ScopedTempDir d;
    proto::Paths p = proto::ResolvePaths(d / "deep/home");
    PrepareHome(p);
    struct stat st {};
    REQUIRE(::stat(p.home.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    REQUIRE(::stat(p.run.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    CHECK(Exists(p.raw));
    ::chmod(p.home.c_str(), 0770);
    CHECK_THROWS_WITH(PrepareHome(p), doctest::Contains("chmod go-w"));
  }

  TEST_CASE(
      "daemon: workers run jobs in order, urgent ones first and between a long job's steps, "
      "which sees them waiting") {
    ScopedTempDir d;
    const std::string path = d / "o.db";
    OpenWriteConnection(path);
    std::mutex mu;
    std::vector<std::string> ran;
    auto log = [&](const std::string& s) {
      std::lock_guard lock(mu);
      ran.push_back(s);
    };
    std::atomic<bool> release{false};
    // What the long job sees of urgent work (an import's group of
    // transactions ends when some waits: SyncOptions::waiting).
    bool waiting_first = true, waiting_then = false, waiting_after = true;
    {
      DbWorkers w("test", 1, [&] { return OpenReadConnection(path); });
      w.Post([&](Db& db) {
        waiting_first = w.UrgentWaiting();
        log("long:1");
        while (!release) std::this_thread::yield();
        waiting_then = w.UrgentWaiting();
        w.RunUrgent(db);  // between two transactions of a long job
        waiting_after = w.UrgentWaiting();
        log("long:2");
      });
      for (;;) {  // the long job runs before the others are queued
        {
          std::lock_guard lock(mu);
          if (!ran.empty()) break;
        }
        std::this_thread::yield();
      }
      w.Post([&](Db&) { log("normal"); });
      w.Post([&](Db&) { log("urgent"); }, /*urgent=*/true);
      release = true;
      w.Post([&](Db&) { log("last"); });
      // Stop() finishes what is running; wait until everything ran first.
      for (;;) {
        {
          std::lock_guard lock(mu);
          if (ran.size() == 5) break;
        }
        std::this_thread::yield();
      }
    }
    CHECK(ran == std::vector<std::string>{"long:1", "urgent", "long:2", "normal", "last"});
    CHECK_FALSE(waiting_first);
    CHECK(waiting_then);
    CHECK_FALSE(waiting_after);
  }

  TEST_CASE("daemon: a forked job runs on a free reader beside its caller, else in Join") {
    ScopedTempDir d;
    const std::string path = d / "o.db";
    OpenWriteConnection(path);
    // Two threads: the caller's job forks one, which the other thread runs
    // while the caller still works; Join waits for it.
    {
      DbWorkers w("test", 2, [&] { return OpenReadConnection(path); });
      std::atomic<bool> forked_ran{false}, taken{false}, caller_done{false};
      std::thread::id caller, runner;
      std::promise<void> finished;
      w.Post([&](Db& db) {
        caller = std::this_thread::get_id();
        DbWorkers::Forked f = w.Fork([&](Db&) {
          runner = std::this_thread::get_id();
          taken = true;
          while (!caller_done) std::this_thread::yield();  // ran beside the caller
          forked_ran = true;
        });
        // The other thread takes the forked job while this one works.
        while (!taken) std::this_thread::yield();
        caller_done = true;
        f.Join(db);
        CHECK(forked_ran);
        finished.set_value();
      });
      finished.get_future().wait();
      CHECK(runner != caller);
    }
    // One thread, busy with the caller: nobody else can take the forked
    // job, so Join runs it on the caller's thread (no waiting on itself),
    // and what it throws reaches the caller.
    {
      DbWorkers w("test", 1, [&] { return OpenReadConnection(path); });
      std::promise<std::string> result;
      w.Post([&](Db& db) {
        const auto caller = std::this_thread::get_id();
        std::thread::id ran;
        DbWorkers::Forked f = w.Fork([&](Db&) {
          ran = std::this_thread::get_id();
          throw std::runtime_error("from the forked job");
        });
        try {
          f.Join(db);
          result.set_value("no error");
        } catch (const std::runtime_error& e) {
          result.set_value(std::string(e.what()) + (ran == caller ? " on the caller" : " elsewhere"));
        }
      });
      CHECK(result.get_future().get() == "from the forked job on the caller");
    }
  }

  TEST_CASE("daemon: functions posted from other threads run on the loop thread") {
    uv_loop_t loop;
    REQUIRE(uv_loop_init(&loop) == 0);
    {
      LoopPoster poster(&loop);
      std::thread::id loop_thread = std::this_thread::get_id();
      int ran = 0;
      bool on_loop = true;
      std::thread t([&] {
        for (int i = 0; i < 100; ++i)
          poster.Post([&] {
            on_loop = on_loop && std::this_thread::get_id() == loop_thread;
            if (++ran == 100) poster.Close();
          });
      });
      uv_run(&loop, UV_RUN_DEFAULT);  // returns once the poster is closed
      t.join();
      CHECK(ran == 100);
      CHECK(on_loop);
      poster.Post([&] { ++ran; });  // after Close: dropped
      uv_run(&loop, UV_RUN_NOWAIT);
      CHECK(ran == 100);
    }
    CHECK(uv_loop_close(&loop) == 0);
  }

  TEST_CASE("daemon: MCP arguments are checked against the tool's schema, strictly (issue 13)") {
    // The message a tool error carries for `args`, or "" when they pass.
    auto refused = [](const char* tool, const char* args) -> std::string {
      rapidjson::Document d;
      d.Parse(args);
      REQUIRE_FALSE(d.HasParseError());
      try {
        mcp::CheckArguments(*mcp::FindTool(tool), &d);
        return "";
      } catch (const OpError& e) {
        CHECK(e.code() == OpError::Code::kInvalidArgument);
        return e.what();
      }
    };
    CHECK(refused("search", R"({"query":"chunk","include_tools":true,"limit":50,"offset":0})") == "");
    CHECK(refused("search", R"({"query":"chunk","kind":null})") == "");  // null: not given
    CHECK(refused("search", R"({"query":"chunk","all":true})") ==
          "unknown argument 'all'; the valid ones are: query, scope, kind, include_tools, recent, "
          "history, source, project, since, until, limit, offset");
    CHECK(refused("search", R"({"limit":"5"})") == "limit must be an integer");
    CHECK(refused("search", R"({"limit":5.5})") == "limit must be an integer");
    CHECK(refused("search", R"({"limit":51})") == "limit must be at most 50");
    CHECK(refused("search", R"({"limit":0})") == "limit must be at least 1");
    CHECK(refused("search", R"({"recent":1})") == "recent must be true or false");
    CHECK(refused("search", R"({"scope":"all"})") ==
          "scope must be one of both, entries, events (not 'all')");
    CHECK(refused("get", R"({})") == "id is required");
    CHECK(refused("get", R"({"id":null})") == "id is required");
    CHECK(refused("remember", R"({"kind":"memory","text":"t","confidence":1.5,"sources":[{"quote":"q"}]})") ==
          "confidence must be at most 1");
    CHECK(refused("remember", R"({"kind":"memory","text":"t","confidence":1,"sources":[{"quote":"q","line":3}]})") ==
          "unknown field 'line' in sources[0]; the valid ones are: event_id, quote");
    CHECK(refused("remember", R"({"kind":"memory","text":"t","confidence":1,"sources":[]})") ==
          "sources needs at least 1 item");
    CHECK(refused("correct", R"({"id":"ent_1","sources":[{"event_id":7}]})") ==
          "sources[0].event_id must be a string");
    // Every tool refuses an unknown argument, and its schemas are JSON
    // objects (outputSchema too: SDK clients reject every tool otherwise).
    for (const mcp::Tool& t : mcp::AllTools()) {
      CHECK(refused(t.name, R"({"bogus":1})").rfind("unknown argument 'bogus'", 0) == 0);
      CHECK(std::string(mcp::InputSchema(t)["type"].GetString()) == "object");
      CHECK(std::string(mcp::OutputSchema(t)["type"].GetString()) == "object");
    }
    // Arguments that are not an object.
    rapidjson::Document list;
    list.Parse("[1]");
    CHECK_THROWS_WITH(mcp::CheckArguments(*mcp::FindTool("get"), &list), "arguments must be an object");
  }

  TEST_CASE("daemon: MCP answers are cut to their bound, at character boundaries") {
    // Small answers come back as they were.
    CHECK(rpc::BoundStrings(R"({"a":"x"})", 100, "get one id") == R"({"a":"x"})");
    // Three long texts, one with multi-byte characters, and short fields.
    std::string big(60000, 'a');
    std::string cjk;
    for (int i = 0; i < 20000; ++i) cjk += "\xe8\xa8\x98";  // 記, 3 bytes
    std::string json = R"({"events":[{"id":"e1","truncated":false,"text":")" + big +
                       R"("},{"id":"e2","text":")" + cjk +
                       R"("},{"id":"e3","truncated":false,"text":"short"}]})";
    std::string out = rpc::BoundStrings(json, 80000, "get one id");
    CHECK(out.size() <= 80000);
    rapidjson::Document d;
    d.Parse(out.c_str());
    REQUIRE_FALSE(d.HasParseError());
    const auto& ev = d["events"];
    CHECK(std::string(ev[0]["id"].GetString()) == "e1");
    CHECK(std::string(ev[2]["text"].GetString()) == "short");
    std::string t0 = ev[0]["text"].GetString(), t1 = ev[1]["text"].GetString();
    CHECK(t0.find("cut:") != std::string::npos);
    CHECK(t0.find("of 60000 bytes") != std::string::npos);
    CHECK(t1.find("of 60000 bytes") != std::string::npos);
    // Cut where a character starts: what is kept is whole characters.
    std::string kept1 = t1.substr(0, t1.find(" [... cut"));
    CHECK(kept1.size() % 3 == 0);
    CHECK(kept1 == cjk.substr(0, kept1.size()));
    CHECK(t0.size() > 30000);  // the budget is shared, not given away
    // An event whose text was cut says so; one left whole does not.
    CHECK(ev[0]["truncated"].GetBool());
    CHECK_FALSE(ev[2]["truncated"].GetBool());
    CHECK_FALSE(ev[1].HasMember("truncated"));
  }

  TEST_CASE("daemon: every JSON answer is valid UTF-8; raw bytes keep their exact copy") {
    rapidjson::StringBuffer sb;
    rpc::Writer w(sb);
    const std::string line = "{\"text\":\"bad \xff\xfe end\"}";
    w.StartObject();
    w.Key("cwd");
    w.String("/home/\xc3(dev");  // a cut sequence, from outside
    rpc::WriteBytes(w, "raw", line);
    rpc::WriteBytes(w, "good", "plain \xe8\xa8\x98");
    rpc::WriteBytes(w, "nul", std::string("a\0b", 3));
    w.EndObject();
    const std::string out = sb.GetString();
    CHECK(ValidUtf8(out));
    rapidjson::Document d;
    d.Parse<rapidjson::kParseValidateEncodingFlag>(out.c_str());
    REQUIRE_FALSE(d.HasParseError());
    CHECK(std::string(d["cwd"].GetString()) == "/home/\xef\xbf\xbd(dev");
    // The text: U+FFFD for each bad byte (still the JSON it was); the bytes: exact.
    CHECK(std::string(d["raw"].GetString()) == "{\"text\":\"bad \xef\xbf\xbd\xef\xbf\xbd end\"}");
    CHECK(proto::Base64Decode(d["raw_base64"].GetString()) == line);
    // Valid text has no copy.
    CHECK(std::string(d["good"].GetString()) == "plain \xe8\xa8\x98");
    CHECK_FALSE(d.HasMember("good_base64"));
    // NUL is dropped from the text, as ingestion does; the copy keeps it.
    CHECK(std::string(d["nul"].GetString()) == "ab");
    CHECK(proto::Base64Decode(d["nul_base64"].GetString()) == std::string("a\0b", 3));
  }
}

#include "daemon/operations/operations.hpp"
#include "proto/protocol.hpp"

TEST_SUITE("daemon") {
  TEST_CASE("daemon: every error kind has its protocol code and the CLI's exit code") {
    using C = OpError::Code;
    const std::pair<C, const char*> kinds[] = {
        {C::kInvalidArgument, "invalid_argument"}, {C::kNotFound, "not_found"},
        {C::kForgotten, "forgotten"},             {C::kConflict, "conflict"},
        {C::kUnavailable, "unavailable"},         {C::kUnknownMethod, "unknown_method"},
        {C::kProtocol, "protocol"},               {C::kInternal, "internal"}};
    for (const auto& [code, name] : kinds) {
      CHECK(std::string(CodeName(code)) == name);
      CHECK(proto::ExitCodeFor(name) != proto::kExitOk);
    }
    CHECK(proto::ExitCodeFor("invalid_argument") == proto::kExitUsage);
    CHECK(proto::ExitCodeFor("not_found") == proto::kExitNotFound);
    CHECK(proto::ExitCodeFor("unavailable") == proto::kExitUnavailable);
  }

  TEST_CASE("daemon: a large search index is checked a minute after the start, a small one at "
            "once, and a search's report of damage at once either way") {
    CHECK(Indexer::StartCheckDelay(0).count() == 0);
    CHECK(Indexer::StartCheckDelay(Indexer::kLargeIndexBytes - 1).count() == 0);
    CHECK(Indexer::StartCheckDelay(Indexer::kLargeIndexBytes) == std::chrono::seconds(60));
    TestStore s;
    s.db->Exec("INSERT INTO raw_file(id, source, key, generation, path, mirror, created_at) "
               "VALUES (1, 't', 'k', 1, '/x', 't/k', 0)");
    for (int i = 1; i <= 50; ++i)
      s.db->Prepare("INSERT INTO event(id, source, session, ts, role, kind, text, file_id, line) "
                    "VALUES (?, 'claude-code', 's', ?, 'user', 'message', 'a catalog line', 1, ?)")
          .Bind(1, "t:" + std::to_string(i))
          .Bind(2, std::int64_t{1700000000000} + i)
          .Bind(3, i)
          .Run();
    auto wait = [](Indexer& ix, auto done) {
      for (int i = 0; i < 2000 && !done(ix.GetHealth()); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return done(ix.GetHealth());
    };
    auto caught_up = [](const Indexer::Health& h) { return h.state == "ok"; };
    auto checked = [](const Indexer::Health& h) { return h.checked_at_ms > 0; };
    const std::string index_path = s.dir / "index.db";
    for (const auto after : {std::chrono::milliseconds(0), std::chrono::milliseconds(3600000)}) {
      CAPTURE(after.count());
      Indexer ix(std::make_unique<EventIndex>(index_path, s.db_path()), [] { return 1; }, after);
      // The first pass checks (when due) before it catches up: once caught
      // up, a check due at start has been made.
      REQUIRE(wait(ix, caught_up));
      CHECK(checked(ix.GetHealth()) == (after.count() == 0));
      ix.Suspect("a search met damage");
      CHECK(wait(ix, checked));
      ix.Stop();
    }
  }

  TEST_CASE("daemon: a request with a zero of a huge exponent (0e308) decodes to 0 "
            "(fuzz: protocol)") {
    // RapidJSON 1.1's full-precision parse counts the leading zeros of a
    // zero significand here (undefined behaviour): the daemon does not use
    // it (proto::kJsonParseFlags), and the replays halt on a sanitizer's report.
    for (const char* n : {"0e308", "-0.000e300", "0E-300"}) {
      CAPTURE(n);
      RequestLine r;
      DecodeRequestLine(std::string("{\"id\":1,\"method\":\"remember\",\"params\":"
                                    "{\"confidence\":") + n + "}}",
                        &r);
      REQUIRE(!r.error);
      CHECK((*r.params)["confidence"].GetDouble() == 0.0);
    }
  }

  TEST_CASE("daemon: the table lists every socket method once, each with a handler") {
    std::set<std::string> methods;
    for (const Operation& op : AllOperations()) {
      CHECK((op.start != nullptr));
      CHECK(methods.insert(std::string(op.method)).second);
      CHECK(Operations::Find(op.method) == &op);
      // Writes run on the writer and take a request key; reads wait for the first sync.
      if (op.writes) CHECK(op.thread == Thread::kWriter);
      if (op.thread == Thread::kReader) CHECK(op.after_first_sync);
      // A read's answer comes from one snapshot of the store, but for the
      // reads of the whole store (their own, shorter, transactions).
      const bool whole_store = op.method == "verify" || op.method == "check";
      CHECK(op.one_snapshot == (op.thread == Thread::kReader && !whole_store));
      // The writes of an entry, which cites what was said a moment ago,
      // ingest what is new first, on the socket as through MCP.
      CHECK(op.cites_fresh == (op.method == "remember" || op.method == "correct"));
    }
    // MCP's tools call them (the writes' freshness is their operation's).
    for (const mcp::Tool& tool : mcp::AllTools()) {
      const Operation* op = Operations::Find(tool.operation);
      REQUIRE(op != nullptr);
      if (tool.fresh == mcp::Fresh::kWatched) CHECK(tool.read_only);
    }
    CHECK(methods == std::set<std::string>{"ping", "status", "sync", "shutdown", "timeline",
                                           "projects", "show", "sources", "entries", "search",
                                           "forgotten", "check", "remember", "correct",
                                           "forget", "restore", "erase", "backup", "verify",
                                           "token_create", "token_revoke", "token_list", "hub_connect", "hub_status", "hub_disconnect",
                                           "overview", "turns", "tombstone", "ui"});
    CHECK(Operations::Find("reticulate") == nullptr);
  }

  TEST_CASE("daemon: no MCP tool calls the web UI's operations; tombstone, the one answer with "
            "hidden text, is the owner's alone (issue 16)") {
    REQUIRE(!mcp::AllTools().empty());
    for (const mcp::Tool& t : mcp::AllTools()) {
      CAPTURE(t.operation);
      CHECK(t.operation != "tombstone");
      CHECK(t.operation != "overview");
      CHECK(t.operation != "turns");
    }
  }
}
