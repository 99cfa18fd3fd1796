// SPDX-License-Identifier: MIT
// origin search: entries and events holding every word.

#include <cstdio>
#include <string>
#include <string_view>

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
  r.include_tools = a.Flag("all");
  r.recent = a.Flag("recent");
  r.history = a.Flag("history");
  r.kind = a.Value("kind");
  r.source = a.Value("source");
  r.project = a.Value("project");
  r.since = DateOption(a, "since");
  r.until = DateOption(a, "until");
  return proto::Encode(r);
}

int RenderSearch(rapidjson::Document& r, const Invocation& a) {
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  const auto& entries = r["entries"];
  const auto& events = r["events"];
  if (entries.Empty() && events.Empty()) {
    std::printf("Nothing found.\n");
    return 0;
  }
  if (!entries.Empty()) std::printf("%s\n", st.Bold("Entries").c_str());
  for (const auto& e : entries.GetArray()) {
    std::string line = EntryLine(e, st);
    std::printf("%s", line.substr(0, line.find('\n') + 1).c_str());
    std::printf("  %s\n", Str(e, "snippet").c_str());
  }
  if (!events.Empty())
    std::printf("%s%s\n", entries.Empty() ? "" : "\n", st.Bold("Events").c_str());
  for (const auto& e : events.GetArray()) {
    std::string what = Str(e, "role") + " " + Str(e, "kind");
    if (e["tool"].IsString()) what += " " + Str(e, "tool");
    std::printf(
        "%s  %s  %s  %s\n  %s\n", RefCell(e, st).c_str(), st.Bold(Str(e, "id")).c_str(),
        st.Dim(LocalTime(Int(e, "ts")) + " · " + Str(e, "project", "-") + " · " + what).c_str(),
        st.Dim(Str(e, "session", "")).c_str(), Str(e, "snippet").c_str());
  }
  return 0;
}

constexpr Option kSearchOptions[] = {
    {"scope", "both|entries|events", "what to search (default both)"},
    {"all", "", "tool calls and results too"},
    {"recent", "", "newest first instead of by relevance"},
    {"history", "", "ended and superseded entry versions too"},
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
    "characters.  Snippets show every match in brackets.  A word that starts with a\n"
    "dash goes after --.\n";

constexpr std::string_view kSearchExamples =
    "  origin search catalog deploy\n"
    "  origin search migration --scope events --source codex --since 2026-11-01\n"
    "  origin search \"database is locked\" --all --recent --limit=5\n"
    "  origin search -- --force-with-lease\n";

}  // namespace

const Command kSearchCommand{
    .name = "search",
    .args = "WORDS...",
    .max_args = 100,
    .summary = "entries and events holding every word",
    .options = kSearchOptions,
    .details = kSearchDetails,
    .examples = kSearchExamples,
    .method = "search",
    .build = SearchParams,
    .render = RenderSearch,
};

}  // namespace origin::client
