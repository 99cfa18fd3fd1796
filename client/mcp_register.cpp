// SPDX-License-Identifier: MIT
#include "client/mcp_register.hpp"

#include <rapidjson/document.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "client/config_merge.hpp"
#include "client/connection.hpp"
#include "client/file_edit.hpp"
#include "client/host.hpp"
#include "io/fd.hpp"
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

// Registers origin-mcp with one agent; returns false when it failed.
bool Register(const std::string& agent, const std::string& shim, bool print) {
  const std::string file = ConfigFile(agent);
  const std::string claude = agent == "claude-code" ? OnPath("claude") : "";
  std::optional<std::string> old;
  std::optional<std::string> next;
  try {
    old = ReadFileIfExists(file);
    next = agent == "codex" ? MergeCodexToml(old.value_or(""), shim)
                            : MergeJsonServer(old.value_or(""), shim, agent == "claude-code");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "origin: %s: %s: %s; nothing changed\n", agent.c_str(), file.c_str(),
                 e.what());
    return false;
  }
  if (!next) {
    std::printf("%s: already registered in %s\n", agent.c_str(), file.c_str());
    return true;
  }
  if (!claude.empty()) {
    // Claude Code's own command, so that its file is written as it writes it.
    std::vector<std::string> remove = {claude, "mcp", "remove", "--scope", "user", "origin"};
    std::vector<std::string> add = {claude, "mcp", "add", "--scope", "user", "origin", "--", shim};
    bool registered = false;
    if (old) {
      rapidjson::Document d;
      d.Parse(old->c_str());
      registered = !d.HasParseError() && d.IsObject() && d.HasMember("mcpServers") &&
                   d["mcpServers"].IsObject() && d["mcpServers"].HasMember("origin");
    }
    if (print) {
      std::printf("%s: would run%s %s\n", agent.c_str(),
                  registered ? (" " + Quoted(remove) + " &&").c_str() : "", Quoted(add).c_str());
      return true;
    }
    std::string backup;
    try {
      backup = Backup(file);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "origin: %s: %s\n", agent.c_str(), e.what());
      return false;
    }
    if (registered) {
      RunOutput r = RunProgram(remove);
      if (r.status != 0) {
        std::fprintf(stderr, "origin: %s: %s failed:\n%s", agent.c_str(), Quoted(remove).c_str(),
                     r.output.c_str());
        return false;
      }
    }
    RunOutput r = RunProgram(add);
    if (r.status != 0) {
      std::fprintf(stderr, "origin: %s: %s failed:\n%s", agent.c_str(), Quoted(add).c_str(),
                   r.output.c_str());
      return false;
    }
    std::printf("%s: registered with %s%s\n", agent.c_str(), Quoted(add).c_str(),
                backup.empty() ? "" : (" (backup: " + backup + ")").c_str());
    return true;
  }
  if (print) {
    std::printf("%s: would write %s:\n%s", agent.c_str(), file.c_str(), next->c_str());
    return true;
  }
  try {
    std::string backup = WriteWithBackup(file, *next);
    std::printf("%s: registered in %s%s\n", agent.c_str(), file.c_str(),
                backup.empty() ? "" : (" (backup: " + backup + ")").c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "origin: %s: %s\n", agent.c_str(), e.what());
    return false;
  }
  return true;
}

constexpr const char* kMcpUsage =
    "usage: origin mcp                 run the MCP server on stdio (what agents launch)\n"
    "       origin mcp install [claude-code|codex|cursor|all] [--print]\n"
    "\n"
    "install registers origin-mcp with each agent by its own conventions:\n"
    "  claude-code  `claude mcp add --scope user` when claude is on PATH, else\n"
    "               mcpServers.origin in ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json)\n"
    "  codex        [mcp_servers.origin] in ~/.codex/config.toml ($CODEX_HOME)\n"
    "  cursor       mcpServers.origin in ~/.cursor/mcp.json\n"
    "  all          each of them that is used on this machine (the default)\n"
    "Other servers and settings are kept, a file is backed up before it changes,\n"
    "and a second run changes nothing.  --print shows what it would write.\n";

}  // namespace

int McpCommand(const std::vector<std::string>& args) {
  const std::string shim = SiblingExe("origin-mcp", "client");
  if (args.empty()) {
    // Become the shim: the agent's stdio is ours.
    ::execv(shim.c_str(), std::vector<char*>{const_cast<char*>(shim.c_str()), nullptr}.data());
    ::execvp("origin-mcp", std::vector<char*>{const_cast<char*>("origin-mcp"), nullptr}.data());
    std::fprintf(stderr, "origin: cannot run origin-mcp: %s\n", std::strerror(errno));
    return proto::kExitError;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kMcpUsage, stdout);
    return 0;
  }
  if (args[0] != "install") {
    std::fprintf(stderr, "origin: unknown mcp command %s\n%s", args[0].c_str(), kMcpUsage);
    return proto::kExitUsage;
  }
  bool print = false;
  std::string target;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--print") {
      print = true;
    } else if (target.empty() && args[i][0] != '-') {
      target = args[i];
    } else {
      std::fprintf(stderr, "origin: unexpected argument %s\n%s", args[i].c_str(), kMcpUsage);
      return proto::kExitUsage;
    }
  }
  if (target.empty()) target = "all";
  bool known = target == "all";
  for (const Agent& a : kAgents) known = known || target == a.id;
  if (!known) {
    std::fprintf(stderr, "origin: unknown agent %s (claude-code, codex, cursor or all)\n",
                 target.c_str());
    return proto::kExitUsage;
  }
  if (shim.front() != '/') {
    std::fprintf(stderr,
                 "origin: origin-mcp is not installed beside origin; install Origin first\n");
    return proto::kExitError;
  }
  bool ok = true, any = false;
  for (const Agent& a : kAgents) {
    if (target != "all" && target != a.id) continue;
    if (target == "all" && !AgentPresent(a.id)) {
      std::printf("%s: not used on this machine; skipped (origin mcp install %s registers it)\n",
                  a.id, a.id);
      continue;
    }
    any = true;
    ok = Register(a.id, shim, print) && ok;
  }
  if (!any) std::printf("No agent found to register Origin with.\n");
  return ok ? 0 : proto::kExitError;
}

}  // namespace origin::client
