// SPDX-License-Identifier: MIT
#include "daemon/server.hpp"

#include <rapidjson/stringbuffer.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/text.hpp"
#include "daemon/log.hpp"
#include "daemon/rpc_json.hpp"
#include "origin_config.h"

namespace origin {

namespace {

// The one place an answer becomes a line of the socket protocol:
// {"id", "result"[, "notice"]} or {"id", "error": {"code", "message"}}.
std::string ReplyLine(const std::string& id_json, const Answer& a) {
  rapidjson::StringBuffer sb;
  rpc::Writer w(sb);
  w.StartObject();
  w.Key("id");
  w.RawValue(id_json.c_str(), id_json.size(), rapidjson::kStringType);
  if (a.error) {
    w.Key("error");
    w.StartObject();
    w.Key("code");
    w.String(CodeName(a.error->code()));
    w.Key("message");
    const std::string message = a.error->what();
    w.String(std::string_view(message));
    w.EndObject();
  } else {
    w.Key("result");
    w.RawValue(a.result.data(), a.result.size(), rapidjson::kObjectType);
    if (!a.notice.empty()) {
      w.Key("notice");  // beside the result: the CLI prints it on stderr
      w.String(std::string_view(a.notice));
    }
  }
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

std::string ProtocolError(const std::string& message) {
  return ReplyLine("null", Answer::Fail(OpError::Code::kProtocol, message));
}

}  // namespace

Server::Server(uv_loop_t* loop, const ThreadRole& loop_thread, Operations& ops, McpServer& mcp,
               std::string socket_path)
    : loop_(loop),
      thread_(loop_thread),
      ops_(ops),
      mcp_(mcp),
      socket_path_(std::move(socket_path)) {}

Server::~Server() { CloseAll(); }

void Server::Listen(std::function<void()> lost) {
  ORIGIN_ASSERT_INSIDE(thread_);
  lost_ = std::move(lost);
  // The socket: we hold the instance lock, so a file there is stale.
  ::unlink(socket_path_.c_str());
  listener_ = UvHandle<uv_pipe_t>::Make([&](uv_pipe_t* p) { return uv_pipe_init(loop_, p, 0); });
  listener_.get()->data = this;
  // Bound by us, not by uv_pipe_bind: libuv unlinks the path of a pipe it
  // bound when the pipe closes, even when it is by then another's socket.
  UniqueFd fd = BindUnixSocket(socket_path_);
  if (int rc = uv_pipe_open(listener_.get(), fd.get()); rc < 0)
    throw UvError(rc, "open " + socket_path_);
  fd.Release();
  if (int rc = uv_listen(reinterpret_cast<uv_stream_t*>(listener_.get()), 128,
                         &Server::OnConnection);
      rc < 0)
    throw UvError(rc, "listen " + socket_path_);
  WatchSocket();
}

void Server::StopAccepting() {
  ORIGIN_ASSERT_INSIDE(thread_);
  listener_.Close();
  socket_watch_.Close();
  if (socket_id_) UnlinkIfSame(socket_path_, *socket_id_);  // ours, not a successor's
  socket_id_.reset();
}

void Server::CloseAll() {
  // Each connection is shut down, not just closed: the answers written to
  // it and not yet flushed still go out (uv_close would cancel them).
  for (auto& [id, c] : std::exchange(conns_, {})) {
    RunOnClose(*c);
    auto* stream = reinterpret_cast<uv_stream_t*>(c->pipe.get());
    stream->data = nullptr;  // no read reaches the connection any more
    uv_read_stop(stream);
    auto req = std::make_unique<uv_shutdown_t>();
    auto owned = std::make_unique<UvHandle<uv_pipe_t>>(std::move(c->pipe));
    req->data = owned.get();
    const int rc = uv_shutdown(req.get(), stream, [](uv_shutdown_t* r, int) {
      std::unique_ptr<uv_shutdown_t> done(r);
      delete static_cast<UvHandle<uv_pipe_t>*>(r->data);  // closes the pipe
    });
    if (rc == 0) {  // both freed by the callback
      req.release();
      owned.release();
    }
  }
}

void Server::WatchSocket() {
  socket_id_ = FileIdOf(socket_path_);
  socket_watch_ =
      UvHandle<uv_timer_t>::Make([&](uv_timer_t* t) { return uv_timer_init(loop_, t); });
  socket_watch_.get()->data = this;
  auto look = [](uv_timer_t* t) {
    auto* self = static_cast<Server*>(t->data);
    if (self == nullptr) return;
    // lstat on libuv's thread pool: the loop never waits on the disk.
    auto* req = new uv_fs_t;
    req->data = self;
    auto seen = [](uv_fs_t* r) {
      std::unique_ptr<uv_fs_t> owned(r);
      auto* server = static_cast<Server*>(r->data);
      const bool gone = r->result == UV_ENOENT;
      const FileId now{static_cast<dev_t>(r->statbuf.st_dev),
                       static_cast<ino_t>(r->statbuf.st_ino)};
      const bool same = r->result == 0 && server->socket_id_ == now;
      const bool unknown = r->result < 0 && !gone;  // EACCES, EIO...: look again later
      uv_fs_req_cleanup(r);
      if (!server->socket_id_ || same || unknown) return;  // stopped meanwhile, or fine
      LOG_WARN("the socket %s was %s; no client can reach this daemon: stopping",
               server->socket_path_.c_str(), gone ? "removed" : "replaced by another");
      try {
        if (server->lost_) server->lost_();
      } catch (const std::exception& e) {
        LOG_ERROR("stopping: %s", e.what());
      }
    };
    if (uv_fs_lstat(self->loop_, req, self->socket_path_.c_str(), seen) < 0) delete req;
  };
  uv_timer_start(socket_watch_.get(), look, 2000, 2000);
}

void Server::OnConnection(uv_stream_t* listener, int status) noexcept {
  auto* self = static_cast<Server*>(listener->data);
  if (self == nullptr || status < 0) return;
  try {
    auto c = std::make_unique<Connection>();
    c->id = self->next_conn_++;
    c->server = self;
    c->pipe =
        UvHandle<uv_pipe_t>::Make([&](uv_pipe_t* p) { return uv_pipe_init(self->loop_, p, 0); });
    if (uv_accept(listener, reinterpret_cast<uv_stream_t*>(c->pipe.get())) != 0) return;
    c->pipe.get()->data = c.get();
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(c->pipe.get()),
        [](uv_handle_t*, std::size_t suggested, uv_buf_t* buf) {
          buf->base = new (std::nothrow) char[suggested];
          buf->len = buf->base != nullptr ? suggested : 0;
        },
        &Server::OnRead);
    self->conns_[c->id] = std::move(c);
  } catch (const std::exception& e) {
    LOG_ERROR("accept: %s", e.what());
  }
}

void Server::OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) noexcept {
  std::unique_ptr<char[]> owned(buf->base);
  auto* c = static_cast<Connection*>(stream->data);
  if (c == nullptr) return;
  Server* self = c->server;
  const std::uint64_t id = c->id;
  if (nread < 0) {
    self->Close(id);
    return;
  }
  try {
    c->buf.Append(buf->base, static_cast<std::size_t>(nread));
    while (auto line = c->buf.Next()) {
      self->OnLine(*c, *line);
      if (self->conns_.count(id) == 0) return;  // closed meanwhile
    }
    if (c->buf.Overflow()) {
      self->Send(id, ProtocolError("line too long"));
      self->Close(id);
    }
  } catch (const std::exception& e) {
    LOG_ERROR("connection %llu: %s", static_cast<unsigned long long>(id), e.what());
    self->Close(id);
  }
}

void Server::Close(std::uint64_t conn) {
  auto it = conns_.find(conn);
  if (it == conns_.end()) return;
  std::unique_ptr<Connection> c = std::move(it->second);
  conns_.erase(it);
  c->pipe.Close();
  RunOnClose(*c);
}

void Server::RunOnClose(Connection& c) {
  for (auto& fn : std::exchange(c.on_close, {})) {
    try {
      fn();
    } catch (const std::exception& e) {
      LOG_ERROR("connection %llu closed: %s", static_cast<unsigned long long>(c.id), e.what());
    }
  }
}

void Server::Send(std::uint64_t conn, std::string line) {
  ORIGIN_ASSERT_INSIDE(thread_);
  auto it = conns_.find(conn);
  if (it == conns_.end()) return;  // the client left meanwhile
  struct WriteReq {
    uv_write_t req;
    std::string data;
  };
  auto w = std::make_unique<WriteReq>();
  w->data = std::move(line);
  w->data.push_back('\n');
  uv_buf_t b = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
  int rc = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(it->second->pipe.get()), &b, 1,
                    [](uv_write_t* req, int) { delete reinterpret_cast<WriteReq*>(req); });
  if (rc < 0) {
    Close(conn);
    return;
  }
  w.release();  // freed by its callback
}

void Server::OnLine(Connection& c, const std::string& line) {
  if (!c.hello) return Hello(c, line);
  if (c.mcp) {
    const std::uint64_t id = c.id;
    mcp_.Handle(line, c.mcp, [this, id](std::string reply) {
      if (!reply.empty()) Send(id, std::move(reply));
    });
    return;
  }
  Request(c, line);
}

void Server::Hello(Connection& c, const std::string& line) {
  std::string err;
  auto hello = proto::DecodeClientHello(line, &err);
  if (!hello) {
    Send(c.id, ProtocolError("bad hello: " + err));
    Close(c.id);
    return;
  }
  c.hello = true;
  c.client = hello->client;
  if (c.client == "origin-mcp") c.mcp = std::make_shared<McpPeer>(McpPeer{{}, hello->session});
  proto::DaemonHello reply;
  reply.daemon = ORIGIN_VERSION;
  reply.store = ops_.ctx().store_name.Get();
  reply.mode = mode_;
  reply.pid = ::getpid();
  Send(c.id, proto::Encode(reply));
}

void DecodeRequestLine(std::string_view line, RequestLine* out) {
  auto fail = [out](OpError::Code code, const char* message) { out->error.emplace(code, message); };
  if (!JsonDepthWithin(line, 64)) return fail(OpError::Code::kProtocol, "request nested too deeply");
  rapidjson::Document& d = out->doc;
  d.Parse<proto::kJsonParseFlags>(line.data(), line.size());
  if (d.HasParseError() || !d.IsObject())
    return fail(OpError::Code::kProtocol, "request is not a JSON object");
  if (auto it = d.FindMember("id"); it != d.MemberEnd()) {
    if (!it->value.IsString() && !it->value.IsNumber() && !it->value.IsNull())
      return fail(OpError::Code::kInvalidArgument, "a request id is a string or a number");
    out->id_json = proto::ToJson(it->value);
  }
  auto m = d.FindMember("method");
  if (m == d.MemberEnd() || !m->value.IsString())
    return fail(OpError::Code::kInvalidArgument, "request without a method");
  out->method = std::string_view(m->value.GetString(), m->value.GetStringLength());
  if (auto it = d.FindMember("params"); it != d.MemberEnd()) out->params = &it->value;
}

void Server::Request(const Connection& c, const std::string& line) {
  const std::uint64_t conn = c.id;
  auto fail = [&](const std::string& id_json, OpError::Code code, const std::string& message) {
    Send(conn, ReplyLine(id_json, Answer::Fail(code, message)));
  };
  // Shared: a write may wait for the sync before it (below).
  auto request = std::make_shared<RequestLine>();
  RequestLine& r = *request;
  DecodeRequestLine(line, &r);
  if (r.error) return fail(r.id_json, r.error->code(), r.error->what());
  const std::string& id_json = r.id_json;
  // Who asks: people on the CLI or in origin ui, or another client by its name.
  const bool person = c.client == "origin" || c.client == "origin-ui";
  Caller caller;
  caller.author = (person ? std::string("user") : c.client) + "@" + ops_.ctx().store_name.Get();
  caller.channel = c.client == "origin" ? "cli" : c.client == "origin-ui" ? "ui" : "mcp";
  caller.connection = conn;
  caller.when_closed = [this, conn](std::function<void()> fn) {
    auto it = conns_.find(conn);
    if (it == conns_.end()) return fn();  // gone already
    it->second->on_close.push_back(std::move(fn));
  };
  caller.progress = [this, conn, id_json](const std::string& json) {
    Send(conn, "{\"method\":\"progress\",\"params\":{\"id\":" + id_json + "," + json.substr(1) + "}");
  };
  auto call = [this, conn, request, caller]() mutable {
    ops_.Call(
        request->method, request->params, std::move(caller),
        [this, conn, id_json = request->id_json](Answer a) { Send(conn, ReplyLine(id_json, a)); });
  };
  // A write citing what was said a moment ago (Operation::cites_fresh): what
  // the watcher has not ingested yet is first.  In flight meanwhile, as the
  // MCP server's: a shutdown during the wait answers it (unavailable) rather
  // than closing on it.
  const Operation* op = Operations::Find(r.method);
  if (op != nullptr && op->cites_fresh && !ops_.ctx().relay) {
    return ops_.ctx().ingestion.Freshen(2000,
                                        [call = std::move(call), release = ops_.Hold()]() mutable {
                                          call();
                                          release();
                                        });
  }
  call();
}

}  // namespace origin
