// SPDX-License-Identifier: MIT
#pragma once
// A client's connection to originsd: connect to the socket, starting the
// daemon when none answers (unless ORIGIN_NO_AUTOSTART=1), exchange hellos,
// then send requests and read their answers, handing notifications (such as
// progress) to a callback.  Blocking I/O: the CLI does one thing at a time.

#include <rapidjson/document.h>

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "io/fd.hpp"
#include "proto/paths.hpp"
#include "proto/protocol.hpp"

namespace origin::client {

/// A failure with the protocol error code it maps to (exit codes).
class ClientError : public std::runtime_error {
 public:
  ClientError(std::string code, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

/// An argument the daemon is started with when this command starts it
/// (origin hub connect --relay starts it with --relay, so that an empty
/// store becomes a relay before its first sync ingests anything).
void AddDaemonArgument(std::string arg);

/// The absolute path of executable `name` installed beside this one (or,
/// in a build tree, in the sibling folder `build_dir`); `name` itself, to
/// be found on PATH, when there is none.
std::string SiblingExe(const char* name, const char* build_dir);
/// originsd: $ORIGINSD, else beside this executable, else on PATH.
std::string DaemonPath();

/// The folder this executable is in, symbolic links resolved ("" when
/// /proc/self/exe cannot be read).
std::string SelfDir();

/// Asks the daemon of `paths` to stop (`shutdown`: it finishes the
/// transaction it is in), starting none, and waits until its process is
/// gone (its socket goes first, its lock last), at most `wait`.  Its pid;
/// nullopt when none answered.  Throws ClientError when it still runs
/// after `wait`.
std::optional<std::int64_t> StopDaemon(const proto::Paths& paths, std::chrono::milliseconds wait);

class Connection {
 public:
  /// Connects (and maybe starts the daemon, then waits for its socket at
  /// most `wait`); says hello as `client_name`, with `session` when it is
  /// not empty.  Throws ClientError("unavailable").
  /// `may_start` false: never starts one (origin stop).
  static Connection Open(const proto::Paths& paths, const std::string& client_name,
                         const std::string& session = "",
                         std::chrono::milliseconds wait = std::chrono::seconds(5),
                         bool may_start = true);
  Connection(Connection&& o) noexcept = default;
  Connection& operator=(Connection&&) = delete;

  /// Sends one request and waits for its answer; `on_note` receives the
  /// notifications that arrive first.  Returns the result; throws
  /// ClientError with the daemon's error code.
  rapidjson::Document Call(const std::string& method, const std::string& params_json = "{}",
                           const std::function<void(const rapidjson::Value&)>& on_note = {});
  const proto::DaemonHello& hello() const { return hello_; }
  /// The socket, to wait on (origin ui: readable only when the daemon closed it).
  int fd() const { return fd_.get(); }
  /// Hands the socket over (origin-mcp pumps it itself); the daemon sends
  /// nothing after its hello until asked, so nothing is left buffered.
  UniqueFd ReleaseFd() { return std::move(fd_); }

 private:
  Connection(UniqueFd fd, proto::DaemonHello hello)
      : fd_(std::move(fd)), hello_(std::move(hello)) {}
  std::string ReadLine();
  UniqueFd fd_;
  proto::DaemonHello hello_;
  proto::LineBuffer buf_;
  int next_id_ = 1;
};

}  // namespace origin::client
