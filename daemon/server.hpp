// SPDX-License-Identifier: MIT
#pragma once
// The Unix socket server (loop thread only): the listening socket, its
// connections and their framing (design.md section 5: newline-delimited
// JSON, a hello each way first), and the socket protocol's front-end: a
// request line becomes a call of the table of operations, and its answer
// (or error, in ReplyLine: the one place) a reply line.  The lines of an
// origin-mcp connection go to the MCP server instead, which answers in
// MCP's own terms.
//
// Every libuv callback here catches: no exception goes through libuv.

#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/instance.hpp"
#include "daemon/mcp/server.hpp"
#include "daemon/operations/operations.hpp"
#include "daemon/thread_check.hpp"
#include "daemon/uv.hpp"
#include "proto/protocol.hpp"

namespace origin {

/// A request line of the socket protocol, decoded as the daemon reads it:
/// its id as JSON ("null" without one), its method and params (pointing
/// into `doc`; params null when absent), or the error it is answered with.
struct RequestLine {
  rapidjson::Document doc;
  std::string id_json = "null";
  std::string_view method;
  const rapidjson::Value* params = nullptr;
  std::optional<OpError> error;
};
void DecodeRequestLine(std::string_view line, RequestLine* out);

class Server {
 public:
  Server(uv_loop_t* loop, const ThreadRole& loop_thread, Operations& ops, McpServer& mcp,
         std::string socket_path);
  /// What the hello says the store is ("device", "hub").
  void SetMode(std::string mode) { mode_ = std::move(mode); }
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Binds the socket (throws UvError) and listens.  Every 2 s it checks
  /// that the path still names the socket it bound: when it was removed or
  /// replaced, no client can reach this daemon any more (and another may be
  /// taking over), and `lost` runs.
  void Listen(std::function<void()> lost);
  /// Closes the listening socket and removes it (when it is still ours);
  /// the connections stay, to be answered.
  void StopAccepting();
  /// Closes every connection.
  void CloseAll();
  std::size_t connections() const { return conns_.size(); }

 private:
  struct Connection {
    std::uint64_t id = 0;
    Server* server = nullptr;
    UvHandle<uv_pipe_t> pipe;
    proto::LineBuffer buf;
    bool hello = false;
    std::string client;
    std::shared_ptr<McpPeer> mcp;  // an origin-mcp connection
    std::vector<std::function<void()>> on_close;  // Caller::when_closed's, run once
  };
  static void OnConnection(uv_stream_t* server, int status) noexcept;
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) noexcept;
  void OnLine(Connection& c, const std::string& line);
  void Hello(Connection& c, const std::string& line);
  /// A request of the socket protocol: {"id", "method", "params"}.
  void Request(const Connection& c, const std::string& line);
  void Send(std::uint64_t conn, std::string line);
  void RunOnClose(Connection& c);
  void Close(std::uint64_t conn);
  void WatchSocket();

  uv_loop_t* loop_;
  const ThreadRole& thread_;
  Operations& ops_;
  McpServer& mcp_;
  const std::string socket_path_;
  std::string mode_ = "device";  // the hello's: "hub" under origin serve
  UvHandle<uv_pipe_t> listener_;
  std::optional<FileId> socket_id_;  // the socket as bound
  UvHandle<uv_timer_t> socket_watch_;
  std::function<void()> lost_;
  std::map<std::uint64_t, std::unique_ptr<Connection>> conns_;
  std::uint64_t next_conn_ = 1;
};

}  // namespace origin
