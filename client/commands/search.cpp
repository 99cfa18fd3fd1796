// SPDX-License-Identifier: MIT
// origin search: entries and events holding every word.

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "proto/requests.hpp"

namespace origin::client {

namespace {

std::string SearchParams(const Invocation& a) {
  proto::SearchRequest r;
  for (const auto& w : a.args) r.query += (r.query.empty() ? "" : " ") + w;
  if (auto scope = a.Value("scope")) r.scope = *scope;
  if (auto limit = PositiveOption(a, "limit")) r.limit = *limit;
  if (auto context = PositiveOption(a, "context")) {
    if (*context > 20) throw UsageError("--context takes a number from 1 to 20");
    r.context = *context;
  }
  r.include_tools = a.Flag("all");
  r.recent = a.Flag("recent");
  r.history = a.Flag("history");
  r.kind = a.Value("kind");
  r.source = a.Value("source");
  r.project = a.Value("project");
  r.since = DateOption(a, "since");
  r.until = DateOption(a, "until");
  r.totals = true;      // say what the limit left out
  r.marks = !a.json();  // where the matches are, to show them in colour
  return proto::Encode(r);
}

// `lead`, an event's time (HH:MM), what it is, and a one-line `text`,
// fitted to the terminal; all dimmed with `dim` (the events around a hit).
std::string ContextRow(const rapidjson::Value& e, std::string_view lead, const std::string& text,
                       const Style& st, bool dim) {
  std::string head = std::string(lead) + LocalTime(Int(e, "ts")).substr(11) + "  ";
  std::string what = EventWhat(e);
  what.resize(std::max<std::size_t>(what.size(), 11), ' ');
  head += what + "  ";
  const std::string line = head + text;
  return FitWidth(dim ? st.Dim(line) : line, Output().width);
}

int RenderSearch(rapidjson::Document& r, const Invocation& a) {
  if (a.json()) {
    PrintedJson(r, true);
    return 0;
  }
  Style st{UseColor(stdout)};
  const std::size_t width = Output().width;
  // The snippets with their matches shown, from the exact snippets (each
  // piece made safe to print) before the answer is made safe as a whole.
  std::vector<std::string> entry_snippets, event_snippets;
  for (const auto& e : r["entries"].GetArray())
    entry_snippets.push_back(Highlight(Str(e, "snippet"), e, st));
  for (const auto& e : r["events"].GetArray())
    event_snippets.push_back(Highlight(Str(e, "snippet"), e, st));
  PrintedJson(r, false);  // every other string made safe to print
  const auto& entries = r["entries"];
  const auto& events = r["events"];
  const bool at_least = r.HasMember("totals_at_least") && r["totals_at_least"].IsBool() &&
                        r["totals_at_least"].GetBool();
  const std::int64_t tools = Int(r, "tool_matches");
  const bool tools_at_least = r.HasMember("tool_matches_at_least") &&
                              r["tool_matches_at_least"].IsBool() &&
                              r["tool_matches_at_least"].GetBool();
  std::string out;
  auto tools_line = [&] {
    if (tools > 0)
      out += st.Dim(Thousands(tools) + (tools_at_least ? "+" : "") + " more in tool calls and " +
                    "results: --all") +
             "\n";
    // A connected device's search is of its own store: say where the rest is.
    if (r.HasMember("hub") && r["hub"].IsString())
      out += st.Dim(std::string("this device's store only; the hub ") + r["hub"].GetString() +
                    " holds what the other devices synced (agents' search tool asks both)") +
             "\n";
  };
  if (entries.Empty() && events.Empty()) {
    out += "Nothing found.\n";
    tools_line();
    std::fputs(out.c_str(), stdout);
    return 0;
  }
  const std::int64_t limit = PositiveOption(a, "limit").value_or(20);
  auto how = [&](std::int64_t total) {
    return "--limit " + std::to_string(std::min<std::int64_t>(total, 1000));
  };
  if (!entries.Empty()) out += st.Bold("Entries") + "\n";
  std::size_t i = 0;
  for (const auto& e : entries.GetArray()) {
    std::string line = EntryLine(e, st);
    out += FitWidth(line.substr(0, line.find('\n')), width) + "\n";
    out += FitWidth("  " + entry_snippets[i++], width) + "\n";
  }
  if (r.HasMember("entries_total")) {
    const std::int64_t total = Int(r, "entries_total");
    out += MoreLine(entries.Size(), total, at_least && total >= 1000, "entry", "entries",
                    how(std::max(total, limit)), st);
  }
  if (!events.Empty()) out += (entries.Empty() ? "" : "\n") + st.Bold("Events") + "\n";
  const bool context = a.Value("context").has_value();
  i = 0;
  for (const auto& e : events.GetArray()) {
    const std::string ref = RefCell(e, st);
    std::string head =
        (ref.empty() ? "" : ref + "  ") + st.Bold(Str(e, "id")) + "  " +
        st.Dim(LocalTime(Int(e, "ts")) + " · " + Str(e, "project", "-") + " · " + EventWhat(e));
    if (e.HasMember("session_title")) head += "  " + Str(e, "session_title");
    out += FitWidth(head, width) + "\n";
    const std::string& snippet = event_snippets[i++];
    if (!context) {
      out += FitWidth("  " + snippet, width) + "\n";
      continue;
    }
    auto rows = [&](const char* key) {
      auto it = e.FindMember(key);
      if (it == e.MemberEnd() || !it->value.IsArray()) return;
      for (const auto& c : it->value.GetArray())
        out +=
            ContextRow(c, "    ", Preview(Str(c, "text"), ColumnsLeft(4 + 5 + 2 + 13)), st, true) +
            "\n";
    };
    rows("before");
    out += ContextRow(e, "  > ", snippet, st, false) + "\n";
    rows("after");
  }
  if (r.HasMember("events_total")) {
    const std::int64_t total = Int(r, "events_total");
    out += MoreLine(events.Size(), total, at_least && total >= 1000, "event", "events",
                    how(std::max(total, limit)), st);
  }
  tools_line();
  std::fputs(out.c_str(), stdout);
  return 0;
}

constexpr Option kSearchOptions[] = {
    {"scope", "both|entries|events", "what to search (default both)"},
    {"all", "", "tool calls and results too"},
    {"recent", "", "newest first instead of by relevance"},
    {"history", "", "ended and superseded entry versions too"},
    {"context", "N", "the N events before and after each event found, in its session"},
    {"kind", "K", "only entries of kind K: memory, knowledge or cognition"},
    kSourceOption,
    kProjectOption,
    kSinceOption,
    kUntilOption,
    kLimitOption,
    kJsonOption};

constexpr std::string_view kSearchDetails =
    "Entries and events holding every word (a case-insensitive substring), ranked\n"
    "by relevance, or newest first with --recent or without a word of three or more\n"
    "characters.  Each event found shows its session's title; --context N adds the\n"
    "N events around it.  Matches show in colour on a terminal, else in brackets.\n"
    "With no word at all it lists the latest entries only: origin timeline lists\n"
    "the sessions, and their events.\n"
    "What the limit leaves out is counted below each section (up to 1,000), and so\n"
    "are the matches in tool calls and results when --all was not given.  A word\n"
    "that starts with a dash goes after --.\n";

constexpr std::string_view kSearchExamples =
    "  origin search catalog deploy\n"
    "  origin search migration --scope events --source codex --since 2026-11-01\n"
    "  origin search \"database is locked\" --all --recent --limit=5 --since 2d\n"
    "  origin search migration --context 2\n"
    "  origin search -- --force-with-lease\n";

}  // namespace

const Command kSearchCommand{
    .name = "search",
    .args = "WORDS...",
    // Any number: the words are one query, as one quoted argument is.
    .max_args = std::numeric_limits<std::size_t>::max(),
    .summary = "entries and events holding every word",
    .options = kSearchOptions,
    .details = kSearchDetails,
    .examples = kSearchExamples,
    .method = "search",
    .build = SearchParams,
    .render = RenderSearch,
    .pages = true,
};

}  // namespace origin::client
