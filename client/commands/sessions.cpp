// SPDX-License-Identifier: MIT
// origin timeline and origin projects: sessions, one session's events, and
// the projects they were in.

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "proto/requests.hpp"

namespace origin::client {

namespace {

std::string TimelineParams(const Invocation& a) {
  proto::TimelineRequest r;
  if (!a.args.empty()) r.session = a.args[0];
  r.include_tools = a.Flag("all");
  r.days = PositiveOption(a, "days");
  r.limit = PositiveOption(a, "limit");
  r.since = DateOption(a, "since");
  r.until = DateOption(a, "until");
  r.source = a.Value("source");
  r.project = a.Value("project");
  return proto::Encode(r);
}

std::string OneLine(std::string_view text, std::size_t max_chars) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  // Cut by characters, not bytes.
  std::size_t chars = 0, i = 0;
  for (; i < out.size() && chars < max_chars; ++i)
    if ((static_cast<unsigned char>(out[i]) & 0xC0) != 0x80) ++chars;
  while (i < out.size() && (static_cast<unsigned char>(out[i]) & 0xC0) == 0x80) ++i;
  if (i < out.size()) out = out.substr(0, i) + "…";
  return out;
}

std::string SessionName(const rapidjson::Value& s, const Style& st) {
  if (s["title"].IsString()) return s["title"].GetString();
  if (s["prompt"].IsString()) return st.Dim("\"" + std::string(s["prompt"].GetString()) + "\"");
  return st.Dim("(no prompt)");
}

int RenderTimeline(rapidjson::Document& r, const Invocation& a) {
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  if (r.HasMember("session")) {
    const auto& s = r["session"];
    std::printf("%s\n%s · %s · %s · %s → %s · %s events\n\n",
                st.Bold(OneLine(SessionName(s, st), 500)).c_str(), RefCell(s, st).c_str(),
                Str(s, "id").c_str(),
                Str(s, "project", "-").c_str(), LocalTime(Int(s, "first_ts")).c_str(),
                LocalTime(Int(s, "last_ts")).c_str(), Thousands(Int(s, "events")).c_str());
    if (s.HasMember("parent") && s["parent"].IsString())
      std::printf("%s\n\n", st.Dim("forked from " + Str(s, "parent")).c_str());
    // References differ in length where one needs more characters to be unique.
    std::size_t ref_width = 0;
    for (const auto& e : r["events"].GetArray()) ref_width = std::max(ref_width, Str(e, "ref").size());
    for (const auto& e : r["events"].GetArray()) {
      const std::string ref = RefCell(e, st) + std::string(ref_width - Str(e, "ref").size(), ' ');
      std::string who = Str(e, "role");
      std::string kind = Str(e, "kind");
      if (kind == "tool_call") who = "tool " + Str(e, "tool", "?");
      if (kind == "tool_result") who = "result " + Str(e, "tool", "");
      // A sub-agent's row (Claude Code's sidechain) is the sub-agent's, not the session's.
      if (e.HasMember("agent") && e["agent"].IsString()) who = "sub-agent " + who;
      if (kind == "meta") who = st.Dim(who + " (meta)");
      std::printf("%s  %s  %-16s %s\n", ref.c_str(),
                  st.Dim(LocalTime(Int(e, "ts")).substr(11)).c_str(), who.c_str(),
                  OneLine(Str(e, "text"), 110).c_str());
    }
    if (r["events"].Empty()) std::printf("%s\n", st.Dim("(no events)").c_str());
    return 0;
  }
  std::vector<std::vector<std::string>> rows = {{st.Dim("REF"), st.Dim("LAST ACTIVE"), st.Dim("SOURCE"),
                                                 st.Dim("PROJECT"), st.Dim("EVENTS"),
                                                 st.Dim("SESSION"), st.Dim("ID")}};
  for (const auto& s : r["sessions"].GetArray())
    rows.push_back({RefCell(s, st), LocalTime(Int(s, "last_ts")), Str(s, "source"), Str(s, "project", "-"),
                    Thousands(Int(s, "events")), OneLine(SessionName(s, st), 60), Str(s, "id")});
  if (rows.size() == 1) {
    std::printf("No sessions between %s and %s.\n", LocalTime(Int(r, "since")).c_str(),
                LocalTime(Int(r, "until")).c_str());
    return 0;
  }
  std::fputs(Table(rows, {false, false, false, false, true, false, false}).c_str(), stdout);
  return 0;
}

int RenderProjects(rapidjson::Document& r, const Invocation& a) {
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  std::vector<std::vector<std::string>> rows = {{st.Dim("PROJECT"), st.Dim("SESSIONS"),
                                                 st.Dim("EVENTS"), st.Dim("LAST ACTIVE"),
                                                 st.Dim("SOURCES")}};
  for (const auto& p : r["projects"].GetArray())
    rows.push_back({Str(p, "project"), Thousands(Int(p, "sessions")), Thousands(Int(p, "events")),
                    LocalTime(Int(p, "last_ts")), Str(p, "sources")});
  if (rows.size() == 1) {
    std::printf("No projects yet.\n");
    return 0;
  }
  std::fputs(Table(rows, {false, true, true, false, false}).c_str(), stdout);
  return 0;
}

constexpr Option kTimelineOptions[] = {
    {"days", "N", "the last N days (default 7)"},
    kSinceOption,
    kUntilOption,
    {"source", "S", "one agent's sessions: claude-code, codex, cursor, zcode or grok"},
    {"project", "P", "one project's sessions"},
    {"all", "", "with SESSION: tool calls and results too"},
    {"limit", "N", "at most N sessions, or N events of SESSION"},
    kJsonOption};

constexpr std::string_view kTimelineDetails =
    "Without SESSION: the sessions active in the range (default: the last 7 days),\n"
    "latest first, each with its title or, in quotes, its first prompt.\n"
    "With SESSION: that session's events in time order; --all adds tool calls and\n"
    "results.  SESSION is its id, its short reference, its bare UUID, or a unique\n"
    "prefix of one of them.  Times are local.\n";

constexpr std::string_view kTimelineExamples =
    "  origin timeline\n"
    "  origin timeline --since 2026-11-01 --until 2026-11-15 --project origin\n"
    "  origin timeline --days=30 --source codex --limit 20\n"
    "  origin timeline claude-code:4f1c2a --all\n"
    "  origin timeline 4f1c2a91\n";

constexpr Option kProjectsOptions[] = {kJsonOption};

constexpr std::string_view kProjectsDetails =
    "The projects the sessions were in (a project is the repository or folder an\n"
    "agent worked in), latest activity first, with their sessions, events and\n"
    "agents.\n";

constexpr std::string_view kProjectsExamples =
    "  origin projects\n"
    "  origin projects --json\n";

}  // namespace

const Command kTimelineCommand{
    .name = "timeline",
    .args = "[SESSION]",
    .max_args = 1,
    .summary = "sessions of the last 7 days, or one session's events",
    .options = kTimelineOptions,
    .details = kTimelineDetails,
    .examples = kTimelineExamples,
    .method = "timeline",
    .build = TimelineParams,
    .render = RenderTimeline,
};

const Command kProjectsCommand{
    .name = "projects",
    .summary = "the projects the sessions were in, latest first",
    .options = kProjectsOptions,
    .details = kProjectsDetails,
    .examples = kProjectsExamples,
    .method = "projects",
    .build = [](const Invocation&) { return std::string("{}"); },
    .render = RenderProjects,
};

}  // namespace origin::client
