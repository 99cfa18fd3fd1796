// SPDX-License-Identifier: MIT
#include "daemon/http/http_server.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <stdexcept>

#include "daemon/log.hpp"

namespace origin::http {

namespace {

// How long a connection that was answered with an error and half-closed
// may still send (its bytes are read and dropped, so that the close does
// not reset the connection before the client read the answer).
constexpr int kLingerMs = 2000;
// Connections refused over the cap are logged at most this often.
constexpr std::uint64_t kRefusedLogMs = 60000;

std::string TooLarge(std::size_t limit) {
  return "the request's body is larger than " +
         (limit % 1024 == 0 ? std::to_string(limit / 1024) + " KiB" : std::to_string(limit) + " bytes");
}

void TrimTrailing(std::string& s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
}

}  // namespace

bool IsLoopbackHost(const std::string& host) { return host == "127.0.0.1" || host == "localhost"; }

// What a connection answers next, in the order the requests came: a request
// for the handler, or (last) the error the server answers itself.
struct Pending {
  Request req;
  bool keep_alive = false;
  std::optional<Response> error;  // the connection closes after it
};

struct HttpServer::Connection {
  std::uint64_t id = 0;
  HttpServer* server = nullptr;
  UvHandle<uv_tcp_t> tcp;
  UvHandle<uv_timer_t> timer;
  llhttp_t parser;
  Request req;                       // the request being parsed
  bool in_value = false;             // the last header piece was a value
  std::size_t header_bytes = 0;      // of the request being parsed
  bool in_request = false;           // its first byte came, its last not yet
  bool headers_done = false;         // its header block ended (what follows is body)
  std::size_t body_limit = 0;        // the request's, once its path is known
  std::deque<Pending> ready;         // to answer, in order
  bool busy = false;                 // a request is being answered
  bool reading = false;
  bool eof = false;                  // the client sent all it will
  bool failed = false;               // refused: the parser stopped, reads are dropped
  bool lingering = false;            // the last answer written: only waiting to close
  int refuse_status = 0;             // set by a callback that refuses the request
  std::string refuse_message;
};

HttpServer::HttpServer(uv_loop_t* loop, const ThreadRole& loop_thread, ServerLimits limits)
    : loop_(loop), thread_(loop_thread), limits_(limits) {
  llhttp_settings_init(&settings_);
  settings_.on_message_begin = &HttpServer::OnMessageBegin;
  settings_.on_url = &HttpServer::OnUrl;
  settings_.on_header_field = &HttpServer::OnHeaderField;
  settings_.on_header_value = &HttpServer::OnHeaderValue;
  settings_.on_headers_complete = &HttpServer::OnHeadersComplete;
  settings_.on_body = &HttpServer::OnBody;
  settings_.on_message_complete = &HttpServer::OnMessageComplete;
}

HttpServer::~HttpServer() { Close(); }

namespace {
// A Respond or a write completion, when it comes, acts only if the server
// that made it still serves (Close() and the destructor drop the token).
bool Alive(const std::weak_ptr<char>& token) { return !token.expired(); }
}  // namespace

void HttpServer::Listen(const std::string& host, int port, Handler handler, ErrorPage error_page,
                        Reach reach) {
  ORIGIN_ASSERT_INSIDE(thread_);
  if (reach == Reach::kLoopback && !IsLoopbackHost(host))
    throw std::invalid_argument("the web UI listens on 127.0.0.1 only, not on " + host +
                                ": other users and machines must not reach it");
  if (port < 0 || port > 65535) throw std::invalid_argument("no such port: " + std::to_string(port));
  sockaddr_storage addr{};
  std::string ip = host == "localhost" ? "127.0.0.1" : host;
  if (ip.size() > 2 && ip.front() == '[' && ip.back() == ']') ip = ip.substr(1, ip.size() - 2);
  const bool v6 = ip.find(':') != std::string::npos;
  int parsed = v6 ? uv_ip6_addr(ip.c_str(), port, reinterpret_cast<sockaddr_in6*>(&addr))
                  : uv_ip4_addr(ip.c_str(), port, reinterpret_cast<sockaddr_in*>(&addr));
  if (parsed != 0)
    throw std::invalid_argument("listen on an IP address (such as 127.0.0.1, 0.0.0.0 or ::), not " +
                                host);
  auto tcp = UvHandle<uv_tcp_t>::Make([&](uv_tcp_t* t) { return uv_tcp_init(loop_, t); });
  const std::string where = (v6 ? "[" + ip + "]" : ip) + ":" + std::to_string(port);
  if (int rc = uv_tcp_bind(tcp.get(), reinterpret_cast<const sockaddr*>(&addr), 0); rc < 0)
    throw UvError(rc, "listen on " + where);
  tcp.get()->data = this;
  if (int rc = uv_listen(reinterpret_cast<uv_stream_t*>(tcp.get()), 64, &HttpServer::OnConnection);
      rc < 0)
    throw UvError(rc, "listen on " + where);
  sockaddr_storage bound{};
  int len = sizeof bound;
  uv_tcp_getsockname(tcp.get(), reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  listener_ = std::move(tcp);
  allowed_hosts_.clear();
  host_filter_ = nullptr;
  handler_ = std::move(handler);
  error_page_ = std::move(error_page);
  alive_ = std::make_shared<char>();
}

void HttpServer::Close() {
  listener_.Close();
  for (auto& [id, c] : std::exchange(conns_, {})) {
    c->timer.Close();
    c->tcp.Close();
  }
  handler_ = nullptr;
  alive_.reset();
  port_ = 0;
}

void HttpServer::OnConnection(uv_stream_t* listener, int status) noexcept {
  auto* self = static_cast<HttpServer*>(listener->data);
  if (self == nullptr || status < 0) return;
  try {
    if (self->conns_.size() >= self->limits_.max_connections) return self->RefuseConnection();
    auto c = std::make_unique<Connection>();
    c->id = self->next_conn_++;
    c->server = self;
    c->tcp = UvHandle<uv_tcp_t>::Make([&](uv_tcp_t* t) { return uv_tcp_init(self->loop_, t); });
    if (uv_accept(listener, reinterpret_cast<uv_stream_t*>(c->tcp.get())) != 0) return;
    c->timer =
        UvHandle<uv_timer_t>::Make([&](uv_timer_t* t) { return uv_timer_init(self->loop_, t); });
    c->tcp.get()->data = c.get();
    c->timer.get()->data = c.get();
    llhttp_init(&c->parser, HTTP_REQUEST, &self->settings_);
    c->parser.data = c.get();
    Connection& conn = *c;
    self->conns_[c->id] = std::move(c);
    self->Arm(conn, self->limits_.idle_ms);  // a client that sends nothing is closed
    self->StartReading(conn);
  } catch (const std::exception& e) {
    LOG_ERROR("http accept: %s", e.what());
  }
}

void HttpServer::RefuseConnection() {
  // Accepted and closed at once: left in the backlog, it would fill it and
  // keep the kernel's socket.
  auto tcp = UvHandle<uv_tcp_t>::Make([&](uv_tcp_t* t) { return uv_tcp_init(loop_, t); });
  uv_accept(reinterpret_cast<uv_stream_t*>(listener_.get()),
            reinterpret_cast<uv_stream_t*>(tcp.get()));
  ++refused_;
  const std::uint64_t now = uv_now(loop_);
  if (refused_logged_ms_ != 0 && now - refused_logged_ms_ < kRefusedLogMs) return;
  LOG_WARN("origin ui: %zu connections are open, the most it takes; %llu more closed at once",
           conns_.size(), static_cast<unsigned long long>(refused_));
  refused_logged_ms_ = now == 0 ? 1 : now;
  refused_ = 0;
}

void HttpServer::OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) noexcept {
  std::unique_ptr<char[]> owned(buf->base);
  auto* c = static_cast<Connection*>(stream->data);
  if (c == nullptr) return;
  HttpServer* self = c->server;
  const std::uint64_t id = c->id;
  try {
    if (nread < 0) {
      // The client is done sending: a request being answered still gets
      // its answer (a client may half-close after its request).
      c->eof = true;
      if (!c->busy || c->lingering) self->CloseConnection(id);
      return;
    }
    if (c->failed || c->lingering) return;  // after an error: read and dropped
    self->Feed(*c, buf->base, static_cast<std::size_t>(nread));
    if (self->conns_.count(id) == 0) return;
    // One request at a time: the rest waits in the socket until it is answered.
    if ((c->busy || !c->ready.empty()) && c->reading) {
      uv_read_stop(stream);
      c->reading = false;
    }
    self->Dispatch(*c);
  } catch (const std::exception& e) {
    LOG_ERROR("http connection %llu: %s", static_cast<unsigned long long>(id), e.what());
    self->CloseConnection(id);
  }
}

void HttpServer::Feed(Connection& c, const char* data, std::size_t n) {
  const llhttp_errno_t err = llhttp_execute(&c.parser, data, n);
  if (err == HPE_OK) return;
  if (c.refuse_status != 0) return Fail(c, c.refuse_status, c.refuse_message);
  Fail(c, 400, std::string("malformed request: ") + llhttp_get_error_reason(&c.parser));
}

int HttpServer::OnMessageBegin(llhttp_t* p) noexcept {
  auto* c = static_cast<Connection*>(p->data);
  c->req = Request{};
  c->in_value = false;
  c->header_bytes = 0;
  c->in_request = true;
  c->headers_done = false;
  if (!c->busy && c->ready.empty()) c->server->Arm(*c, c->server->limits_.request_ms);
  return 0;
}

namespace {
// A callback's refusal: llhttp stops with HPE_USER, and Feed answers it.
template <class C>
int Refuse(C* c, int status, std::string message) {
  c->refuse_status = status;
  c->refuse_message = std::move(message);
  return HPE_USER;
}
}  // namespace

template <class Add>
int HttpServer::HeaderPiece(llhttp_t* p, std::size_t n, Add&& add) noexcept {
  auto* c = static_cast<Connection*>(p->data);
  try {
    // A chunked body's trailers: they would come after the checks of
    // OnHeadersComplete (a second Host, a Cookie, an Origin...).
    if (c->headers_done) return Refuse(c, 400, "header fields after the body (trailers) are not taken");
    if ((c->header_bytes += n) > c->server->limits_.max_header_bytes)
      return Refuse(c, 431, "the request's header block is larger than 16 KiB");
    add(*c);
    return 0;
  } catch (...) {
    return Refuse(c, 500, "out of memory");
  }
}

int HttpServer::OnUrl(llhttp_t* p, const char* at, std::size_t n) noexcept {
  return HeaderPiece(p, n, [&](Connection& c) { c.req.target.append(at, n); });
}

int HttpServer::OnHeaderField(llhttp_t* p, const char* at, std::size_t n) noexcept {
  // llhttp may hand a name or a value in pieces: a name after a value starts a header.
  return HeaderPiece(p, n, [&](Connection& c) {
    if (c.in_value || c.req.headers.empty()) c.req.headers.emplace_back();
    c.in_value = false;
    c.req.headers.back().first += AsciiLower(std::string_view(at, n));
  });
}

int HttpServer::OnHeaderValue(llhttp_t* p, const char* at, std::size_t n) noexcept {
  return HeaderPiece(p, n, [&](Connection& c) {
    if (c.req.headers.empty()) c.req.headers.emplace_back();
    c.in_value = true;
    c.req.headers.back().second.append(at, n);
  });
}

int HttpServer::OnHeadersComplete(llhttp_t* p) noexcept {
  auto* c = static_cast<Connection*>(p->data);
  HttpServer* self = c->server;
  try {
    c->headers_done = true;
    Request& r = c->req;
    for (auto& h : r.headers) TrimTrailing(h.second);
    const auto method = static_cast<llhttp_method_t>(llhttp_get_method(p));
    if (method != HTTP_GET && method != HTTP_POST)
      return Refuse(c, 405, std::string(llhttp_method_name(method)) + " is not answered here: only GET and POST");
    r.method = method == HTTP_GET ? "GET" : "POST";
    // DNS rebinding: a page of another site, its name pointed at 127.0.0.1,
    // sends its own Host; only ours is answered.
    int hosts = 0;
    for (const auto& h : r.headers) hosts += h.first == "host" ? 1 : 0;
    if (hosts != 1) return Refuse(c, 400, "a request has one Host header");
    const std::string* host = r.Header("host");
    if (self->host_filter_ ? !self->host_filter_(*host)
                           : std::find(self->allowed_hosts_.begin(), self->allowed_hosts_.end(),
                                       *host) == self->allowed_hosts_.end())
      return Refuse(c, 403, "this server answers only requests to " +
                                (self->allowed_hosts_.empty() ? std::string("itself")
                                                              : self->allowed_hosts_.front()));
    const std::size_t q = r.target.find('?');
    r.path = r.target.substr(0, q);
    r.query = q == std::string::npos ? "" : r.target.substr(q + 1);
    c->body_limit = self->body_limit_ ? self->body_limit_(r) : self->limits_.max_body_bytes;
    if ((p->flags & F_CONTENT_LENGTH) != 0 && p->content_length > c->body_limit)
      return Refuse(c, 413, TooLarge(c->body_limit));
    return 0;
  } catch (...) {
    return Refuse(c, 500, "out of memory");
  }
}

int HttpServer::OnBody(llhttp_t* p, const char* at, std::size_t n) noexcept {
  auto* c = static_cast<Connection*>(p->data);
  try {
    if (c->req.body.size() + n > c->body_limit) return Refuse(c, 413, TooLarge(c->body_limit));
    c->req.body.append(at, n);
    return 0;
  } catch (...) {
    return Refuse(c, 500, "out of memory");
  }
}

int HttpServer::OnMessageComplete(llhttp_t* p) noexcept {
  auto* c = static_cast<Connection*>(p->data);
  try {
    c->in_request = false;
    c->ready.push_back(Pending{std::move(c->req), llhttp_should_keep_alive(p) != 0, std::nullopt});
    c->req = Request{};
    return 0;
  } catch (...) {
    return Refuse(c, 500, "out of memory");
  }
}

// The one place answers are ordered: the front of `ready` is answered when
// the answer before it was written (Written), a request by the handler, the
// server's own error by itself, last.
void HttpServer::Dispatch(Connection& c) {
  if (c.busy || c.ready.empty() || c.lingering) return;
  c.busy = true;
  uv_timer_stop(c.timer.get());  // the answer's time is ours, not the client's
  Pending next = std::move(c.ready.front());
  c.ready.pop_front();
  const std::uint64_t id = c.id;
  if (next.error) {
    c.ready.clear();
    return Send(id, std::move(*next.error));
  }
  auto answered = std::make_shared<bool>(false);
  Respond respond = [this, alive = std::weak_ptr<char>(alive_), id, answered,
                     keep_alive = next.keep_alive](Response r) {
    if (!Alive(alive) || std::exchange(*answered, true)) return;
    if (!keep_alive) r.close = true;
    Send(id, std::move(r));
  };
  const Request& req = next.req;
  try {
    handler_(req, respond);
  } catch (const std::exception& e) {
    LOG_ERROR("http %s %s: %s", req.method.c_str(), req.path.c_str(), e.what());
    respond(error_page_(500, "the request failed: " + std::string(e.what())));
  }
}

void HttpServer::Fail(Connection& c, int status, const std::string& message) {
  // The parser cannot go on: the refusal is answered after the requests
  // before it, then the connection closes (lingering a little, so that the
  // client reads the answer before the close).
  c.failed = true;
  c.in_request = false;
  Response r = error_page_(status, message);
  r.close = true;
  if (status == 405) r.headers.emplace_back("Allow", "GET, POST");
  c.ready.push_back(Pending{Request{}, false, std::move(r)});
}

void HttpServer::Send(std::uint64_t id, Response r) {
  ORIGIN_ASSERT_INSIDE(thread_);
  auto it = conns_.find(id);
  if (it == conns_.end()) return;  // the client left meanwhile
  Connection& c = *it->second;
  if (c.eof) r.close = true;
  struct WriteReq {
    uv_write_t req;
    std::string data;
    std::weak_ptr<char> alive;
    HttpServer* server;
    std::uint64_t id;
    bool close;
  };
  auto w = std::make_unique<WriteReq>();
  w->data = SerializeResponse(r);
  w->alive = alive_;
  w->server = this;
  w->id = id;
  w->close = r.close;
  uv_buf_t b = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
  const int rc = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(c.tcp.get()), &b, 1,
                          [](uv_write_t* req, int status) {
                            std::unique_ptr<WriteReq> done(reinterpret_cast<WriteReq*>(req));
                            // Closed meanwhile (a write completed before the
                            // close may still report success): the server is
                            // not reached.
                            if (status == UV_ECANCELED || !Alive(done->alive)) return;
                            done->server->Written(done->id, status, done->close);
                          });
  if (rc < 0) return CloseConnection(id);
  w.release();  // freed by its callback
}

void HttpServer::Written(std::uint64_t id, int status, bool close) {
  auto found = conns_.find(id);
  if (found == conns_.end()) return;
  Connection& c = *found->second;
  if (status < 0 || c.eof) return CloseConnection(id);
  if (close) {
    // Half-closed; what the client still sends is read and dropped, and the
    // connection closes on its EOF or after kLingerMs.
    c.lingering = true;
    c.ready.clear();
    auto* sd = new uv_shutdown_t;
    if (uv_shutdown(sd, reinterpret_cast<uv_stream_t*>(c.tcp.get()),
                    [](uv_shutdown_t* s, int) { delete s; }) < 0)
      delete sd;
    StartReading(c);
    Arm(c, kLingerMs);
    return;
  }
  c.busy = false;
  if (!c.ready.empty()) return Dispatch(c);
  Arm(c, c.in_request ? limits_.request_ms : limits_.idle_ms);
  StartReading(c);
}

void HttpServer::StartReading(Connection& c) {
  if (c.reading) return;
  c.reading = true;
  uv_read_start(
      reinterpret_cast<uv_stream_t*>(c.tcp.get()),
      [](uv_handle_t*, std::size_t suggested, uv_buf_t* buf) {
        buf->base = new (std::nothrow) char[suggested];
        buf->len = buf->base != nullptr ? suggested : 0;
      },
      &HttpServer::OnRead);
}

void HttpServer::Arm(Connection& c, int ms) {
  uv_timer_start(c.timer.get(), &HttpServer::OnTimer, static_cast<std::uint64_t>(ms), 0);
}

void HttpServer::OnTimer(uv_timer_t* t) noexcept {
  auto* c = static_cast<Connection*>(t->data);
  if (c == nullptr) return;
  HttpServer* self = c->server;
  try {
    // A request begun and not finished in time: 408; an idle or lingering
    // connection: closed.
    if (c->in_request && !c->failed && !c->busy) {
      self->Fail(*c, 408, "the request did not arrive in time");
      return self->Dispatch(*c);
    }
    self->CloseConnection(c->id);
  } catch (const std::exception& e) {
    LOG_ERROR("http timer: %s", e.what());
    self->CloseConnection(c->id);
  }
}

void HttpServer::CloseConnection(std::uint64_t id) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  it->second->timer.Close();
  it->second->tcp.Close();
  conns_.erase(it);
}

}  // namespace origin::http
