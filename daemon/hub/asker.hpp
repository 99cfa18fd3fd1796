// SPDX-License-Identifier: MIT
#pragma once
// A connected device's questions to its hub's /mcp (spec: MCP server, On a
// device connected to a hub): each read tool asks the hub at the same time
// as the device's store answers, and the hub's answer is merged into the
// device's (daemon/mcp/merge.hpp).  A request may take the hub timeout at
// most (ORIGIN_HUB_TIMEOUT_MS, 2 s), counted from when the tool was
// called: one that waited in the queue longer is not sent.
//
// A few threads of their own, each with a libcurl handle kept open between
// requests: agents asking at once are not answered one after the other,
// and a sync's long upload (daemon/hub/sync.hpp) never delays an answer.
// The connection is read from hub.json at each request, so that origin hub
// connect and disconnect take effect at once.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace origin {
struct Context;
}

namespace origin::hub {

/// What the hub said to one tool call.
struct ToolReply {
  enum class Kind {
    kNotConnected,  // no hub: the device answers alone, and says nothing of it
    kAnswered,      // `result`, or the hub's `tool_error`
    kFailed,        // the hub was not consulted: `error` says why
  };
  Kind kind = Kind::kNotConnected;
  std::string url;         // the hub's, when connected
  std::string result;      // the tool's answer (its structured content, JSON)
  std::string tool_error;  // the hub's tool error (isError), when it gave one
  std::string error;
  // RunOperation's: the operation's error code (with its message in
  // `tool_error`), and its notice.
  std::string code, notice;
};

class Asker {
 public:
  /// `timeout_ms`: how long a tool waits for the hub, at most.
  Asker(Context& ctx, long timeout_ms, int threads = 4);
  ~Asker();
  Asker(const Asker&) = delete;
  Asker& operator=(const Asker&) = delete;

  /// Calls `tool` with `arguments` (a JSON object, as the agent gave them)
  /// on the hub's /mcp for `agent` (X-Origin-Client); `done` runs once, on
  /// the loop thread.  `timeout_ms` (0: the Asker's) is how long the hub
  /// may take; `request`, when given, is sent as X-Origin-Request, under
  /// which the hub carries out a write once however often it is asked (a
  /// relay's agent replaying a write after a reconnect).  Loop thread.
  void Ask(std::string tool, std::string arguments, std::string agent,
           std::function<void(ToolReply)> done, long timeout_ms = 0, std::string request = {});
  /// Runs operation `method` of the socket's table with `params` (its
  /// request, a JSON object) on the hub (POST /v1/call): a relay's CLI
  /// (spec: Relays).  `done` as Ask's: kAnswered with `result`, the
  /// operation's JSON answer, and `notice`, or with its error in `code`
  /// and `tool_error`.  Loop thread.
  void RunOperation(std::string method, std::string params, std::function<void(ToolReply)> done,
                    long timeout_ms);
  /// Opens a connection to the hub ahead of the first question (an agent
  /// initialized), when connected and none is open.
  void Warm();
  /// Ends the requests under way and the threads; later questions are
  /// answered kNotConnected.
  void Stop();

  long timeout_ms() const { return timeout_ms_; }

 private:
  struct Job {
    std::string tool, arguments, agent, request;
    bool operation = false;  // RunOperation's: `tool` is the method, `arguments` the params
    std::int64_t deadline_ms;  // steady clock
    long timeout_ms;
    std::function<void(ToolReply)> done;  // null: a warm-up
  };
  struct Worker;
  void Run(Worker& w);
  void Queue(Job job);
  ToolReply Call(Worker& w, const Job& job);
  ToolReply CallOperation(Worker& w, const Job& job, ToolReply out);

  Context& ctx_;
  const long timeout_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
};

}  // namespace origin::hub
