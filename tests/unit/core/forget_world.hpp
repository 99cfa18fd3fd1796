// SPDX-License-Identifier: MIT
#pragma once
// A store for the tests of forgetting (forget_test.cpp, replica_test.cpp):
// Claude Code sessions written line by line and ingested, entries
// remembered and corrected, forgets and restores, all as store "box".
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "adapters/claude_code/claude_code.hpp"
#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/ingest/ingester.hpp"
#include "core/query/events.hpp"
#include "core/query/search.hpp"
#include "core/store/sessions.hpp"
#include "core/util/op_error.hpp"
#include "tests/support/support.hpp"

namespace origin::test::forget_world {

using Code = OpError::Code;

// A Claude Code user line; `pad` changes the bytes but not the event.
inline std::string Line(const std::string& uuid, const std::string& session, const std::string& text,
                 std::int64_t minute, bool pad = false) {
  char ts[40];
  std::snprintf(ts, sizeof ts, "2026-01-05T%02d:%02d:00.000Z", static_cast<int>(minute / 60 % 24),
                static_cast<int>(minute % 60));
  return std::string("{\"type\":\"user\",") + (pad ? " " : "") + "\"uuid\":\"" + uuid +
         "\",\"sessionId\":\"" + session + "\",\"timestamp\":\"" + ts +
         "\",\"cwd\":\"/home/dev/app\",\"message\":{\"role\":\"user\",\"content\":\"" + text +
         "\"}}\n";
}

inline std::optional<Code> ErrorOf(const std::function<void()>& fn) { return OpErrorOf(fn); }

struct World {
  TestStore s;
  std::string root = s.dir / "claude";
  adapters::ClaudeCodeAdapter adapter{root};
  std::map<std::string, std::vector<std::string>> lines;  // session -> its lines
  int next = 0;

  std::string File(const std::string& session) const {
    return root + "/projects/-home-dev-app/" + session + ".jsonl";
  }
  // Appends a line to `session`; returns its event id.
  std::string Say(const std::string& session, const std::string& text) {
    std::string uuid = "u" + std::to_string(next++);
    lines[session].push_back(Line(uuid, session, text, next));
    AppendFile(File(session), lines[session].back());
    return "claude-code:" + uuid;
  }
  void Sync() {
    s.clock.Tick(1000);
    s.ingester->Sync({&adapter}, {});
  }
  // Appends a title line (custom-title, ai-title) to `session`.
  void Title(const std::string& session, const std::string& type, const std::string& text) {
    const std::string field = type == "custom-title" ? "customTitle" : "aiTitle";
    lines[session].push_back("{\"type\":\"" + type + "\",\"" + field + "\":\"" + text +
                             "\",\"sessionId\":\"" + session + "\"}\n");
    AppendFile(File(session), lines[session].back());
  }
  // The one event whose text holds `text`.
  std::string EventWith(const std::string& text) {
    auto st = s.db->Prepare("SELECT id FROM event WHERE instr(text, ?) > 0");
    st.Bind(1, text);
    std::vector<std::string> ids;
    while (st.Step()) ids.emplace_back(st.Text(0));
    st.Reset();
    REQUIRE(ids.size() == 1);
    return ids[0];
  }
  // What the timeline shows for a session: its title (* when the user gave
  // it), else its provisional name in quotes.
  std::string Name(const std::string& session) {
    auto row = GetSession(*s.db, "claude-code:" + session);
    REQUIRE(row);
    if (row->title) return *row->title + (row->title_manual ? "*" : "");
    return "\"" + row->prompt.value_or("") + "\"";
  }
  // Rewrites a session's file with the same events in other bytes: a new
  // generation, whose events are already here.
  void Rewrite(const std::string& session) {
    std::string all;
    for (std::size_t i = 0; i < lines[session].size(); ++i) {
      std::string l = lines[session][i];
      l.insert(1, " ");
      all += l;
      lines[session][i] = l;
    }
    WriteFile(File(session), all);
    Sync();
  }
  std::string Remember(const std::vector<std::string>& events, const std::string& text = "a fact") {
    RememberInput in;
    in.kind = "knowledge";
    in.text = text;
    in.confidence = 0.7;
    in.author = "user@box";
    for (const auto& e : events) in.sources.push_back({e, std::nullopt});
    s.clock.Tick(10);
    return origin::Remember(*s.db, s.clock, "box", in).id;
  }
  std::string Correct(const std::string& id, const std::vector<std::string>& add = {}) {
    CorrectInput in;
    in.text = "corrected " + id;
    in.author = "user@box";
    for (const auto& e : add) in.add_sources.push_back({e, std::nullopt});
    s.clock.Tick(10);
    return origin::Correct(*s.db, s.clock, "box", id, in);
  }
  ForgetOutcome Forget(const std::string& target, bool dry = false) {
    s.clock.Tick(10);
    return origin::Forget(*s.db, s.clock, "box", {target, "it was private", "user@box", "cli", dry});
  }
  ForgetOutcome Restore(const std::string& id, bool dry = false) {
    s.clock.Tick(10);
    return origin::Restore(*s.db, s.clock, "box", {id, "brought back", "user@box", "cli", dry});
  }
  std::int64_t Count(const std::string& sql) { return s.db->QueryInt(sql); }
  std::int64_t SessionEventsCount(const std::string& session) {
    auto st = s.db->Prepare("SELECT event_count FROM session WHERE id = ?");
    st.Bind(1, "claude-code:" + session);
    std::int64_t n = st.Step() ? st.Int(0) : -1;
    st.Reset();
    return n;
  }
  std::set<std::string> Found(const std::string& word) {
    EventQuery q;
    q.query = word;
    q.recent = true;
    q.limit = 100000;
    std::set<std::string> out;
    for (const EventHit& h : SearchEvents(*s.db, q)) out.insert(h.event.id);
    return out;
  }
};

}  // namespace origin::test::forget_world
