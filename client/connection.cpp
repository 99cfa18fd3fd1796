// SPDX-License-Identifier: MIT
#include "client/connection.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "client/host.hpp"
#include "io/fd.hpp"
#include "origin_config.h"

namespace origin::client {

namespace {

// A connected socket, or an empty UniqueFd with *err set.
UniqueFd TryConnect(const std::string& path, int* err) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) {
    *err = errno;
    return fd;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    *err = ENAMETOOLONG;
    return UniqueFd();
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    *err = errno;
    return UniqueFd();
  }
  return fd;
}

void Send(const UniqueFd& fd, const std::string& s) {
  if (!SendAll(fd.get(), s))
    throw ClientError(proto::code::kUnavailable,
                      std::string("lost the daemon: ") + std::strerror(errno));
}

std::vector<std::string>& DaemonArguments() {
  static std::vector<std::string> args;
  return args;
}

// Runs `originsd --background`, which returns once the daemon is ready or
// has failed; its stderr (the reason) goes to ours.
void StartDaemon(const proto::Paths& paths) {
  std::string exe = DaemonPath();
  std::vector<const char*> argv = {exe.c_str(), "--background", "--home", paths.home.c_str()};
  for (const std::string& a : DaemonArguments()) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw ClientError(proto::code::kUnavailable, "fork failed");
  if (pid == 0) {
    int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
      ::dup2(null, 0);
      ::dup2(null, 1);
    }
    ::execvp(exe.c_str(), const_cast<char* const*>(argv.data()));
    std::fprintf(stderr, "origin: cannot run %s: %s\n", exe.c_str(), std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    // A daemon that lost a start-up race to another says so; the other answers.
  }
}

}  // namespace

void AddDaemonArgument(std::string arg) { DaemonArguments().push_back(std::move(arg)); }

std::string SelfDir() {
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  self[n] = '\0';
  std::string dir(self);
  return dir.substr(0, dir.rfind('/'));
}

std::string DaemonPath() {
  if (const char* e = std::getenv("ORIGINSD"); e != nullptr && *e != '\0') return e;
  return SiblingExe("originsd", "daemon");
}

std::string SiblingExe(const char* name, const char* build_dir) {
  if (const std::string dir = SelfDir(); !dir.empty()) {
    for (const std::string& cand : {dir + "/" + name, dir + "/../" + build_dir + "/" + name}) {
      char real[PATH_MAX];
      if (::access(cand.c_str(), X_OK) == 0 && ::realpath(cand.c_str(), real) != nullptr)
        return real;
    }
  }
  return name;
}

std::string Connection::ReadLine() {
  for (;;) {
    if (auto line = buf_.Next()) return *line;
    char tmp[65536];
    ssize_t n = ::read(fd_.get(), tmp, sizeof tmp);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ClientError(proto::code::kUnavailable, "the daemon closed the connection");
    buf_.Append(tmp, static_cast<std::size_t>(n));
  }
}

namespace {

// Connects, starting the daemon when none answers and autostart is on.
UniqueFd ConnectOrStart(const proto::Paths& paths, bool autostart, std::chrono::milliseconds wait) {
  int err = 0;
  UniqueFd fd = TryConnect(paths.socket, &err);
  if (!fd && autostart && (err == ENOENT || err == ECONNREFUSED)) {
    StartDaemon(paths);
    // Wait for the socket, with a doubling backoff, at most `wait` in all.
    auto deadline = std::chrono::steady_clock::now() + wait;
    int delay_ms = 5;
    while (!(fd = TryConnect(paths.socket, &err)) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      delay_ms = std::min(delay_ms * 2, 500);
    }
  }
  if (!fd) {
    std::string why = std::strerror(err);
    throw ClientError(proto::code::kUnavailable,
                      "no originsd answers on " + paths.socket + " (" + why + ")" +
                          (autostart ? ", and none could be started"
                                     : "; start one with: originsd --background"));
  }
  return fd;
}

// Waits until nothing answers on the socket any more (at most 5 s).
void WaitGone(const std::string& socket) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int err = 0;
  while (TryConnect(socket, &err)) {
    if (std::chrono::steady_clock::now() > deadline) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

Connection Connection::Open(const proto::Paths& paths, const std::string& client_name,
                            const std::string& session, std::chrono::milliseconds wait,
                            bool may_start) {
  const char* no_auto = std::getenv("ORIGIN_NO_AUTOSTART");
  const bool autostart = may_start && (no_auto == nullptr || std::string(no_auto) != "1");
  for (int attempt = 0;; ++attempt) {
    UniqueFd fd = ConnectOrStart(paths, autostart, wait);
    proto::ClientHello h;
    h.client = client_name;
    h.version = ORIGIN_VERSION;
    h.pid = ::getpid();
    h.session = session;
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) != nullptr) h.cwd = cwd;
    Connection c(std::move(fd), {});
    Send(c.fd_, proto::Encode(h) + "\n");
    std::string line = c.ReadLine();
    std::string perr;
    auto dh = proto::DecodeDaemonHello(line, &perr);
    if (!dh) throw ClientError(proto::code::kProtocol, "the daemon's hello: " + perr + ": " + line);
    c.hello_ = *dh;
    // A daemon older than this client (Origin was upgraded while it ran):
    // ask it to stop, and start the new one, rather than talk to the old.
    if (autostart && attempt == 0 && proto::CompareVersions(ORIGIN_VERSION, dh->daemon) > 0) {
      try {
        c.Call("shutdown");
      } catch (const ClientError&) {
      }
      c.fd_.Reset();
      WaitGone(paths.socket);
      continue;
    }
    return c;
  }
}

rapidjson::Document Connection::Call(const std::string& method, const std::string& params_json,
                                     const std::function<void(const rapidjson::Value&)>& on_note) {
  int id = next_id_++;
  Send(fd_, "{\"id\":" + std::to_string(id) + ",\"method\":\"" + method +
                "\",\"params\":" + params_json + "}\n");
  for (;;) {
    std::string line = ReadLine();
    rapidjson::Document d;
    d.Parse<proto::kJsonParseFlags>(line.data(), line.size());
    if (d.HasParseError() || !d.IsObject())
      throw ClientError(proto::code::kProtocol, "the daemon sent something that is not JSON");
    auto idit = d.FindMember("id");
    if (idit == d.MemberEnd()) {
      if (on_note) on_note(d);
      continue;
    }
    if (!idit->value.IsInt() || idit->value.GetInt() != id) {
      if (auto e = d.FindMember("error"); e != d.MemberEnd() && e->value.IsObject()) {
        auto msg = e->value.FindMember("message");
        throw ClientError(proto::code::kProtocol,
                          msg != e->value.MemberEnd() && msg->value.IsString()
                              ? msg->value.GetString()
                              : "protocol error");
      }
      continue;
    }
    if (auto e = d.FindMember("error"); e != d.MemberEnd() && e->value.IsObject()) {
      auto c = e->value.FindMember("code");
      auto m = e->value.FindMember("message");
      throw ClientError(
          c != e->value.MemberEnd() && c->value.IsString() ? c->value.GetString() : "internal",
          m != e->value.MemberEnd() && m->value.IsString() ? m->value.GetString() : "error");
    }
    // A notice beside the result (an import under way: the answer holds
    // what is stored so far) goes to stderr, so that --json stays the result.
    if (auto n = d.FindMember("notice"); n != d.MemberEnd() && n->value.IsString())
      std::fprintf(stderr, "origin: note: %s\n", n->value.GetString());
    rapidjson::Document result;
    if (auto r = d.FindMember("result"); r != d.MemberEnd())
      result.CopyFrom(r->value, result.GetAllocator());
    return result;
  }
}

std::optional<std::int64_t> StopDaemon(const proto::Paths& paths, std::chrono::milliseconds wait) {
  int err = 0;
  if (!TryConnect(paths.socket, &err)) return std::nullopt;
  std::int64_t pid = 0;
  {
    std::optional<Connection> c;
    try {
      c.emplace(Connection::Open(paths, "origin", "", std::chrono::seconds(5), false));
    } catch (const ClientError& e) {
      if (e.code() == proto::code::kUnavailable) return std::nullopt;  // gone meanwhile
      throw;
    }
    pid = c->hello().pid;
    try {
      c->Call("shutdown");
    } catch (const ClientError& e) {
      // It may close the connection as it goes, before the answer.
      if (e.code() != proto::code::kUnavailable) throw;
    }
  }
  // Its socket goes first; then it finishes its transaction, closes the
  // store and lets go of its lock: it is stopped once the process is gone.
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (pid > 0 && ProcessRuns(static_cast<int>(pid))) {
    if (std::chrono::steady_clock::now() > deadline)
      throw ClientError(proto::code::kUnavailable, "originsd (pid " + std::to_string(pid) +
                                                       ") was asked to stop and still runs");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pid;
}

}  // namespace origin::client
