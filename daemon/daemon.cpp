// SPDX-License-Identifier: MIT
#include "daemon/daemon.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "core/entries/entries.hpp"
#include "core/ingest/ingester.hpp"
#include "core/ingest/walk.hpp"
#include "core/query/events.hpp"
#include "core/query/search.hpp"
#include "core/query/terms.hpp"
#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "core/store/status.hpp"
#include "core/util/op_error.hpp"
#include "core/util/text.hpp"
#include "daemon/log.hpp"
#include "origin_config.h"

namespace origin {

namespace {

using Writer = rpc::Writer;  // every string checked for UTF-8 (rpc_json.hpp)

// Thrown from an ingest's `between` to end a sync early at shutdown.  Not a
// std::exception, so that no per-file handler takes it for a file's failure.
struct SyncCancelled {};

void Key(Writer& w, const char* k) { w.Key(k); }
void Str(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
// A string, or null when empty; a time or count, or null when 0.
template <class W>
void OptStr(W& w, std::string_view s) {
  if (s.empty())
    w.Null();
  else
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
template <class W>
void OptInt(W& w, std::int64_t v) {
  if (v == 0)
    w.Null();
  else
    w.Int64(v);
}

// {"id": <id>, "error": {"code", "message"}}: the one place errors are framed.
std::string ErrorLine(const std::string& id_json, const char* code, const std::string& message) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  Key(w, "id");
  w.RawValue(id_json.c_str(), id_json.size(), rapidjson::kStringType);
  Key(w, "error");
  w.StartObject();
  Key(w, "code");
  w.String(code);
  Key(w, "message");
  Str(w, message);
  w.EndObject();
  w.EndObject();
  return sb.GetString();
}

struct Snapshot {
  std::int64_t files, lines, bytes, events;
};

const char* CodeOf(const OpError& e) {
  switch (e.code()) {
    case OpError::Code::kInvalidArgument:
      return proto::code::kInvalidArgument;
    case OpError::Code::kNotFound:
      return proto::code::kNotFound;
    case OpError::Code::kForgotten:
      return proto::code::kForgotten;
    case OpError::Code::kConflict:
      return proto::code::kConflict;
  }
  return proto::code::kInternal;
}

std::int64_t MonotonicMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

struct Daemon::Connection {
  std::uint64_t id = 0;
  Daemon* daemon = nullptr;
  UvHandle<uv_pipe_t> pipe;
  proto::LineBuffer buf;
  bool hello = false;
  std::string client;
  std::string agent;  // MCP: the clientInfo.name of initialize
};

struct Daemon::DirWatch {
  Daemon* daemon = nullptr;
  std::size_t source = 0;
  std::string path;
  UvHandle<uv_fs_event_t> handle;
};

struct Daemon::SourceSync {
  UvHandle<uv_timer_t> timer;
  bool running = false;
  bool pending = false;
  bool synced_once = false;
  const char* reason = "watch";
};

Daemon::Daemon(uv_loop_t* loop, DaemonOptions opts, std::unique_ptr<Db> writer_db,
               std::unique_ptr<EventIndex> index,
               std::vector<std::unique_ptr<SourceAdapter>> adapters)
    : loop_(loop),
      opts_(std::move(opts)),
      mirrors_(opts_.paths.raw),
      adapters_(std::move(adapters)),
      writer_db_(std::move(writer_db)),
      index_(std::move(index)) {
  problems_.resize(adapters_.size());
  root_exists_.resize(adapters_.size());
  looked_.resize(adapters_.size());
  live_paths_.resize(adapters_.size());
  known_files_.resize(adapters_.size());
  import_ = std::make_unique<ImportProgress[]>(adapters_.size());
}

Daemon::~Daemon() {
  if (writer_) writer_->Stop();
  if (indexer_) indexer_->Stop();
  if (readers_) readers_->Stop();
}

void Daemon::Start() {
  started_ms_ = clock_.NowMs();
  poster_ = std::make_unique<LoopPoster>(loop_);
  auto writer_db = std::make_shared<std::unique_ptr<Db>>(std::move(writer_db_));
  writer_ = std::make_unique<DbWorkers>("writer", 1, [writer_db] { return std::move(*writer_db); });
  indexer_ = std::make_unique<Indexer>(std::move(index_), [this] { return clock_.NowMs(); });
  // entry_fts is kept in origin.db by a trigger: checked before any write.
  writer_->Post([](Db& db) {
    try {
      if (std::string problem = RepairEntryIndex(db); !problem.empty())
        LOG_ERROR("the entries' search index was damaged (%s): rebuilt it", problem.c_str());
    } catch (const std::exception& e) {
      LOG_ERROR("checking the entries' search index: %s", e.what());
    }
  });
  const std::string db_path = opts_.paths.db, index_path = opts_.paths.index;
  readers_ = std::make_unique<DbWorkers>("reader", opts_.readers, [db_path, index_path] {
    auto db = OpenReadConnection(db_path);
    AttachIndex(*db, index_path);
    return db;
  });

  // The socket: we hold the instance lock, so a file there is stale.
  const std::string& sock = opts_.paths.socket;
  ::unlink(sock.c_str());
  server_ = UvHandle<uv_pipe_t>::Make([&](uv_pipe_t* p) { return uv_pipe_init(loop_, p, 0); });
  server_.get()->data = this;
  // Bound by us, not by uv_pipe_bind: libuv unlinks the path of a pipe it
  // bound when the pipe closes, even when it is by then another's socket.
  UniqueFd fd = BindUnixSocket(sock);
  if (int rc = uv_pipe_open(server_.get(), fd.get()); rc < 0) throw UvError(rc, "open " + sock);
  fd.Release();
  if (int rc = uv_listen(reinterpret_cast<uv_stream_t*>(server_.get()), 128, &Daemon::OnConnection);
      rc < 0)
    throw UvError(rc, "listen " + sock);
  WatchSocket();

  for (std::size_t i = 0; i < adapters_.size(); ++i) {
    auto s = std::make_unique<SourceSync>();
    s->timer = UvHandle<uv_timer_t>::Make([&](uv_timer_t* t) { return uv_timer_init(loop_, t); });
    s->timer.get()->data = this;
    syncs_.push_back(std::move(s));
  }
  rescan_ = UvHandle<uv_timer_t>::Make([&](uv_timer_t* t) { return uv_timer_init(loop_, t); });
  rescan_.get()->data = this;
  uv_timer_start(
      rescan_.get(),
      [](uv_timer_t* t) {
        auto* self = static_cast<Daemon*>(t->data);
        if (self == nullptr) return;
        for (std::size_t i = 0; i < self->adapters_.size(); ++i) {
          self->syncs_[i]->reason = "rescan";
          self->ScheduleSync(i, 0);
        }
      },
      static_cast<std::uint64_t>(opts_.rescan_ms), static_cast<std::uint64_t>(opts_.rescan_ms));
  first_syncs_left_ = adapters_.size();
  for (std::size_t i = 0; i < adapters_.size(); ++i) {
    syncs_[i]->reason = "start";
    ScheduleSync(i, 0);
  }
}

void Daemon::BeginShutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  LOG_INFO("shutting down");
  server_.Close();
  socket_watch_.Close();
  if (socket_id_) UnlinkIfSame(opts_.paths.socket, *socket_id_);  // ours, not a successor's
  rescan_.Close();
  for (auto& s : syncs_) s->timer.Close();
  // One-shot timers (bounded waits, delayed steps) would keep the loop
  // running until they fire: what they would do no longer matters.
  for (OneShot* t : std::exchange(one_shots_, {})) CloseOneShot(t);
  watches_.clear();
  for (auto& [id, c] : conns_) c->pipe.Close();
  conns_.clear();
  // The writer finishes its current transaction: a sync checks stopping()
  // after each one.  Joining here waits at most for that transaction.
  if (writer_) writer_->Stop();
  if (indexer_) indexer_->Stop();
  if (readers_) readers_->Stop();
  if (poster_) poster_->Close();
}

void Daemon::WatchSocket() {
  socket_id_ = FileIdOf(opts_.paths.socket);
  socket_watch_ =
      UvHandle<uv_timer_t>::Make([&](uv_timer_t* t) { return uv_timer_init(loop_, t); });
  socket_watch_.get()->data = this;
  auto look = [](uv_timer_t* t) {
    auto* self = static_cast<Daemon*>(t->data);
    if (self == nullptr) return;
    // lstat on libuv's thread pool: the loop never waits on the disk.
    auto* req = new uv_fs_t;
    req->data = self;
    auto seen = [](uv_fs_t* r) {
      auto* daemon = static_cast<Daemon*>(r->data);
      const bool gone = r->result == UV_ENOENT;
      const FileId now{static_cast<dev_t>(r->statbuf.st_dev),
                       static_cast<ino_t>(r->statbuf.st_ino)};
      const bool same = r->result == 0 && daemon->socket_id_ == now;
      const bool unknown = r->result < 0 && !gone;  // EACCES, EIO...: look again later
      uv_fs_req_cleanup(r);
      delete r;
      if (daemon->shutting_down_ || same || unknown) return;
      LOG_WARN("the socket %s was %s; no client can reach this daemon: stopping",
               daemon->opts_.paths.socket.c_str(), gone ? "removed" : "replaced by another");
      daemon->BeginShutdown();
    };
    if (uv_fs_lstat(self->loop_, req, self->opts_.paths.socket.c_str(), seen) < 0) delete req;
  };
  uv_timer_start(socket_watch_.get(), look, 2000, 2000);
}

// --- socket server ---------------------------------------------------------

void Daemon::OnConnection(uv_stream_t* server, int status) noexcept {
  auto* self = static_cast<Daemon*>(server->data);
  if (self == nullptr || status < 0) return;
  try {
    auto c = std::make_unique<Connection>();
    c->id = self->next_conn_++;
    c->daemon = self;
    c->pipe =
        UvHandle<uv_pipe_t>::Make([&](uv_pipe_t* p) { return uv_pipe_init(self->loop_, p, 0); });
    if (uv_accept(server, reinterpret_cast<uv_stream_t*>(c->pipe.get())) != 0) return;
    c->pipe.get()->data = c.get();
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(c->pipe.get()),
        [](uv_handle_t*, std::size_t suggested, uv_buf_t* buf) {
          buf->base = new char[suggested];
          buf->len = suggested;
        },
        &Daemon::OnRead);
    self->conns_[c->id] = std::move(c);
  } catch (const std::exception& e) {
    LOG_ERROR("accept: %s", e.what());
  }
}

void Daemon::OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) noexcept {
  std::unique_ptr<char[]> owned(buf->base);
  auto* c = static_cast<Connection*>(stream->data);
  if (c == nullptr) return;
  Daemon* self = c->daemon;
  std::uint64_t id = c->id;
  if (nread < 0) {
    self->CloseConnection(id);
    return;
  }
  try {
    c->buf.Append(buf->base, static_cast<std::size_t>(nread));
    while (auto line = c->buf.Next()) {
      self->HandleLine(*c, *line);
      if (self->conns_.count(id) == 0 || self->shutting_down_) return;  // closed meanwhile
    }
    if (c->buf.Overflow()) {
      self->SendError(id, "null", proto::code::kProtocol, "line too long");
      self->CloseConnection(id);
    }
  } catch (const std::exception& e) {
    LOG_ERROR("connection %llu: %s", static_cast<unsigned long long>(id), e.what());
    self->CloseConnection(id);
  }
}

void Daemon::CloseConnection(std::uint64_t conn_id) {
  auto it = conns_.find(conn_id);
  if (it == conns_.end()) return;
  std::erase_if(batch_of_, [conn_id](const auto& b) { return b.second->conn == conn_id; });
  it->second->pipe.Close();
  conns_.erase(it);
}

void Daemon::Send(std::uint64_t conn_id, std::string line) {
  if (auto b = batch_of_.find(conn_id); b != batch_of_.end()) {
    // An answer to a message of a batch: gathered, and the array sent with
    // the last one.
    std::shared_ptr<Batch> batch = b->second;
    batch_of_.erase(b);
    batch->replies.push_back(std::move(line));
    if (batch->replies.size() == batch->expected) FlushBatch(*batch);
    return;
  }
  auto it = conns_.find(conn_id);
  if (it == conns_.end()) return;  // the client left meanwhile
  struct WriteReq {
    uv_write_t req;
    std::string data;
  };
  auto* w = new WriteReq{};
  w->data = std::move(line);
  w->data.push_back('\n');
  uv_buf_t b = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
  int rc = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(it->second->pipe.get()), &b, 1,
                    [](uv_write_t* req, int) { delete reinterpret_cast<WriteReq*>(req); });
  if (rc < 0) {
    delete w;
    CloseConnection(conn_id);
  }
}

void Daemon::SendError(std::uint64_t conn_id, const std::string& id_json, const char* code,
                       const std::string& message) {
  // On MCP, a tool's failure is a tool error the agent can read and correct.
  Send(conn_id,
       IsMcp(conn_id) ? McpToolResult(id_json, message, true) : ErrorLine(id_json, code, message));
}

void Daemon::HandleLine(Connection& c, const std::string& line) {
  if (!c.hello) {
    std::string err;
    auto hello = proto::DecodeClientHello(line, &err);
    if (!hello) {
      SendError(c.id, "null", proto::code::kProtocol, "bad hello: " + err);
      CloseConnection(c.id);
      return;
    }
    c.hello = true;
    c.client = hello->client;
    proto::DaemonHello reply;
    reply.daemon = ORIGIN_VERSION;
    reply.store = opts_.store_name;
    reply.pid = ::getpid();
    Send(c.id, proto::Encode(reply));
    return;
  }
  if (c.client == "origin-mcp")
    McpLine(c.id, line);
  else
    Dispatch(c, line);
}

void Daemon::Dispatch(Connection& c, const std::string& line, bool waited) {
  rapidjson::Document d;
  if (!JsonDepthWithin(line, 64)) {
    SendError(c.id, "null", proto::code::kProtocol, "request nested too deeply");
    return;
  }
  d.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
  if (d.HasParseError() || !d.IsObject()) {
    SendError(c.id, "null", proto::code::kProtocol, "request is not a JSON object");
    return;
  }
  std::string id_json = "null";
  if (auto it = d.FindMember("id"); it != d.MemberEnd()) {
    if (!it->value.IsString() && !it->value.IsNumber() && !it->value.IsNull()) {
      SendError(c.id, "null", proto::code::kInvalidArgument,
                "a request id is a string or a number");
      return;
    }
    id_json = proto::ToJson(it->value);
  }
  auto m = d.FindMember("method");
  if (m == d.MemberEnd() || !m->value.IsString()) {
    SendError(c.id, id_json, proto::code::kInvalidArgument, "request without a method");
    return;
  }
  std::string method = m->value.GetString();
  // Queries wait for the first sync of every source after a start, so that
  // they answer from the logs as they are, not from a store still filling.
  static const std::set<std::string> kAfterFirstSync = {
      "status", "timeline", "projects", "show",   "sources", "entries",
      "search", "remember", "correct",  "forget", "restore", "forgotten"};
  if (first_syncs_left_ > 0 && !waited && kAfterFirstSync.count(method) != 0) {
    // At most opts_.first_sync_wait_ms: an import of many logs answers from what
    // is stored so far, and says so (ImportNote).
    after_first_sync_.push_back(AtMostAfter(opts_.first_sync_wait_ms, [this, id = c.id, line] {
      auto it = conns_.find(id);
      if (it != conns_.end()) Dispatch(*it->second, line, /*waited=*/true);
    }));
    return;
  }
  const rapidjson::Value* params = nullptr;
  if (auto it = d.FindMember("params"); it != d.MemberEnd()) params = &it->value;
  try {
    if (DispatchQuery(c.id, id_json, method, rpc::Params(params))) return;
  } catch (const rpc::RequestError& e) {
    SendError(c.id, id_json, e.code(), e.what());
    return;
  }
  if (method == "ping") {
    Send(c.id, "{\"id\":" + id_json + ",\"result\":{\"pong\":true}}");
  } else if (method == "status") {
    DoStatus(c.id, id_json);
  } else if (method == "sync") {
    // `source`: one agent's logs only (origin sync --source NAME).
    std::string only;
    try {
      only = rpc::Params(params).Str("source").value_or("");
    } catch (const rpc::RequestError& e) {
      SendError(c.id, id_json, e.code(), e.what());
      return;
    }
    if (!only.empty()) {
      std::string known;
      bool found = false;
      for (const auto& a : adapters_) {
        known += (known.empty() ? "" : ", ") + std::string(a->id());
        found = found || a->id() == only;
      }
      if (!found) {
        SendError(c.id, id_json, proto::code::kInvalidArgument,
                  "unknown source " + only + " (" + known + ")");
        return;
      }
    }
    DoSync(c.id, id_json, only);
  } else if (method == "shutdown") {
    Send(c.id, "{\"id\":" + id_json + ",\"result\":{\"stopping\":true}}");
    // Let the answer go out first.
    After(10, [this] { BeginShutdown(); });
  } else {
    SendError(c.id, id_json, proto::code::kUnknownMethod, "unknown method: " + method);
  }
}

// --- requests --------------------------------------------------------------

void Daemon::Read(std::uint64_t conn_id, std::string id_json,
                  std::function<void(Db&, rpc::Writer&)> answer) {
  Answer(conn_id, std::move(id_json), std::move(answer), /*write=*/false);
}

void Daemon::Write(std::uint64_t conn_id, std::string id_json,
                   std::function<void(Db&, rpc::Writer&)> answer) {
  Answer(conn_id, std::move(id_json), std::move(answer), /*write=*/true);
}

void Daemon::Answer(std::uint64_t conn_id, std::string id_json,
                    std::function<void(Db&, rpc::Writer&)> answer, bool write) {
  const bool mcp = IsMcp(conn_id);
  DbWorkers::Job job = [this, conn_id, mcp, id_json = std::move(id_json),
                        answer = std::move(answer)](Db& db) {
    std::string out;
    auto error = [&](const char* code, const std::string& message) {
      return mcp ? McpToolResult(id_json, message, true) : ErrorLine(id_json, code, message);
    };
    try {
      rapidjson::StringBuffer sb;
      rpc::Writer w(sb);
      const std::string note = ImportNote();
      if (mcp) {
        // The result as JSON text in a text block (spec: MCP server).
        answer(db, w);
        out = McpToolResult(id_json, rpc::BoundStrings(sb.GetString(), kMcpMaxAnswer), false,
                            note);
      } else {
        w.StartObject();
        Key(w, "id");
        w.RawValue(id_json.c_str(), id_json.size(), rapidjson::kStringType);
        Key(w, "result");
        answer(db, w);
        if (!note.empty()) {
          Key(w, "notice");  // beside the result: the CLI prints it on stderr
          Str(w, note);
        }
        w.EndObject();
        out = sb.GetString();
      }
    } catch (const rpc::RequestError& e) {
      out = error(e.code(), e.what());
    } catch (const OpError& e) {
      out = error(CodeOf(e), e.what());
    } catch (const std::exception& e) {
      LOG_ERROR("request: %s", e.what());
      out = error(proto::code::kInternal, e.what());
    }
    poster_->Post(
        [this, conn_id, out = std::move(out)]() mutable { Send(conn_id, std::move(out)); });
  };
  if (write)
    writer_->Post(std::move(job), /*urgent=*/true);
  else
    readers_->Post(std::move(job));
}

std::uint64_t Daemon::RealConn(std::uint64_t conn) const {
  auto b = batch_of_.find(conn);
  return b == batch_of_.end() ? conn : b->second->conn;
}

bool Daemon::Alive(std::uint64_t conn) const { return conns_.count(RealConn(conn)) != 0; }

void Daemon::FlushBatch(const Batch& batch) {
  if (batch.replies.empty()) return;  // notifications only: no answer
  std::string out = "[";
  for (const std::string& r : batch.replies) out += (out.size() > 1 ? "," : "") + r;
  Send(batch.conn, out + "]");
}

std::string Daemon::AuthorOf(std::uint64_t conn_id) const {
  auto it = conns_.find(RealConn(conn_id));
  std::string client = it != conns_.end() ? it->second->client : "origin";
  if (client == "origin-mcp") client = it->second->agent.empty() ? "agent" : it->second->agent;
  return (client == "origin" ? std::string("user") : client) + "@" + opts_.store_name;
}

bool Daemon::IsMcp(std::uint64_t conn_id) const {
  auto it = conns_.find(RealConn(conn_id));
  return it != conns_.end() && it->second->client == "origin-mcp";
}

void Daemon::SetAgent(std::uint64_t conn_id, std::string name) {
  if (auto it = conns_.find(RealConn(conn_id)); it != conns_.end())
    it->second->agent = std::move(name);
}

void Daemon::WriteWithSources(std::uint64_t conn_id, const std::string& id_json,
                              std::vector<EntrySource> sources,
                              std::function<std::string(Db&, std::vector<EntrySource>)> write) {
  auto then = [this, conn_id, id_json, write](std::vector<EntrySource> resolved) {
    Write(conn_id, id_json, [this, write, resolved](Db& db, rpc::Writer& w) {
      std::string id = write(db, resolved);
      w.StartObject();
      Key(w, "entry");
      rpc::WriteEntry(w, *GetEntry(db, id, clock_.NowMs()));
      w.EndObject();
    });
  };
  bool quotes_only = false;
  for (const EntrySource& src : sources) quotes_only = quotes_only || !src.event_id;
  if (!quotes_only) {
    then(std::move(sources));
    return;
  }
  // A quote without an event id is found by searching, on a reader (which
  // has index.db); the write follows on the writer.
  readers_->Post([this, conn_id, id_json, sources = std::move(sources), then](Db& db) mutable {
    const char* code = nullptr;
    std::string message;
    try {
      ResolveQuotes(db, sources);
    } catch (const OpError& e) {
      code = CodeOf(e);
      message = e.what();
    } catch (const std::exception& e) {
      code = proto::code::kInternal;
      message = e.what();
    }
    poster_->Post(
        [this, conn_id, id_json, code, message, sources = std::move(sources), then]() mutable {
          if (code != nullptr)
            SendError(conn_id, id_json, code, message);
          else
            then(std::move(sources));
        });
  });
}

bool Daemon::DispatchQuery(std::uint64_t conn_id, const std::string& id_json,
                           const std::string& method, const rpc::Params& p) {
  if (method == "timeline") {
    auto session = p.Str("session");
    bool tools = p.Bool("include_tools");
    std::int64_t limit = p.Int("limit").value_or(session ? 500 : 50);
    if (limit < 1 || limit > 5000)
      throw rpc::RequestError(proto::code::kInvalidArgument, "limit must be between 1 and 5000");
    if (session) {
      std::int64_t offset = p.Int("offset").value_or(0);
      if (offset < 0)
        throw rpc::RequestError(proto::code::kInvalidArgument, "offset must be 0 or more");
      Read(conn_id, id_json, [s = *session, tools, limit, offset](Db& db, rpc::Writer& w) {
        auto row = GetSession(db, s);
        if (!row) throw rpc::RequestError(proto::code::kNotFound, "no session " + s);
        w.StartObject();
        Key(w, "session");
        rpc::WriteSession(w, *row);
        Key(w, "events");
        w.StartArray();
        for (const EventRow& e : SessionEvents(db, s, tools, static_cast<int>(limit), offset))
          rpc::WriteEvent(w, e);
        w.EndArray();
        w.EndObject();
      });
      return true;
    }
    SessionFilter f;
    f.to_ms = p.Int("until").value_or(clock_.NowMs());
    std::int64_t days = p.Int("days").value_or(7);
    if (days < 1) throw rpc::RequestError(proto::code::kInvalidArgument, "days must be 1 or more");
    f.from_ms = p.Int("since").value_or(f.to_ms - days * 24 * 3600 * 1000);
    if (f.from_ms > f.to_ms)
      throw rpc::RequestError(proto::code::kInvalidArgument, "since is after until");
    f.source = p.Str("source");
    f.project = p.Str("project");
    f.limit = static_cast<int>(limit);
    Read(conn_id, id_json, [f](Db& db, rpc::Writer& w) {
      w.StartObject();
      Key(w, "since");
      w.Int64(f.from_ms);
      Key(w, "until");
      w.Int64(f.to_ms);
      Key(w, "sessions");
      w.StartArray();
      for (const SessionRow& s : ListSessions(db, f)) rpc::WriteSession(w, s);
      w.EndArray();
      w.EndObject();
    });
    return true;
  }
  if (method == "projects") {
    Read(conn_id, id_json, [](Db& db, rpc::Writer& w) {
      w.StartObject();
      Key(w, "projects");
      w.StartArray();
      for (const ProjectRow& row : ListProjects(db)) {
        w.StartObject();
        Key(w, "project");
        Str(w, row.project);
        Key(w, "sources");
        Str(w, row.sources);
        Key(w, "sessions");
        w.Int64(row.sessions);
        Key(w, "events");
        w.Int64(row.events);
        Key(w, "last_ts");
        w.Int64(row.last_ts);
        Key(w, "last_time");
        Str(w, FormatIsoLocal(row.last_ts));
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    });
    return true;
  }
  if (method == "remember" || method == "correct") {
    std::string author = AuthorOf(conn_id);
    auto valid_from = p.Int("valid_from"), valid_to = p.Int("valid_to");
    if (method == "remember") {
      RememberInput in;
      in.kind = p.Str("kind").value_or("");
      in.text = p.Need("text");
      in.confidence = p.Num("confidence").value_or(-1);
      in.project = p.Str("project");
      in.valid_from = valid_from;
      in.valid_to = valid_to;
      in.author = author;
      in.sources = p.Sources("sources");
      WriteWithSources(conn_id, id_json, in.sources,
                       [this, in](Db& db, std::vector<EntrySource> sources) mutable {
                         in.sources = std::move(sources);
                         return Remember(db, clock_, opts_.store_name, in).id;
                       });
      return true;
    }
    std::string id = p.Need("id");
    CorrectInput in;
    in.text = p.Str("text");
    in.kind = p.Str("kind");
    in.confidence = p.Num("confidence");
    in.project = p.Str("project");
    in.valid_from = valid_from;
    in.valid_to = valid_to;
    in.author = author;
    in.add_sources = p.Sources("sources");
    WriteWithSources(conn_id, id_json, in.add_sources,
                     [this, id, in](Db& db, std::vector<EntrySource> sources) mutable {
                       in.add_sources = std::move(sources);
                       return Correct(db, clock_, opts_.store_name, id, in);
                     });
    return true;
  }
  if (method == "forget" || method == "restore") {
    TombstoneInput in;
    in.author = AuthorOf(conn_id);
    in.channel = in.author.rfind("user@", 0) == 0 ? "cli" : "mcp";
    in.target = p.Need(method == "forget" ? "target" : "id");
    in.reason = p.Str("reason").value_or("");
    in.dry_run = p.Bool("dry_run");
    const bool forget = method == "forget";
    Write(conn_id, id_json, [this, in, forget](Db& db, rpc::Writer& w) {
      ForgetOutcome o = forget ? Forget(db, clock_, opts_.store_name, in)
                               : Restore(db, clock_, opts_.store_name, in);
      rpc::WriteOutcome(w, o, in.dry_run);
    });
    return true;
  }
  if (method == "forgotten") {
    std::int64_t limit = p.Int("limit").value_or(100);
    if (limit < 1 || limit > 5000)
      throw rpc::RequestError(proto::code::kInvalidArgument, "limit must be between 1 and 5000");
    Read(conn_id, id_json, [limit](Db& db, rpc::Writer& w) {
      w.StartObject();
      Key(w, "tombstones");
      w.StartArray();
      for (const TombstoneRow& t : ListTombstones(db, static_cast<int>(limit)))
        rpc::WriteTombstone(w, t);
      w.EndArray();
      w.EndObject();
    });
    return true;
  }
  if (method == "search") {
    std::string query = p.Str("query").value_or("");
    std::string scope = p.Str("scope").value_or("both");
    if (scope != "both" && scope != "entries" && scope != "events")
      throw rpc::RequestError(proto::code::kInvalidArgument, "scope is both, entries or events");
    std::int64_t limit = p.Int("limit").value_or(20);
    if (limit < 1 || limit > 1000)
      throw rpc::RequestError(proto::code::kInvalidArgument, "limit must be between 1 and 1000");
    EntryFilter ef;
    ef.history = p.Bool("history");
    ef.kind = p.Str("kind");
    ef.project = p.Str("project");
    ef.limit = static_cast<int>(limit);
    if (ef.kind && *ef.kind != "memory" && *ef.kind != "knowledge" && *ef.kind != "cognition")
      throw rpc::RequestError(proto::code::kInvalidArgument,
                              "kind is memory, knowledge or cognition");
    EventQuery eq;
    eq.query = query;
    eq.include_tools = p.Bool("include_tools");
    eq.recent = p.Bool("recent");
    eq.source = p.Str("source");
    eq.project = ef.project;
    eq.from_ms = p.Int("since");
    eq.to_ms = p.Int("until");
    eq.limit = static_cast<int>(limit);
    // A damaged index: the search answers from the events, the indexer
    // checks it and rebuilds it.
    eq.index_failed = [this](const std::string& what) { indexer_->Suspect(what); };
    if (eq.from_ms && eq.to_ms && *eq.from_ms > *eq.to_ms)
      throw rpc::RequestError(proto::code::kInvalidArgument, "since is after until");
    // Events are searched with terms only; without any, the answer lists entries.
    const bool entries = scope != "events",
               events = scope != "entries" && !ParseTerms(query).empty();
    Read(conn_id, id_json, [this, ef, eq, entries, events](Db& db, rpc::Writer& w) {
      w.StartObject();
      Key(w, "entries");
      w.StartArray();
      if (entries)
        for (const EntryHit& h : SearchEntries(db, eq.query, ef, clock_.NowMs()))
          rpc::WriteEntry(w, h.entry, [&](rpc::Writer& x) {
            Key(x, "snippet");
            Str(x, h.snippet);
          });
      w.EndArray();
      Key(w, "events");
      w.StartArray();
      if (events)
        for (const EventHit& h : SearchEvents(db, eq))
          rpc::WriteEvent(w, h.event, [&](rpc::Writer& x) {
            Key(x, "snippet");
            Str(x, h.snippet);
            Key(x, "score");
            if (h.score)
              x.Double(*h.score);
            else
              x.Null();
          });
      w.EndArray();
      w.EndObject();
    });
    return true;
  }
  if (method == "entries") {
    EntryFilter f;
    f.history = p.Bool("history");
    f.kind = p.Str("kind");
    f.project = p.Str("project");
    std::int64_t limit = p.Int("limit").value_or(100);
    if (limit < 1 || limit > 5000)
      throw rpc::RequestError(proto::code::kInvalidArgument, "limit must be between 1 and 5000");
    f.limit = static_cast<int>(limit);
    Read(conn_id, id_json, [this, f](Db& db, rpc::Writer& w) {
      w.StartObject();
      Key(w, "entries");
      w.StartArray();
      for (const EntryRow& e : ListEntries(db, f, clock_.NowMs())) rpc::WriteEntry(w, e);
      w.EndArray();
      w.EndObject();
    });
    return true;
  }
  if (method == "show") {
    std::string id = p.Need("id");
    Read(conn_id, id_json, [this, id](Db& db, rpc::Writer& w) {
      w.StartObject();
      if (id.rfind("ent_", 0) == 0) {
        auto e = GetEntry(db, id, clock_.NowMs());
        if (!e) throw rpc::RequestError(proto::code::kNotFound, "no event or entry " + id);
        Key(w, "entry");
        rpc::WriteEntry(w, *e);
        Key(w, "history");
        w.StartArray();
        for (const EntryRow& v : EntryHistory(db, e->root, clock_.NowMs())) rpc::WriteEntry(w, v);
        w.EndArray();
        Key(w, "cited");
        w.StartArray();
        for (const EntrySource& src : e->sources)
          if (auto ev = GetEvent(db, *src.event_id)) rpc::WriteEvent(w, *ev);
        w.EndArray();
      } else {
        auto e = GetEvent(db, id);
        if (!e) throw rpc::RequestError(proto::code::kNotFound, "no event or entry " + id);
        Key(w, "event");
        rpc::WriteEvent(w, *e);
      }
      w.EndObject();
    });
    return true;
  }
  if (method == "sources") {
    std::string id = p.Need("id");
    Read(conn_id, id_json, [this, id](Db& db, rpc::Writer& w) {
      // An entry's sources are the lines of the events it cites (invariant 1).
      std::vector<std::string> events;
      if (id.rfind("ent_", 0) == 0) {
        auto e = GetEntry(db, id, clock_.NowMs());
        if (!e) throw rpc::RequestError(proto::code::kNotFound, "no event or entry " + id);
        for (const EntrySource& src : e->sources) events.push_back(*src.event_id);
      } else {
        events.push_back(id);
      }
      w.StartObject();
      Key(w, "id");
      Str(w, id);
      Key(w, "sources");
      w.StartArray();
      for (const std::string& ev : events) {
        auto line = EventSource(db, mirrors_, ev);
        if (!line) throw rpc::RequestError(proto::code::kNotFound, "no event or entry " + ev);
        rpc::WriteSource(w, *line);
      }
      w.EndArray();
      w.EndObject();
    });
    return true;
  }
  return false;
}

void Daemon::DoStatus(std::uint64_t conn_id, std::string id_json) {
  struct Root {
    std::string source, name, root;
    bool exists;
    std::vector<DiscoveryProblem> problems;
    bool looked;  // a discovery of it ran since the start
  };
  std::vector<Root> roots;
  for (std::size_t i = 0; i < adapters_.size(); ++i)
    roots.push_back({std::string(adapters_[i]->id()), std::string(adapters_[i]->display_name()),
                     adapters_[i]->root(), root_exists_[i], problems_[i], looked_[i]});
  std::int64_t watched = static_cast<std::int64_t>(watches_.size());
  proto::Paths paths = opts_.paths;
  std::int64_t started = started_ms_;
  std::string store = opts_.store_name;
  const std::map<std::string, SourceHealth> health = health_.Snapshot();
  const Indexer::Health index = indexer_->GetHealth();
  Read(conn_id, std::move(id_json),
       [this, roots, watched, paths, started, store, health, index](Db& db, rpc::Writer& w) {
         StoreStatus st = ReadStatus(db, paths.db, clock_.NowMs());
         // What needs the user, in one list that every front-end shows
         // (and `origin status` exits 5 for).
         std::vector<std::string> attention;
         w.StartObject();
         Key(w, "daemon");
         w.StartObject();
         Key(w, "version");
         w.String(ORIGIN_VERSION);
         Key(w, "pid");
         w.Int64(::getpid());
         Key(w, "started_at");
         w.Int64(started);
         Key(w, "home");
         Str(w, paths.home);
         Key(w, "socket");
         Str(w, paths.socket);
         Key(w, "store");
         Str(w, store);
         Key(w, "watched_dirs");
         w.Int64(watched);
         w.EndObject();
         Key(w, "store");
         w.StartObject();
         Key(w, "db_bytes");
         w.Int64(st.db_bytes);
         Key(w, "mirror_disk_bytes");
         w.Int64(st.mirror_disk_bytes);
         Key(w, "mirror_content_bytes");
         w.Int64(st.mirror_content_bytes);
         Key(w, "compression_ratio");
         w.Double(st.mirror_disk_bytes > 0
                      ? static_cast<double>(st.mirror_content_bytes) / st.mirror_disk_bytes
                      : 0.0);
         Key(w, "sessions");
         w.Int64(st.sessions);
         Key(w, "events");
         w.Int64(st.events);
         Key(w, "max_seq");
         w.Int64(st.max_seq);
         const std::int64_t indexed = IndexedUpto(db);
         Key(w, "search_indexed_upto");
         w.Int64(indexed);
         w.EndObject();
         Key(w, "search_index");
         w.StartObject();
         Key(w, "state");
         Str(w, index.state);
         Key(w, "indexed_upto");
         w.Int64(indexed);
         Key(w, "problem");
         OptStr(w, index.problem);
         Key(w, "problem_at");
         OptInt(w, index.problem_at_ms);
         Key(w, "rebuilds");
         w.Int64(index.rebuilds);
         Key(w, "checked_at");
         OptInt(w, index.checked_at_ms);
         w.EndObject();
         if (index.state == "failing")
           attention.push_back("the search index cannot be written: " + index.problem);
         Key(w, "sources");
         w.StartArray();
         for (const Root& r : roots) {
           SourceStatus ss;
           for (const SourceStatus& s : st.sources)
             if (s.source == r.source) ss = s;
           // What this daemon saw wins over what the store could record.
           SourceHealth h;
           if (auto it = health.find(r.source); it != health.end()) h = it->second;
           if (h.last_ingest_ms > ss.last_ingest_ms.value_or(0)) ss.last_ingest_ms = h.last_ingest_ms;
           if (h.last_error_ms >= ss.last_error_ms && !h.last_error.empty()) {
             ss.last_error = h.last_error;
             ss.last_error_ms = h.last_error_ms;
           }
           if (!h.error.empty()) attention.push_back(r.name + ": " + h.error);
           if (ss.broken_mirrors > 0)
             attention.push_back(r.name + ": " + std::to_string(ss.broken_mirrors) +
                                 " mirror(s) shorter than the store records");
           for (const auto& p : r.problems)
             attention.push_back(r.name + ": " + p.path + ": " + p.message);
           w.StartObject();
           Key(w, "source");
           Str(w, r.source);
           Key(w, "name");
           Str(w, r.name);
           Key(w, "root");
           Str(w, r.root);
           Key(w, "root_exists");
           w.Bool(r.exists);
           Key(w, "looked");  // false while the first sync has not reached it
           w.Bool(r.looked);
           Key(w, "files");
           w.Int64(ss.files);
           Key(w, "sessions");
           w.Int64(ss.sessions);
           Key(w, "events");
           w.Int64(ss.events);
           Key(w, "parse_errors_7d");
           w.Int64(ss.parse_errors_7d);
           Key(w, "broken_mirrors");
           w.Int64(ss.broken_mirrors);
           Key(w, "last_ingest_at");
           if (ss.last_ingest_ms)
             w.Int64(*ss.last_ingest_ms);
           else
             w.Null();
           Key(w, "agent_version");
           if (ss.agent_version)
             Str(w, *ss.agent_version);
           else
             w.Null();
           Key(w, "error");  // the latest sync's problem, while it lasts
           OptStr(w, h.error);
           Key(w, "error_since");
           OptInt(w, h.error_since_ms);
           Key(w, "last_error");  // the latest problem, lasting or not
           OptStr(w, ss.last_error.value_or(""));
           Key(w, "last_error_at");
           OptInt(w, ss.last_error_ms);
           Key(w, "problems");
           w.StartArray();
           for (const auto& p : r.problems) {
             w.StartObject();
             Key(w, "path");
             Str(w, p.path);
             Key(w, "message");
             Str(w, p.message);
             w.EndObject();
           }
           w.EndArray();
           w.EndObject();
         }
         w.EndArray();
         Key(w, "attention");
         w.StartArray();
         for (const std::string& a : attention) Str(w, a);
         w.EndArray();
         w.EndObject();
       });
}

void Daemon::After(int ms, std::function<void()> fn) {
  if (shutting_down_) return;
  auto* t = new OneShot{{}, this, std::move(fn)};
  uv_timer_init(loop_, &t->handle);
  t->handle.data = t;
  one_shots_.insert(t);
  uv_timer_start(
      &t->handle,
      [](uv_timer_t* h) {
        auto* timer = static_cast<OneShot*>(h->data);
        timer->daemon->one_shots_.erase(timer);
        CloseOneShot(timer);
        try {
          timer->fn();
        } catch (const std::exception& e) {
          LOG_ERROR("timer: %s", e.what());  // no exception through libuv
        } catch (...) {
          LOG_ERROR("timer: unknown exception");
        }
      },
      static_cast<std::uint64_t>(ms), 0);
}

void Daemon::CloseOneShot(OneShot* t) {
  uv_close(reinterpret_cast<uv_handle_t*>(&t->handle),
           [](uv_handle_t* p) { delete static_cast<OneShot*>(p->data); });
}

std::function<void()> Daemon::AtMostAfter(int wait_ms, std::function<void()> then) {
  auto once = std::make_shared<std::function<void()>>(std::move(then));
  auto run = [once] {
    if (*once) std::exchange(*once, nullptr)();
  };
  After(wait_ms, run);
  return run;
}

void Daemon::Freshen(int wait_ms, std::function<void()> then) {
  // `then` runs once: when the sync is done or when the wait is over.
  auto run = AtMostAfter(wait_ms, std::move(then));
  std::vector<const SourceAdapter*> all;
  for (auto& a : adapters_) all.push_back(a.get());
  writer_->Post([this, all, run](Db& db) {
    try {
      Ingester ing(db, mirrors_, clock_);
      SyncOptions so = WriterSync(db, "request");
      NoteSync(ing.Sync(all, so));
    } catch (const SyncCancelled&) {
      return;  // shutting down: the waiting request is dropped with its connection
    } catch (const std::exception& e) {
      NoteFailure(all, e.what());
      LOG_WARN("sync before a write: %s", e.what());  // the write goes on
    }
    poster_->Post(run);
  });
}

bool Daemon::SyncsIdle() const {
  for (const auto& s : syncs_)
    if (s->running || s->pending ||
        (s->timer && uv_is_active(reinterpret_cast<uv_handle_t*>(s->timer.get()))))
      return false;
  return true;
}

void Daemon::WhenSynced(int wait_ms, std::function<void()> then) {
  if (SyncsIdle()) {
    then();
    return;
  }
  when_synced_.push_back(AtMostAfter(wait_ms, std::move(then)));
}

void Daemon::DoSync(std::uint64_t conn_id, std::string id_json, const std::string& only) {
  std::vector<const SourceAdapter*> all;
  for (auto& a : adapters_)
    if (only.empty() || a->id() == only) all.push_back(a.get());
  const Snapshot before{totals_.files, totals_.lines, totals_.bytes, totals_.events};
  const bool mcp = IsMcp(conn_id);
  writer_->Post([this, conn_id, id_json, all, before, mcp](Db& db) {
    Ingester ing(db, mirrors_, clock_);
    SyncOptions so = WriterSync(db, "request");
    std::int64_t last_progress = 0;
    if (!mcp)  // MCP has no such notification: origin/left gets the answer only
      so.progress = [&](const SyncProgress& p) {
        std::int64_t now = MonotonicMs();
        if (now - last_progress < 100 && p.files_done != p.files_total) return;
        last_progress = now;
        std::string line = "{\"method\":\"progress\",\"params\":{\"id\":" + id_json +
                           ",\"files_done\":" + std::to_string(p.files_done) +
                           ",\"files_total\":" + std::to_string(p.files_total) +
                           ",\"bytes_done\":" + std::to_string(p.bytes_done) +
                           ",\"bytes_total\":" + std::to_string(p.bytes_total) + "}}";
        poster_->Post([this, conn_id, line]() mutable { Send(conn_id, std::move(line)); });
      };
    so.discovered = [&](const SourceAdapter& a, const Discovery& d) {
      for (std::size_t i = 0; i < adapters_.size(); ++i) {
        if (adapters_[i].get() != &a) continue;
        poster_->Post([this, i, dirs = d.dirs, problems = d.problems, exists = d.root_exists] {
          ApplyDiscovery(i, dirs, problems, exists);
        });
      }
    };
    std::string out;
    try {
      SyncReport r = ing.Sync(all, so);
      NoteSync(r);
      rapidjson::StringBuffer sb;
      Writer w(sb);
      w.StartObject();
      Key(w, "id");
      w.RawValue(id_json.c_str(), id_json.size(), rapidjson::kStringType);
      Key(w, "result");
      w.StartObject();
      // Everything ingested since the request came, by this sync or one
      // that was under way; the sources below are this sync's own.
      Key(w, "files_changed");
      w.Int64(totals_.files - before.files);
      Key(w, "lines");
      w.Int64(totals_.lines - before.lines);
      Key(w, "bytes");
      w.Int64(totals_.bytes - before.bytes);
      Key(w, "events");
      w.Int64(totals_.events - before.events);
      Key(w, "sources");
      w.StartArray();
      for (const SourceSummary& s : r.sources) {
        w.StartObject();
        Key(w, "source");
        Str(w, s.source);
        Key(w, "files_seen");
        w.Int64(s.files_seen);
        Key(w, "files_changed");
        w.Int64(s.files_changed);
        Key(w, "lines");
        w.Int64(s.lines);
        Key(w, "events");
        w.Int64(s.events);
        Key(w, "parse_errors");
        w.Int64(s.parse_errors);
        Key(w, "errors");
        w.StartArray();
        for (const auto& e : s.errors) Str(w, e);
        w.EndArray();
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
      w.EndObject();
      out = sb.GetString();
    } catch (const SyncCancelled&) {
      out = ErrorLine(id_json, proto::code::kUnavailable, "the daemon is shutting down");
    } catch (const std::exception& e) {
      NoteFailure(all, e.what());
      out = ErrorLine(id_json, proto::code::kInternal, std::string("sync failed: ") + e.what());
    }
    poster_->Post(
        [this, conn_id, out = std::move(out)]() mutable { Send(conn_id, std::move(out)); });
  });
}

// --- ingestion scheduling and watching --------------------------------------

void Daemon::ScheduleSync(std::size_t source, int delay_ms) {
  if (shutting_down_) return;
  SourceSync& s = *syncs_[source];
  if (!s.timer) return;
  if (uv_is_active(reinterpret_cast<uv_handle_t*>(s.timer.get()))) return;  // already due
  s.timer.get()->data = this;
  // The timer's data is the daemon; which source it serves is found by index.
  uv_timer_start(
      s.timer.get(),
      [](uv_timer_t* t) {
        auto* self = static_cast<Daemon*>(t->data);
        if (self == nullptr) return;
        for (std::size_t i = 0; i < self->syncs_.size(); ++i) {
          SourceSync& ss = *self->syncs_[i];
          if (ss.timer.get() != t) continue;
          if (ss.running) {
            ss.pending = true;
          } else {
            self->RunSync(i, ss.reason);
          }
        }
      },
      static_cast<std::uint64_t>(delay_ms), 0);
}

void Daemon::RunSync(std::size_t source, const char* reason) {
  SourceSync& s = *syncs_[source];
  s.running = true;
  s.reason = "watch";
  const SourceAdapter* adapter = adapters_[source].get();
  std::string why = reason;
  writer_->Post([this, source, adapter, why](Db& db) {
    Ingester ing(db, mirrors_, clock_);
    SyncOptions so = WriterSync(db, why);
    so.discovered = [&](const SourceAdapter&, const Discovery& d) {
      KnowFiles(source, d);
      // Watched from now on, not after the sync: a live file changing
      // during a long import is read at once (ScheduleLive).
      poster_->Post([this, source, dirs = d.dirs, problems = d.problems, exists = d.root_exists] {
        ApplyDiscovery(source, dirs, problems, exists);
      });
    };
    if (why == "start")
      so.progress = [this, source](const SyncProgress& p) {
        ImportProgress& ip = import_[source];
        if (p.bytes_done > ip.bytes_done)  // status shows the import going on
          health_.Ingested(std::string(adapters_[source]->id()), clock_.NowMs());
        ip.files_done = p.files_done;
        ip.files_total = p.files_total;
        ip.bytes_done = p.bytes_done;
        ip.bytes_total = p.bytes_total;
      };
    try {
      SyncReport r = ing.Sync({adapter}, so);
      NoteSync(r);
      if (r.files_changed > 0)
        LOG_INFO("%s: %lld new events from %lld files (%s)", std::string(adapter->id()).c_str(),
                 static_cast<long long>(r.events), static_cast<long long>(r.files_changed),
                 why.c_str());
      for (const auto& src : r.sources)
        for (const auto& e : src.errors) LOG_WARN("%s: %s", src.source.c_str(), e.c_str());
    } catch (const SyncCancelled&) {
      LOG_INFO("%s: sync interrupted by shutdown", std::string(adapter->id()).c_str());
      return;
    } catch (const std::exception& e) {
      // The store itself failed (disk full, I/O error): the next look retries.
      NoteFailure({adapter}, e.what());
      LOG_ERROR("%s: sync failed: %s", std::string(adapter->id()).c_str(), e.what());
    }
    poster_->Post([this, source] {
      SourceSync& ss = *syncs_[source];
      if (!ss.synced_once) {
        ss.synced_once = true;
        import_[source].done = true;
        if (--first_syncs_left_ == 0) {
          importing_ = false;
          auto waiting = std::move(after_first_sync_);
          for (auto& fn : waiting) fn();
        }
      }
      ss.running = false;
      if (ss.pending) {
        ss.pending = false;
        RunSync(source, "watch");
      }
      if (SyncsIdle()) {
        auto waiting = std::move(when_synced_);
        for (auto& fn : waiting) fn();
      }
    });
  });
}

SyncOptions Daemon::WriterSync(Db& db, const std::string& reason) {
  SyncOptions so;
  so.reason = reason;
  // After each transaction: the indexer catches up, waiting writes go
  // through, and a shutdown ends the sync.
  so.between = [this, &db] {
    indexer_->Notify();
    writer_->RunUrgent(db);
    if (writer_->stopping()) throw SyncCancelled{};
  };
  return so;
}

void Daemon::ApplyDiscovery(std::size_t source, const std::vector<std::string>& dirs,
                            const std::vector<DiscoveryProblem>& problems, bool exists) {
  problems_[source] = problems;
  root_exists_[source] = exists;
  looked_[source] = true;
  // A directory watched only now may have changed between the sync's look
  // and its watch (a line appended during the first sync, a file written
  // into a directory just created): one more look, which only stats files.
  if (UpdateWatches(source, dirs)) ScheduleSync(source, opts_.debounce_ms);
}

void Daemon::NoteSync(const SyncReport& r, bool partial) {
  totals_.files += r.files_changed;
  totals_.lines += r.lines;
  totals_.bytes += r.bytes;
  totals_.events += r.events;
  health_.Note(r, clock_.NowMs(), partial);
}

void Daemon::NoteFailure(const std::vector<const SourceAdapter*>& which, const std::string& what) {
  std::vector<std::string> sources;
  for (const SourceAdapter* a : which) sources.emplace_back(a->id());
  health_.Failed(sources, what, clock_.NowMs());
}

bool Daemon::UpdateWatches(std::size_t source, const std::vector<std::string>& dirs) {
  if (shutting_down_) return false;
  bool added = false;
  std::set<std::string> want(dirs.begin(), dirs.end());
  for (auto it = watches_.begin(); it != watches_.end();) {
    if (it->second->source == source && want.count(it->first) == 0)
      it = watches_.erase(it);
    else
      ++it;
  }
  for (const std::string& dir : want) {
    if (watches_.count(dir) != 0) continue;
    auto w = std::make_unique<DirWatch>();
    w->daemon = this;
    w->source = source;
    w->path = dir;
    try {
      w->handle = UvHandle<uv_fs_event_t>::Make(
          [&](uv_fs_event_t* h) { return uv_fs_event_init(loop_, h); });
    } catch (const std::exception& e) {
      LOG_WARN("watch %s: %s", dir.c_str(), e.what());
      continue;
    }
    w->handle.get()->data = w.get();
    if (int rc = uv_fs_event_start(w->handle.get(), &Daemon::OnFsEvent, dir.c_str(), 0); rc < 0) {
      // Typically ENOSPC (inotify watches exhausted): the rescan still finds changes.
      LOG_WARN("watch %s: %s (the 60 s rescan covers it)", dir.c_str(), uv_strerror(rc));
      continue;
    }
    watches_[dir] = std::move(w);
    added = true;
  }
  return added;
}

void Daemon::OnFsEvent(uv_fs_event_t* h, const char* filename, int, int status) noexcept {
  auto* w = static_cast<DirWatch*>(h->data);
  if (w == nullptr || status < 0) return;
  try {
    Daemon& d = *w->daemon;
    d.ScheduleSync(w->source, d.opts_.debounce_ms);
    if (filename != nullptr && *filename != '\0') d.ScheduleLive(w->source, w->path + "/" + filename);
  } catch (...) {
  }
}

void Daemon::ScheduleLive(std::size_t source, std::string path) {
  // Only while a sync keeps the writer busy: otherwise the sync just
  // scheduled comes at once, and reads the file anyway.
  bool busy = false;
  for (const auto& s : syncs_) busy = busy || s->running;
  if (!busy || shutting_down_) return;
  auto& waiting = live_paths_[source];
  if (waiting.size() < kMaxLivePaths) waiting.insert(std::move(path));
  if (live_armed_) return;
  live_armed_ = true;
  After(opts_.debounce_ms, [this] {
    live_armed_ = false;
    auto paths = std::exchange(live_paths_, std::vector<std::set<std::string>>(adapters_.size()));
    writer_->Post([this, paths = std::move(paths)](Db& db) { LiveSync(db, paths); },
                  /*urgent=*/true);
  });
}

namespace {
// Thrown from a live sync's `between` once it used its share of the writer.
struct LiveBudgetSpent {};
}  // namespace

void Daemon::KnowFiles(std::size_t source, const Discovery& d) {
  // Files changed in the last week: where a session goes on.
  const std::int64_t since = (clock_.NowMs() - kLiveFileAgeMs) * 1000000;
  auto& known = known_files_[source];
  known.clear();
  for (const SourceFile& f : d.files)
    if (!f.generated && f.mtime_ns >= since) known.emplace(f.abs_path, f);
}

void Daemon::LiveSync(Db& db, const std::vector<std::set<std::string>>& paths) {
  Ingester ing(db, mirrors_, clock_);
  SyncReport report;
  int transactions = 0;
  auto between = [&] {
    indexer_->Notify();
    if (++transactions >= kLiveTransactions) throw LiveBudgetSpent{};
  };
  try {
    for (std::size_t i = 0; i < paths.size(); ++i) {
      SourceSummary sum;
      sum.source = std::string(adapters_[i]->id());
      try {
        for (const std::string& path : paths[i]) {
          auto it = known_files_[i].find(path);
          if (it == known_files_[i].end()) continue;  // new, or old: the sync reads it
          SourceFile f = it->second;
          struct stat st;
          if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
          f.size = st.st_size;
          f.mtime_ns = MtimeNs(st);
          sum.Add(ing.IngestFile(*adapters_[i], f, between));
        }
      } catch (const LiveBudgetSpent&) {
        // What the file in progress committed is in; the rest waits.
        sum.files_changed += 1;
        report.sources.push_back(std::move(sum));
        throw;
      }
      if (sum.files_changed > 0 || !sum.errors.empty()) report.sources.push_back(std::move(sum));
    }
  } catch (const LiveBudgetSpent&) {
    // The rest waits for the sync, which was scheduled with this.
  }
  for (const SourceSummary& sum : report.sources) report.Add(sum);
  if (report.files_changed > 0) indexer_->Notify();
  NoteSync(report, /*partial=*/true);
}

std::string Daemon::ImportNote() const {
  if (!importing_.load()) return "";
  std::int64_t files_done = 0, files_total = 0, bytes_done = 0, bytes_total = 0;
  std::size_t left = 0;
  for (std::size_t i = 0; i < adapters_.size(); ++i) {
    const ImportProgress& ip = import_[i];
    if (ip.done.load()) continue;
    ++left;
    files_done += ip.files_done.load();
    files_total += ip.files_total.load();
    bytes_done += ip.bytes_done.load();
    bytes_total += ip.bytes_total.load();
  }
  if (left == 0) return "";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "an import of the agents' logs is under way (%lld of %lld files, %.0f%% of the "
                "bytes; %zu source%s still to sync): this answer holds what is stored so far",
                static_cast<long long>(files_done), static_cast<long long>(files_total),
                bytes_total > 0 ? 100.0 * static_cast<double>(bytes_done) /
                                      static_cast<double>(bytes_total)
                                : 0.0,
                left, left == 1 ? "" : "s");
  return buf;
}

}  // namespace origin
