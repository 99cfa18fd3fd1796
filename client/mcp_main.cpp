// SPDX-License-Identifier: MIT
// origin-mcp: the MCP server every agent launches (stdio).  A pump: it
// connects to originsd (starting it when none answers), says hello as
// origin-mcp, and copies MCP JSON-RPC lines from stdin to the socket and the
// daemon's lines back to stdout; the MCP server itself lives in the daemon
// (daemon/mcp.cpp).  Nothing but JSON-RPC is ever written to stdout;
// diagnostics go to stderr.  Its hello carries a session (random, one per
// process); when the daemon goes away with requests unanswered, the shim
// connects again (starting a daemon if none answers), replays the agent's
// initialize, and sends each unanswered request once more, the same line
// with the same id: the daemon keys writes by session and id, so a write is
// neither lost nor made twice.  A request no daemon takes gets a JSON-RPC
// error, and the next request connects again.  When stdin ends, or on
// SIGTERM, SIGINT or SIGHUP, it tells the daemon that the agent left (the
// daemon ingests once more) and exits within 5 seconds.

#include <fcntl.h>
#include <poll.h>
#include <rapidjson/document.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "client/connection.hpp"
#include "client/random_key.hpp"
#include "io/fd.hpp"
#include "origin_config.h"
#include "proto/paths.hpp"
#include "proto/protocol.hpp"

namespace {

using origin::UniqueFd;
using origin::WriteAll;
using origin::client::ClientError;
using origin::client::Connection;
using origin::client::RandomKey;
namespace proto = origin::proto;

int g_signal_pipe[2] = {-1, -1};

void OnSignal(int) {
  int saved = errno;
  char c = 1;
  [[maybe_unused]] ssize_t n = ::write(g_signal_pipe[1], &c, 1);
  errno = saved;
}

// The messages of a line (one, or a batch's), read without building them: a
// SAX pass with RapidJSON's iterative parser, so no nesting, however deep,
// can exhaust the stack, and nothing is allocated for what is not needed.
// For each message (an object at the top, or in the top array): its id as
// JSON when it is a string or an integer, and its method when it is a
// string.  Invalid JSON gives no message.
struct Message {
  std::string id;  // JSON text; "" when absent or of another type
  std::optional<std::string> method;
};

class Scan : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Scan> {
 public:
  std::vector<Message> messages;
  bool batch() const { return batch_; }

  bool StartObject() {
    if (++depth_ == MessageDepth()) messages.emplace_back();
    field_ = kNone;
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    --depth_;
    field_ = kNone;
    return true;
  }
  bool StartArray() {
    if (++depth_ == 1) batch_ = true;
    field_ = kNone;
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    --depth_;
    field_ = kNone;
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    field_ = kNone;
    if (depth_ == MessageDepth() && !messages.empty()) {
      std::string_view k(s, n);
      field_ = k == "id" ? kId : k == "method" ? kMethod : kNone;
    }
    return true;
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (field_ == kId) {
      rapidjson::Value v(s, n);
      messages.back().id = proto::ToJson(v);
    } else if (field_ == kMethod) {
      messages.back().method = std::string(s, n);
    }
    field_ = kNone;
    return true;
  }
  bool Int64Id(std::int64_t i) {
    if (field_ == kId) messages.back().id = std::to_string(i);
    field_ = kNone;
    return true;
  }
  bool Int(int i) { return Int64Id(i); }
  bool Uint(unsigned u) { return Int64Id(u); }
  bool Int64(std::int64_t i) { return Int64Id(i); }
  bool Uint64(std::uint64_t u) {
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) return Int64Id(static_cast<std::int64_t>(u));
    return Default();
  }
  bool Default() {
    field_ = kNone;
    return true;
  }

 private:
  int MessageDepth() const { return batch_ ? 2 : 1; }
  enum Field { kNone, kId, kMethod };
  int depth_ = 0;
  bool batch_ = false;
  Field field_ = kNone;
};

std::vector<Message> Messages(const std::string& line, bool* batch = nullptr) {
  Scan scan;
  rapidjson::Reader reader;
  rapidjson::StringStream ss(line.c_str());
  if (reader.Parse<rapidjson::kParseIterativeFlag>(ss, scan).IsError()) return {};
  if (batch != nullptr) *batch = scan.batch();
  return std::move(scan.messages);
}

// The ids of the requests in a line (a message with an id and a method);
// `is_initialize` is set for an initialize request on its own.
std::vector<std::string> RequestIds(const std::string& line, bool* is_initialize) {
  bool batch = false;
  std::vector<Message> msgs = Messages(line, &batch);
  std::vector<std::string> ids;
  for (const Message& m : msgs)
    if (!m.id.empty() && m.method) ids.push_back(m.id);
  *is_initialize = !batch && !ids.empty() && msgs[0].method == std::string("initialize");
  return ids;
}

// The ids a line from the daemon answers (one reply or a batch's array).
std::vector<std::string> ReplyIds(const std::string& line) {
  std::vector<std::string> ids;
  for (const Message& m : Messages(line))
    if (!m.id.empty()) ids.push_back(m.id);
  return ids;
}

// `line` (a request the daemon takes) with its top-level id replaced: a
// SAX pass from the reader to a writer.
class ReplaceId : public rapidjson::Writer<rapidjson::StringBuffer> {
 public:
  ReplaceId(rapidjson::StringBuffer& sb, const char* id)
      : rapidjson::Writer<rapidjson::StringBuffer>(sb), id_(id) {}
  using Base = rapidjson::Writer<rapidjson::StringBuffer>;
  bool StartObject() {
    ++depth_;
    return Base::StartObject();
  }
  bool EndObject(rapidjson::SizeType n) {
    --depth_;
    return Base::EndObject(n);
  }
  bool StartArray() {
    ++depth_;
    return Base::StartArray();
  }
  bool EndArray(rapidjson::SizeType n) {
    --depth_;
    return Base::EndArray(n);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    replace_ = depth_ == 1 && std::string_view(s, n) == "id";
    return Base::Key(s, n, copy);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    if (std::exchange(replace_, false)) return Base::String(id_);
    return Base::String(s, n, copy);
  }
  bool Int(int i) { return std::exchange(replace_, false) ? Base::String(id_) : Base::Int(i); }
  bool Uint(unsigned u) {
    return std::exchange(replace_, false) ? Base::String(id_) : Base::Uint(u);
  }
  bool Int64(std::int64_t i) {
    return std::exchange(replace_, false) ? Base::String(id_) : Base::Int64(i);
  }
  bool Uint64(std::uint64_t u) {
    return std::exchange(replace_, false) ? Base::String(id_) : Base::Uint64(u);
  }

 private:
  const char* id_;
  int depth_ = 0;
  bool replace_ = false;
};

std::string WithId(const std::string& line, const char* id) {
  rapidjson::StringBuffer sb;
  ReplaceId w(sb, id);
  rapidjson::Reader reader;
  rapidjson::StringStream ss(line.c_str());
  reader.Parse<rapidjson::kParseIterativeFlag>(ss, w);
  return sb.GetString();
}

constexpr const char* kReplayId = "origin-mcp:initialize";
constexpr const char* kLeftId = "origin-mcp:left";

class Shim {
 public:
  explicit Shim(proto::Paths paths) : paths_(std::move(paths)), session_(RandomKey()) {}

  int Run() {
    Connect();
    proto::LineBuffer in;
    char buf[65536];
    bool stdin_open = true;
    for (;;) {
      if (!stdin_open && (pending_.empty() || !sock_)) break;
      int timeout = -1;
      if (!stdin_open) {
        auto left = Left().count();
        if (left <= 0) break;
        timeout = static_cast<int>(left);
      }
      pollfd fds[3] = {{g_signal_pipe[0], POLLIN, 0},
                       {sock_.get(), POLLIN, 0},
                       {stdin_open ? 0 : -1, POLLIN, 0}};
      int n = ::poll(fds, 3, timeout);
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (fds[0].revents != 0) break;  // SIGTERM, SIGINT, SIGHUP
      if (sock_ && fds[1].revents != 0 && !FromDaemon()) Lost("the Origin daemon went away");
      if (stdin_open && fds[2].revents != 0) {
        ssize_t r = ::read(0, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {  // the agent closed stdin
          stdin_open = false;
          // The answers still due are delivered within 4 s, and Leave takes
          // at most 1 s more: the shim is gone within 5 s.
          deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(4);
          continue;
        }
        in.Append(buf, static_cast<std::size_t>(r));
        while (auto line = in.Next()) {
          if (!line->empty() && line->back() == '\r') line->pop_back();
          if (!line->empty()) ToDaemon(*line);
        }
        if (in.Overflow()) {
          std::fprintf(stderr, "origin-mcp: a message of more than 64 MiB; stopping\n");
          break;
        }
      }
    }
    Leave();
    return 0;
  }

 private:
  // A request line sent to the daemon and not answered yet, with the ids
  // still due (a batch has several).
  struct Pending {
    std::string line;
    std::set<std::string> ids;
    bool replayed = false;  // sent again after a lost daemon (that happens once)
  };

  // What is left of the time the shim has: unlimited (an hour) while the
  // agent is there, the rest of the 4 s once stdin has ended.
  std::chrono::milliseconds Left() const {
    if (deadline_ == std::chrono::steady_clock::time_point{}) return std::chrono::hours(1);
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ -
                                                                 std::chrono::steady_clock::now());
  }

  void Connect() {
    try {
      Connection c =
          Connection::Open(paths_, "origin-mcp", session_,
                           std::min<std::chrono::milliseconds>(Left(), std::chrono::seconds(5)));
      sock_ = c.ReleaseFd();
      from_ = proto::LineBuffer();
      // The agent's initialize, again, for the new daemon's session of this
      // agent; its answer is dropped.  Not when it is itself due: it goes
      // again as it is, below.
      const bool initialize_due =
          std::any_of(pending_.begin(), pending_.end(),
                      [&](const Pending& p) { return p.line == initialize_; });
      if (!initialize_.empty() && !initialize_due)
        WriteAll(sock_.get(), WithId(initialize_, kReplayId) + "\n");
    } catch (const std::exception& e) {
      sock_.Reset();
      error_ = e.what();
      std::fprintf(stderr, "origin-mcp: %s\n", e.what());
    }
  }

  void ToDaemon(const std::string& line) {
    bool init = false;
    std::vector<std::string> ids = RequestIds(line, &init);
    if (init) initialize_ = line;
    if (!sock_) Connect();
    if (!sock_) {
      for (const std::string& id : ids) Fail(id, "Origin's daemon is not available: " + error_);
      return;
    }
    if (!ids.empty()) pending_.push_back({line, {ids.begin(), ids.end()}});
    if (!WriteAll(sock_.get(), line + "\n")) Lost("the Origin daemon went away");
  }

  // Copies the daemon's complete lines to stdout; false when it is gone.
  bool FromDaemon() {
    char buf[65536];
    ssize_t r = ::read(sock_.get(), buf, sizeof buf);
    if (r < 0 && errno == EINTR) return true;
    if (r <= 0) return false;
    from_.Append(buf, static_cast<std::size_t>(r));
    while (auto line = from_.Next()) {
      std::vector<std::string> ids = ReplyIds(*line);
      if (ids.size() == 1 && ids[0] == std::string("\"") + kReplayId + "\"")
        continue;  // our replayed initialize
      for (const std::string& id : ids)
        for (Pending& p : pending_) p.ids.erase(id);
      std::erase_if(pending_, [](const Pending& p) { return p.ids.empty(); });
      if (!WriteAll(1, *line + "\n")) std::exit(0);  // the agent is gone
    }
    return true;
  }

  // The daemon went away with requests unanswered.  Each is sent once more,
  // the same line with the same id, to the daemon that answers now (started
  // if none does): the daemon keys writes by this shim's session and the
  // request's id, so a request the old daemon did is answered, not done
  // again.  A request that was already sent again, or that no daemon takes
  // within the time left, gets an error.
  void Lost(const std::string& why) {
    sock_.Reset();
    error_ = why;
    std::fprintf(stderr, "origin-mcp: %s\n", why.c_str());
    auto fail = [&](const Pending& p) {
      for (const std::string& id : p.ids) Fail(id, why + "; try again");
    };
    std::for_each(pending_.begin(), pending_.end(), [&](const Pending& p) {
      if (p.replayed) fail(p);
    });
    std::erase_if(pending_, [](const Pending& p) { return p.replayed; });
    if (pending_.empty()) return;  // the next request connects again
    if (Left().count() > 0) Connect();
    if (!sock_) {
      std::for_each(pending_.begin(), pending_.end(), fail);
      pending_.clear();
      return;
    }
    std::fprintf(stderr, "origin-mcp: sending %zu unanswered request(s) again\n", pending_.size());
    for (Pending& p : pending_) p.replayed = true;
    for (const Pending& p : pending_)
      if (!WriteAll(sock_.get(), p.line + "\n")) return Lost("the Origin daemon went away again");
  }

  static void Fail(const std::string& id_json, const std::string& message) {
    WriteAll(1, proto::JsonRpcError(id_json, -32603, message) + "\n");
  }

  // Tells the daemon that the agent left, and waits at most 1 s for it to
  // have ingested once more (with the 4 s given to the answers still due
  // after stdin ended, the shim is gone within 5 s).  Nothing more goes to
  // stdout.
  void Leave() {
    if (!sock_) return;
    if (!WriteAll(sock_.get(), std::string("{\"jsonrpc\":\"2.0\",\"id\":\"") + kLeftId +
                                   "\",\"method\":\"origin/left\"}\n"))
      return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    char buf[65536];
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      until - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) return;
      pollfd p{sock_.get(), POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) return;
      ssize_t r = ::read(sock_.get(), buf, sizeof buf);
      if (r <= 0) return;
      from_.Append(buf, static_cast<std::size_t>(r));
      while (auto line = from_.Next())
        if (ReplyIds(*line) == std::vector<std::string>{std::string("\"") + kLeftId + "\""}) return;
    }
  }

  proto::Paths paths_;
  const std::string session_;  // in every hello: the daemon keys this agent's writes by it
  UniqueFd sock_;
  proto::LineBuffer from_;
  std::string initialize_, error_;
  std::vector<Pending> pending_;                      // in the order sent
  std::chrono::steady_clock::time_point deadline_{};  // set when stdin has ended
};

}  // namespace

constexpr const char* kUsage =
    "usage: origin-mcp [--help | --version]\n"
    "\n"
    "Origin's MCP server for AI coding agents, on stdio: it reads JSON-RPC\n"
    "requests on stdin and writes the answers on stdout, talking to originsd\n"
    "(started when none answers).  Agents launch it themselves:\n"
    "  origin mcp install    registers it with Claude Code, Codex and Cursor\n"
    "  origin mcp status     what each agent has registered, and whether it answers\n"
    "The store is $ORIGIN_HOME (default ~/.origin).\n";

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--version" || a == "-V") {
      std::printf("origin-mcp %s\n", ORIGIN_VERSION);
      return 0;
    }
    std::fprintf(stderr, "origin-mcp: unexpected argument %s\n%s", a.c_str(), kUsage);
    return proto::kExitUsage;
  }
  if (::isatty(0) != 0)
    std::fputs(
        "origin-mcp: this is Origin's MCP server: agents launch it and speak JSON-RPC on its\n"
        "stdin and stdout (origin mcp install registers it with them; origin mcp status\n"
        "checks it).  It now waits for JSON-RPC lines here; Ctrl-D ends it.\n",
        stderr);
  ::signal(SIGPIPE, SIG_IGN);
  if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return 1;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  for (int s : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(s, &sa, nullptr);
  try {
    return Shim(proto::ResolvePaths()).Run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "origin-mcp: %s\n", e.what());
    return 1;
  }
}
