// SPDX-License-Identifier: MIT
#include "tests/e2e/ui_client.hpp"

#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/socket.h>
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

const char kTokenChars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string FindRun(const std::string& text, const std::string& prefix, const std::string& chars,
                    std::size_t from, std::size_t* end) {
  const std::size_t at = text.find(prefix, from);
  if (at == std::string::npos) return "";
  std::size_t stop = text.find_first_not_of(chars, at + prefix.size());
  if (stop == std::string::npos) stop = text.size();
  if (end != nullptr) *end = stop;
  return text.substr(at, stop - at);
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

int ConnectTcp(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

namespace {

// Parses what was read; false while the response is not whole.
bool ParseReply(const std::string& raw, HttpReply* r) {
  const std::size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  r->status = std::atoi(raw.substr(9, 3).c_str());
  std::size_t at = raw.find("\r\n") + 2;
  r->headers.clear();
  while (at < end) {
    const std::size_t eol = raw.find("\r\n", at);
    const std::string line = raw.substr(at, eol - at);
    const std::size_t colon = line.find(':');
    std::string name = line.substr(0, colon);
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    r->headers[name] = line.substr(colon + 2);
    at = eol + 2;
  }
  const std::size_t length = std::stoul(r->headers.count("content-length") != 0 ? r->headers["content-length"] : "0");
  if (raw.size() < end + 4 + length) return false;
  r->body = raw.substr(end + 4, length);
  return true;
}

}  // namespace

HttpReply HttpRaw(int port, const std::string& raw, int timeout_ms) {
  HttpReply r;
  const int fd = ConnectTcp(port);
  if (fd < 0) return r;
  std::size_t sent = 0;
  while (sent < raw.size()) {
    const ssize_t n = ::send(fd, raw.data() + sent, raw.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may refuse before all is sent
    sent += static_cast<std::size_t>(n);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool whole = false;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[65536];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      r.closed = true;
      break;
    }
    r.raw.append(buf, static_cast<std::size_t>(n));
    if (!whole && ParseReply(r.raw, &r)) {
      whole = true;
      if (r.headers.count("connection") == 0) break;  // kept alive: done
    }
  }
  if (!whole) r.status = ParseReply(r.raw, &r) ? r.status : 0;
  ::close(fd);
  return r;
}

HttpReply Http(int port, const std::string& method, const std::string& target,
               const std::map<std::string, std::string>& headers, const std::string& body) {
  std::string raw = method + " " + target + " HTTP/1.1\r\n";
  if (headers.count("Host") == 0) raw += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  for (const auto& [k, v] : headers) raw += k + ": " + v + "\r\n";
  if (method == "POST" || !body.empty()) raw += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  raw += "\r\n" + body;
  return HttpRaw(port, raw);
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
