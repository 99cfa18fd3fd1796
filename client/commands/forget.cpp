// SPDX-License-Identifier: MIT
// origin forget, origin restore and origin forgotten: hiding what should not
// be found, undoing it, and the record of both (spec: Forgetting).

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "proto/requests.hpp"

namespace origin::client {

namespace {

// forget / restore params; the reason is required.
std::string TombstoneParams(const Invocation& a) {
  const std::string name(a.command->name);
  std::optional<std::string> reason = a.Value("reason");
  if (!reason || reason->find_first_not_of(" \t\r\n") == std::string::npos)
    throw UsageError(name + " needs --reason, saying why (it is kept with the record)");
  proto::TombstoneRequest r;
  r.target = a.args.at(0);
  r.reason = *reason;
  if (a.Flag("yes") && a.Flag("dry-run"))
    throw UsageError(name + " takes --yes or --dry-run, not both");
  r.dry_run = !a.Flag("yes");
  r.request_key = a.request_key;
  return proto::Encode(r, name == "forget" ? "target" : "id");
}

// "3 entry versions (1 entry) and 2 events in 1 session"
std::string Counts(const rapidjson::Value& r) {
  auto n = [&](const char* key, const char* one, const char* many) {
    return Plural(Int(r, key), one, many);
  };
  std::string s = n("entries_count", "entry version", "entry versions");
  if (Int(r, "chains_count") > 0) s += " (" + n("chains_count", "entry", "entries") + ")";
  s += " and " + n("events_count", "event", "events");
  if (Int(r, "sessions_count") > 0) s += " in " + n("sessions_count", "session", "sessions");
  // A title event's text shows as its session's title too.
  if (Int(r, "titles_count") > 0)
    s += ", and the title of " + n("titles_count", "session", "sessions");
  return s;
}

int RenderTombstoneWrite(rapidjson::Document& r, const Invocation& a) {
  const bool forget = a.command->name == "forget";
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  const std::string target = Str(r, "target");
  const bool nothing = Int(r, "entries_count") == 0 && Int(r, "events_count") == 0;
  // A session's forget also covers the lines that arrive in it later.
  const bool session = Str(r, "target_kind") == "session";
  if (forget && nothing && (!session || r["hidden_by"].IsString())) {
    std::printf("Nothing new to hide: %s is already hidden%s. No forget was recorded.\n",
                target.c_str(),
                r["hidden_by"].IsString() ? (" by " + Str(r, "hidden_by")).c_str() : "");
    return 0;
  }
  if (!a.Flag("yes")) {
    std::printf("%s %s will %s %s:\n", forget ? "Forgetting" : "Restoring", target.c_str(),
                forget ? "hide" : "bring back", Counts(r).c_str());
    // The first 20 of each list; the rest counted, and listed by --json
    // (up to 1,000 of each, with the whole count).
    auto list = [&](const char* key, const char* label) {
      std::int64_t shown = 0;
      for (const auto& id : r[key].GetArray()) {
        if (shown == 20) break;
        std::printf("  %s %s\n", st.Dim(label).c_str(), id.GetString());
        ++shown;
      }
      const std::int64_t count = Int(r, (std::string(key) + "_count").c_str());
      if (count > shown)
        std::printf("  %s\n", st.Dim("… " + Thousands(count - shown) + " more: --json lists " +
                                     (count > 1000 ? "the first 1,000" : "them all"))
                                  .c_str());
    };
    list("chains", "entry  ");
    list("events", "event  ");
    list("sessions", "session");
    if (r.HasMember("titles")) list("titles", "title  ");
    if (session) std::printf("and every line that arrives in this session later.\n");
    std::printf("Nothing has changed yet: run it again with --yes to %s.\n",
                forget ? "forget" : "restore");
    return 0;
  }
  if (forget)
    std::printf("Forgot %s (%s): hid %s%s.\nUndo with: origin restore %s --reason ...\n",
                target.c_str(), st.Bold(Str(r, "tombstone")).c_str(), Counts(r).c_str(),
                session ? ", and will hide every line that arrives in this session later" : "",
                Str(r, "tombstone").c_str());
  else
    std::printf("Restored %s (%s): brought back %s.\n", target.c_str(),
                st.Bold(Str(r, "tombstone")).c_str(), Counts(r).c_str());
  return 0;
}

// origin forgotten TMB_ID: one forget's own record, with what it hides.
std::string_view ForgottenMethod(const Invocation& a) {
  return a.args.empty() ? "forgotten" : "tombstone";
}

std::string ForgottenParams(const Invocation& a) {
  if (!a.args.empty()) {
    proto::TombstoneViewRequest r;
    r.id = a.args[0];
    if (auto page = PositiveOption(a, "page")) r.page = *page;
    return proto::Encode(r);
  }
  if (a.Value("page")) throw UsageError("--page goes with a TMB_ID: the page of what it hides");
  proto::ForgottenRequest r;
  if (auto limit = PositiveOption(a, "limit")) r.limit = *limit;
  return proto::Encode(r);
}

// "tmb_… · forget of ent_… · in effect", then when, who, where and why.
std::string TombstoneHead(const rapidjson::Value& t, const Style& st) {
  const bool forget = Str(t, "kind") == "forget";
  std::string state;
  // An erased forget is in effect whatever restores it (one made on
  // another store before the erasure reached it).
  if (forget)
    state = !t["in_effect"].GetBool() ? st.Dim("restored by " + Str(t, "restored_by"))
            : t.HasMember("restored_by")
                ? st.Red("in effect") + st.Dim(" (erased: its restore " + Str(t, "restored_by") +
                                               " no longer counts)")
                : st.Red("in effect");
  return st.Bold(Str(t, "id")) + "  " + (forget ? "forget of " : "restore of ") +
         Str(t, "target") + "  " + state + "\n  " +
         st.Dim(LocalTime(Int(t, "created_at")) + " · " + Str(t, "author", "?") + " · " +
                Str(t, "origin") + " · reason: " + Str(t, "reason")) +
         "\n";
}

// origin forgotten TMB_ID: the only place, with the UI's forget page, that
// shows what a forget hides.
int RenderTombstone(rapidjson::Document& r, const Invocation& a) {
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  std::fputs(TombstoneHead(r["tombstone"], st).c_str(), stdout);
  if (r["forget"].IsObject())
    std::printf("It restored:\n%s", TombstoneHead(r["forget"], st).c_str());
  if (r["restore"].IsObject())
    std::printf("%s\n%s",
                r["tombstone"]["in_effect"].GetBool() ? "Restored by (no longer counts: erased):"
                                                      : "Restored by:",
                TombstoneHead(r["restore"], st).c_str());
  const auto& t = r["tombstone"];
  if (t.HasMember("erasure") && t["erasure"].IsObject())
    std::printf("What it hid was erased (%s): there is no text to show.\n",
                Str(t["erasure"], "id").c_str());
  if (!r["hidden"].IsObject()) return 0;
  const auto& h = r["hidden"];
  std::printf("\nIt hides %s and %s:\n",
              Plural(Int(h, "entries_total"), "entry version", "entry versions").c_str(),
              Plural(Int(h, "events_total"), "event", "events").c_str());
  for (const auto& e : h["entries"].GetArray())
    std::printf("%s %s  %s\n%s\n", st.Dim("entry").c_str(), Str(e, "id").c_str(),
                st.Dim(Str(e, "kind") + " · " + Str(e, "author")).c_str(), Str(e, "text").c_str());
  for (const auto& e : h["events"].GetArray())
    std::printf("%s %s  %s\n%s\n", st.Dim("event").c_str(), Str(e, "id").c_str(),
                st.Dim(LocalTime(Int(e, "ts")) + " · " + Str(e, "role") + " " + Str(e, "kind"))
                    .c_str(),
                Str(e, "text").c_str());
  if (Int(h, "pages") > 1)
    std::printf("%s\n", st.Dim("page " + std::to_string(Int(h, "page")) + " of " +
                               std::to_string(Int(h, "pages")) + " of its events: --page N")
                             .c_str());
  if (r["restore_preview"].IsObject())
    std::printf("\nRestoring it would bring back %s:\n  origin restore %s --reason ... --yes\n",
                Counts(r["restore_preview"]).c_str(), Str(t, "id").c_str());
  return 0;
}

int RenderForgotten(rapidjson::Document& r, const Invocation& a) {
  if (!a.args.empty()) return RenderTombstone(r, a);
  if (PrintedJson(r, a.json())) return 0;
  Style st{UseColor(stdout)};
  if (r["tombstones"].Empty()) {
    std::printf("Nothing was forgotten.\n");
    return 0;
  }
  const auto shown = static_cast<std::int64_t>(r["tombstones"].Size());
  const bool cut = r.HasMember("truncated") && r["truncated"].IsBool() && r["truncated"].GetBool();
  for (const auto& t : r["tombstones"].GetArray()) {
    const bool forget = Str(t, "kind") == "forget";
    std::string state;
    if (forget)
      state = t["in_effect"].GetBool() ? st.Red("in effect")
                                       : st.Dim("restored by " + Str(t, "restored_by"));
    // An erasure (origin erase) of what it hid: done, or pending until the
    // daemon takes it up again (or origin erase is run again).
    if (forget && t.HasMember("erasure") && t["erasure"].IsObject()) {
      const auto& x = t["erasure"];
      state += "  " + st.Red((Str(x, "state") == "done" ? "erased by " : "erasure pending: ") +
                             Str(x, "id")) +
               " · " + Plural(Int(x, "lines"), "line", "lines");
    }
    std::string what = forget ? "forget " + Str(t, "target") + " · " +
                                    Plural(Int(t, "entries"), "entry version", "entry versions") +
                                    ", " + Plural(Int(t, "events"), "event", "events")
                              : "restore of " + Str(t, "target");
    std::fputs(FitLines((RefCell(t, st).empty() ? "" : RefCell(t, st) + "  ") + st.Bold(Str(t, "id")) + "  " + what + "  " + state + "\n  " +
                            st.Dim(LocalTime(Int(t, "created_at")) + " · " + Str(t, "author", "?") +
                                   " · " + Str(t, "origin") + " · reason: " + Str(t, "reason")) +
                            "\n",
                        Output().width)
                   .c_str(),
               stdout);
  }
  if (cut)
    std::printf("%s\n", st.Dim("… older ones not shown: a --limit above " + std::to_string(shown) +
                               " lists them")
                            .c_str());
  return 0;
}

constexpr Option kTombstoneOptions[] = {kReasonOption, kYesOption, kDryRunOption, kJsonOption};
constexpr Option kForgottenOptions[] = {
    {"limit", "N", "the latest N"},
    {"page", "N", "with TMB_ID: the page of the events it hides (100 a page)"},
    kJsonOption};

constexpr std::string_view kForgetDetails =
    "Hides an entry (every version) or an event, the events the entry cites, the\n"
    "entries citing the event, and entries left without a visible source.  A\n"
    "session (its id, bare UUID or reference) is forgotten whole: every event of it,\n"
    "and every line that arrives in it later; entries citing it are hidden only when\n"
    "left without a visible source.  ID is a full id, a short reference (the first\n"
    "column of timeline, search and show), or a unique prefix of either.  Without\n"
    "--yes (or with --dry-run) it only shows what it would hide.  Forgetting hides;\n"
    "it does not erase: the raw mirrors keep every line, and origin restore brings\n"
    "it all back.  A forget that would hide nothing new is not recorded.\n";

constexpr std::string_view kForgetExamples =
    "  origin forget claude-code:u1 --reason \"a password\"\n"
    "  origin forget claude-code:u1 --reason \"a password\" --yes\n"
    "  origin forget 4f0c2a91 --reason \"private\" --dry-run\n";

constexpr std::string_view kRestoreDetails =
    "Undoes a forget (TMB_ID is the tombstone origin forget printed, or one from\n"
    "origin forgotten): shows what will come back, and restores it with --yes.\n";

constexpr std::string_view kRestoreExamples =
    "  origin restore tmb_01hx... --reason \"not a secret after all\" --yes\n";

constexpr std::string_view kForgottenDetails =
    "Every forget and restore, newest first: target, reason, author, counts, and\n"
    "whether it is still in effect; and the erasure of a forget (origin erase).\n"
    "With TMB_ID, that forget or restore alone and, for a forget in effect, what\n"
    "it hides, with its text (the one place besides origin ui that shows it), and\n"
    "what origin restore would bring back.\n";

constexpr std::string_view kForgottenExamples =
    "  origin forgotten\n"
    "  origin forgotten --limit 10 --json\n"
    "  origin forgotten tmb_01hx...\n";

}  // namespace

const Command kForgetCommand{
    .name = "forget",
    .args = "ID",
    .min_args = 1,
    .max_args = 1,
    .missing = "an id",
    .summary = "hide an entry (its whole history), an event or a session, and what cites it",
    .options = kTombstoneOptions,
    .details = kForgetDetails,
    .examples = kForgetExamples,
    .method = "forget",
    .writes = true,
    .build = TombstoneParams,
    .render = RenderTombstoneWrite,
};

const Command kRestoreCommand{
    .name = "restore",
    .args = "TMB_ID",
    .min_args = 1,
    .max_args = 1,
    .missing = "an id",
    .summary = "undo a forget; shows what will come back, restores with --yes",
    .options = kTombstoneOptions,
    .details = kRestoreDetails,
    .examples = kRestoreExamples,
    .method = "restore",
    .writes = true,
    .build = TombstoneParams,
    .render = RenderTombstoneWrite,
};

const Command kForgottenCommand{
    .name = "forgotten",
    .args = "[TMB_ID]",
    .max_args = 1,
    .summary = "every forget and restore, newest first; or one, with what it hides",
    .options = kForgottenOptions,
    .details = kForgottenDetails,
    .examples = kForgottenExamples,
    .method = "forgotten",
    .build = ForgottenParams,
    .render = RenderForgotten,
    .pages = true,
    .method_for = ForgottenMethod,
};

}  // namespace origin::client
