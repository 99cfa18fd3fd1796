// SPDX-License-Identifier: MIT
// origin: the thin CLI.  Finds the command in the table (command_table.hpp),
// parses its arguments, sends one request to originsd over its socket
// (starting the daemon when none answers), renders the answer (tables on a
// terminal, JSON with --json) and exits with a documented code
// (docs/cli.md).  It never opens the store itself.

#include <rapidjson/document.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "client/command_table.hpp"
#include "client/commands/common.hpp"
#include "client/connection.hpp"
#include "client/failure.hpp"
#include "client/generate.hpp"
#include "client/pager.hpp"
#include "client/random_key.hpp"
#include "client/render.hpp"
#include "origin_config.h"
#include "proto/paths.hpp"
#include "proto/protocol.hpp"

namespace {

using namespace origin::client;
namespace proto = origin::proto;

// Whether some command takes option `name` with a value.
bool TakesValue(std::string_view name) {
  for (const Command* c : Commands())
    for (const Option& o : c->options)
      if (o.name == name && !o.value.empty()) return true;
  return false;
}

// Where the command's name is among `words`: the first word that is not an
// option, nor the value of an option some command takes with a value
// (`origin --json status` and `origin --limit 5 search x` still work).
std::size_t CommandAt(const std::vector<std::string>& words) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") break;
    if (w.size() < 2 || w[0] != '-') return i;
    if (w.compare(0, 2, "--") == 0 && w.find('=') == std::string::npos &&
        TakesValue(std::string_view(w).substr(2)))
      ++i;
  }
  return words.size();
}

// --help or --version (-h, -V) among `words`, before any `--`.
std::string_view GlobalOption(const std::vector<std::string>& words) {
  for (const std::string& w : words) {
    if (w == "--") break;
    if (w == "--help" || w == "-h") return "help";
    if (w == "--version" || w == "-V") return "version";
  }
  return "";
}

// Options every command takes, read and removed before the command's own:
// --no-pager, and --color[=auto|always|never] (alone: always).
struct Globals {
  bool no_pager = false;
  bool json = false;  // --json: errors go out as JSON too
  std::string bad;    // a usage error in them
};

Globals TakeGlobals(std::vector<std::string>& words) {
  Globals g;
  OutputMode& out = Output();
  for (std::size_t i = 0; i < words.size();) {
    const std::string w = words[i];
    if (w == "--") break;
    if (w == "--json") g.json = true;
    std::string when;
    bool color = false;
    if (w == "--no-pager") {
      g.no_pager = true;
    } else if (w == "--color") {
      color = true;
      when = "always";
      if (i + 1 < words.size() &&
          (words[i + 1] == "auto" || words[i + 1] == "always" || words[i + 1] == "never")) {
        when = words[i + 1];
        words.erase(words.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      }
    } else if (w.rfind("--color=", 0) == 0) {
      color = true;
      when = w.substr(8);
    } else {
      ++i;
      continue;
    }
    if (color) {
      if (when == "auto")
        out.color = OutputMode::Color::kAuto;
      else if (when == "always")
        out.color = OutputMode::Color::kAlways;
      else if (when == "never")
        out.color = OutputMode::Color::kNever;
      else
        g.bad = "--color takes auto, always or never, not '" + when + "'";
    }
    words.erase(words.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return g;
}

bool json_errors = false;  // --json was given: errors are JSON on stderr

// An error, for people or (with --json) as {"error":{"code","message"}}.
void PrintError(const char* code, const std::string& message, bool multiline = false) {
  PrintFailure(json_errors, code, message, multiline);
}

int UsageFailure(const Command* cmd, const std::string& message) {
  if (json_errors) {
    PrintError("usage", message);
    return proto::kExitUsage;
  }
  std::fprintf(stderr, "origin: %s\n", message.c_str());
  if (cmd != nullptr)
    std::fprintf(stderr, "%s(origin help %s: its options and examples)\n", UsageLine(*cmd).c_str(),
                 std::string(cmd->name).c_str());
  return proto::kExitUsage;
}

// A connection for a write's second attempt.  The daemon that went away may
// still be on its way out, holding the store's lock so that no new one can
// start yet: try again until one answers, for at most 10 s.
Connection Reconnect(const proto::Paths& paths) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    try {
      return Connection::Open(paths, "origin");
    } catch (const ClientError& e) {
      if (e.code() != proto::code::kUnavailable || std::chrono::steady_clock::now() > deadline)
        throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

bool no_pager = false;  // --no-pager

// Builds the request (before connecting: a bad option never starts a
// daemon), asks the daemon, renders the answer (through the pager when the
// command's output may be long, pager.hpp).
int Ask(const Command& cmd, Invocation& inv) {
  if (cmd.writes) inv.request_key = RandomKey();
  const std::string params = cmd.build(inv);
  const proto::Paths paths = proto::ResolvePaths();
  std::optional<Connection> c(Connection::Open(paths, "origin"));
  ProgressBar bar(cmd.progress && !inv.json() && ::isatty(2) != 0);
  auto on_note = [&](const rapidjson::Value& note) {
    if (!cmd.progress || Str(note, "method") != "progress") return;
    const auto& p = note["params"];
    bar.Update(Int(p, "bytes_done"), Int(p, "bytes_total"),
               Thousands(Int(p, "files_done")) + "/" + Thousands(Int(p, "files_total")) + " files");
  };
  const std::string method(cmd.method_for != nullptr ? cmd.method_for(inv) : cmd.method);
  rapidjson::Document r;
  try {
    r = c->Call(method, params, on_note);
  } catch (const ClientError& e) {
    if (!cmd.writes || e.code() != proto::code::kUnavailable) throw;
    // The daemon went away (or is stopping) before it answered: the write
    // may have been made or not.  Sent again with the same request_key, it
    // is made once either way: a daemon that made it answers as it did.
    c.reset();
    c.emplace(Reconnect(paths));
    r = c->Call(method, params, on_note);
  }
  bar.Finish();
  if (cmd.pages && !inv.json() && !no_pager) StartPager();
  return cmd.render(r, inv);
}

int Main(int argc, char** argv) {
  std::vector<std::string> words(argv + 1, argv + argc);
  const Globals globals = TakeGlobals(words);
  json_errors = globals.json;
  no_pager = globals.no_pager;
  DetectTerminal();
  if (!globals.bad.empty()) return UsageFailure(nullptr, globals.bad);
  const std::size_t at = CommandAt(words);
  // Before the command (or without one): the global options.
  const std::string_view global =
      GlobalOption({words.begin(), words.begin() + static_cast<std::ptrdiff_t>(at)});
  if (global == "help") {
    std::fputs(GlobalHelp().c_str(), stdout);
    return 0;
  }
  if (global == "version") {
    std::printf("origin %s\n", ORIGIN_VERSION);
    return 0;
  }
  if (at == words.size()) {
    std::fputs(GlobalHelp().c_str(), stderr);
    return proto::kExitUsage;
  }
  std::string name = words[at];
  if (name == "help") {  // origin help [COMMAND]
    if (at + 1 >= words.size()) {
      std::fputs(GlobalHelp().c_str(), stdout);
      return 0;
    }
    const Command* c = FindCommand(words[at + 1]);
    if (c == nullptr)
      return UsageFailure(nullptr, "unknown command " + words[at + 1] + " (see origin --help)");
    if (c->run != nullptr) return c->run({"--help"});
    std::fputs(CommandHelp(*c).c_str(), stdout);
    return 0;
  }
  if (name == "__generate")  // the build's: completion and the man page (generate.hpp)
    return GenerateCommand({words.begin() + static_cast<std::ptrdiff_t>(at) + 1, words.end()});
  const Command* cmd = FindCommand(name);
  if (cmd == nullptr)
    return UsageFailure(nullptr, "unknown command " + name + " (see origin --help)");
  // The rest, the options given before the command among them.
  std::vector<std::string> rest(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(at));
  rest.insert(rest.end(), words.begin() + static_cast<std::ptrdiff_t>(at) + 1, words.end());
  // Setting up, not asking the daemon: these parse their own arguments.
  if (cmd->run != nullptr) return cmd->run(rest);
  if (GlobalOption(rest) == "version") {
    std::printf("origin %s\n", ORIGIN_VERSION);
    return 0;
  }
  Invocation inv;
  try {
    bool help = false;
    inv = Parse(*cmd, rest, &help);
    if (help) {
      std::fputs(CommandHelp(*cmd).c_str(), stdout);
      return 0;
    }
    return Ask(*cmd, inv);
  } catch (const UsageError& e) {
    return UsageFailure(cmd, e.what());
  } catch (const ClientError& e) {
    // The daemon's message may quote what it was given or found; it may be
    // of several lines (the candidates of an ambiguous id).
    PrintError(e.code().c_str(), e.what(), /*multiline=*/true);
    return proto::ExitCodeFor(e.code());
  } catch (const std::exception& e) {
    PrintError(proto::code::kInternal, e.what());
    return proto::kExitError;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int code = Main(argc, argv);
  FinishPager();
  return code;
}
