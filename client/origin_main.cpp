// SPDX-License-Identifier: MIT
// origin: the thin CLI.  Parses arguments, sends one request to originsd
// over its socket (starting the daemon when none answers), renders the
// answer (tables on a terminal, JSON with --json) and exits with a
// documented code (docs/cli.md).  It never opens the store itself.

#include <unistd.h>

#include <rapidjson/document.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "client/connection.hpp"
#include "client/render.hpp"
#include "origin_config.h"
#include "proto/protocol.hpp"

namespace {

using origin::client::ClientError;
using origin::client::Connection;
namespace proto = origin::proto;
using namespace origin::client;

constexpr const char* kUsage =
    "usage: origin <command> [--json]\n"
    "\n"
    "One shared, inspectable memory for your AI coding agents.\n"
    "\n"
    "commands:\n"
    "  status     what the store holds, per agent, and how big it is\n"
    "  sync       ingest every agent's new log lines now\n"
    "\n"
    "options:\n"
    "  --json     print the daemon's answer as JSON, for scripts\n"
    "  --help     this text\n"
    "  --version  the version of origin\n"
    "\n"
    "The store is $ORIGIN_HOME (default ~/.origin).  origin starts originsd when\n"
    "none answers; ORIGIN_NO_AUTOSTART=1 turns that off.\n"
    "exit codes: 0 ok, 1 failed, 2 usage, 3 daemon unavailable, 4 not found\n";

std::string Str(const rapidjson::Value& o, const char* k, const std::string& dflt = "") {
  auto it = o.FindMember(k);
  return it != o.MemberEnd() && it->value.IsString() ? it->value.GetString() : dflt;
}
std::int64_t Int(const rapidjson::Value& o, const char* k) {
  auto it = o.FindMember(k);
  if (it == o.MemberEnd()) return 0;
  if (it->value.IsInt64()) return it->value.GetInt64();
  if (it->value.IsDouble()) return static_cast<std::int64_t>(it->value.GetDouble());
  return 0;
}

void PrintJson(const rapidjson::Value& v) { std::printf("%s\n", proto::ToJson(v).c_str()); }

int Status(Connection& c, bool json) {
  rapidjson::Document r = c.Call("status");
  if (json) {
    PrintJson(r);
    return 0;
  }
  Style s{UseColor(stdout)};
  const auto& d = r["daemon"];
  const auto& st = r["store"];
  std::printf("%s %s · store %s · %s (daemon pid %lld)\n\n", s.Bold("Origin").c_str(),
              Str(d, "version").c_str(), Str(d, "store").c_str(), Str(d, "home").c_str(),
              static_cast<long long>(Int(d, "pid")));
  std::vector<std::vector<std::string>> rows = {
      {s.Dim("SOURCE"), s.Dim("FILES"), s.Dim("SESSIONS"), s.Dim("EVENTS"), s.Dim("ERRORS 7D"),
       s.Dim("LAST INGEST"), s.Dim("VERSION")}};
  std::int64_t files_total = 0;
  std::vector<std::string> notes;
  for (const auto& src : r["sources"].GetArray()) {
    std::string name = Str(src, "name");
    bool exists = src["root_exists"].GetBool();
    files_total += Int(src, "files");
    if (!exists && Int(src, "files") == 0) {
      rows.push_back({name, "-", "-", "-", "-", s.Dim("no logs at " + Str(src, "root")), ""});
      continue;
    }
    std::int64_t errs = Int(src, "parse_errors_7d");
    std::string last = src["last_ingest_at"].IsInt64() ? LocalTime(src["last_ingest_at"].GetInt64())
                                                       : "never";
    rows.push_back({name, Thousands(Int(src, "files")), Thousands(Int(src, "sessions")),
                    Thousands(Int(src, "events")),
                    errs > 0 ? s.Yellow(Thousands(errs)) : Thousands(errs), last,
                    Str(src, "agent_version", "-")});
    for (const auto& p : src["problems"].GetArray())
      notes.push_back(s.Yellow("! ") + name + ": " + Str(p, "path") + ": " + Str(p, "message"));
    if (Int(src, "broken_mirrors") > 0)
      notes.push_back(s.Red("! ") + name + ": " + std::to_string(Int(src, "broken_mirrors")) +
                      " mirror(s) shorter than the store records; appends to them are refused");
    if (src["last_error"].IsString())
      notes.push_back(s.Yellow("! ") + name + ": " + src["last_error"].GetString());
  }
  std::fputs(Table(rows, {false, true, true, true, true, false, false}).c_str(), stdout);
  for (const auto& n : notes) std::printf("%s\n", n.c_str());
  std::int64_t disk = Int(st, "mirror_disk_bytes"), content = Int(st, "mirror_content_bytes");
  std::printf("\nstore: database %s · mirrors %s on disk for %s of logs",
              HumanBytes(Int(st, "db_bytes")).c_str(), HumanBytes(disk).c_str(),
              HumanBytes(content).c_str());
  if (disk > 0) std::printf(" (%.1f×)", static_cast<double>(content) / static_cast<double>(disk));
  std::printf("\n");
  if (files_total == 0) {
    std::printf("\nNo agent logs found on this machine yet. Origin watches:\n");
    for (const auto& src : r["sources"].GetArray())
      std::printf("  %-12s %s\n", Str(src, "name").c_str(), Str(src, "root").c_str());
    std::printf("Use an agent (or set CLAUDE_CONFIG_DIR / CODEX_HOME) and its sessions appear here.\n");
  }
  return 0;
}

int Sync(Connection& c, bool json) {
  ProgressBar bar(!json && ::isatty(2) != 0);
  rapidjson::Document r = c.Call("sync", "{}", [&](const rapidjson::Value& note) {
    if (Str(note, "method") != "progress") return;
    const auto& p = note["params"];
    bar.Update(Int(p, "bytes_done"), Int(p, "bytes_total"),
               Thousands(Int(p, "files_done")) + "/" + Thousands(Int(p, "files_total")) + " files");
  });
  bar.Finish();
  if (json) {
    PrintJson(r);
    return 0;
  }
  std::int64_t errors = 0;
  for (const auto& s : r["sources"].GetArray()) errors += Int(s, "parse_errors");
  std::printf("synced: %s new events from %s lines (%s) in %s changed files%s\n",
              Thousands(Int(r, "events")).c_str(), Thousands(Int(r, "lines")).c_str(),
              HumanBytes(Int(r, "bytes")).c_str(), Thousands(Int(r, "files_changed")).c_str(),
              errors > 0 ? (", " + Thousands(errors) + " lines could not be parsed").c_str() : "");
  for (const auto& s : r["sources"].GetArray())
    for (const auto& e : s["errors"].GetArray())
      std::fprintf(stderr, "origin: %s: %s\n", Str(s, "source").c_str(), e.GetString());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string command;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json") {
      json = true;
    } else if (a == "--help" || a == "-h" || a == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--version" || a == "-V") {
      std::printf("origin %s\n", ORIGIN_VERSION);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "origin: unknown option %s\n%s", a.c_str(), kUsage);
      return proto::kExitUsage;
    } else if (command.empty()) {
      command = a;
    } else {
      std::fprintf(stderr, "origin: unexpected argument %s\n", a.c_str());
      return proto::kExitUsage;
    }
  }
  if (command.empty()) {
    std::fputs(kUsage, stderr);
    return proto::kExitUsage;
  }
  if (command != "status" && command != "sync") {
    std::fprintf(stderr, "origin: unknown command %s (see origin --help)\n", command.c_str());
    return proto::kExitUsage;
  }
  try {
    proto::Paths paths = proto::ResolvePaths();
    Connection c = Connection::Open(paths, "origin");
    if (command == "status") return Status(c, json);
    return Sync(c, json);
  } catch (const ClientError& e) {
    std::fprintf(stderr, "origin: %s\n", e.what());
    return proto::ExitCodeFor(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "origin: %s\n", e.what());
    return proto::kExitError;
  }
}
