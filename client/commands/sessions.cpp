// SPDX-License-Identifier: MIT
// origin timeline and origin projects: sessions, one session's events, and
// the projects they were in.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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
  if (auto offset = a.Value("offset")) {
    char* end = nullptr;
    const long long n = std::strtoll(offset->c_str(), &end, 10);
    if (offset->empty() || *end != '\0' || n < 0)
      throw UsageError("--offset takes a number, 0 or more");
    if (a.args.empty())
      throw UsageError("--offset is for a session's events: origin timeline SESSION --offset N");
    r.offset = n;
  }
  r.since = DateOption(a, "since");
  r.until = DateOption(a, "until");
  r.source = a.Value("source");
  r.project = a.Value("project");
  r.name = a.Value("name");
  if (r.name && r.session) throw UsageError("--name is for the list of sessions, not one session");
  return proto::Encode(r);
}

std::string SessionName(const rapidjson::Value& s, const Style& st) {
  if (s["title"].IsString()) return OneLine(s["title"].GetString());
  if (s["prompt"].IsString()) return st.Dim("\"" + OneLine(s["prompt"].GetString()) + "\"");
  return st.Dim("(no prompt)");
}

int RenderTimeline(rapidjson::Document& r, const Invocation& a) {
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  const std::size_t width = Output().width;
  std::string out;
  if (r.HasMember("session")) {
    const auto& s = r["session"];
    out += FitWidth(st.Bold(SessionName(s, st)), width) + "\n";
    // The session's handles on one line, its span on the next: each fits
    // an 80-column terminal whole.
    const std::string handle = RefCell(s, st);
    out += FitWidth((handle.empty() ? "" : handle + "  ") + Str(s, "id"), width) + "\n";
    out += FitWidth(Str(s, "project", "-") + " · " + LocalTime(Int(s, "first_ts")) + " → " +
                        LocalTime(Int(s, "last_ts")) + " · " +
                        Plural(Int(s, "events"), "event", "events"),
                    width) +
           "\n";
    if (s.HasMember("parent") && s["parent"].IsString())
      out += FitWidth(st.Dim("forked from " + Str(s, "parent")), width) + "\n";
    out += "\n";
    // References differ in length where one needs more characters to be unique.
    // So do what an event is ("sub-agent system (meta)"), within bounds.
    std::size_t ref_width = 0, who_width = 16;
    for (const auto& e : r["events"].GetArray()) {
      ref_width = std::max(ref_width, Str(e, "ref").size());
      who_width = std::max(who_width, std::min<std::size_t>(DisplayWidth(EventWhat(e)), 24));
    }
    for (const auto& e : r["events"].GetArray()) {
      const std::string ref = ref_width == 0 ? std::string()
                                             : RefCell(e, st) +
                                                   std::string(ref_width - Str(e, "ref").size(), ' ') +
                                                   "  ";
      std::string who = EventWhat(e);
      if (who.size() < who_width) who.resize(who_width, ' ');
      const std::string head = LocalTime(Int(e, "ts")).substr(11) + "  ";
      const std::size_t used = ref_width + (ref_width ? 2 : 0) + DisplayWidth(head) + DisplayWidth(who) + 2;
      const std::string text = Preview(Str(e, "text"), ColumnsLeft(used));
      out += ref + st.Dim(head) + (Str(e, "kind") == "meta" ? st.Dim(who) : who) + "  " + text + "\n";
    }
    const auto n = static_cast<std::int64_t>(r["events"].Size());
    const std::int64_t offset = Int(r, "offset"), total = Int(r, "events_total");
    if (n == 0 && total == 0) out += st.Dim("(no events)") + "\n";
    if (n == 0 && total > 0 && offset >= total)
      out += st.Dim("(none from --offset " + std::to_string(offset) + ": there " +
                    (total == 1 ? "is " : "are ") + Plural(total, "event", "events") +
                    "; --offset 0 shows the first)") +
             "\n";
    else if (offset > 0)
      out += st.Dim("… " + Plural(offset, "event", "events") + " before these: --offset 0") + "\n";
    if (offset + n < total)
      out += st.Dim("… " + Plural(total - offset - n, "more event", "more events") + ": --offset " +
                    std::to_string(offset + n) + " (or --limit " +
                    std::to_string(std::min<std::int64_t>(total, 5000)) + ")") +
             "\n";
    std::fputs(out.c_str(), stdout);
    return 0;
  }
  std::vector<std::vector<std::string>> rows = {{st.Dim("REF"), st.Dim("LAST ACTIVE"), st.Dim("SOURCE"),
                                                 st.Dim("PROJECT"), st.Dim("EVENTS"),
                                                 st.Dim("SESSION"), st.Dim("ID")}};
  for (const auto& s : r["sessions"].GetArray())
    rows.push_back({RefCell(s, st), LocalTime(Int(s, "last_ts")), Str(s, "source"),
                    Str(s, "project", "-"), Thousands(Int(s, "events")), SessionName(s, st),
                    Str(s, "id")});
  if (rows.size() == 1) {
    const std::optional<std::string> name = a.Value("name");
    std::printf("No sessions%s between %s and %s.\n",
                name ? (" named with \"" + TerminalSafe(*name) + "\"").c_str() : "",
                LocalTime(Int(r, "since")).c_str(), LocalTime(Int(r, "until")).c_str());
    return 0;
  }
  // Too wide for the terminal: the session's name is cut first, then the
  // project, then the id (a prefix of it is still an id to type).
  out = Table(rows, {{}, {}, {}, {false, 2, 8}, {true}, {false, 1, 16}, {false, 3, 20}}, width);
  const auto n = static_cast<std::int64_t>(rows.size() - 1);
  const std::int64_t total = r.HasMember("sessions_total") ? Int(r, "sessions_total") : n;
  out += MoreLine(
      n, total, false, "session", "sessions",
      "--limit " + std::to_string(std::min<std::int64_t>(total, 5000)) + ", or a narrower --since",
      st);
  std::fputs(out.c_str(), stdout);
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
  std::fputs(
      Table(rows, {{false, 1, 8}, {true}, {true}, {}, {false, 2, 8}}, Output().width).c_str(),
      stdout);
  return 0;
}

constexpr Option kTimelineOptions[] = {
    {"days", "N", "the last N days (default 7)"},
    kSinceOption,
    kUntilOption,
    {"source", "S", "one agent's sessions: claude-code, codex, cursor, zcode or grok"},
    {"project", "P", "one project's sessions"},
    {"name", "WORDS", "sessions whose title (or first prompt) holds every word, in any case"},
    {"all", "", "with SESSION: tool calls and results too"},
    {"limit", "N", "at most N sessions, or N events of SESSION"},
    {"offset", "N", "with SESSION: from its event N (0 is the first)"},
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
    "  origin timeline --days=90 --name \"parser retry\"\n"
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
    .pages = true,
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
    .pages = true,
};

}  // namespace origin::client
