// SPDX-License-Identifier: MIT
// origin remember, origin correct and origin entries: writing entries and
// listing them.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "proto/requests.hpp"

namespace origin::client {

namespace {

// remember / correct params from the options.
std::string EntryParams(const Invocation& a, bool correct) {
  proto::EntryRequest r;
  const std::size_t text_at = correct ? 1 : 0;
  if (correct) r.id = a.args.at(0);
  if (a.args.size() > text_at) r.text = a.args[text_at];
  r.kind = a.Value("kind");
  if (r.kind && *r.kind != "memory" && *r.kind != "knowledge" && *r.kind != "cognition")
    throw UsageError("--kind must be memory, knowledge or cognition" +
                     (r.kind->empty() ? std::string() : ", not '" + *r.kind + "'"));
  r.project = a.Value("project");
  if (auto v = a.Value("confidence")) {
    char* end = nullptr;
    r.confidence = std::strtod(v->c_str(), &end);
    // Not nan, inf, nor beyond a double's range (1e400 reads as inf): JSON
    // has no such number.
    if (v->empty() || *end != '\0' || !std::isfinite(*r.confidence))
      throw UsageError("--confidence takes a number from 0 to 1");
  }
  if (!correct) {
    // A person says it: knowledge, and sure of it, unless told otherwise.
    if (!r.kind) r.kind = "knowledge";
    if (!r.confidence) r.confidence = 1.0;
  }
  r.valid_from = DateOption(a, "valid-from");
  r.valid_to = DateOption(a, "valid-to");
  // --cite ID [--quote WORDS]: each quote belongs to the cite before it; a
  // quote alone cites the most recent message holding it.
  for (const auto& [k, v] : a.options) {
    if (k == "cite")
      r.sources.push_back({v, std::nullopt});
    else if (k == "quote" && !r.sources.empty() && r.sources.back().event_id &&
             !r.sources.back().quote)
      r.sources.back().quote = v;
    else if (k == "quote")
      r.sources.push_back({std::nullopt, v});
  }
  if (!correct && r.sources.empty())
    throw UsageError(
        "an entry needs at least one source (invariant 1): add --cite EVENT_ID or --quote WORDS");
  r.request_key = a.request_key;
  return proto::Encode(r, correct);
}

std::string EntriesParams(const Invocation& a) {
  proto::EntriesRequest r;
  r.history = a.Flag("history");
  r.kind = a.Value("kind");
  r.project = a.Value("project");
  if (auto limit = PositiveOption(a, "limit")) r.limit = *limit;
  return proto::Encode(r);
}

int RenderEntryWrite(rapidjson::Document& r, const Invocation& a, bool correct) {
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  std::printf("%s %s", correct ? "corrected:" : "remembered:", EntryLine(r["entry"], st).c_str());
  return 0;
}

int RenderEntries(rapidjson::Document& r, const Invocation& a) {
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  if (r["entries"].Empty())
    std::printf("No entries%s.\n",
                a.Flag("history") ? "" : " (--history shows ended and superseded ones)");
  for (const auto& e : r["entries"].GetArray()) std::printf("%s", EntryLine(e, st).c_str());
  if (r.HasMember("truncated") && r["truncated"].IsBool() && r["truncated"].GetBool())
    std::printf("%s\n", st.Dim("… older ones not shown: a --limit above " +
                               std::to_string(r["entries"].Size()) + " lists them")
                            .c_str());
  return 0;
}

// remember and correct take the same options; what differs is in the help.
constexpr Option kRememberOptions[] = {
    {"kind", "memory|knowledge|cognition", "what the entry is (default knowledge)"},
    {"confidence", "0..1", "how sure it is (default 1: you say it)"},
    {"cite", "EVENT_ID", "an event it comes from (a --cite or a --quote is required)"},
    {"quote", "WORDS", "words of the cited event; alone, the latest message holding them"},
    {"project", "P", "the project it belongs to (default: the first cited event's)"},
    {"valid-from", "DATE", "true from DATE"},
    {"valid-to", "DATE", "true until DATE"},
    kJsonOption};

constexpr Option kCorrectOptions[] = {
    {"kind", "K", "memory, knowledge or cognition"},
    {"confidence", "C", "how sure the new version is, 0..1"},
    {"cite", "EVENT_ID", "an event the new version comes from (replaces the sources)"},
    {"quote", "WORDS", "words of the cited event; alone, the latest message holding them"},
    {"project", "P", "the project it belongs to"},
    {"valid-from", "DATE", "true from DATE"},
    {"valid-to", "DATE", "true until DATE"},
    kJsonOption};

constexpr Option kEntriesOptions[] = {
    {"history", "", "every version, ended and superseded ones too"},
    {"kind", "K", "only entries of kind K: memory, knowledge or cognition"},
    {"project", "P", "only one project's entries"},
    {"limit", "N", "at most N entries"},
    kJsonOption};

constexpr std::string_view kRememberDetails =
    "Writes an entry (author user@<device>), citing the events it comes from.  Each\n"
    "--quote belongs to the --cite before it; a --quote alone cites the most recent\n"
    "message (else tool result) holding those words.  Unless given, the kind is\n"
    "knowledge, the confidence 1 (you say it) and the project the first cited\n"
    "event's.\n";

constexpr std::string_view kRememberExamples =
    "  origin remember \"Deploys go through CI, never by hand\" --quote \"through CI\"\n"
    "  origin remember \"Deploys go through CI\" --kind knowledge --confidence 0.9 \\\n"
    "      --cite claude-code:u1 --quote \"through CI\"\n"
    "  origin remember \"The catalog is in Postgres\" --kind memory --confidence=0.8 \\\n"
    "      --quote \"catalog\" --project shop\n";

constexpr std::string_view kCorrectDetails =
    "Supersedes the current version of entry ID with a new one.  Unset fields and\n"
    "the sources carry over from the current version; correcting a version that is\n"
    "no longer current is refused (exit 1).\n";

constexpr std::string_view kCorrectExamples =
    "  origin correct ent_01hx... \"Deploys go through CI and a review\"\n"
    "  origin correct ent_01hx... --confidence 0.5 --valid-to 2026-12-31\n";

constexpr std::string_view kEntriesDetails =
    "The current entries, newest first; --history lists every version, ended and\n"
    "superseded ones too.\n";

constexpr std::string_view kEntriesExamples =
    "  origin entries\n"
    "  origin entries --kind knowledge --project shop --limit 20\n"
    "  origin entries --history --json\n";

}  // namespace

const Command kRememberCommand{
    .name = "remember",
    .args = "TEXT",
    .min_args = 1,
    .max_args = 1,
    .missing = "the entry's text",
    .summary = "write an entry, citing the events it comes from",
    .options = kRememberOptions,
    .details = kRememberDetails,
    .examples = kRememberExamples,
    .method = "remember",
    .writes = true,
    .build = [](const Invocation& a) { return EntryParams(a, false); },
    .render = [](rapidjson::Document& r,
                 const Invocation& a) { return RenderEntryWrite(r, a, false); },
};

const Command kCorrectCommand{
    .name = "correct",
    .args = "ID [TEXT]",
    .min_args = 1,
    .max_args = 2,
    .missing = "an id",
    .summary = "supersede an entry's current version (sources carry over)",
    .options = kCorrectOptions,
    .details = kCorrectDetails,
    .examples = kCorrectExamples,
    .method = "correct",
    .writes = true,
    .build = [](const Invocation& a) { return EntryParams(a, true); },
    .render = [](rapidjson::Document& r,
                 const Invocation& a) { return RenderEntryWrite(r, a, true); },
};

const Command kEntriesCommand{
    .name = "entries",
    .summary = "the current entries, newest first",
    .options = kEntriesOptions,
    .details = kEntriesDetails,
    .examples = kEntriesExamples,
    .method = "entries",
    .build = EntriesParams,
    .render = RenderEntries,
    .pages = true,
};

}  // namespace origin::client
