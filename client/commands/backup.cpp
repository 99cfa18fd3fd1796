// SPDX-License-Identifier: MIT
// origin backup DIR and origin verify (issue 18): both are the daemon's
// operations (daemon/operations/backup.cpp); the CLI resolves DIR against
// its working directory and renders the answers.

#include <cstdio>
#include <string>

#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "proto/protocol.hpp"
#include "proto/requests.hpp"

namespace origin::client {

namespace {

namespace proto = origin::proto;

std::string BackupParams(const Invocation& inv) {
  proto::BackupRequest r;
  r.dir = AbsolutePath(inv.args.at(0), "backup directory");
  if (r.dir.size() > 1 && r.dir.back() == '/') r.dir.pop_back();
  return proto::Encode(r);
}

int RenderBackup(rapidjson::Document& r, const Invocation& inv) {
  const bool failed = !r["problems"].Empty();
  const int code = failed ? proto::kExitError : proto::kExitOk;
  if (PrintedJson(r, inv.json())) return code;
  std::printf("%s %s into %s in %.1f s: %s, %s\n",
              r["incremental"].GetBool() ? "updated the backup of" : "backed up",
              Plural(Int(r, "events"), "event", "events").c_str(), Str(r, "dir").c_str(),
              static_cast<double>(Int(r, "ms")) / 1000.0,
              Plural(Int(r, "mirrors"), "mirror", "mirrors").c_str(),
              HumanBytes(Int(r, "db_bytes")).c_str());
  std::printf("wrote %s, %s: the databases; of %s of %s, %s (%s) and %s (%s)\n",
              Plural(Int(r, "files_written"), "file", "files").c_str(),
              HumanBytes(Int(r, "bytes_written")).c_str(),
              Plural(Int(r, "mirrors_changed"), "mirror", "mirrors").c_str(),
              Thousands(Int(r, "mirrors")).c_str(),
              Plural(Int(r, "frames_copied"), "new frame", "new frames").c_str(),
              HumanBytes(Int(r, "frame_bytes")).c_str(),
              Plural(Int(r, "tails_written"), "tail", "tails").c_str(),
              HumanBytes(Int(r, "tail_bytes")).c_str());
  for (const auto& p : r["problems"].GetArray())
    std::fprintf(stderr, "origin: not backed up: %s\n", TerminalSafe(p.GetString()).c_str());
  return code;
}

constexpr std::string_view kBackupDetails =
    "Copies the store, while the daemon goes on ingesting, into DIR: the database\n"
    "with SQLite's online backup (one consistent snapshot; the search indexes too),\n"
    "then the raw mirrors as that snapshot records them.  DIR is then a store of\n"
    "its own: ORIGIN_HOME=DIR origin status shows what it holds.  That starts a\n"
    "daemon on DIR, which ingests the agents' logs it finds under $HOME into it:\n"
    "stop it before the next backup (a daemon on DIR refuses the backup, and a\n"
    "backup that has taken in lines of its own is not this store's any more).\n"
    "A second backup into the same DIR copies the database again and, of the\n"
    "mirrors, only the frames and tail bytes that are new.  DIR must be empty,\n"
    "missing (it is created, 0700) or an earlier backup of this store, and\n"
    "outside the store.\n"
    "An interrupted backup leaves DIR as it was; the next one completes it.\n"
    "Exits 1 when a mirror could not be copied (each on stderr).\n";

constexpr std::string_view kBackupExamples =
    "  origin backup /mnt/usb/origin-backup\n"
    "  origin backup ~/backups/origin --json\n";

constexpr Option kBackupOptions[] = {kJsonOption};

int RenderVerify(rapidjson::Document& r, const Invocation& inv) {
  const int code = r["ok"].GetBool() ? proto::kExitOk : proto::kExitError;
  if (PrintedJson(r, inv.json())) return code;
  Style s{UseColor(stdout)};
  for (const auto& c : r["checks"].GetArray()) {
    const bool ok = c["ok"].GetBool();
    std::printf("%s %-9s %s checked%s\n", ok ? s.Green("ok  ").c_str() : s.Red("FAIL").c_str(),
                Str(c, "name").c_str(), Thousands(Int(c, "checked")).c_str(),
                ok ? "" : (", " + Plural(Int(c, "problem_count"), "problem", "problems")).c_str());
    for (const auto& p : c["problems"].GetArray())
      std::printf("     %s\n", TerminalSafe(p.GetString()).c_str());
    const std::int64_t unlisted =
        Int(c, "problem_count") - static_cast<std::int64_t>(c["problems"].Size());
    if (unlisted > 0) std::printf("     ... and %s more\n", Thousands(unlisted).c_str());
  }
  std::printf("%s in %.1f s%s\n", code == 0 ? "the store is sound" : "the store has problems",
              static_cast<double>(Int(r, "ms")) / 1000.0,
              r["all"].GetBool() ? "" : " (a sample of events; --all checks every one)");
  return code;
}

std::string VerifyParams(const Invocation& inv) {
  proto::VerifyRequest r;
  r.all = inv.Flag("all");
  if (auto n = PositiveOption(inv, "sample")) r.sample = *n;
  return proto::Encode(r);
}

constexpr Option kVerifyOptions[] = {
    {"all", "", "every event, and the search indexes against the events"},
    {"sample", "N", "check N events spread over the store (1000)"},
    kJsonOption};

constexpr std::string_view kVerifyDetails =
    "Checks the store end to end and changes nothing: its format is the latest;\n"
    "SQLite's quick_check of origin.db and index.db; every sealed frame of every\n"
    "mirror decompresses, checksum checked, to the size and lines recorded, and\n"
    "frames and tails follow one another as the database records; a sample of\n"
    "events (or, with --all, every one) resolves to its mirror line, which parses\n"
    "to the same event id; with --all, the search indexes hold exactly the events\n"
    "they say they do.  Each problem names its mirror, frame or event.  Exits 0\n"
    "only when everything holds, else 1.  To check a backup:\n"
    "ORIGIN_HOME=DIR origin verify.\n";

constexpr std::string_view kVerifyExamples =
    "  origin verify\n"
    "  origin verify --all --json\n";

}  // namespace

const Command kBackupCommand{
    .name = "backup",
    .args = "DIR",
    .min_args = 1,
    .max_args = 1,
    .missing = "the directory to back up into",
    .summary = "copy the store, consistently and while it runs, into a directory",
    .options = kBackupOptions,
    .details = kBackupDetails,
    .examples = kBackupExamples,
    .method = "backup",
    .progress = true,
    .build = BackupParams,
    .render = RenderBackup,
};

const Command kVerifyCommand{
    .name = "verify",
    .summary = "check the store end to end: mirrors, events, indexes; changes nothing",
    .options = kVerifyOptions,
    .details = kVerifyDetails,
    .examples = kVerifyExamples,
    .method = "verify",
    .build = VerifyParams,
    .render = RenderVerify,
};

}  // namespace origin::client
