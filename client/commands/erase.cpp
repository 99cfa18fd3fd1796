// SPDX-License-Identifier: MIT
// origin erase: the owner's explicit, recorded, irreversible erasure of what
// a forget in effect hides (core/erase/erase.hpp).  CLI only: no MCP tool
// can erase.

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "proto/requests.hpp"

namespace origin::client {

namespace {

std::string EraseParams(const Invocation& a) {
  std::optional<std::string> reason = a.Value("reason");
  if (!reason || reason->find_first_not_of(" \t\r\n") == std::string::npos)
    throw UsageError("erase needs --reason, saying why (it is kept with the record)");
  if (a.Flag("yes") && a.Flag("dry-run")) throw UsageError("erase takes --yes or --dry-run, not both");
  proto::TombstoneRequest r;
  r.target = a.args.at(0);
  r.reason = *reason;
  r.dry_run = !a.Flag("yes");
  // No request key: erase commits step by step, and running it again takes
  // an interrupted one up where it stopped.
  return proto::Encode(r, "id");
}

int RenderErase(rapidjson::Document& r, const Invocation& a) {
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  const std::string forget = Str(r, "forget");
  const std::string counts = Plural(Int(r, "lines_count"), "mirror line", "mirror lines") + ", " +
                             Plural(Int(r, "events_count"), "event", "events") + " and " +
                             Plural(Int(r, "entries_count"), "entry version", "entry versions");
  const bool yes = a.Flag("yes");
  if (!yes)
    std::printf("%s %s will erase, for good, %s:\n",
                r["resumed"].GetBool() ? "Taking up the erasure of" : "Erasing", forget.c_str(),
                counts.c_str());
  else
    std::printf("Erased %s (%s): %s%s.\n", forget.c_str(), st.Bold(Str(r, "erasure")).c_str(),
                counts.c_str(),
                Int(r, "frames_rewritten") > 0
                    ? (", " + Plural(Int(r, "frames_rewritten"), "sealed frame", "sealed frames") +
                       " written again")
                          .c_str()
                    : "");
  if (yes && r.HasMember("wal_truncated") && !r["wal_truncated"].GetBool())
    std::printf("%s\n", st.Red("origin.db's WAL could not be emptied now (a reader held it): its old "
                                "pages go when SQLite next restarts it")
                             .c_str());
  if (!yes) {
    std::int64_t shown = 0;
    for (const auto& f : r["files"].GetArray()) {
      if (shown++ == 20) break;
      std::string lines;
      for (const auto& l : f["lines"].GetArray())
        lines += (lines.empty() ? "" : ",") + std::to_string(l.GetInt64());
      std::printf("  %s %s line%s %s\n", st.Dim("mirror").c_str(), Str(f, "mirror").c_str(),
                  f["lines"].Size() == 1 ? "" : "s", lines.c_str());
    }
    shown = 0;
    for (const auto& id : r["events"].GetArray()) {
      if (shown++ == 20) break;
      std::printf("  %s %s\n", st.Dim("event ").c_str(), id.GetString());
    }
    shown = 0;
    for (const auto& id : r["entries"].GetArray()) {
      if (shown++ == 20) break;
      std::printf("  %s %s\n", st.Dim("entry ").c_str(), id.GetString());
    }
    std::printf(
        "Each line becomes a filler of the same length, every other line stays as it is; the\n"
        "texts leave the store and its search indexes; the forget can no longer be restored.\n");
  }
  // What Origin does not touch: the agents' own files and any backup.
  bool header = false;
  for (const auto& f : r["files"].GetArray()) {
    if (!f["agent_file_exists"].GetBool()) continue;
    if (!header) std::printf("These agent files still hold the text (Origin never writes there):\n");
    header = true;
    std::printf("  %s\n", Str(f, "agent_file").c_str());
  }
  std::printf("Existing backups of the store are not touched.\n");
  if (r.HasMember("elsewhere")) std::printf("Elsewhere: %s.\n", Str(r, "elsewhere").c_str());
  if (!yes) std::printf("Nothing has changed yet: run it again with --yes to erase.\n");
  return 0;
}

constexpr Option kEraseOptions[] = {kReasonOption, kYesOption, kDryRunOption, kJsonOption};

constexpr std::string_view kEraseDetails =
    "Erases, for good, what a forget in effect hides (TMB_ID: the forget's id or\n"
    "reference, from origin forgotten): each raw line its events were read from\n"
    "becomes a filler of the same length in its mirror, so every other line keeps\n"
    "its bytes, number and id; the events' and entry versions' texts leave the\n"
    "store and every search index, and no page of origin.db or its WAL keeps them.\n"
    "For secrets: a leaked API key.  The erasure is recorded (origin forgotten) and\n"
    "the forget can no longer be restored.  A later rewrite of the agent's file is\n"
    "mirrored with the filler too.  Origin never writes into agents' files: it\n"
    "lists those that still hold the text.  Backups are not touched.  Without --yes\n"
    "it only shows what it would erase; an interrupted erase is taken up again by\n"
    "running it again.\n";

constexpr std::string_view kEraseExamples =
    "  origin erase tmb_3f2a... --reason \"leaked API key\"\n"
    "  origin erase tmb_3f2a... --reason \"leaked API key\" --yes\n";

}  // namespace

const Command kEraseCommand{
    .name = "erase",
    .args = "TMB_ID",
    .min_args = 1,
    .max_args = 1,
    .missing = "a forget's id",
    .summary = "erase for good what a forget hides (secrets); shows it, erases with --yes",
    .options = kEraseOptions,
    .details = kEraseDetails,
    .examples = kEraseExamples,
    .method = "erase",
    .build = EraseParams,
    .render = RenderErase,
};

}  // namespace origin::client
