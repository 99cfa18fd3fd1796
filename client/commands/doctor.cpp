// SPDX-License-Identifier: MIT
// origin doctor: checks what Origin needs, one line each, and prints the fix
// for each problem; exit 1 when there is one.  The daemon (it answers; its
// version), the store's and the socket's permissions (the user's only:
// 0700 folders, 0600 files), a quick integrity check of the store (the
// daemon's `check`: only the daemon opens the store) and a quick verify
// (the daemon's `verify` of a sample of events), each agent's log
// folder and what the daemon says needs you (status's attention list),
// each agent's registration (it answers an MCP initialize, for this
// store), the user service, and the free disk space.  Notes (a thing not
// set up, which may be on purpose) do not fail it.

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "client/command_table.hpp"
#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "client/connection.hpp"
#include "client/failure.hpp"
#include "client/host.hpp"
#include "client/mcp_register.hpp"
#include "client/service_units.hpp"
#include "origin_config.h"
#include "proto/paths.hpp"
#include "proto/protocol.hpp"

namespace origin::client {

namespace {

namespace proto = origin::proto;

enum class Level { kOk, kNote, kProblem };

struct Finding {
  std::string check;
  Level level;
  std::string detail;
  std::string fix;
};

class Report {
 public:
  void Ok(const std::string& check, const std::string& detail) {
    all_.push_back({check, Level::kOk, detail, ""});
  }
  void Note(const std::string& check, const std::string& detail, const std::string& fix = "") {
    all_.push_back({check, Level::kNote, detail, fix});
  }
  void Problem(const std::string& check, const std::string& detail, const std::string& fix) {
    all_.push_back({check, Level::kProblem, detail, fix});
  }
  const std::vector<Finding>& all() const { return all_; }
  bool ok() const {
    for (const Finding& f : all_)
      if (f.level == Level::kProblem) return false;
    return true;
  }

 private:
  std::vector<Finding> all_;
};

std::string Octal(mode_t m) {
  char b[8];
  std::snprintf(b, sizeof b, "%04o", static_cast<unsigned>(m & 07777));
  return b;
}

// One path of the store: the user's, and nobody else's.  `want` is the
// mode it is made with (0700 folders, 0600 files; the socket 0700).
void CheckMode(Report& rep, const std::string& path, mode_t want, bool* any) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;  // not made yet
  *any = true;
  if (st.st_uid != ::geteuid())
    rep.Problem("permissions",
                path + " belongs to uid " + std::to_string(st.st_uid) + ", not to you (uid " +
                    std::to_string(::geteuid()) + ")",
                "chown " + std::to_string(::geteuid()) + " " + path);
  else if ((st.st_mode & 077) != 0)
    rep.Problem("permissions",
                path + " can be " + ((st.st_mode & 022) != 0 ? "written" : "read") +
                    " by others (mode " + Octal(st.st_mode) + ")",
                "chmod " + Octal(want).substr(1) + " " + path);
}

void CheckPermissions(Report& rep, const proto::Paths& p) {
  bool any = false;
  const std::size_t before = rep.all().size();
  for (const std::string& d : {p.home, p.run, p.raw}) CheckMode(rep, d, 0700, &any);
  for (const std::string& base : {p.db, p.index})
    for (const char* suffix : {"", "-wal", "-shm"}) CheckMode(rep, base + suffix, 0600, &any);
  const std::string sock_dir = p.socket.substr(0, p.socket.rfind('/'));
  if (sock_dir != p.run) CheckMode(rep, sock_dir, 0700, &any);
  CheckMode(rep, p.socket, 0700, &any);
  if (!any)
    rep.Note("permissions", "no store at " + p.home + " yet (the daemon makes it when it starts)");
  else if (rep.all().size() == before)
    rep.Ok("permissions", "the store and the socket are yours only (0700 folders, 0600 files)");
}

void CheckDisk(Report& rep, const proto::Paths& p) {
  // The store's folder, or the nearest one that exists.
  std::string dir = p.home;
  struct statvfs vfs {};
  while (::statvfs(dir.c_str(), &vfs) != 0) {
    const std::size_t slash = dir.rfind('/');
    if (slash == std::string::npos || dir == "/") return;
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  const auto free_bytes = static_cast<std::int64_t>(vfs.f_bavail) * static_cast<std::int64_t>(vfs.f_frsize);
  const auto total = static_cast<std::int64_t>(vfs.f_blocks) * static_cast<std::int64_t>(vfs.f_frsize);
  const std::string detail = HumanBytes(free_bytes) + " free of " + HumanBytes(total) + " on " + dir;
  constexpr std::int64_t kGiB = 1LL << 30;
  if (free_bytes < kGiB)
    rep.Problem("disk", detail + ": the store grows with every agent's logs",
                "free some space on " + dir + " (or move the store: ORIGIN_HOME)");
  else if (free_bytes < 5 * kGiB)
    rep.Note("disk", detail + ": less than 5 GiB left");
  else
    rep.Ok("disk", detail);
}

void CheckDaemon(Report& rep, const proto::Paths& p) {
  std::optional<Connection> c;
  try {
    c.emplace(Connection::Open(p, "origin"));
  } catch (const ClientError& e) {
    rep.Problem("daemon", std::string("no daemon answers: ") + e.what(),
                "originsd --foreground --home " + p.home + " shows why it does not start (its log: " +
                    p.run + "/originsd.log)");
    rep.Problem("integrity", "not checked: no daemon", "start the daemon first (see above)");
    return;
  }
  const proto::DaemonHello& h = c->hello();
  std::string detail = "originsd " + h.daemon + " answers (pid " + std::to_string(h.pid) +
                       ", store " + h.store + " in " + p.home + ")";
  if (h.daemon != ORIGIN_VERSION)
    rep.Note("daemon", detail + "; this origin is " + ORIGIN_VERSION,
             "restart the daemon to run this version (origin starts the new one)");
  else
    rep.Ok("daemon", detail);

  // The store's integrity (only the daemon opens it).
  try {
    rapidjson::Document r = c->Call("check");
    for (const char* part : {"store", "index"}) {
      const auto& v = r[part];
      const bool ok = v["ok"].GetBool();
      std::string problems;
      for (const auto& x : v["problems"].GetArray())
        if (x.IsString()) problems += std::string(problems.empty() ? "" : "; ") + x.GetString();
      if (ok)
        rep.Ok("integrity", std::string(part == std::string("store") ? p.db : p.index) +
                                ": quick_check ok (" + std::to_string(Int(r, "ms")) + " ms)");
      else if (part == std::string("store"))
        rep.Problem("integrity", p.db + " is damaged: " + TerminalSafe(problems),
                    "stop the daemon, copy " + p.home + " somewhere safe, then recover: sqlite3 " +
                        p.db + " .recover | sqlite3 " + p.home + "/recovered.db");
      else
        rep.Problem("integrity", p.index + " (the search index) is damaged: " + TerminalSafe(problems),
                    "it is made from the events: stop the daemon, remove " + p.index +
                        ", start it again and it is rebuilt");
    }
  } catch (const std::exception& e) {
    rep.Problem("integrity", std::string("the check failed: ") + TerminalSafe(e.what()),
                "see the daemon's log: " + p.run + "/originsd.log");
  }

  // A quick verify (origin verify): the format, every mirror's frames and
  // tail, a sample of events back to their lines.  quick_check is above.
  try {
    rapidjson::Document r = c->Call("verify", "{\"sample\":200}");
    bool ok = true;
    for (const auto& v : r["checks"].GetArray()) {
      if (v["ok"].GetBool() || Str(v, "name") == "database") continue;
      ok = false;
      std::string first = v["problems"].Empty() ? "" : v["problems"][0].GetString();
      rep.Problem("verify",
                  Str(v, "name") + ": " + std::to_string(Int(v, "problem_count")) +
                      " problem(s), such as: " + TerminalSafe(first),
                  "origin verify --all lists them; a mirror or event that does not hold is "
                  "restored from a backup (origin backup)");
    }
    if (ok)
      rep.Ok("verify", "mirrors and a sample of events hold (" + std::to_string(Int(r, "ms")) +
                           " ms; origin verify --all checks every event)");
  } catch (const std::exception& e) {
    rep.Problem("verify", std::string("the check failed: ") + TerminalSafe(e.what()),
                "see the daemon's log: " + p.run + "/originsd.log");
  }

  // Each agent's logs, and what the daemon says needs you.
  try {
    rapidjson::Document r = c->Call("status");
    MakeTerminalSafe(r, r.GetAllocator());
    for (const auto& src : r["sources"].GetArray()) {
      const std::string name = Str(src, "name"), root = Str(src, "root");
      const bool exists = src.HasMember("root_exists") && src["root_exists"].IsBool() &&
                          src["root_exists"].GetBool();
      // A source whose sync fails is in the attention list, below.
      if (src.HasMember("error") && src["error"].IsString()) continue;
      if (!exists)
        rep.Note("agent logs", name + ": no logs at " + root + " (not used here)");
      else if (::access(root.c_str(), R_OK | X_OK) != 0)
        rep.Problem("agent logs", name + ": " + root + " cannot be read", "chmod u+rx " + root);
      else
        rep.Ok("agent logs", name + ": " + root + " (" + Thousands(Int(src, "sessions")) +
                                 " sessions)");
    }
    if (auto a = r.FindMember("attention"); a != r.MemberEnd() && a->value.IsArray())
      for (const auto& n : a->value.GetArray())
        if (n.IsString())
          rep.Problem("attention", n.GetString(),
                      "correct what it names; origin sync tries again (origin status shows it)");
  } catch (const std::exception& e) {
    rep.Problem("agent logs", std::string("status failed: ") + TerminalSafe(e.what()),
                "see the daemon's log: " + p.run + "/originsd.log");
  }
}

void CheckRegistrations(Report& rep, const proto::Paths& p) {
  bool any = false;
  for (const AgentRegistration& r : AgentRegistrations(true)) {
    const std::string fix = "origin mcp install " + r.agent;
    if (!r.error.empty()) {
      rep.Problem("mcp", r.agent + ": " + r.file + " cannot be read: " + TerminalSafe(r.error),
                  "correct " + r.file + ", then " + fix);
      continue;
    }
    if (!r.registered) continue;
    any = true;
    if (!r.url.empty()) {
      rep.Note("mcp", r.agent + ": registered as a server at " + TerminalSafe(r.url) + " (not checked)");
      continue;
    }
    if (!r.probe.answered)
      rep.Problem("mcp", r.agent + ": " + TerminalSafe(r.command) + " does not answer: " +
                             TerminalSafe(r.probe.problem),
                  fix + " (registers this origin-mcp)");
    else if (r.store != p.home)
      rep.Problem("mcp", r.agent + ": uses the store " + TerminalSafe(r.store) + ", not yours (" +
                             p.home + ")",
                  fix + " (with ORIGIN_HOME=" + p.home + " set, as now)");
    else
      rep.Ok("mcp", r.agent + ": " + TerminalSafe(r.command) + " answers (" +
                        std::to_string(r.probe.ms) + " ms)");
  }
  if (!any)
    rep.Note("mcp", "Origin is not registered with any agent", "origin mcp install");
}

void CheckServiceState(Report& rep) {
  const ServiceHealth h = CheckService();
  if (!h.installed)
    rep.Note("service", "not installed (origin and origin-mcp start the daemon when needed)",
             "origin service install runs it at login");
  else if (!h.active)
    rep.Problem("service", h.unit + " is installed but not running: " + h.problem,
                "origin service install (again), or origin service status for details");
  else
    rep.Ok("service", "running (" + h.unit + ")");
}

void Print(const Report& rep, bool json) {
  if (json) {
    rapidjson::Document d;
    d.SetObject();
    auto& a = d.GetAllocator();
    rapidjson::Value checks(rapidjson::kArrayType);
    for (const Finding& f : rep.all()) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("check", rapidjson::Value(f.check.c_str(), a), a);
      o.AddMember("status",
                  rapidjson::StringRef(f.level == Level::kOk     ? "ok"
                                       : f.level == Level::kNote ? "note"
                                                                 : "problem"),
                  a);
      o.AddMember("detail", rapidjson::Value(f.detail.c_str(), a), a);
      if (!f.fix.empty()) o.AddMember("fix", rapidjson::Value(f.fix.c_str(), a), a);
      checks.PushBack(o, a);
    }
    d.AddMember("ok", rep.ok(), a);
    d.AddMember("checks", checks, a);
    std::printf("%s\n", proto::ToJson(d).c_str());
    return;
  }
  Style s{UseColor(stdout)};
  std::size_t problems = 0;
  for (const Finding& f : rep.all()) {
    std::string mark = f.level == Level::kOk     ? s.Green("✓")
                       : f.level == Level::kNote ? s.Dim("·")
                                                 : s.Red("✗");
    std::string name = f.check;
    name.resize(12, ' ');
    std::printf("%s %s %s\n", mark.c_str(), name.c_str(), f.detail.c_str());
    if (!f.fix.empty())
      std::printf("  %s %s\n", std::string(12, ' ').c_str(),
                  (f.level == Level::kProblem ? s.Bold("fix: " + f.fix) : s.Dim(f.fix)).c_str());
    problems += f.level == Level::kProblem ? 1 : 0;
  }
  if (problems == 0)
    std::printf("\nNo problem found.\n");
  else
    std::printf("\n%zu problem%s found.\n", problems, problems == 1 ? "" : "s");
}

int RunDoctor(const std::vector<std::string>& words) {
  const bool json = WantsJson(words);
  Invocation inv;
  if (std::optional<int> code = ParseOwn(kDoctorCommand, words, &inv)) return *code;
  try {
    const proto::Paths p = proto::ResolvePaths();
    Report rep;
    CheckDaemon(rep, p);
    CheckPermissions(rep, p);
    CheckRegistrations(rep, p);
    CheckServiceState(rep);
    CheckDisk(rep, p);
    Print(rep, json);
    return rep.ok() ? 0 : proto::kExitError;
  } catch (const std::exception& e) {
    return Failure(json, proto::code::kInternal, e.what());
  }
}

constexpr Option kDoctorOptions[] = {kJsonOption};

constexpr std::string_view kDoctorDetails =
    "Checks what Origin needs and prints the fix for each problem: the daemon (it\n"
    "answers, and its version); a quick integrity check of the store and of its\n"
    "search index (SQLite's quick_check, made by the daemon); the permissions of\n"
    "the store and the socket (yours only: 0700 folders, 0600 files); each agent's\n"
    "log folder, and what origin status lists as needing you; each agent's MCP\n"
    "registration (its command is run and must answer an MCP initialize, for your\n"
    "store); the user service; the free disk space.  It starts the daemon when\n"
    "none answers, as every command does.  Exit code 1 when there is a problem;\n"
    "notes (something not set up, which may be on purpose) do not count.\n";

constexpr std::string_view kDoctorExamples =
    "  origin doctor\n"
    "  origin doctor --json | jq '.checks[] | select(.status == \"problem\")'\n";

}  // namespace

const Command kDoctorCommand{
    .name = "doctor",
    .summary = "check the daemon, the store, the agents' setup and the disk; say how to fix",
    .options = kDoctorOptions,
    .details = kDoctorDetails,
    .examples = kDoctorExamples,
    .run = RunDoctor,
};

}  // namespace origin::client
