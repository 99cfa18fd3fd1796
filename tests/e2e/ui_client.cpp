// SPDX-License-Identifier: MIT
#include "tests/e2e/ui_client.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "tests/e2e/daemon_fixture.hpp"

namespace origin::test {

UiProcess::UiProcess(DaemonFixture& f, const std::vector<std::string>& args, const Options& o) {
  const char* origin = std::getenv("ORIGIN");
  REQUIRE(origin != nullptr);
  std::vector<std::string> argv = {origin, "ui"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::map<std::string, std::string> env = f.env();
  for (const char* k : {"PATH", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"})
    if (const char* v = std::getenv(k)) env[k] = v;
  env["TMPDIR"] = f.dir().path();  // the redirect file, in the test's directory
  env.erase("XDG_RUNTIME_DIR");
  for (const auto& [k, v] : o.env) env[k] = v;
  std::vector<std::string> envs;
  for (auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> cargv, cenv;
  for (auto& s : argv) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  for (auto& s : envs) cenv.push_back(s.data());
  cenv.push_back(nullptr);
  // A signal blocked here is blocked in the child from its first instruction
  // (the mask is inherited by fork and kept by exec): sent at once, it stays
  // pending until origin ui unblocks it, as one that arrives before its
  // handlers are in place would.
  sigset_t block, was;
  ::sigemptyset(&block);
  if (o.sigint_pending) ::sigaddset(&block, SIGINT);
  ::sigprocmask(SIG_BLOCK, &block, &was);
  pid_ = ::forkpty(&term_, nullptr, nullptr, nullptr);
  if (pid_ == 0) {
    ::execve(cargv[0], cargv.data(), cenv.data());
    ::_exit(127);
  }
  ::sigprocmask(SIG_SETMASK, &was, nullptr);
  REQUIRE(pid_ > 0);
  if (o.sigint_pending) ::kill(pid_, SIGINT);
}

UiProcess::~UiProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (term_ >= 0) ::close(term_);
}

bool UiProcess::Read(int timeout_ms) {
  pollfd p{term_, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return false;
  char buf[4096];
  const ssize_t n = ::read(term_, buf, sizeof buf);
  if (n <= 0) return false;
  out_.append(buf, static_cast<std::size_t>(n));
  return true;
}

std::string UiProcess::NextLink() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    // http://127.0.0.1:PORT/admin/signin?secret=TOKEN, whole (the token ends before the line does).
    std::size_t end = 0;
    for (std::size_t from = seen_;; from = end) {
      const std::string link = FindRun(
          out_, "http://127.0.0.1:", std::string("0123456789/:?=.") + kTokenChars, from, &end);
      if (link.empty() || end >= out_.size()) break;
      if (link.find("/admin/signin?secret=") == std::string::npos) continue;
      // The announcement is whole with the line after the link (the
      // redirect file's), which the terminal may pass on in a read of its own.
      const std::size_t file = out_.find("or open ", end);
      if (file == std::string::npos || out_.find('\n', file) == std::string::npos) break;
      seen_ = end;
      port_ = std::stoi(link.substr(17));
      return link;
    }
    if (!Read(200) && pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
  }
  return "";
}

std::string UiProcess::NewLink() {
  REQUIRE(::write(term_, "\r", 1) == 1);  // Enter, as a terminal sends it
  return NextLink();
}

int UiProcess::Stop() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGINT);
  return Wait();
}

int UiProcess::Wait() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      while (Read(50)) {
      }
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    Read(50);
  }
  return -1;
}

std::map<std::string, std::string> UiSession::Post(const std::string& csrf_token) const {
  return {{"Cookie", cookie},
          {"Origin", "http://127.0.0.1:" + std::to_string(port)},
          {"Content-Type", "application/json"},
          {"X-CSRF-Token", csrf_token}};
}

std::map<std::string, std::string> UiSession::Form() const {
  return {{"Cookie", cookie},
          {"Origin", "http://127.0.0.1:" + std::to_string(port)},
          {"Content-Type", "application/x-www-form-urlencoded"}};
}

std::string LinkPath(const std::string& link) { return link.substr(link.find("/admin/")); }

UiSession UiSignIn(const std::string& link, int port) {
  HttpReply r = Http(port, "GET", LinkPath(link));
  REQUIRE(r.status == 303);
  CHECK(r.headers["location"] == "/admin/");
  const std::string cookie = r.headers["set-cookie"];
  REQUIRE(!cookie.empty());
  CHECK(cookie.find("HttpOnly") != std::string::npos);
  CHECK(cookie.find("SameSite=Lax") != std::string::npos);
  CHECK(cookie.find("Path=/admin") != std::string::npos);
  UiSession s;
  s.link = link;
  s.port = port;
  s.cookie = cookie.substr(0, cookie.find(';'));
  // The token every page carries (its forms' _csrf, and a meta for the script).
  HttpReply page = Http(port, "GET", "/admin/search?q=x", {{"Cookie", s.cookie}});
  REQUIRE(page.status == 200);
  const std::string meta = FindRun(page.body, "name=\"csrf\" content=\"", kTokenChars);
  REQUIRE(!meta.empty());
  s.csrf = meta.substr(meta.find("content=\"") + 9);
  return s;
}

UiSession UiSignIn(UiProcess& ui) {
  const std::string link = ui.NextLink();
  REQUIRE_MESSAGE(!link.empty(), ui.out());
  return UiSignIn(link, ui.port());
}

}  // namespace origin::test
