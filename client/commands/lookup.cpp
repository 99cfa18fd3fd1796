// SPDX-License-Identifier: MIT
// origin show and origin sources: one event or entry, and the original log
// lines behind it.

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "proto/base64.hpp"
#include "proto/requests.hpp"

namespace origin::client {

namespace {

namespace proto = origin::proto;

std::string IdParams(const Invocation& a) {
  proto::IdRequest r;
  r.id = a.args[0];
  r.full = a.Flag("full");
  return proto::Encode(r);
}

int RenderShow(rapidjson::Document& r, const Invocation& a) {
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  if (r.HasMember("entry")) {
    std::printf("%s", EntryLine(r["entry"], st).c_str());
    std::printf("\n%s\n", st.Dim("sources").c_str());
    for (const auto& src : r["entry"]["sources"].GetArray())
      std::printf("  %s  %s%s\n", RefCell(src, st).c_str(), Str(src, "event_id").c_str(),
                  src["quote"].IsString() ? ("  \"" + Str(src, "quote") + "\"").c_str() : "");
    if (r["history"].Size() > 1) {
      std::printf("\n%s\n", st.Dim("history, oldest first").c_str());
      for (const auto& v : r["history"].GetArray()) std::printf("%s", EntryLine(v, st).c_str());
    }
    return 0;
  }
  const auto& e = r["event"];
  std::printf("%s  %s  %s\n", RefCell(e, st).c_str(), st.Bold(Str(e, "id")).c_str(),
              st.Dim(Str(e, "time")).c_str());
  std::vector<std::vector<std::string>> rows;
  for (const char* k : {"kind", "role", "session", "project", "cwd", "git_branch", "tool",
                        "call_id", "agent", "model"})
    if (e.HasMember(k) && e[k].IsString()) rows.push_back({st.Dim(k), e[k].GetString()});
  if (e["is_error"].GetBool()) rows.push_back({st.Dim("error"), st.Red("yes")});
  std::fputs(Table(rows, {false, false}).c_str(), stdout);
  std::printf("\n%s\n", Str(e, "text").c_str());
  // Ingestion keeps the first 2,000 or 4,000 characters of a tool event:
  // say so, and how to see the rest.
  if (e.HasMember("truncated") && e["truncated"].IsBool() && e["truncated"].GetBool())
    std::printf("%s\n", st.Dim("… cut at ingestion: " + Thousands(Int(e, "stored_chars")) + " of " +
                               Thousands(Int(e, "full_chars")) + " characters shown; origin show " +
                               Str(e, "id") + " --full shows them all")
                            .c_str());
  return 0;
}

int RenderSources(rapidjson::Document& r, const Invocation& a) {
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  for (const auto& s : r["sources"].GetArray()) {
    // A generated line that copies the agent's own: the agent's line is
    // shown, and where the generated one is in the mirror.
    const std::string generated =
        s.HasMember("generated") && s["generated"].IsObject()
            ? ", generated line " + std::to_string(Int(s["generated"], "line"))
            : "";
    std::printf("%s:%lld  %s\n", Str(s, "file").c_str(), static_cast<long long>(Int(s, "line")),
                st.Dim("(mirror " + Str(s, "mirror") + ", generation " +
                       std::to_string(Int(s, "generation")) + generated + ")")
                    .c_str());
    if (s.HasMember("withheld")) {
      std::printf("%s\n", st.Dim("(not shown: " + Str(s, "withheld") + ")").c_str());
      continue;
    }
    // Bytes that are not UTF-8 are shown as \xNN, from the exact bytes.
    std::string raw = Str(s, "raw");
    auto bytes =
        s.HasMember("raw_base64") ? proto::Base64Decode(Str(s, "raw_base64")) : std::nullopt;
    if (bytes) raw = TerminalSafe(*bytes);
    std::printf("%s\n", raw.c_str());
  }
  return 0;
}

constexpr Option kJsonOnly[] = {kJsonOption};
constexpr Option kShowOptions[] = {
    {"full", "", "a tool event's whole text, read again from its log line"}, kJsonOption};

constexpr std::string_view kShowDetails =
    "An event with its text (kind, role, session, project, cwd, tool, ...), or an\n"
    "entry with its sources and, when it was corrected, its history.  ID is a full\n"
    "id, a short reference (the first column of timeline, search, entries), or a\n"
    "unique prefix of either; an ambiguous one lists the candidates (exit 2).  A\n"
    "tool call or result is stored cut to 2,000 or 4,000 characters: show says so,\n"
    "and --full reads the whole text again from the event's original log line.\n";

constexpr std::string_view kShowExamples =
    "  origin show claude-code:u1\n"
    "  origin show k3m9p\n"
    "  origin show claude-code:u1#2 --full\n"
    "  origin show ent_01hx... --json\n";

constexpr std::string_view kSourcesDetails =
    "The original log lines behind an event, or behind each event an entry cites:\n"
    "the agent's file, the line number in its mirror under raw/, and the exact\n"
    "bytes (those that are not UTF-8 shown as \\xNN).\n";

constexpr std::string_view kSourcesExamples =
    "  origin sources claude-code:u1\n"
    "  origin sources ent_01hx... --json\n";

}  // namespace

const Command kShowCommand{
    .name = "show",
    .args = "ID",
    .min_args = 1,
    .max_args = 1,
    .missing = "an id",
    .summary = "an event with its full text, or an entry with its history",
    .options = kShowOptions,
    .details = kShowDetails,
    .examples = kShowExamples,
    .method = "show",
    .build = IdParams,
    .render = RenderShow,
    .pages = true,
};

const Command kSourcesCommand{
    .name = "sources",
    .args = "ID",
    .min_args = 1,
    .max_args = 1,
    .missing = "an id",
    .summary = "the original log lines behind an event or an entry",
    .options = kJsonOnly,
    .details = kSourcesDetails,
    .examples = kSourcesExamples,
    .method = "sources",
    .build = IdParams,
    .render = RenderSources,
    .pages = true,
};

}  // namespace origin::client
