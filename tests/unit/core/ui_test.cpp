// SPDX-License-Identifier: MIT
// The operations of the web UI in core (issue 16; docs/architecture.md,
// "Operations of the web UI"), on a real store: a session by turns (prompts,
// command echoes acted on or not, tool calls paired with their results, the
// reply, paging, long turns in parts, `at`), on every adapter's fixture; the
// overview from derived tables; a forget's plan digest; what a forget hides;
// and the audit log of writes from origin ui.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "adapters/claude_code/claude_code.hpp"
#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/ingest/ingester.hpp"
#include "core/query/events.hpp"
#include "core/store/sessions.hpp"
#include "core/store/status.hpp"
#include "core/store/visible.hpp"
#include "core/ui/hidden.hpp"
#include "core/ui/overview.hpp"
#include "core/ui/turns.hpp"
#include "core/util/op_error.hpp"
#include "tests/support/agent_fixtures.hpp"
#include "tests/support/support.hpp"

using namespace origin;
using namespace origin::test;

namespace {

using Code = OpError::Code;

// A Claude Code session written line by line, each line a second after the
// one before (from 2026-01-05T00:00Z; `day` moves them to another day).
struct Session {
  TestStore s;
  std::string root = s.dir / "claude";
  adapters::ClaudeCodeAdapter adapter{root};
  std::string id = "s1";
  std::string lines;
  int n = 0;
  int day = 5;  // of January 2026

  std::string Head(const std::string& type, const std::string& uuid) {
    char ts[40];
    std::snprintf(ts, sizeof ts, "2026-01-%02dT%02d:%02d:%02d.000Z", day, n / 3600 % 24,
                  n / 60 % 60, n % 60);
    ++n;
    return "{\"type\":\"" + type + "\",\"uuid\":\"" + uuid + "\",\"sessionId\":\"" + id +
           "\",\"timestamp\":\"" + ts + "\",\"cwd\":\"/home/dev/app\",";
  }
  // The person's message (a JSON string's content, escaped by the caller).
  std::string User(const std::string& uuid, const std::string& content) {
    lines += Head("user", uuid) + "\"message\":{\"role\":\"user\",\"content\":\"" + content +
             "\"}}\n";
    return "claude-code:" + uuid;
  }
  // The agent's text, and a tool call when `tool_id` is given.
  std::string Say(const std::string& uuid, const std::string& text,
                  const std::string& tool_id = "") {
    std::string content = "[{\"type\":\"text\",\"text\":\"" + text + "\"}";
    if (!tool_id.empty())
      content += ",{\"type\":\"tool_use\",\"id\":\"" + tool_id +
                 "\",\"name\":\"Bash\",\"input\":{\"command\":\"ls\"}}";
    lines += Head("assistant", uuid) +
             "\"message\":{\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":" +
             content + "]}}\n";
    return "claude-code:" + uuid;
  }
  void Result(const std::string& uuid, const std::string& tool_id, bool error) {
    lines += Head("user", uuid) +
             "\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
             "\"tool_use_id\":\"" +
             tool_id + "\",\"content\":\"done\",\"is_error\":" + (error ? "true" : "false") +
             "}]}}\n";
  }
  void Sync() {
    WriteFile(root + "/projects/-home-dev-app/" + id + ".jsonl", lines);
    s.clock.Tick(1000);
    s.ingester->Sync({&adapter}, {});
  }
  TurnsPage Page(std::int64_t page) {
    TurnsQuery q;
    q.session = "claude-code:" + id;
    q.page = page;
    return SessionTurns(*s.db, q);
  }
};

// Every event id a page shows: prompts, items and replies.
std::vector<std::string> Shown(const TurnsPage& p) {
  std::vector<std::string> out;
  for (const Turn& t : p.turns) {
    if (t.prompt && p.part == 1) out.push_back(t.prompt->id);
    for (const TurnItem& it : t.items) {
      if (it.event) out.push_back(it.event->id);
      if (it.call) out.push_back(it.call->id);
      if (it.result) out.push_back(it.result->id);
    }
    if (t.reply) out.push_back(t.reply->id);
  }
  return out;
}

// A knowledge entry by the user citing `event`.
RememberInput Citing(const std::string& event, const std::string& text,
                     const std::string& channel = "cli") {
  RememberInput r;
  r.kind = "knowledge";
  r.text = text;
  r.confidence = 1;
  r.author = "user@laptop";
  r.sources = {{event, std::nullopt}};
  r.channel = channel;
  return r;
}

std::string Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  std::string s;
  for (const std::string& x : v) s += x + "\n";
  return s;
}

}  // namespace

TEST_SUITE("ui") {
  TEST_CASE("turns: prompts start turns; a command starts one only when the agent acts on it; "
            "calls pair with results; the reply is the last message after the last call") {
    Session w;
    w.User("u0", "<local-command-stdout>warming up</local-command-stdout>");  // before any prompt
    const std::string p1 = w.User("u1", "list the files");
    w.Say("a1", "Let me look.", "t1");
    w.Result("r1", "t1", false);
    w.Say("a2", "Once more.", "t2");
    w.Result("r2", "t2", true);
    const std::string reply1 = w.Say("a3", "Here they are.");
    // /model without the agent acting on it: a note of turn 1, no turn.
    const std::string model = w.User(
        "u2", "<command-name>/model</command-name><command-message>model</command-message>"
              "<command-args></command-args>");
    w.User("u3", "<local-command-stdout>Set model to opus</local-command-stdout>");
    // /review with arguments, acted on: a turn whose prompt is the command.
    const std::string review = w.User(
        "u4", "<command-name>/review</command-name><command-args>the parser</command-args>");
    const std::string reply2 = w.Say("a4", "The parser is fine.");
    const std::string p3 = w.User("u5", "thanks");
    w.Say("a5", "Calling one last tool.", "t3");  // no result and no reply
    w.Sync();

    const TurnsPage p = w.Page(1);
    REQUIRE(p.turns.size() == 4);
    CHECK(p.pages == 1);
    CHECK(p.turns_total == 4);
    const Turn& t0 = p.turns[0];
    CHECK(t0.index == 0);
    CHECK(t0.kind == "start");
    CHECK(!t0.prompt);
    REQUIRE(t0.items.size() == 1);
    CHECK(t0.items[0].note == "output");

    const Turn& t1 = p.turns[1];
    CHECK(t1.kind == "prompt");
    CHECK(t1.prompt->id == p1);
    REQUIRE(t1.reply);
    CHECK(t1.reply->id == reply1);
    CHECK(t1.summary.tool_calls == 2);
    CHECK(t1.summary.errors == 1);
    CHECK(t1.summary.messages == 2);
    // Two messages, two paired calls, then the /model echo and its output as notes.
    std::vector<std::string> shape;
    for (const TurnItem& it : t1.items)
      shape.push_back(it.type == TurnItem::Type::kTool      ? "tool:" + it.outcome()
                      : it.type == TurnItem::Type::kMessage ? std::string("message")
                                                            : "note:" + it.note);
    CHECK(shape == std::vector<std::string>{"message", "tool:ok", "message", "tool:error",
                                            "note:command", "note:output"});
    CHECK(t1.items[4].event->id == model);
    CHECK(t1.events == 10);  // the prompt, 2 texts, 2 calls, 2 results, the reply, 2 notes

    const Turn& t2 = p.turns[2];
    CHECK(t2.kind == "command");
    CHECK(t2.prompt->id == review);
    REQUIRE(t2.command);
    CHECK(t2.command->name == "/review");
    CHECK(t2.command->args == "the parser");
    CHECK(t2.reply->id == reply2);

    const Turn& t3 = p.turns[3];
    CHECK(t3.prompt->id == p3);
    CHECK(!t3.reply);  // it called a tool after its last message
    REQUIRE(t3.items.size() == 2);
    CHECK(t3.items[1].outcome() == "pending");

    // Every visible event of the session appears once.
    CHECK(Sorted(Shown(p)) == Sorted([&] {
            std::vector<std::string> ids;
            for (const EventRow& e : SessionEvents(*w.s.db, "claude-code:s1", true, 1000))
              ids.push_back(e.id);
            return ids;
          }()));
  }

  TEST_CASE("turns: a forgotten event is in no turn, and `at` a forgotten event is forgotten "
            "(invariant 2)") {
    Session w;
    w.User("u1", "first question");
    const std::string secret = w.Say("a1", "the password is hunter2");
    w.User("u2", "second question");
    w.Say("a2", "fine");
    w.Sync();
    Forget(*w.s.db, w.s.clock, "laptop", {secret, "a password", "user@laptop"});
    const TurnsPage p = w.Page(1);
    for (const std::string& id : Shown(p)) CHECK(id != secret);
    CHECK(!p.turns[0].reply);
    TurnsQuery q{"claude-code:s1", std::nullopt, std::nullopt, secret};
    CHECK(OpErrorOf([&] { SessionTurns(*w.s.db, q); }) == Code::kForgotten);
  }

  TEST_CASE("turns: 20 turns a page, `at` opens the page of the turn holding the event, and a "
            "turn past 1,500 events comes alone, in parts of 1,500") {
    Session w;
    std::vector<std::string> replies;
    for (int i = 0; i < 45; ++i) {
      w.User("u" + std::to_string(i), "question " + std::to_string(i));
      replies.push_back(w.Say("a" + std::to_string(i), "answer " + std::to_string(i)));
    }
    w.User("long", "a long one");
    for (int i = 0; i < 1600; ++i) w.Say("l" + std::to_string(i), "step " + std::to_string(i));
    w.User("after", "and after");
    w.Sync();

    const TurnsPage p1 = w.Page(1);
    CHECK(p1.pages == 5);  // 20, 20, 5, the long turn, the last one
    CHECK(p1.turns_total == 47);
    CHECK(p1.turns.size() == 20);
    CHECK(p1.turns.front().index == 1);
    const TurnsPage p3 = w.Page(3);
    CHECK(p3.turns.size() == 5);
    CHECK(p3.turns.front().index == 41);

    TurnsQuery at{"claude-code:s1", std::nullopt, std::nullopt, replies[29]};
    const TurnsPage by_at = SessionTurns(*w.s.db, at);
    CHECK(by_at.page == 2);
    CHECK(by_at.at == replies[29]);

    const TurnsPage p4 = w.Page(4);
    REQUIRE(p4.turns.size() == 1);
    CHECK(p4.turns[0].events == 1601);
    CHECK(p4.parts == 2);
    CHECK(p4.part == 1);
    CHECK(p4.turns[0].items.size() == 1499);  // the prompt and 1,499 steps
    CHECK(!p4.turns[0].reply);                // only the last part has it
    TurnsQuery part2{"claude-code:s1", 4, 2, std::nullopt};
    const TurnsPage p4b = SessionTurns(*w.s.db, part2);
    CHECK(p4b.turns[0].prompt->text == "a long one");  // every part shows its prompt
    CHECK(p4b.turns[0].items.size() == 100);
    REQUIRE(p4b.turns[0].reply);
    CHECK(p4b.turns[0].reply->text == "step 1599");
    // `at` inside the second part opens it.
    TurnsQuery in_part{"claude-code:s1", std::nullopt, std::nullopt, "claude-code:l1550"};
    const TurnsPage p4c = SessionTurns(*w.s.db, in_part);
    CHECK(p4c.page == 4);
    CHECK(p4c.part == 2);

    CHECK(OpErrorOf([&] { w.Page(6); }) == Code::kNotFound);
    TurnsQuery part3{"claude-code:s1", 4, 3, std::nullopt};
    CHECK(OpErrorOf([&] { SessionTurns(*w.s.db, part3); }) == Code::kNotFound);
  }

  TEST_CASE("turns: every adapter's fixture sessions, page by page, show each visible event "
            "once and count it in its turn") {
    for (const char* agent : FixtureAgents()) {
      CAPTURE(agent);
      TestStore s;
      std::unique_ptr<SourceAdapter> adapter = AgentFixture(agent, s.dir / agent);
      s.ingester->Sync({adapter.get()}, {});
      SessionFilter all;
      all.limit = 10000;
      const std::vector<SessionRow> sessions = ListSessions(*s.db, all);
      CHECK(!sessions.empty());
      for (const SessionRow& row : sessions) {
        CAPTURE(row.id);
        std::vector<std::string> shown;
        std::int64_t counted = 0, pages = 1;
        for (std::int64_t page = 1; page <= pages; ++page) {
          TurnsQuery q{row.id, page, std::nullopt, std::nullopt};
          const TurnsPage p = SessionTurns(*s.db, q);
          pages = p.pages;
          for (const Turn& t : p.turns) counted += t.events;
          for (const std::string& id : Shown(p)) shown.push_back(id);
        }
        std::vector<std::string> events;
        for (const EventRow& e : SessionEvents(*s.db, row.id, true, 100000)) events.push_back(e.id);
        CHECK(Sorted(shown) == Sorted(events));
        CHECK(counted == static_cast<std::int64_t>(events.size()));
      }
    }
  }

  TEST_CASE("overview: the 30 days by source from the index, minus forgotten events; the kept "
            "result changes with the totals; recent sessions and sources") {
    Session w;
    w.User("u1", "a question about the parser");
    w.Say("a1", "the answer");
    const std::string secret = w.Say("a2", "the password is hunter2");
    w.Sync();
    const std::int64_t now = 1767657600000;  // 2026-01-06T00:00Z: the events are of the day before
    const OverviewPaths paths{w.s.db_path(), ""};
    Overview o = BuildOverview(*w.s.db, now, paths);
    REQUIRE(o.days.size() == 30);
    std::int64_t total = 0;
    for (const OverviewDay& d : o.days) total += d.total;
    CHECK(total == 3);
    CHECK(o.sources_in_days == std::vector<std::string>{"claude-code"});
    CHECK(o.counts.sessions == 1);
    CHECK(o.counts.events == 3);
    REQUIRE(o.projects.size() == 1);
    CHECK(o.projects[0].project == "app");
    CHECK(o.projects[0].events == 3);
    REQUIRE(o.sources.size() == 1);
    CHECK(o.sources[0].source == "claude-code");
    CHECK(o.sources[0].files == 1);
    CHECK(o.storage.database_bytes > 0);
    CHECK(o.storage.mirror_files == 1);
    CHECK(o.storage.mirror_bytes > 0);

    Forget(*w.s.db, w.s.clock, "laptop", {secret, "a password", "user@laptop"});
    o = BuildOverview(*w.s.db, now, paths);
    total = 0;
    for (const OverviewDay& d : o.days) total += d.total;
    CHECK(total == 2);  // the kept result was not used: the totals changed
    CHECK(o.counts.events == 2);
    CHECK(o.counts.forgets_in_effect == 1);
    REQUIRE(o.tombstones.size() == 1);
    CHECK(o.tombstones[0].events == 1);
  }

  TEST_CASE(
      "overview and status agree on a source's files and last ingestion: a sync that only "
      "sealed an idle mirror took nothing in, and a file rewritten is one file") {
    Session w;
    w.User("u1", "a question about the parser");
    w.Say("a1", "the answer");
    const std::string path = w.root + "/projects/-home-dev-app/s1.jsonl";
    WriteFile(path, w.lines);
    w.s.clock.Tick(1000);
    const std::int64_t took = w.s.clock.NowMs();
    // The file last changed then, as an agent's log idle since.
    const timespec at{took / 1000, took % 1000 * 1000000};
    const timespec times[2] = {at, at};
    REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
    w.s.ingester->Sync({&w.adapter}, {});
    // Two hours on, nothing new: the sync seals the idle tail, and records it.
    w.s.clock.Tick(2 * 3600 * 1000);
    w.s.ingester->Sync({&w.adapter}, {});
    REQUIRE(w.s.db->QueryInt("SELECT count(*) FROM sync_log WHERE files = 0 AND events = 0") == 1);
    const auto both = [&](std::int64_t files, std::int64_t last) {
      const std::int64_t now = w.s.clock.NowMs();
      const StoreStatus st = ReadStatus(*w.s.db, w.s.db_path(), now);
      REQUIRE(st.sources.size() == 1);
      CHECK(st.sources[0].files == files);
      CHECK(st.sources[0].last_ingest_ms == last);
      const Overview o = BuildOverview(*w.s.db, now, {w.s.db_path(), ""});
      REQUIRE(o.sources.size() == 1);
      CHECK(o.sources[0].files == files);
      CHECK(o.sources[0].last_ingestion == last);
      CHECK(o.sources[0].sessions == 1);
    };
    both(1, took);
    // Rewritten shorter: a new generation of the same file.
    w.lines.clear();
    w.User("u2", "another question");
    w.Sync();
    REQUIRE(w.s.db->QueryInt("SELECT count(*) FROM raw_file") == 2);
    both(1, w.s.clock.NowMs());
  }

  TEST_CASE("overview: a kept session's counts serve while its row is the same, and never across "
            "a forget or restore; every chart equals one read cold, and the events counted one by "
            "one") {
    Session w;
    w.User("u1", "a question about the parser");
    const std::string a1 = w.Say("a1", "the answer");
    w.day = 4;
    const std::string a2 = w.Say("a2", "written the day before");
    w.day = 5;
    w.Say("a3", "the last word");
    w.Sync();
    const std::int64_t now = 1767657600000;  // 2026-01-06T00:00Z
    const OverviewPaths paths{w.s.db_path(), ""};
    auto chart = [&] {
      std::vector<std::int64_t> days;
      for (const OverviewDay& d : BuildOverview(*w.s.db, now, paths).days) days.push_back(d.total);
      return days;
    };
    auto cold = [&] {
      DropOverviewCache();
      return chart();
    };
    // The visible events counted one by one, title events aside: what every
    // chart must equal, a session's counts read from its row (within one
    // day) or from its events (across days).
    auto one_by_one = [&] {
      std::vector<std::int64_t> starts;
      for (const OverviewDay& d : BuildOverview(*w.s.db, now, paths).days)
        starts.push_back(d.start_ts);
      std::vector<std::int64_t> days(starts.size(), 0);
      auto st = w.s.db->Prepare("SELECT ts FROM event WHERE " + VisibleEventSql("seq") +
                                " AND NOT " + TitleEventSql());
      while (st.Step())
        if (st.Int(0) >= starts.front() && st.Int(0) < now)
          ++days[static_cast<std::size_t>(
              std::upper_bound(starts.begin(), starts.end(), st.Int(0)) - starts.begin() - 1)];
      return days;
    };
    // January 4 and 5 (the last day is the 6th, today)
    auto last_two = [](const std::vector<std::int64_t>& d) {
      return std::vector<std::int64_t>(d.end() - 3, d.end() - 1);
    };
    CHECK(last_two(chart()) == std::vector<std::int64_t>{1, 3});
    CHECK(cold() == one_by_one());
    // A title: an event that counts in no aggregate, the chart's neither.
    w.lines += "{\"type\":\"custom-title\",\"customTitle\":\"named\",\"sessionId\":\"s1\"}\n";
    w.Sync();
    CHECK(last_two(chart()) == std::vector<std::int64_t>{1, 3});
    CHECK(last_two(cold()) == std::vector<std::int64_t>{1, 3});
    CHECK(cold() == one_by_one());

    // Another session arrives (an import): s1's counts are used again.
    w.id = "s2";
    w.lines.clear();
    w.User("u9", "a second session");
    w.lines += "{\"type\":\"custom-title\",\"customTitle\":\"second\",\"sessionId\":\"s2\"}\n";
    w.Sync();
    std::vector<std::int64_t> kept = chart();
    CHECK(last_two(kept) == std::vector<std::int64_t>{1, 4});
    CHECK(kept == cold());

    // Forget a2 (January 4); then forget a1 and restore a2: s1 has 3 visible
    // events and the same last activity again, but not the same days.
    const ForgetOutcome f2 = Forget(*w.s.db, w.s.clock, "laptop", {a2, "old", "user@laptop"});
    CHECK(last_two(chart()) == std::vector<std::int64_t>{0, 4});
    CHECK(cold() == one_by_one());  // s1 within one day now: its row counts
    Forget(*w.s.db, w.s.clock, "laptop", {a1, "wrong", "user@laptop"});
    Restore(*w.s.db, w.s.clock, "laptop", {*f2.tombstone, "fine", "user@laptop"});
    kept = chart();
    CHECK(last_two(kept) == std::vector<std::int64_t>{1, 3});
    CHECK(kept == cold());
    CHECK(kept == one_by_one());
  }

  TEST_CASE("forget: the plan's digest; a forget given a digest the plan no longer has writes "
            "nothing (conflict)") {
    Session w;
    const std::string ev = w.User("u1", "we chose SQLite");
    w.Sync();
    const TombstoneInput preview{ev, "private", "user@laptop", "ui", true};
    const ForgetOutcome plan = Forget(*w.s.db, w.s.clock, "laptop", preview);
    const std::string digest = PlanDigest(plan);
    CHECK(digest.size() == 64);
    CHECK(PlanDigest(Forget(*w.s.db, w.s.clock, "laptop", preview)) == digest);
    // An entry citing the event arrives: forgetting the event would hide it too.
    Remember(*w.s.db, w.s.clock, "laptop", Citing(ev, "SQLite it is"));
    TombstoneInput in = preview;
    in.dry_run = false;
    CHECK(OpErrorOf([&] { ForgetAsPreviewed(*w.s.db, w.s.clock, "laptop", in, digest); }) ==
          Code::kConflict);
    CHECK(ListTombstones(*w.s.db, 10).empty());
    CHECK(!EventHidden(*w.s.db, ev));
    const std::string fresh = PlanDigest(Forget(*w.s.db, w.s.clock, "laptop", preview));
    CHECK(fresh != digest);
    const ForgetOutcome done = ForgetAsPreviewed(*w.s.db, w.s.clock, "laptop", in, fresh);
    CHECK(done.tombstone);
    CHECK(done.entries.size() == 1);
  }

  TEST_CASE("tombstone: what a forget hides, with its text; nothing once it is restored") {
    Session w;
    const std::string ev = w.Say("a1", "the password is hunter2");
    w.User("u1", "ok");
    w.Sync();
    const std::string entry =
        Remember(*w.s.db, w.s.clock, "laptop", Citing(ev, "the password is hunter2 (noted)")).id;
    const ForgetOutcome f = Forget(*w.s.db, w.s.clock, "laptop", {ev, "a password", "user@laptop"});
    ForgetHides h = WhatForgetHides(*w.s.db, *f.tombstone, 1);
    REQUIRE(h.events.size() == 1);
    CHECK(h.events[0].text == "the password is hunter2");
    CHECK(h.events_total == 1);
    REQUIRE(h.entries.size() == 1);
    CHECK(h.entries[0].id == entry);
    CHECK(h.entries[0].text == "the password is hunter2 (noted)");
    CHECK(OpErrorOf([&] { WhatForgetHides(*w.s.db, *f.tombstone, 2); }) == Code::kNotFound);
    Restore(*w.s.db, w.s.clock, "laptop", {*f.tombstone, "fine", "user@laptop"});
    h = WhatForgetHides(*w.s.db, *f.tombstone, 1);
    CHECK(h.events.empty());
    CHECK(h.entries.empty());
    REQUIRE(GetTombstone(*w.s.db, *f.tombstone));
    CHECK(!GetTombstone(*w.s.db, *f.tombstone)->in_effect);
    CHECK(!GetTombstone(*w.s.db, "tmb_000000000000000000000000"));
  }

  TEST_CASE("audit: remember, correct, forget and restore from origin ui are recorded with "
            "actor local, ids and counts only, never a text or a reason") {
    Session w;
    const std::string ev = w.User("u1", "we chose SQLite");
    w.Sync();
    RememberInput r = Citing(ev, "TEXT-OF-THE-ENTRY", "ui");
    const std::string entry = Remember(*w.s.db, w.s.clock, "laptop", r).id;
    CorrectInput c;
    c.text = "TEXT-OF-THE-CORRECTION";
    c.author = "user@laptop";
    c.channel = "ui";
    const std::string version = Correct(*w.s.db, w.s.clock, "laptop", entry, c);
    TombstoneInput f{version, "REASON-OF-THE-FORGET", "user@laptop", "ui"};
    const ForgetOutcome forgot = Forget(*w.s.db, w.s.clock, "laptop", f);
    Restore(*w.s.db, w.s.clock, "laptop",
            {*forgot.tombstone, "REASON-OF-THE-RESTORE", "user@laptop", "ui"});
    // From the CLI: a remember is not recorded, a forget is, as its author.
    r.channel = "cli";
    r.text = "another";
    Remember(*w.s.db, w.s.clock, "laptop", r);
    Forget(*w.s.db, w.s.clock, "laptop", {ev, "REASON-CLI", "user@laptop", "cli"});

    auto st = w.s.db->Prepare("SELECT actor, channel, action, details FROM audit_log ORDER BY seq");
    std::vector<std::string> rows;
    while (st.Step()) {
      const std::string details(st.Text(3));
      for (const char* hidden : {"TEXT-OF", "REASON", "SQLite", "another"})
        CHECK(details.find(hidden) == std::string::npos);
      rows.push_back(std::string(st.Text(0)) + " " + std::string(st.Text(1)) + " " +
                     std::string(st.Text(2)));
    }
    CHECK(rows == std::vector<std::string>{"local ui remember", "local ui correct",
                                           "local ui forget", "local ui restore",
                                           "user@laptop cli forget"});
    auto details = w.s.db->Prepare("SELECT details FROM audit_log WHERE action = 'correct'");
    REQUIRE(details.Step());
    CHECK(std::string(details.Text(0)) == "{\"entry\":\"" + version + "\",\"supersedes\":\"" +
                                              entry + "\",\"sources\":1}");
  }
}
