// SPDX-License-Identifier: MIT
#include "tests/e2e/daemon_fixture.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/codex/codex.hpp"
#include "core/store/mirror.hpp"
#include "core/store/schema.hpp"

namespace origin::test {

namespace {

std::string Exe(const char* var) {
  const char* v = std::getenv(var);
  REQUIRE_MESSAGE(v != nullptr, var << " is not set (run the tests through meson)");
  return v;
}

std::vector<char*> CStrings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> EnvList(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> all;
  for (const char* k : {"PATH", "TMPDIR", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TZ"})
    if (const char* v = std::getenv(k)) all[k] = v;
  for (auto& [k, v] : env) all[k] = v;
  std::vector<std::string> out;
  for (auto& [k, v] : all) out.push_back(k + "=" + v);
  return out;
}

int Decode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

int UnixSocket(const std::string& path, bool bind) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  if ((bind ? ::bind(fd, sa, sizeof addr) : ::connect(fd, sa, sizeof addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

RunResult Run(const std::vector<std::string>& argv_in,
              const std::map<std::string, std::string>& env, uid_t uid, double timeout_s) {
  int out_pipe[2], err_pipe[2];
  REQUIRE(::pipe2(out_pipe, O_CLOEXEC) == 0);
  REQUIRE(::pipe2(err_pipe, O_CLOEXEC) == 0);
  std::vector<std::string> argv = argv_in;
  std::vector<std::string> envs = EnvList(env);
  auto cargv = CStrings(argv);
  auto cenv = CStrings(envs);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    if (uid != 0 && (::setgid(uid) != 0 || ::setuid(uid) != 0)) ::_exit(126);
    ::execve(cargv[0], cargv.data(), cenv.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  RunResult r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool killed = false;
  while (open_fds > 0) {
    int wait_ms = -1;
    if (timeout_s > 0 && !killed) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        ::kill(pid, SIGKILL);
        killed = true;
      } else {
        wait_ms = static_cast<int>(left.count());
      }
    }
    if (::poll(fds, 2, wait_ms) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[65536];
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.status = Decode(status);
  return r;
}

RunResult RunInTerminal(const std::vector<std::string>& argv_in,
                        const std::map<std::string, std::string>& env, unsigned short columns) {
  std::vector<std::string> argv = argv_in;
  std::vector<std::string> envs = EnvList(env);
  auto cargv = CStrings(argv);
  auto cenv = CStrings(envs);
  winsize size{};
  size.ws_row = 50;
  size.ws_col = columns;
  int terminal = -1;
  pid_t pid = ::forkpty(&terminal, nullptr, nullptr, &size);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execve(cargv[0], cargv.data(), cenv.data());
    ::_exit(127);
  }
  RunResult r;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(terminal, buf, sizeof buf);
    if (n > 0) {
      r.out.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: every descriptor of the terminal's other side is closed
    }
  }
  ::close(terminal);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.status = Decode(status);
  return r;
}

DaemonFixture::DaemonFixture(const std::string& base) : dir_(base) {
  env_["ORIGIN_HOME"] = home();
  env_["CLAUDE_CONFIG_DIR"] = claude();
  env_["CODEX_HOME"] = codex();
  env_["ZCODE_HOME"] = zcode();
  env_["GROK_HOME"] = grok();
  env_["HOME"] = dir_ / "user";
  env_["ORIGIN_DEVICE"] = "testbox";
  env_["ORIGIN_NO_AUTOSTART"] = "1";
  env_["ORIGINSD"] = Exe("ORIGINSD");
  MakeDirs(claude(), 0755);
  MakeDirs(codex(), 0755);
}

DaemonFixture::~DaemonFixture() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

void DaemonFixture::DumpLog() {
  if (Exists(log())) MESSAGE("originsd log:\n" << ReadAll(log()));
}

RunResult DaemonFixture::StartExpectingFailure(const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {Exe("ORIGINSD"), "--foreground"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return Run(argv, env_, run_as, 30);
}

void DaemonFixture::Start(const std::vector<std::string>& extra) {
  REQUIRE(pid_ < 0);
  std::vector<std::string> argv = {Exe("ORIGINSD"), "--foreground", "--log-file", log()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  std::vector<std::string> envs = EnvList(env_);
  auto cargv = CStrings(argv);
  auto cenv = CStrings(envs);
  uid_t uid = run_as;
  pid_ = ::fork();
  REQUIRE(pid_ >= 0);
  if (pid_ == 0) {
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    if (uid != 0 && (::setgid(uid) != 0 || ::setuid(uid) != 0)) ::_exit(126);
    ::execve(cargv[0], cargv.data(), cenv.data());
    ::_exit(127);
  }
  const std::string sock = home() + "/run/originsd.sock";
  bool ready = WaitFor([&] {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return true;  // exited: fail below
    }
    int fd = UnixSocket(sock);
    if (fd >= 0) ::close(fd);
    return fd >= 0;
  });
  if (!ready || pid_ < 0) DumpLog();
  REQUIRE_MESSAGE(pid_ > 0, "originsd exited during start-up");
  REQUIRE_MESSAGE(ready, "originsd did not answer within 10 s");
}

void DaemonFixture::Stop() {
  REQUIRE(pid_ > 0);
  ::kill(pid_, SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  if (Decode(status) != 0) DumpLog();
  CHECK_MESSAGE(Decode(status) == 0, "originsd exited with " << Decode(status));
}

void DaemonFixture::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string ClaudeLine(const std::string& uuid, const std::string& text,
                       const std::string& session) {
  return R"({"type":"user","uuid":")" + uuid + R"(","sessionId":")" + session +
         R"(","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/home/dev/app","version":"2.1.12","message":{"role":"user","content":")" +
         text + "\"}}\n";
}

std::map<std::string, std::string> MirrorContents(const std::string& home) {
  std::map<std::string, std::string> out;
  auto db = OpenReadConnection(home + "/origin.db");
  MirrorStore mirrors(home + "/raw");
  Stmt st(db->get(), "SELECT id, mirror FROM raw_file");
  while (st.Step()) out[std::string(st.Text(1))] = mirrors.ReadContent(*db, st.Int(0));
  return out;
}

rapidjson::Document Json(const std::string& s) {
  rapidjson::Document d;
  d.Parse(s.c_str());
  REQUIRE_MESSAGE(!d.HasParseError(), "not JSON: " << s);
  return d;
}

RunResult DaemonFixture::Cli(const std::vector<std::string>& args,
                             const std::map<std::string, std::string>& extra_env) {
  std::vector<std::string> argv = {Exe("ORIGIN")};
  argv.insert(argv.end(), args.begin(), args.end());
  auto env = env_;
  for (auto& [k, v] : extra_env) env[k] = v;
  return Run(argv, env);
}

RunResult DaemonFixture::CliInTerminal(const std::vector<std::string>& args,
                                       const std::map<std::string, std::string>& extra_env,
                                       unsigned short columns) {
  std::vector<std::string> argv = {Exe("ORIGIN")};
  argv.insert(argv.end(), args.begin(), args.end());
  auto env = env_;
  env["PAGER"] = "cat";  // a test reads what origin prints, not a pager's screen
  for (auto& [k, v] : extra_env) env[k] = v;
  return RunInTerminal(argv, env, columns);
}

std::optional<int> DaemonFixture::WaitForExit(double seconds) {
  REQUIRE(pid_ > 0);
  int status = 0;
  bool exited = WaitFor([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, seconds);
  if (!exited) return std::nullopt;
  pid_ = -1;
  return Decode(status);
}

std::int64_t DaemonFixture::Events(const std::string& source) {
  RunResult r = Cli({"status", "--json"});
  if (r.status != 0 && r.status != 5) return -1;  // 5: something needs the user
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  if (d.HasParseError()) return -1;
  if (source.empty()) return d["store"]["events"].GetInt64();
  for (auto& s : d["sources"].GetArray())
    if (source == s["source"].GetString()) return s["events"].GetInt64();
  return -1;
}

bool DaemonFixture::WaitFor(const std::function<bool()>& pred, double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int delay = 2;
  while (true) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    delay = std::min(delay * 2, 100);
  }
}

ScopedTmpfs::ScopedTmpfs(const std::string& dir, const std::string& size) : dir_(dir) {
  ::mkdir(dir.c_str(), 0700);
  mounted_ = ::mount("tmpfs", dir.c_str(), "tmpfs", 0, ("size=" + size + ",mode=0700").c_str()) == 0;
}

ScopedTmpfs::~ScopedTmpfs() {
  if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
}

int CheckAsUninterrupted(const DaemonFixture& f) {
  TestStore ref;
  adapters::ClaudeCodeAdapter claude(f.claude());
  adapters::CodexAdapter codex(f.codex());
  ref.ingester->Sync({&claude, &codex}, {});
  auto db = OpenReadConnection(f.home() + "/origin.db");
  CHECK(db->QueryInt("SELECT count(*) FROM event") ==
        ref.db->QueryInt("SELECT count(*) FROM event"));
  CHECK(DumpEvents(*db) == DumpEvents(*ref.db));
  CHECK(db->QueryInt("SELECT count(*) FROM raw_file WHERE broken IS NOT NULL") == 0);
  CHECK(db->QueryInt("SELECT max(generation) FROM raw_file") == 1);
  MirrorStore mirrors(f.home() + "/raw");
  Stmt st(db->get(), "SELECT id, path FROM raw_file");
  int checked = 0;
  while (st.Step()) {
    const std::string path(st.Text(1));
    CHECK_MESSAGE(mirrors.ReadContent(*db, st.Int(0)) == CompleteLines(path), path);
    ++checked;
  }
  CHECK(checked == ref.db->QueryInt("SELECT count(*) FROM raw_file"));
  return checked;
}

}  // namespace origin::test
