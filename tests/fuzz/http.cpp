// SPDX-License-Identifier: MIT
// Harness: origin ui's HTTP request path (daemon/http/): a client's bytes
// over a real TCP connection to the real HttpServer, with the real routes
// (AdminUi) behind it on a real daemon (tests/fuzz/fixture_daemon.hpp: a
// store holding the Claude Code and Codex fixtures, its loop run on this
// thread).  An input is one connection: its first byte sets the size of
// the writes (1 to 64 bytes, each read by the server before the next; from
// 0x80 up, all in one) the rest arrives in, then the client half-closes
// and reads to the end.  In
// the rest, {HOST} stands for the server's host (127.0.0.1:port),
// {SESSION} for a signed-in session's cookie value and {CSRF} for its
// token, so that inputs reach the pages and the API's checks.
//
// Checked: every request that reaches the routes passed the server's checks
// (GET or POST, one Host and an allowed one, a header block of at most
// 16 KiB, a body of at most 64 KiB); what the client reads is well-formed
// HTTP/1.1 responses (llhttp), each with Content-Length and the security
// headers, one for each request the routes answered, in order, plus at
// most one the server answered itself, last; the connection closes; nothing
// crashes or leaks (ASan).  So that every input meets the same store and
// session, a request that would write (a form's POST, the API's remember,
// correct, forget, restore, a sign-out, a sign-in) is answered by the
// harness instead of the routes.

#include <fcntl.h>
#include <llhttp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "daemon/http/admin.hpp"
#include "daemon/http/http_server.hpp"
#include "tests/fuzz/fixture_daemon.hpp"
#include "tests/fuzz/fuzz.hpp"

namespace {

using namespace origin;
using namespace origin::http;

[[noreturn]] void Fail(const char* what, const std::string& detail = "") {
  std::fprintf(stderr, "http harness: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// The client's requests as llhttp reads them with the server's settings,
// without the server's checks: what each request the server refuses must
// deserve, and the order the answers follow.
struct Sent {
  std::string line;  // "METHOD target"
  std::size_t hosts = 0, header_bytes = 0, body = 0;
  std::string host;
  bool length_over = false, trailers = false, headers_done = false, complete = false;
  bool keep_alive = true;
  int method = 0;
};

/// `error`: llhttp stopped at bytes it refuses.
std::vector<Sent> ReadSent(const std::string& bytes, std::size_t max_body, bool* error) {
  struct State {
    std::vector<Sent> sent;
    std::string field;
    std::size_t max_body;
  } st{{}, "", max_body};
  llhttp_settings_t s;
  llhttp_settings_init(&s);
  s.on_message_begin = [](llhttp_t* p) {
    static_cast<State*>(p->data)->sent.emplace_back();
    return 0;
  };
  s.on_url = [](llhttp_t* p, const char* at, std::size_t n) {
    Sent& m = static_cast<State*>(p->data)->sent.back();
    m.line.append(at, n);
    m.header_bytes += n;
    return 0;
  };
  s.on_header_field = [](llhttp_t* p, const char* at, std::size_t n) {
    auto* state = static_cast<State*>(p->data);
    Sent& m = state->sent.back();
    m.trailers = m.trailers || m.headers_done;
    if (m.headers_done) return 0;  // a trailer: counted by nothing but `trailers`
    m.header_bytes += n;
    state->field.assign(at, n);
    return 0;
  };
  s.on_header_value = [](llhttp_t* p, const char* at, std::size_t n) {
    auto* state = static_cast<State*>(p->data);
    Sent& m = state->sent.back();
    if (m.headers_done) return 0;
    m.header_bytes += n;
    std::string& f = state->field;
    for (char& ch : f) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (f == "host") {
      m.host.append(at, n);
      ++m.hosts;
      f = "host (counted)";
    } else if (f == "host (counted)") {
      m.host.append(at, n);
    }
    return 0;
  };
  s.on_headers_complete = [](llhttp_t* p) {
    auto* state = static_cast<State*>(p->data);
    Sent& m = state->sent.back();
    m.headers_done = true;
    m.method = llhttp_get_method(p);
    m.line = std::string(llhttp_method_name(static_cast<llhttp_method_t>(m.method))) + " " + m.line;
    m.length_over = (p->flags & F_CONTENT_LENGTH) != 0 && p->content_length > state->max_body;
    m.keep_alive = llhttp_should_keep_alive(p) != 0;
    return 0;
  };
  s.on_body = [](llhttp_t* p, const char*, std::size_t n) {
    static_cast<State*>(p->data)->sent.back().body += n;
    return 0;
  };
  s.on_message_complete = [](llhttp_t* p) {
    static_cast<State*>(p->data)->sent.back().complete = true;
    return 0;
  };
  llhttp_t parser;
  llhttp_init(&parser, HTTP_REQUEST, &s);
  parser.data = &st;
  *error = llhttp_execute(&parser, bytes.data(), bytes.size()) != HPE_OK;
  return std::move(st.sent);
}

bool Writes(const Request& r) {
  if (r.path == "/admin/signin") return true;  // a sign-in (audited, a session more)
  if (r.method != "POST") return false;
  for (const char* op : {"/admin/api/remember", "/admin/api/correct", "/admin/api/forget",
                         "/admin/api/restore"})
    if (r.path == op) return true;
  return r.path.rfind("/admin/api/", 0) != 0;  // a form, or the sign-out
}

class Instance {
 public:
  Instance() : admin_(ops(), clock_), server_(d_.loop(), ops().ctx().loop_thread, limits_) {
    server_.Listen(
        "127.0.0.1", 0, [this](const Request& r, Respond respond) { Route(r, std::move(respond)); },
        [this](int status, const std::string& message) { return admin_.ErrorPage(status, message); });
    admin_.SetPort(server_.port());
    server_.SetAllowedHosts(admin_.Hosts());
    host_ = "127.0.0.1:" + std::to_string(server_.port());
    // The first sync done (a page waits for it), through the server.
    const std::string warm = "GET /admin/search?q=x HTTP/1.1\r\nHost: {HOST}\r\nCookie: origin-ui={SESSION}\r\n\r\n";
    Connection(std::string(1, '\x3f') + warm);
  }
  ~Instance() { server_.Close(); }

  void Connection(std::string_view input);

 private:
  Operations& ops() { return d_.daemon().ops(); }
  void Route(const Request& r, Respond respond);
  std::string Expand(std::string_view text);
  int Connect();
  void Check(const std::string& got, const std::string& sent);
  bool Deserves(const Sent& m, int status) const;

  fuzz::FixtureDaemon d_;
  SystemClock clock_;
  ServerLimits limits_;
  AdminUi admin_;
  HttpServer server_;
  std::string host_;
  std::string session_;
  std::vector<std::string> routed_;  // "METHOD target" of each request routed, in order
};

void Instance::Route(const Request& r, Respond respond) {
  // What the server lets through.
  if (r.method != "GET" && r.method != "POST") Fail("a method other than GET and POST was routed", r.method);
  std::size_t hosts = 0, header_bytes = r.target.size();
  for (const auto& [name, value] : r.headers) {
    hosts += name == "host" ? 1 : 0;
    header_bytes += name.size() + value.size();
  }
  if (hosts != 1 || (*r.Header("host") != host_ && *r.Header("host") != "localhost:" + host_.substr(10)))
    Fail("a request without its one allowed Host was routed", r.target);
  if (header_bytes > limits_.max_header_bytes) Fail("a header block over the limit was routed");
  if (r.body.size() > limits_.max_body_bytes) Fail("a body over the limit was routed");
  // Each answer says which request it answers, so that the order is checked.
  Respond tagged = [respond = std::move(respond), n = routed_.size()](Response out) {
    out.headers.emplace_back("X-Routed", std::to_string(n));
    respond(std::move(out));
  };
  routed_.push_back(r.method + " " + r.target);
  if (Writes(r)) return tagged(Response{200, "text/plain", {}, "not written", false});
  admin_.Handle(r, std::move(tagged));
}

std::string Instance::Expand(std::string_view text) {
  if (session_.empty() || admin_.signin().Find(session_) == nullptr)
    session_ = *admin_.signin().Exchange(admin_.signin().NewSecret());
  const std::pair<std::string_view, std::string> subst[] = {
      {"{HOST}", host_}, {"{SESSION}", session_}, {"{CSRF}", admin_.signin().Find(session_)->csrf}};
  std::string out;
  while (!text.empty()) {
    bool replaced = false;
    for (const auto& [key, value] : subst) {
      if (text.substr(0, key.size()) != key) continue;
      out += value;
      text.remove_prefix(key.size());
      replaced = true;
      break;
    }
    if (replaced) continue;
    out += text.front();
    text.remove_prefix(1);
  }
  return out;
}

int Instance::Connect() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  // The client half-closes first, so each connection leaves its port in
  // TIME_WAIT for a minute: at a few hundred inputs a second one source
  // address runs out of ports.  Each connection comes from the next of
  // 127.1.1.1 to 127.1.254.254 (all loopback), each with its own ports.
  static std::uint32_t next = 0;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  from.sin_addr.s_addr = htonl(0x7f010101u + (next / 254) % 254 * 256 + next % 254);
  ++next;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) Fail("bind", std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(server_.port()));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // Non-blocking: libFuzzer's timer signal would interrupt a blocking connect.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    if (errno != EINPROGRESS && errno != EINTR) Fail("connect", std::strerror(errno));
    pollfd p{fd, POLLOUT, 0};
    while (::poll(&p, 1, -1) < 0)
      if (errno != EINTR) Fail("poll", std::strerror(errno));
    int error = 0;
    socklen_t len = sizeof error;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0) Fail("connect", std::strerror(error));
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

void Instance::Connection(std::string_view input) {
  if (input.empty()) return;
  const auto first = static_cast<unsigned char>(input[0]);
  const std::size_t chunk = first < 0x80 ? 1 + first % 64 : input.size();
  const std::string bytes = Expand(input.substr(1));
  uv_loop_t* loop = d_.loop();
  routed_.clear();
  const int fd = Connect();
  std::string got;
  bool eof = false;
  auto drain = [&] {
    char buf[65536];
    for (;;) {
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n > 0) {
        got.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      if (n == 0 || errno == ECONNRESET) eof = true;
      return;
    }
  };
  // Each write read by the server before the next (loopback delivers it
  // within the send; the loop's poll then finds it).
  for (std::size_t at = 0; at < bytes.size() && !eof;) {
    const ssize_t n = ::send(fd, bytes.data() + at, std::min(chunk, bytes.size() - at), MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN) break;  // the server closed (after an error)
    if (n > 0) at += static_cast<std::size_t>(n);
    uv_run(loop, UV_RUN_NOWAIT);
    drain();
  }
  ::shutdown(fd, SHUT_WR);
  // Until the server closes: it answers every request it took, then closes
  // on the client's end.
  while (!eof) {
    drain();
    if (!eof) uv_run(loop, UV_RUN_ONCE);
  }
  ::close(fd);
  while (server_.connections() != 0) uv_run(loop, UV_RUN_ONCE);
  if (std::getenv("ORIGIN_FUZZ_VERBOSE") != nullptr)  // what a replay answered
    std::fprintf(stderr, "--- %zu routed\n%s\n", routed_.size(), got.c_str());
  Check(got, bytes);
}

// Whether the server rightly refused request `m` with `status`.
bool Instance::Deserves(const Sent& m, int status) const {
  const bool host_ok = m.host == host_ || m.host == "localhost:" + host_.substr(10);
  switch (status) {
    case 400: return !m.complete || m.hosts != 1 || m.trailers;  // malformed, Host, trailers
    case 403: return m.hosts == 1 && !host_ok;
    case 405: return m.method != HTTP_GET && m.method != HTTP_POST;
    case 413: return m.length_over || m.body > limits_.max_body_bytes;
    case 431: return m.header_bytes > limits_.max_header_bytes;
    default: return false;  // 408 (the client ends at once), 500
  }
}

// The responses in `got`: well-formed, each with Content-Length and the
// security headers; the answers of the requests routed, in order, then at
// most one the server answered itself; every request `sent` answered
// unless one before it closed the connection, and a refusal only for the
// request after the last routed, which deserves it.
void Instance::Check(const std::string& got, const std::string& sent) {
  struct State {
    std::vector<long> routed;  // of each response, its X-Routed (-1: none)
    int status = 0;            // of the last one
    std::string field, routed_value;
    bool length = false, csp = false, bad = false;
  } st;
  llhttp_settings_t s;
  llhttp_settings_init(&s);
  s.on_message_begin = [](llhttp_t* p) {
    auto* state = static_cast<State*>(p->data);
    state->length = state->csp = false;
    state->routed_value.clear();
    return 0;
  };
  s.on_header_value = [](llhttp_t* p, const char* at, std::size_t n) {
    auto* state = static_cast<State*>(p->data);
    if (state->field == "x-routed") state->routed_value.append(at, n);
    return 0;
  };
  s.on_header_field = [](llhttp_t* p, const char* at, std::size_t n) {
    auto* state = static_cast<State*>(p->data);
    state->field.assign(at, n);
    for (char& ch : state->field) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    state->length = state->length || state->field == "content-length";
    state->csp = state->csp || state->field == "content-security-policy";
    return 0;
  };
  s.on_message_complete = [](llhttp_t* p) {
    auto* state = static_cast<State*>(p->data);
    if (!state->length || !state->csp || p->http_major != 1 || p->http_minor != 1) state->bad = true;
    state->routed.push_back(state->routed_value.empty() ? -1 : std::atol(state->routed_value.c_str()));
    state->status = p->status_code;
    return 0;
  };
  llhttp_t parser;
  llhttp_init(&parser, HTTP_RESPONSE, &s);
  parser.data = &st;
  const llhttp_errno_t err = llhttp_execute(&parser, got.data(), got.size());
  if (err != HPE_OK) Fail("a response llhttp cannot parse", got.substr(0, 2000));
  if (st.bad) Fail("a response without HTTP/1.1, Content-Length or the security headers", got.substr(0, 2000));
  if (llhttp_finish(&parser) != HPE_OK) Fail("a response cut short", got.substr(0, 2000));
  const std::size_t k = routed_.size();
  const bool refused = st.routed.size() == k + 1 && st.routed.back() == -1;
  bool ordered = st.routed.size() == k || refused;
  for (std::size_t i = 0; i < k && ordered; ++i) ordered = st.routed[i] == static_cast<long>(i);
  if (!ordered)
    Fail("not the answers of the requests routed, in order, then at most one refusal",
         std::to_string(st.routed.size()) + " responses, " + std::to_string(k) + " routed\n" +
             got.substr(0, 2000));
  bool malformed = false;
  const std::vector<Sent> ref = ReadSent(sent, limits_.max_body_bytes, &malformed);
  for (std::size_t i = 0; i < k; ++i) {
    if (i >= ref.size() || ref[i].line != routed_[i]) Fail("a request routed out of order", routed_[i]);
    if (ref[i].trailers) Fail("a request with trailers (header fields after its body) was routed", routed_[i]);
  }
  if (refused) {
    // Bytes llhttp refuses between two requests: 400 too.
    if (k >= ref.size() ? !(malformed && st.status == 400) : !Deserves(ref[k], st.status))
      Fail("a refusal the request after the last routed does not deserve", std::to_string(st.status) + "\n" + sent);
  } else if (k < ref.size() && ref[k].complete && (k == 0 || ref[k - 1].keep_alive)) {
    Fail("a request sent whole was neither answered nor refused", ref[k].line);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Instance instance;
  instance.Connection(fuzz::Text(data, size));
  return 0;
}
