// SPDX-License-Identifier: MIT
#include "client/service_units.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "client/command_table.hpp"
#include "client/connection.hpp"
#include "client/file_edit.hpp"
#include "client/host.hpp"
#include "io/fd.hpp"
#include "origin_service_units.h"
#include "proto/paths.hpp"
#include "proto/protocol.hpp"

namespace origin::client {

namespace {

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// systemd's quoting of one ExecStart word: double quotes, with \ and " escaped
// and % doubled (specifiers).
std::string SystemdWord(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '%') out += '%';
    out += c;
  }
  return out + "\"";
}

// The systemd unit with ExecStart's two words in place, quoted already.
std::string SystemdUnit(const std::string& daemon_word, const std::string& home_word) {
  return Replace(Replace(kSystemdUnit, "{{ORIGINSD}}", daemon_word), "{{ORIGIN_HOME}}", home_word);
}

#ifdef __APPLE__
constexpr const char* kLabel = "dev.origin.originsd";

std::string Xml(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

std::string UnitPath() { return proto::UserHome() + "/Library/LaunchAgents/" + kLabel + ".plist"; }

std::string UnitText(const std::string& daemon, const std::string& home) {
  return Replace(Replace(kLaunchdPlist, "{{ORIGINSD}}", Xml(daemon)), "{{ORIGIN_HOME}}", Xml(home));
}

std::vector<std::vector<std::string>> StartCommands() {
  std::string domain = "gui/" + std::to_string(::getuid());
  return {{"launchctl", "bootout", domain + "/" + kLabel},
          {"launchctl", "bootstrap", domain, UnitPath()}};
}
std::vector<std::vector<std::string>> StopCommands() {
  return {{"launchctl", "bootout", "gui/" + std::to_string(::getuid()) + "/" + kLabel}};
}
std::vector<std::string> StateCommand() {
  return {"launchctl", "print", "gui/" + std::to_string(::getuid()) + "/" + kLabel};
}
#else
std::string UnitPath() {
  return EnvOr("XDG_CONFIG_HOME", proto::UserHome() + "/.config") +
         "/systemd/user/originsd.service";
}

std::string UnitText(const std::string& daemon, const std::string& home) {
  return SystemdUnit(SystemdWord(daemon), SystemdWord(home));
}

std::vector<std::vector<std::string>> StartCommands() {
  return {{"systemctl", "--user", "daemon-reload"},
          {"systemctl", "--user", "enable", "--now", "originsd.service"}};
}
std::vector<std::vector<std::string>> StopCommands() {
  return {{"systemctl", "--user", "disable", "--now", "originsd.service"},
          {"systemctl", "--user", "daemon-reload"}};
}
std::vector<std::string> StateCommand() {
  return {"systemctl", "--user", "status", "--no-pager", "originsd.service"};
}
#endif

// The systemd unit installed with this origin (by the Debian package, or
// meson install: <prefix>/lib/systemd/user beside <prefix>/bin), when it is
// there and says exactly what PackagedUnitText does for the originsd beside
// this origin; "" otherwise (another origin's, edited, or none).
std::string PackagedUnitPath() {
#ifdef __APPLE__
  return "";
#else
  const std::string dir = SelfDir();
  const std::string daemon = SiblingExe("originsd", "daemon");
  if (dir.empty() || daemon.front() != '/') return "";
  const std::string path = dir + "/../lib/systemd/user/originsd.service";
  char real[PATH_MAX];
  if (::realpath(path.c_str(), real) == nullptr) return "";
  return ReadFileIfExists(real) == PackagedUnitText(daemon) ? real : "";
#endif
}

// Whether the user's service manager has the unit enabled (false when it
// cannot be asked).
bool UnitEnabled() {
  return RunProgram({"systemctl", "--user", "is-enabled", "originsd.service"}).status == 0;
}

// Why the user's service manager cannot take a service now, or "" when it
// can: asked before anything is written or stopped.
std::string ServiceManagerProblem() {
#ifdef __APPLE__
  return "";
#else
  RunOutput r = RunProgram({"systemctl", "--user", "show-environment"});
  if (r.status == 0) return "";
  std::string why = r.output.substr(0, r.output.find('\n'));
  if (r.status == 127)
    return "systemd is not available here (" + why +
           "): originsd cannot run as a user service; origin and origin-mcp start it when they "
           "need it";
  return "systemctl --user cannot reach your user service manager (" + why +
         "): this login has no systemd user session (an ssh or su session, a container).\n"
         "  To have one that starts at boot and lasts: loginctl enable-linger $USER, then log in "
         "again\n  (or export XDG_RUNTIME_DIR=/run/user/$(id -u)) and run origin service install "
         "again.\n  Nothing was changed: the daemon that runs goes on, and origin and origin-mcp "
         "start one when they need it";
#endif
}

// A connection to the daemon that answers on the socket, if one does (none
// is started for it).
std::optional<Connection> RunningDaemon(const proto::Paths& paths) {
  try {
    return Connection::Open(paths, "origin", "", std::chrono::seconds(5), /*may_start=*/false);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string PackagedUnitText(const std::string& daemon) {
  // %h: the home of the user whose service manager runs it.
  return SystemdUnit(SystemdWord(daemon), "\"%h/.origin\"");
}

ServiceHealth CheckService() {
  ServiceHealth h;
  h.unit = UnitPath();
  h.installed = ::access(h.unit.c_str(), F_OK) == 0;
  if (!h.installed) {
    // The packaged unit, once the user enabled it.
    if (std::string packaged = PackagedUnitPath(); !packaged.empty() && UnitEnabled()) {
      h.unit = packaged;
      h.installed = true;
    }
  }
  if (!h.installed) return h;
  if (std::string problem = ServiceManagerProblem(); !problem.empty()) {
    h.problem = problem.substr(0, problem.find('\n'));
    return h;
  }
#ifdef __APPLE__
  RunOutput r = RunProgram(StateCommand());
  h.active = r.status == 0;
#else
  RunOutput r = RunProgram({"systemctl", "--user", "is-active", "originsd.service"});
  h.active = r.status == 0;
#endif
  if (!h.active) {
    std::string out = r.output;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    h.problem = "the service manager says: " + out.substr(0, 200);
  }
  return h;
}

int ServiceCommand(const std::vector<std::string>& args) {
  const Command& table = *FindCommand("service");
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(CommandHelp(table).c_str(), args.empty() ? stderr : stdout);
    return args.empty() ? proto::kExitUsage : 0;
  }
  const std::string& cmd = args[0];
  bool print = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--print" && cmd == "install") {
      print = true;
    } else {
      std::fprintf(stderr, "origin: unexpected argument %s\n%s", args[i].c_str(),
                   UsageLine(table).c_str());
      return proto::kExitUsage;
    }
  }
  if (cmd != "install" && cmd != "uninstall" && cmd != "status") {
    std::fprintf(stderr, "origin: unknown service command %s\n%s", cmd.c_str(),
                 UsageLine(table).c_str());
    return proto::kExitUsage;
  }
  proto::Paths paths;
  try {
    paths = proto::ResolvePaths();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "origin: %s\n", e.what());
    return proto::kExitError;
  }
  const std::string unit = UnitPath();
  // Every command, or up to the first that fails; whether all succeeded.
  auto run_all = [](const std::vector<std::vector<std::string>>& cmds, bool stop_on_error) {
    bool ok = true;
    for (const auto& c : cmds) {
      RunOutput r = RunProgram(c);
      if (r.status != 0) {
        std::fprintf(stderr, "origin: %s failed:\n%s", Quoted(c).c_str(), r.output.c_str());
        ok = false;
        if (stop_on_error) break;
      }
    }
    return ok;
  };
  if (cmd == "status") {
    bool installed = ::access(unit.c_str(), F_OK) == 0;
    const std::string packaged = installed ? "" : PackagedUnitPath();
    if (installed) {
      std::printf("service: installed in %s\n", unit.c_str());
    } else if (!packaged.empty() && UnitEnabled()) {
      installed = true;
      std::printf("service: installed in %s (with origin)\n", packaged.c_str());
    } else if (!packaged.empty()) {
      std::printf("service: not installed (%s, installed with origin, is not enabled: origin "
                  "service install enables it)\n",
                  packaged.c_str());
    } else {
      std::printf("service: not installed\n");
    }
    if (installed) {
      RunOutput r = RunProgram(StateCommand());
      std::printf("%s", r.output.c_str());
    }
    if (auto c = RunningDaemon(paths))
      std::printf("daemon: running (pid %ld) for %s\n", static_cast<long>(c->hello().pid),
                  paths.home.c_str());
    else
      std::printf("daemon: not running for %s\n", paths.home.c_str());
    return 0;
  }
  if (cmd == "uninstall") {
    if (::access(unit.c_str(), F_OK) != 0) {
      // The packaged unit is not the user's to remove: it is disabled.
      const std::string packaged = PackagedUnitPath();
      if (packaged.empty() || !UnitEnabled()) {
        std::printf("service: not installed (no %s)\n", unit.c_str());
        return 0;
      }
      bool stopped = run_all(StopCommands(), false);
      std::printf("service: disabled %s (installed with origin, it stays)%s\n", packaged.c_str(),
                  stopped ? "" : " (the service manager did not answer; see above)");
      return stopped ? 0 : proto::kExitError;
    }
    bool stopped = run_all(StopCommands(), false);
    if (::unlink(unit.c_str()) != 0) {
      std::fprintf(stderr, "origin: cannot remove %s: %s\n", unit.c_str(), std::strerror(errno));
      return proto::kExitError;
    }
    std::printf("service: removed %s%s\n", unit.c_str(),
                stopped ? "" : " (the service manager did not answer; see above)");
    return stopped ? 0 : proto::kExitError;
  }
  const std::string daemon = SiblingExe("originsd", "daemon");
  if (daemon.front() != '/') {
    std::fprintf(stderr, "origin: originsd is not installed beside origin; install Origin first\n");
    return proto::kExitError;
  }
  const std::string text = UnitText(daemon, paths.home);
  // The unit installed with origin serves the default store, unless the
  // user has a unit of their own (which takes precedence in systemd).
  std::string packaged = PackagedUnitPath();
  if (paths.home != proto::UserHome() + "/.origin" || ::access(unit.c_str(), F_OK) == 0)
    packaged.clear();
  if (print && !packaged.empty()) {
    std::printf("would enable %s (installed with origin; nothing is written):\n%s",
                packaged.c_str(), PackagedUnitText(daemon).c_str());
    return 0;
  }
  if (print) {
    std::printf("would write %s:\n%s", unit.c_str(), text.c_str());
    return 0;
  }
  // Before anything is written or stopped: whether a service can start.
  if (const std::string problem = ServiceManagerProblem(); !problem.empty()) {
    std::fprintf(stderr, "origin: %s\n", problem.c_str());
    return proto::kExitError;
  }
  auto old = ReadFileIfExists(unit);
  if (!packaged.empty()) {
    std::printf("service: %s, installed with origin, runs it\n", packaged.c_str());
  } else if (old != text) {
    try {
      std::string backup = WriteWithBackup(unit, text);
      std::printf("service: wrote %s%s\n", unit.c_str(),
                  backup.empty() ? "" : (" (backup: " + backup + ")").c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "origin: %s\n", e.what());
      return proto::kExitError;
    }
  } else {
    std::printf("service: %s is up to date\n", unit.c_str());
  }
  // A daemon started on demand holds the store: it steps aside for the
  // service (it finishes its current transaction first), as on origin stop.
  try {
    StopDaemon(paths, std::chrono::seconds(30));
  } catch (const std::exception&) {
    // It went away by itself, or still runs after 30 s: the service starts all the same.
  }
  if (!run_all(StartCommands(), true)) {
    std::fprintf(stderr,
                 "origin: the unit is in place, but the service manager did not start it; "
                 "until it does, origin and origin-mcp start the daemon when they need it\n");
    return proto::kExitError;
  }
  std::printf("service: originsd runs as a user service for %s\n", paths.home.c_str());
  return 0;
}

}  // namespace origin::client
