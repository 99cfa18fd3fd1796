// SPDX-License-Identifier: MIT
#pragma once
// An HTTP/1.1 server on the daemon's libuv loop (design.md: llhttp on the
// loop), the one of the web UI and of the hub: a TCP listener, its
// connections, llhttp parsing each, and the limits that hold before any
// handler runs:
//   - it listens on a loopback address only (Listen refuses any other),
//     unless it serves a hub (Reach::kNetwork);
//   - the request's Host must be one of `allowed_hosts`, or pass the host
//     filter (DNS rebinding);
//   - GET and POST only (405); a header block of at most 16 KiB (431) and a
//     body of at most max_body_bytes (64 KiB), or what SetBodyLimit says for
//     the request (413); a request that llhttp cannot parse gets
//     400; each of these closes the connection;
//   - a request's header block and body must arrive within `request_ms` of
//     its first byte (408, closed), and an idle keep-alive connection is
//     closed after `idle_ms`: slow and half-open clients cost a socket for
//     a bounded time;
//   - at most `max_connections` connections are open at once; one over it
//     is accepted and closed at once (so the kernel's backlog does not
//     fill), logged at most once a minute: a local process cannot take the
//     daemon's file descriptors;
//   - header fields after the header block (a chunked body's trailers) are
//     refused (400): they would arrive after the checks above ran;
//   - keep-alive requests are answered one after the other, in the order
//     they came: reading stops while a request is answered (pipelined bytes
//     wait in the connection), and a request the server refuses is answered
//     after the ones before it, then the connection closes;
//   - a Respond, or a write's completion, that comes after Close() or after
//     the server is destroyed does nothing (a liveness token they hold).
// Loop thread only.  Every libuv and llhttp callback is noexcept and catches
// at its own boundary; the handler's work goes elsewhere (Operations::Call).

#include <llhttp.h>
#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemon/http/response.hpp"
#include "daemon/thread_check.hpp"
#include "daemon/uv.hpp"

namespace origin::http {

/// Answers a request once, on the loop thread; a late answer to a
/// connection closed meanwhile (or to a server closed or destroyed) is
/// dropped, and so is a second answer.
using Respond = std::function<void(Response)>;
using Handler = std::function<void(const Request&, Respond)>;
/// The response of an error the server answers itself (400, 403, 405, 408,
/// 413, 431), from its status and message: the UI renders its error page.
using ErrorPage = std::function<Response(int status, const std::string& message)>;

struct ServerLimits {
  std::size_t max_header_bytes = 16 * 1024;
  std::size_t max_body_bytes = 64 * 1024;
  int request_ms = 10000;  // from a request's first byte to its last
  int idle_ms = 10000;     // a keep-alive connection between requests
  std::size_t max_connections = 64;  // open at once; more are closed at once
};

/// Whether `host` is a loopback address the server may listen on
/// (127.0.0.1, localhost).
bool IsLoopbackHost(const std::string& host);

/// Where a server may listen: loopback only (origin ui), or any address of
/// the machine (a hub: its requests need a token).
enum class Reach { kLoopback, kNetwork };

class HttpServer {
 public:
  HttpServer(uv_loop_t* loop, const ThreadRole& loop_thread, ServerLimits limits);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Listens on `host`:`port` (0: a free port, then port() says which),
  /// answering with `handler`; requests whose Host header is not one of
  /// the allowed hosts get 403 without reaching it.  Throws
  /// std::invalid_argument for a host that is not loopback (kLoopback) or
  /// not an IP address (kNetwork; "localhost" too), UvError when the
  /// address cannot be bound (EADDRINUSE: the port is in use).
  void Listen(const std::string& host, int port, Handler handler, ErrorPage error_page,
              Reach reach = Reach::kLoopback);
  /// The Host headers answered (until set: none).
  void SetAllowedHosts(std::vector<std::string> hosts) {
    allowed_hosts_ = std::move(hosts);
    host_filter_ = nullptr;
  }
  /// Or: the Host headers `filter` accepts; `expected` names them in the 403.
  void SetHostFilter(std::function<bool(const std::string&)> filter, std::string expected) {
    host_filter_ = std::move(filter);
    allowed_hosts_ = {std::move(expected)};
  }
  /// The body limit of each request, from its method, path and headers
  /// (until set: max_body_bytes for every request).
  void SetBodyLimit(std::function<std::size_t(const Request&)> limit) {
    body_limit_ = std::move(limit);
  }
  /// Closes the listener and every connection (answers in flight are dropped).
  void Close();
  bool listening() const { return static_cast<bool>(listener_); }
  int port() const { return port_; }
  std::size_t connections() const { return conns_.size(); }

 private:
  struct Connection;
  static void OnConnection(uv_stream_t* server, int status) noexcept;
  /// A connection over max_connections: accepted and closed at once.
  void RefuseConnection();
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) noexcept;
  static void OnTimer(uv_timer_t* t) noexcept;
  static int OnMessageBegin(llhttp_t* p) noexcept;
  template <class Add>
  static int HeaderPiece(llhttp_t* p, std::size_t n, Add&& add) noexcept;
  static int OnUrl(llhttp_t* p, const char* at, std::size_t n) noexcept;
  static int OnHeaderField(llhttp_t* p, const char* at, std::size_t n) noexcept;
  static int OnHeaderValue(llhttp_t* p, const char* at, std::size_t n) noexcept;
  static int OnHeadersComplete(llhttp_t* p) noexcept;
  static int OnBody(llhttp_t* p, const char* at, std::size_t n) noexcept;
  static int OnMessageComplete(llhttp_t* p) noexcept;

  /// Parses `data` (what was read, or what waited while a request was answered).
  void Feed(Connection& c, const char* data, std::size_t n);
  void Dispatch(Connection& c);
  /// Writes `r` to connection `id`; then reads the next request, or closes.
  void Send(std::uint64_t id, Response r);
  /// An error the server answers itself, queued after the requests parsed
  /// before it; the connection closes after it.  Reads are dropped from now.
  void Fail(Connection& c, int status, const std::string& message);
  void Written(std::uint64_t id, int status, bool close);
  void StartReading(Connection& c);
  void Arm(Connection& c, int ms);
  void CloseConnection(std::uint64_t id);

  uv_loop_t* loop_;
  const ThreadRole& thread_;
  const ServerLimits limits_;
  llhttp_settings_t settings_;
  UvHandle<uv_tcp_t> listener_;
  int port_ = 0;
  std::vector<std::string> allowed_hosts_;
  std::function<bool(const std::string&)> host_filter_;
  std::function<std::size_t(const Request&)> body_limit_;
  Handler handler_;
  ErrorPage error_page_;
  std::map<std::uint64_t, std::unique_ptr<Connection>> conns_;
  std::uint64_t next_conn_ = 1;
  /// Held (weakly) by every Respond and write in flight: gone at Close().
  std::shared_ptr<char> alive_;
  std::uint64_t refused_logged_ms_ = 0;  // the last "too many connections" logged
  std::uint64_t refused_ = 0;            // connections refused since
};

}  // namespace origin::http
