// SPDX-License-Identifier: MIT
#include "client/setup.hpp"

#include <fcntl.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "client/connection.hpp"
#include "origin_service_units.h"
#include "proto/paths.hpp"
#include "proto/protocol.hpp"

namespace origin::client {

namespace {

// --- files -------------------------------------------------------------------

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT || ::access(path.c_str(), F_OK) != 0) return std::nullopt;
    throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void MakeDirs(const std::string& dir) {
  for (std::size_t i = 1; i <= dir.size(); ++i) {
    if (i != dir.size() && dir[i] != '/') continue;
    std::string part = dir.substr(0, i);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      throw std::runtime_error("cannot create " + part + ": " + std::strerror(errno));
  }
}

std::string Dir(const std::string& path) { return path.substr(0, path.rfind('/')); }

// Copies the file at `path`, if there is one, to a backup beside it;
// returns the backup's path, or "" when there was no file.
std::string Backup(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  char stamp[32];
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  std::string backup = path + ".origin-backup-" + stamp;
  for (int n = 2; ::access(backup.c_str(), F_OK) == 0; ++n)
    backup = path + ".origin-backup-" + stamp + "-" + std::to_string(n);
  auto old = ReadFile(path);
  std::ofstream b(backup, std::ios::binary | std::ios::trunc);
  b << old.value_or("");
  b.close();
  if (!b) throw std::runtime_error("cannot write the backup " + backup + "; nothing changed");
  ::chmod(backup.c_str(), st.st_mode & 07777);
  return backup;
}

// Writes `content` to `path` whole or not at all (a temporary file renamed
// over it), keeping the old file's mode, after a backup of the old file.
// Returns the backup's path, or "" when there was no file.
std::string WriteWithBackup(const std::string& path, const std::string& content) {
  MakeDirs(Dir(path));
  mode_t mode = 0600;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) mode = st.st_mode & 07777;
  const std::string backup = Backup(path);
  const std::string tmp = path + ".origin-tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
  std::string_view left = content;
  while (!left.empty()) {
    ssize_t n = ::write(fd, left.data(), left.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(err));
    }
    left.remove_prefix(static_cast<std::size_t>(n));
  }
  ::fchmod(fd, mode);
  if (::fsync(fd) != 0 || ::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  }
  return backup;
}

// The program `name` on PATH, or "".
std::string OnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (!dir.empty()) {
      std::string cand = dir + "/" + name;
      if (::access(cand.c_str(), X_OK) == 0) return cand;
    }
    start = end + 1;
  }
  return "";
}

struct RunOutput {
  int status = -1;     // exit code, or -1 when it could not run or was killed
  std::string output;  // stdout and stderr
};

// Runs argv (no shell) and collects what it printed.
RunOutput RunProgram(const std::vector<std::string>& argv) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return {};
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out[0]);
    ::close(out[1]);
    return {};
  }
  if (pid == 0) {
    int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    std::vector<char*> a;
    for (const std::string& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    ::execvp(a[0], a.data());
    std::fprintf(stderr, "cannot run %s: %s\n", a[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(out[1]);
  RunOutput r;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(out[0], buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    r.output.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string Quoted(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) {
    if (!s.empty()) s += ' ';
    bool plain = !a.empty() && a.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                                   "VWXYZ0123456789-_./=:@+,") == std::string::npos;
    if (plain) {
      s += a;
      continue;
    }
    s += '\'';
    for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    s += '\'';
  }
  return s;
}

// --- the edits ------------------------------------------------------------------

std::string Trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  std::size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

// The table a TOML header line names ("mcp_servers.origin"), or "" for a
// line that is not a table header.  Quoted keys lose their quotes.
std::string TomlHeader(const std::string& line) {
  std::string t = Trim(line);
  if (t.size() < 3 || t[0] != '[' || t[1] == '[') return "";
  std::size_t close = t.find(']');
  if (close == std::string::npos) return "";
  std::string name;
  for (char c : t.substr(1, close - 1))
    if (c != ' ' && c != '\t' && c != '"' && c != '\'') name += c;
  return name;
}

// The key a TOML "key = value" line sets, or "".
std::string TomlKey(const std::string& line) {
  std::string t = Trim(line);
  if (t.empty() || t[0] == '#' || t[0] == '[') return "";
  std::size_t eq = t.find('=');
  if (eq == std::string::npos) return "";
  std::string key;
  for (char c : t.substr(0, eq))
    if (c != ' ' && c != '\t' && c != '"' && c != '\'') key += c;
  return key;
}

std::string TomlString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

std::optional<std::string> MergeJsonServer(const std::string& existing, const std::string& command,
                                           bool typed) {
  rapidjson::Document d;
  if (Trim(existing).empty()) {
    d.SetObject();
  } else {
    d.Parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseIterativeFlag>(existing.data(),
                                                                                 existing.size());
    if (d.HasParseError())
      throw std::runtime_error(std::string("it is not valid JSON (") +
                               rapidjson::GetParseError_En(d.GetParseError()) + " at byte " +
                               std::to_string(d.GetErrorOffset()) + ")");
    if (!d.IsObject()) throw std::runtime_error("it is not a JSON object");
  }
  auto& a = d.GetAllocator();
  if (!d.HasMember("mcpServers"))
    d.AddMember("mcpServers", rapidjson::Value(rapidjson::kObjectType), a);
  rapidjson::Value& servers = d["mcpServers"];
  if (!servers.IsObject()) throw std::runtime_error("its \"mcpServers\" is not an object");
  if (!servers.HasMember("origin"))
    servers.AddMember("origin", rapidjson::Value(rapidjson::kObjectType), a);
  rapidjson::Value& origin = servers["origin"];
  if (!origin.IsObject())
    throw std::runtime_error("its \"mcpServers\".\"origin\" is not an object");
  rapidjson::Value want_args(rapidjson::kArrayType);
  bool same = origin.HasMember("command") && origin["command"].IsString() &&
              command == origin["command"].GetString() && origin.HasMember("args") &&
              origin["args"] == want_args &&
              (!typed || (origin.HasMember("type") && origin["type"].IsString() &&
                          std::string_view(origin["type"].GetString()) == "stdio"));
  if (same) return std::nullopt;
  auto set = [&](const char* key, rapidjson::Value v) {
    if (origin.HasMember(key))
      origin[key] = v;
    else
      origin.AddMember(rapidjson::Value(key, a), v, a);
  };
  if (typed) set("type", rapidjson::Value("stdio", a));
  set("command", rapidjson::Value(command.c_str(), a));
  set("args", std::move(want_args));
  // An url (a hub's server registered under this name) would be ambiguous.
  origin.RemoveMember("url");
  rapidjson::StringBuffer sb;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(sb);
  w.SetIndent(' ', 2);
  d.Accept(w);
  return std::string(sb.GetString()) + "\n";
}

std::optional<std::string> MergeCodexToml(const std::string& existing, const std::string& command) {
  std::vector<std::string> lines;
  {
    std::size_t start = 0;
    while (start < existing.size()) {
      std::size_t end = existing.find('\n', start);
      if (end == std::string::npos) end = existing.size();
      lines.push_back(existing.substr(start, end - start));
      start = end + 1;
    }
  }
  const std::string cmd_line = "command = " + TomlString(command);
  const std::string args_line = "args = []";
  // Find [mcp_servers.origin]; refuse the forms this edit cannot change
  // safely (an inline table or dotted keys elsewhere).
  std::string table;
  std::ptrdiff_t header = -1, end = static_cast<std::ptrdiff_t>(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string h = TomlHeader(lines[i]);
    if (!h.empty()) {
      table = h;
      if (h == "mcp_servers.origin") {
        if (header >= 0) throw std::runtime_error("it has [mcp_servers.origin] twice");
        header = static_cast<std::ptrdiff_t>(i);
      } else if (header >= 0 && end == static_cast<std::ptrdiff_t>(lines.size())) {
        end = static_cast<std::ptrdiff_t>(i);
      }
      continue;
    }
    std::string key = TomlKey(lines[i]);
    std::string full = table.empty() ? key : table + "." + key;
    if (!key.empty() && table != "mcp_servers.origin" &&
        table.rfind("mcp_servers.origin.", 0) != 0 &&
        (full == "mcp_servers.origin" || full.rfind("mcp_servers.origin.", 0) == 0))
      throw std::runtime_error("it defines mcp_servers.origin in a form origin does not edit (" +
                               Trim(lines[i]) +
                               "); write it as a [mcp_servers.origin] table, or remove it");
  }
  std::vector<std::string> out;
  if (header < 0) {
    out = lines;
    while (!out.empty() && Trim(out.back()).empty()) out.pop_back();
    if (!out.empty()) out.push_back("");
    out.push_back("[mcp_servers.origin]");
    out.push_back(cmd_line);
    out.push_back(args_line);
  } else {
    bool has_cmd = false, has_args = false;
    out.assign(lines.begin(), lines.begin() + header + 1);
    for (std::ptrdiff_t i = header + 1; i < end; ++i) {
      std::string key = TomlKey(lines[static_cast<std::size_t>(i)]);
      if (key == "command") {
        out.push_back(cmd_line);
        has_cmd = true;
      } else if (key == "args") {
        out.push_back(args_line);
        has_args = true;
        // A multi-line array: its lines up to the closing bracket go too.
        int depth = 0;
        for (std::ptrdiff_t j = i;; ++j) {
          for (char c : lines[static_cast<std::size_t>(j)])
            depth += c == '[' ? 1 : c == ']' ? -1 : 0;
          if (depth <= 0 || j + 1 >= end) {
            i = j;
            break;
          }
        }
      } else if (key == "url") {
        // A hub's server registered under this name: the command replaces it.
      } else {
        out.push_back(lines[static_cast<std::size_t>(i)]);
      }
    }
    std::size_t at = static_cast<std::size_t>(header) + 1;
    if (!has_args) out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), args_line);
    if (!has_cmd) out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), cmd_line);
    out.insert(out.end(), lines.begin() + end, lines.end());
  }
  std::string text;
  for (const std::string& l : out) text += l + "\n";
  std::string old = existing;
  if (!old.empty() && old.back() != '\n') old += '\n';
  if (text == old) return std::nullopt;
  return text;
}

namespace {

// --- origin mcp install -----------------------------------------------------------

struct Agent {
  const char* id;
  const char* name;
};
constexpr Agent kAgents[] = {
    {"claude-code", "Claude Code"}, {"codex", "Codex"}, {"cursor", "Cursor"}};

std::string EnvOr(const char* name, const std::string& dflt) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : dflt;
}

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
    old = ReadFile(file);
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

// --- origin service ---------------------------------------------------------------

namespace {

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
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

std::string UnitPath() {
  return EnvOr("XDG_CONFIG_HOME", proto::UserHome() + "/.config") +
         "/systemd/user/originsd.service";
}

std::string UnitText(const std::string& daemon, const std::string& home) {
  return Replace(Replace(kSystemdUnit, "{{ORIGINSD}}", SystemdWord(daemon)), "{{ORIGIN_HOME}}",
                 SystemdWord(home));
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

// A connection to the daemon that answers on the socket, if one does (none
// is started for it).
std::optional<Connection> RunningDaemon(const proto::Paths& paths) {
  ::setenv("ORIGIN_NO_AUTOSTART", "1", 1);
  try {
    return Connection::Open(paths, "origin");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Whether process `pid` runs (an exited one its parent has not reaped yet,
// a zombie, does not).
bool ProcessRuns(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;  // no /proc: assume it runs
  std::size_t paren = line.rfind(')');
  return paren == std::string::npos || line.size() < paren + 3 || line[paren + 2] != 'Z';
}

constexpr const char* kServiceUsage =
    "usage: origin service install [--print] | uninstall | status\n"
    "\n"
    "Runs originsd as a user service that starts at login: a systemd user unit\n"
    "(~/.config/systemd/user/originsd.service) on Linux, a launchd agent\n"
    "(~/Library/LaunchAgents/dev.origin.originsd.plist) on macOS.  Without it,\n"
    "origin and origin-mcp start the daemon when they need it.\n";

}  // namespace

int ServiceCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kServiceUsage, args.empty() ? stderr : stdout);
    return args.empty() ? proto::kExitUsage : 0;
  }
  const std::string& cmd = args[0];
  bool print = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--print" && cmd == "install") {
      print = true;
    } else {
      std::fprintf(stderr, "origin: unexpected argument %s\n%s", args[i].c_str(), kServiceUsage);
      return proto::kExitUsage;
    }
  }
  if (cmd != "install" && cmd != "uninstall" && cmd != "status") {
    std::fprintf(stderr, "origin: unknown service command %s\n%s", cmd.c_str(), kServiceUsage);
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
  auto run_all = [](const std::vector<std::vector<std::string>>& cmds, bool stop_on_error) {
    for (const auto& c : cmds) {
      RunOutput r = RunProgram(c);
      if (r.status != 0) {
        std::fprintf(stderr, "origin: %s failed:\n%s", Quoted(c).c_str(), r.output.c_str());
        if (stop_on_error) return false;
      }
    }
    return true;
  };
  if (cmd == "status") {
    bool installed = ::access(unit.c_str(), F_OK) == 0;
    std::printf("service: %s%s\n", installed ? "installed in " : "not installed",
                installed ? unit.c_str() : "");
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
      std::printf("service: not installed (no %s)\n", unit.c_str());
      return 0;
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
  if (print) {
    std::printf("would write %s:\n%s", unit.c_str(), text.c_str());
    return 0;
  }
  auto old = ReadFile(unit);
  if (old != text) {
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
  // service (it finishes its current transaction first).
  if (auto c = RunningDaemon(paths)) {
    const auto pid = static_cast<pid_t>(c->hello().pid);
    try {
      c->Call("shutdown");
      for (int i = 0; i < 300 && ProcessRuns(pid); ++i) ::usleep(100000);
    } catch (const std::exception&) {
      // It went away by itself.
    }
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
