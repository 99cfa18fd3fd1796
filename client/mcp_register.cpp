// SPDX-License-Identifier: MIT
#include "client/mcp_register.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "client/command_table.hpp"
#include "client/config_merge.hpp"
#include "client/connection.hpp"
#include "client/failure.hpp"
#include "client/file_edit.hpp"
#include "client/host.hpp"
#include "client/render.hpp"
#include "io/fd.hpp"
#include "origin_config.h"
#include "proto/paths.hpp"
#include "proto/protocol.hpp"

namespace origin::client {

namespace {

struct Agent {
  const char* id;
  const char* name;
};
constexpr Agent kAgents[] = {
    {"claude-code", "Claude Code"}, {"codex", "Codex"}, {"cursor", "Cursor"}};

// Where each agent keeps its user-level MCP servers.
std::string ConfigFile(const std::string& agent) {
  const std::string home = proto::UserHome();
  if (agent == "claude-code") {
    // ~/.claude.json, or .claude.json inside $CLAUDE_CONFIG_DIR when set.
    const char* dir = std::getenv("CLAUDE_CONFIG_DIR");
    return dir != nullptr && *dir != '\0' ? std::string(dir) + "/.claude.json"
                                          : home + "/.claude.json";
  }
  if (agent == "codex") return EnvOr("CODEX_HOME", home + "/.codex") + "/config.toml";
  return home + "/.cursor/mcp.json";
}

// Whether the agent seems to be used here (for `all`).
bool AgentPresent(const std::string& agent) {
  const std::string home = proto::UserHome();
  if (agent == "claude-code")
    return !OnPath("claude").empty() || ::access(ConfigFile(agent).c_str(), F_OK) == 0 ||
           ::access(EnvOr("CLAUDE_CONFIG_DIR", home + "/.claude").c_str(), F_OK) == 0;
  if (agent == "codex")
    return !OnPath("codex").empty() ||
           ::access(EnvOr("CODEX_HOME", home + "/.codex").c_str(), F_OK) == 0;
  return !OnPath("cursor").empty() || ::access((home + "/.cursor").c_str(), F_OK) == 0;
}

std::string DefaultStore() { return proto::UserHome() + "/.origin"; }

// The file's edit for `agent`: Claude Code's file is JSON, Cursor's JSONC
// (Cursor reads comments), Codex's TOML.
std::optional<std::string> Merged(const std::string& agent, const std::string& old,
                                  const McpServer& server) {
  if (agent == "codex") return MergeCodexToml(old, server);
  return MergeJsonServer(old, server, agent == "claude-code", agent == "cursor");
}
std::optional<std::string> Removed(const std::string& agent, const std::string& old) {
  if (agent == "codex") return RemoveCodexToml(old);
  return RemoveJsonServer(old, agent == "cursor");
}
std::optional<Registration> Read(const std::string& agent, const std::string& text) {
  if (agent == "codex") return ReadCodexToml(text);
  return ReadJsonServer(text, agent == "cursor");
}

// A file origin cannot change safely: what to do by hand (exit 1).
bool Refused(const std::string& agent, const std::string& file, const std::string& why,
             const McpServer* server) {
  std::fprintf(stderr, "origin: %s: %s: %s; nothing changed\n", agent.c_str(), file.c_str(),
               why.c_str());
  if (server == nullptr) {
    std::printf("%s: remove %s from %s yourself\n", agent.c_str(),
                agent == "codex" ? "the table [mcp_servers.origin]" : "\"origin\" from \"mcpServers\"",
                file.c_str());
  } else if (agent == "codex") {
    std::printf("%s: add this table to %s yourself:\n\n%s\n", agent.c_str(), file.c_str(),
                RenderCodexTable(*server).c_str());
  } else {
    std::printf("%s: add this member to \"mcpServers\" in %s yourself:\n\n%s\n", agent.c_str(),
                file.c_str(), RenderJsonServer(*server, agent == "claude-code").c_str());
  }
  return false;
}

// Whether mcpServers.origin is in Claude Code's file (its own command is
// then asked to remove it first).
bool ClaudeHasOrigin(const std::optional<std::string>& text) {
  if (!text) return false;
  try {
    return ReadJsonServer(*text).has_value();
  } catch (const std::exception&) {
    return false;
  }
}

// The new content of an agent's file, written after a backup (or shown,
// with --print); `done` says what was done ("registered", "removed").
bool WriteAgentFile(const std::string& agent, const std::string& file, const std::string& next,
                    bool print, const char* done) {
  if (print) {
    std::printf("%s: would write %s:\n%s", agent.c_str(), file.c_str(), next.c_str());
    return true;
  }
  try {
    std::string backup = WriteWithBackup(file, next);
    std::printf("%s: %s in %s%s\n", agent.c_str(), done, file.c_str(),
                backup.empty() ? "" : (" (backup: " + backup + ")").c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "origin: %s: %s\n", agent.c_str(), e.what());
    return false;
  }
  return true;
}

// Claude Code's own commands (`claude mcp remove`, then `add` when given),
// after a backup of its file, so that the file is written as Claude Code
// writes it.
bool RunClaudeCommands(const std::string& agent, const std::string& file,
                       const std::vector<std::vector<std::string>>& commands, bool print,
                       const char* done) {
  if (print) {
    std::string all;
    for (const auto& c : commands) all += (all.empty() ? "" : " && ") + Quoted(c);
    std::printf("%s: would run %s\n", agent.c_str(), all.c_str());
    return true;
  }
  std::string backup;
  try {
    backup = Backup(file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "origin: %s: %s\n", agent.c_str(), e.what());
    return false;
  }
  for (const auto& c : commands) {
    RunOutput r = RunProgram(c);
    if (r.status != 0) {
      std::fprintf(stderr, "origin: %s: %s failed:\n%s", agent.c_str(), Quoted(c).c_str(),
                   r.output.c_str());
      return false;
    }
  }
  std::printf("%s: %s with %s%s\n", agent.c_str(), done, Quoted(commands.back()).c_str(),
              backup.empty() ? "" : (" (backup: " + backup + ")").c_str());
  return true;
}

// Registers origin-mcp with one agent; returns false when it failed.
bool Register(const std::string& agent, const McpServer& server, bool print) {
  const std::string file = ConfigFile(agent);
  const std::string claude = agent == "claude-code" ? OnPath("claude") : "";
  std::optional<std::string> old;
  std::optional<std::string> next;
  try {
    old = ReadFileIfExists(file);
    next = Merged(agent, old.value_or(""), server);
  } catch (const std::exception& e) {
    return Refused(agent, file, e.what(), &server);
  }
  if (!next) {
    std::printf("%s: already registered in %s\n", agent.c_str(), file.c_str());
    return true;
  }
  if (claude.empty()) return WriteAgentFile(agent, file, *next, print, "registered");
  std::vector<std::vector<std::string>> commands;
  if (ClaudeHasOrigin(old))
    commands.push_back({claude, "mcp", "remove", "--scope", "user", "origin"});
  std::vector<std::string> add = {claude, "mcp", "add", "--scope", "user", "origin"};
  for (const auto& [k, v] : server.env) {
    add.push_back("-e");
    add.push_back(k + "=" + v);
  }
  add.push_back("--");
  add.push_back(server.command);
  commands.push_back(std::move(add));
  return RunClaudeCommands(agent, file, commands, print, "registered");
}

// Removes the registration from one agent; returns false when it failed.
bool Unregister(const std::string& agent, bool print) {
  const std::string file = ConfigFile(agent);
  const std::string claude = agent == "claude-code" ? OnPath("claude") : "";
  std::optional<std::string> old, next;
  try {
    old = ReadFileIfExists(file);
    if (old) next = Removed(agent, *old);
  } catch (const std::exception& e) {
    return Refused(agent, file, e.what(), nullptr);
  }
  if (!next) {
    std::printf("%s: not registered in %s\n", agent.c_str(), file.c_str());
    return true;
  }
  if (claude.empty()) return WriteAgentFile(agent, file, *next, print, "removed");
  return RunClaudeCommands(agent, file, {{claude, "mcp", "remove", "--scope", "user", "origin"}},
                           print, "removed");
}

void JsonString(rapidjson::Writer<rapidjson::StringBuffer>& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

int Status(const std::string& target, bool json) {
  std::vector<AgentRegistration> regs = AgentRegistrations(true, target == "all" ? "" : target);
  const std::string store = proto::ResolvePaths().home;
  bool ok = true, any = false;
  for (const AgentRegistration& r : regs) {
    if (target != "all" && r.agent != target) continue;
    ok = ok && r.error.empty() && (!r.registered || (r.probed && r.probe.answered));
  }
  if (json) {
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    w.StartObject();
    w.Key("store");
    JsonString(w, store);
    w.Key("agents");
    w.StartArray();
    for (const AgentRegistration& r : regs) {
      if (target != "all" && r.agent != target) continue;
      w.StartObject();
      w.Key("agent");
      JsonString(w, r.agent);
      w.Key("file");
      JsonString(w, r.file);
      w.Key("registered");
      w.Bool(r.registered);
      if (!r.error.empty()) {
        w.Key("error");
        JsonString(w, r.error);
      }
      if (r.registered) {
        w.Key(r.url.empty() ? "command" : "url");
        JsonString(w, r.url.empty() ? r.command : r.url);
        w.Key("args");
        w.StartArray();
        for (const std::string& a : r.args) JsonString(w, a);
        w.EndArray();
        w.Key("store");
        JsonString(w, r.store);
        w.Key("store_is_yours");
        w.Bool(r.store == store);
        w.Key("answers");
        w.Bool(r.probed && r.probe.answered);
        if (r.probed && r.probe.answered) {
          w.Key("server");
          JsonString(w, r.probe.server);
          w.Key("protocol");
          JsonString(w, r.probe.protocol);
        } else if (r.probed) {
          w.Key("problem");
          JsonString(w, r.probe.problem);
        }
        w.Key("ms");
        w.Int64(r.probe.ms);
      }
      w.EndObject();
    }
    w.EndArray();
    w.Key("ok");
    w.Bool(ok);
    w.EndObject();
    std::printf("%s\n", sb.GetString());
    return ok ? 0 : proto::kExitError;
  }
  Style s{UseColor(stdout)};
  for (const AgentRegistration& r : regs) {
    if (target != "all" && r.agent != target) continue;
    if (!r.error.empty()) {
      std::printf("%s  %s: %s\n", s.Bold(r.agent).c_str(), s.Red("cannot read " + r.file).c_str(),
                  TerminalSafe(r.error).c_str());
      continue;
    }
    if (!r.registered) {
      std::printf("%s  not registered in %s %s\n", s.Bold(r.agent).c_str(), r.file.c_str(),
                  s.Dim("(origin mcp install " + r.agent + ")").c_str());
      continue;
    }
    any = true;
    std::printf("%s  registered in %s\n", s.Bold(r.agent).c_str(), r.file.c_str());
    if (!r.url.empty()) {
      std::printf("    url:     %s (a hub; not checked)\n", TerminalSafe(r.url).c_str());
      continue;
    }
    std::vector<std::string> argv = {r.command};
    argv.insert(argv.end(), r.args.begin(), r.args.end());
    std::printf("    command: %s\n", TerminalSafe(Quoted(argv)).c_str());
    std::string note = r.store_is_default ? " (the default)" : " (ORIGIN_HOME)";
    if (r.store != store)
      note += s.Yellow(" — not the store you use (" + store + "): origin mcp install " + r.agent +
                       " points it there");
    std::printf("    store:   %s%s\n", TerminalSafe(r.store).c_str(), note.c_str());
    if (r.probe.answered)
      std::printf("    answers: %s, %s, protocol %s, in %lld ms\n", s.Green("yes").c_str(),
                  TerminalSafe(r.probe.server).c_str(), TerminalSafe(r.probe.protocol).c_str(),
                  r.probe.ms);
    else
      std::printf("    answers: %s, %s\n", s.Red("no").c_str(),
                  TerminalSafe(r.probe.problem).c_str());
  }
  if (!any && target == "all")
    std::printf("\nOrigin is not registered with any agent: origin mcp install registers it.\n");
  return ok ? 0 : proto::kExitError;
}

}  // namespace

std::map<std::string, std::string> RegistrationEnv() {
  const std::string home = proto::ResolvePaths().home;
  if (home == DefaultStore()) return {};
  return {{"ORIGIN_HOME", home}};
}

std::vector<AgentRegistration> AgentRegistrations(bool probe, const std::string& only,
                                                  int timeout_ms) {
  std::vector<AgentRegistration> out;
  for (const Agent& a : kAgents) {
    if (!only.empty() && only != a.id) continue;
    AgentRegistration r;
    r.agent = a.id;
    r.file = ConfigFile(a.id);
    try {
      std::optional<std::string> text = ReadFileIfExists(r.file);
      std::optional<Registration> reg = text ? Read(a.id, *text) : std::nullopt;
      if (reg) {
        r.registered = true;
        r.command = reg->command;
        r.args = reg->args;
        r.url = reg->url;
        auto home = reg->env.find("ORIGIN_HOME");
        r.store_is_default = home == reg->env.end() || home->second.empty();
        r.store = r.store_is_default ? DefaultStore() : home->second;
        if (probe && r.url.empty()) {
          r.probed = true;
          r.probe = ProbeMcpServer(r.command, r.args, reg->env, timeout_ms);
        }
      }
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    out.push_back(std::move(r));
  }
  return out;
}

int McpCommand(const std::vector<std::string>& args) {
  const std::string shim = SiblingExe("origin-mcp", "client");
  if (args.empty()) {
    // Become the shim: the agent's stdio is ours (origin-mcp itself says
    // on stderr what it is when stdin is a terminal).
    ::execv(shim.c_str(), std::vector<char*>{const_cast<char*>(shim.c_str()), nullptr}.data());
    ::execvp("origin-mcp", std::vector<char*>{const_cast<char*>("origin-mcp"), nullptr}.data());
    std::fprintf(stderr, "origin: cannot run origin-mcp: %s\n", std::strerror(errno));
    return proto::kExitError;
  }
  const bool json = WantsJson(args);
  const Command* cmd = FindCommand("mcp");
  Invocation inv;
  if (!args.empty() && args[0] == "help") {
    std::fputs(CommandHelp(*cmd).c_str(), stdout);
    return 0;
  }
  if (std::optional<int> code = ParseOwn(*cmd, args, &inv)) return *code;
  const std::string& sub = inv.args[0];
  auto usage = [&](const std::string& message) {
    if (json) return Failure(true, proto::code::kInvalidArgument, message);
    std::fprintf(stderr, "origin: %s\n%s(origin help mcp: its options and examples)\n",
                 message.c_str(), UsageLine(*cmd).c_str());
    return static_cast<int>(proto::kExitUsage);
  };
  if (sub != "install" && sub != "uninstall" && sub != "status")
    return usage("unknown mcp command " + sub + " (install, uninstall or status)");
  const std::string target = inv.args.size() > 1 ? inv.args[1] : "all";
  bool known = target == "all";
  for (const Agent& a : kAgents) known = known || target == a.id;
  if (!known) return usage("unknown agent " + target + " (claude-code, codex, cursor or all)");
  const bool print = inv.Flag("print");
  if (print && sub == "status") return usage("--print is for install and uninstall, not status");
  if (json && sub != "status") return usage("--json is for status, not " + sub);
  if (sub == "status") {
    try {
      return Status(target, json);
    } catch (const std::exception& e) {
      return Failure(json, "failed", e.what());
    }
  }
  if (sub == "install" && shim.front() != '/') {
    std::fprintf(stderr,
                 "origin: origin-mcp is not installed beside origin; install Origin first\n");
    return proto::kExitError;
  }
  McpServer server;
  try {
    server = McpServer{shim, {}, RegistrationEnv()};
  } catch (const std::exception& e) {
    return Failure(false, "failed", e.what());
  }
  bool ok = true, any = false;
  for (const Agent& a : kAgents) {
    if (target != "all" && target != a.id) continue;
    if (sub == "install" && target == "all" && !AgentPresent(a.id)) {
      std::printf("%s: not used on this machine; skipped (origin mcp install %s registers it)\n",
                  a.id, a.id);
      continue;
    }
    any = true;
    ok = (sub == "install" ? Register(a.id, server, print) : Unregister(a.id, print)) && ok;
  }
  if (!any) std::printf("No agent found to register Origin with.\n");
  return ok ? 0 : proto::kExitError;
}

}  // namespace origin::client
