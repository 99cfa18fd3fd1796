// SPDX-License-Identifier: MIT
#include "client/mcp_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "io/fd.hpp"
#include "origin_config.h"

namespace origin::client {

namespace {

using Clock = std::chrono::steady_clock;

long long MsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

// The last line or two of what the server wrote on stderr.
std::string Tail(const std::string& err) {
  std::string t = err;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  if (t.size() > 300) t = "…" + t.substr(t.size() - 300);
  return t.empty() ? "" : ": " + t;
}

// Waits for `pid` to exit for at most `ms`, then kills it.  Its exit status
// (-1 when it was killed or ended by a signal).
int Reap(pid_t pid, int ms) {
  int status = 0;
  const auto deadline = Clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (r < 0 && errno != EINTR) return -1;
    if (Clock::now() > deadline) break;
    ::usleep(20000);
  }
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return -1;
}

}  // namespace

ProbeResult ProbeMcpServer(const std::string& command, const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& env, int timeout_ms) {
  ProbeResult res;
  const auto start = Clock::now();
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return res.problem = std::strerror(errno), res;
  UniqueFd in_r(in[0]), in_w(in[1]);
  if (::pipe2(out, O_CLOEXEC) != 0) return res.problem = std::strerror(errno), res;
  UniqueFd out_r(out[0]), out_w(out[1]);
  if (::pipe2(err, O_CLOEXEC) != 0) return res.problem = std::strerror(errno), res;
  UniqueFd err_r(err[0]), err_w(err[1]);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(command.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return res.problem = std::strerror(errno), res;
  if (pid == 0) {
    ::dup2(in_r.get(), 0);
    ::dup2(out_w.get(), 1);
    ::dup2(err_w.get(), 2);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  in_r.Reset();
  out_w.Reset();
  err_w.Reset();
  ::signal(SIGPIPE, SIG_IGN);
  const std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
      R"("capabilities":{},"clientInfo":{"name":"origin-mcp-status","version":")" ORIGIN_VERSION
      R"("}}})"
      "\n";
  if (!WriteAll(in_w.get(), init)) {
    // It exited before reading: what it said is on stderr.
  }
  std::string stdout_buf, stderr_buf;
  bool out_open = true, err_open = true, done = false;
  const auto deadline = start + std::chrono::milliseconds(timeout_ms);
  while (!done && out_open) {
    const long long left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      res.problem = "no answer to initialize within " + std::to_string(timeout_ms / 1000) + " s" +
                    Tail(stderr_buf);
      break;
    }
    pollfd fds[2] = {{out_r.get(), POLLIN, 0}, {err_open ? err_r.get() : -1, POLLIN, 0}};
    int n = ::poll(fds, 2, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    char buf[8192];
    if (fds[1].revents != 0) {
      ssize_t r = ::read(err_r.get(), buf, sizeof buf);
      if (r <= 0)
        err_open = false;
      else if (stderr_buf.size() < (1u << 16))
        stderr_buf.append(buf, static_cast<std::size_t>(r));
    }
    if (fds[0].revents == 0) continue;
    ssize_t r = ::read(out_r.get(), buf, sizeof buf);
    if (r <= 0) {
      out_open = false;
      break;
    }
    stdout_buf.append(buf, static_cast<std::size_t>(r));
    for (std::size_t nl; !done && (nl = stdout_buf.find('\n')) != std::string::npos;) {
      const std::string line = stdout_buf.substr(0, nl);
      stdout_buf.erase(0, nl + 1);
      rapidjson::Document d;
      d.Parse(line.c_str());
      if (d.HasParseError() || !d.IsObject()) {
        res.problem = "it wrote something that is not JSON-RPC on stdout: " + line.substr(0, 80);
        done = true;
        break;
      }
      auto id = d.FindMember("id");
      if (id == d.MemberEnd() || !id->value.IsInt() || id->value.GetInt() != 1) continue;
      done = true;
      auto result = d.FindMember("result");
      if (result == d.MemberEnd() || !result->value.IsObject()) {
        auto e = d.FindMember("error");
        res.problem = "it answered initialize with an error";
        if (e != d.MemberEnd() && e->value.IsObject() && e->value.HasMember("message") &&
            e->value["message"].IsString())
          res.problem += std::string(": ") + e->value["message"].GetString();
        break;
      }
      res.answered = true;
      const auto& rv = result->value;
      if (auto info = rv.FindMember("serverInfo"); info != rv.MemberEnd() && info->value.IsObject()) {
        for (const char* k : {"name", "version"})
          if (auto v = info->value.FindMember(k); v != info->value.MemberEnd() && v->value.IsString())
            res.server += (res.server.empty() ? "" : " ") + std::string(v->value.GetString());
      }
      if (auto v = rv.FindMember("protocolVersion"); v != rv.MemberEnd() && v->value.IsString())
        res.protocol = v->value.GetString();
    }
  }
  res.ms = MsSince(start);
  in_w.Reset();  // the end of its input: it exits
  const int status = Reap(pid, 5000);
  if (!res.answered && res.problem.empty()) {
    // Its stdout ended: it exited (or closed it) without answering.
    while (err_open) {
      char buf[8192];
      pollfd f{err_r.get(), POLLIN, 0};
      if (::poll(&f, 1, 100) <= 0) break;
      ssize_t r = ::read(err_r.get(), buf, sizeof buf);
      if (r <= 0) break;
      stderr_buf.append(buf, static_cast<std::size_t>(r));
    }
    res.problem = (status >= 0 ? "it exited with status " + std::to_string(status)
                               : std::string("it ended")) +
                  " without answering initialize" + Tail(stderr_buf);
  }
  return res;
}

}  // namespace origin::client
