// SPDX-License-Identifier: MIT
#include "daemon/hub/asker.hpp"

#include <rapidjson/document.h>

#include <chrono>
#include <memory>

#include "core/store/schema.hpp"
#include "daemon/hub/connection.hpp"
#include "daemon/hub/wire.hpp"
#include "daemon/log.hpp"
#include "daemon/timers.hpp"
#include "daemon/operations/operations.hpp"
#include "daemon/rpc_json.hpp"

namespace origin::hub {

namespace {

// The protocol the device speaks with its hub: the newest, whose answers
// carry structured content.
constexpr const char* kProtocol = "2025-11-25";

// Whether the hub answered in time; its body parsed into `d` when it did,
// else `out->error` says why not.
bool Answered(const Response& r, long timeout_ms, ToolReply* out, rapidjson::Document* d) {
  if (r.timed_out) {
    out->error = "it did not answer within " + std::to_string(timeout_ms) + " ms";
    return false;
  }
  if (!r.error.empty()) {
    out->error = "it could not be reached: " + r.error;
    return false;
  }
  d->Parse(r.body.data(), r.body.size());
  return true;
}

}  // namespace

struct Asker::Worker {
  std::unique_ptr<Http> http;  // replaced under mu_ (Stop aborts it)
  std::string key;             // the connection it was opened for: url, token
};

Asker::Asker(Context& ctx, long timeout_ms, int threads) : ctx_(ctx), timeout_ms_(timeout_ms) {
  for (int i = 0; i < threads; ++i) workers_.push_back(std::make_unique<Worker>());
  for (auto& w : workers_) threads_.emplace_back([this, wp = w.get()] { Run(*wp); });
}

Asker::~Asker() { Stop(); }

void Asker::Ask(std::string tool, std::string arguments, std::string agent,
                std::function<void(ToolReply)> done, long timeout_ms, std::string request) {
  if (timeout_ms <= 0) timeout_ms = timeout_ms_;
  Queue(Job{std::move(tool), std::move(arguments), std::move(agent), std::move(request), false,
            SteadyMs() + timeout_ms, timeout_ms, std::move(done)});
}

void Asker::RunOperation(std::string method, std::string params,
                         std::function<void(ToolReply)> done, long timeout_ms) {
  Queue(Job{std::move(method), std::move(params), {}, {}, true, SteadyMs() + timeout_ms,
            timeout_ms, std::move(done)});
}

void Asker::Queue(Job job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      jobs_.push_back(std::move(job));
      cv_.notify_one();
      return;
    }
  }
  job.done(ToolReply{});
}

void Asker::Warm() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  // Only when no connection may be open yet: a worker holds one from its
  // first request on.
  for (auto& w : workers_)
    if (w->http) return;
  jobs_.push_back(Job{{}, {}, {}, {}, false, SteadyMs() + timeout_ms_, timeout_ms_, nullptr});
  cv_.notify_one();
}

void Asker::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (auto& w : workers_)
      if (w->http) w->http->Abort();
    cv_.notify_all();
  }
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  // What was queued is answered: the hub is not asked any more.
  for (Job& job : jobs_)
    if (job.done) job.done(ToolReply{});
  jobs_.clear();
}

void Asker::Run(Worker& w) {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    ToolReply reply;
    try {
      reply = Call(w, job);
    } catch (const std::exception& e) {
      reply.kind = ToolReply::Kind::kFailed;
      reply.error = e.what();
    }
    if (job.done)
      ctx_.poster->Post([done = std::move(job.done), reply = std::move(reply)] { done(reply); });
  }
}

ToolReply Asker::Call(Worker& w, const Job& job) {
  ToolReply out;
  const std::optional<Connection> c = LoadConnection(ctx_.paths.home);
  if (!c) return out;
  out.url = c->url;
  out.kind = ToolReply::Kind::kFailed;
  // The device's name, as its sync sends it (the hub checks it against
  // the token): a store renamed by `hub connect --device` asks anew.
  const std::string store = ctx_.store_name.Get();
  const std::string key = c->url + "\n" + c->token + "\n" + store;
  if (!w.http || w.key != key) {
    auto http = std::make_unique<Http>(*c, store, timeout_ms_);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) http->Abort();
    w.http = std::move(http);
    w.key = key;
  }
  const std::int64_t left = job.deadline_ms - SteadyMs();
  if (left <= 0) {
    out.error = "it did not answer within " + std::to_string(job.timeout_ms) + " ms";
    return out;
  }
  w.http->SetTimeout(static_cast<long>(left));
  if (!job.done) {
    w.http->Get("/healthz");
    return out;
  }
  if (job.operation) return CallOperation(w, job, std::move(out));
  const std::string body = rpc::Json([&](rpc::Writer& wr) {
    wr.StartObject();
    wr.Key("jsonrpc");
    wr.String("2.0");
    wr.Key("id");
    wr.Int(1);
    wr.Key("method");
    wr.String("tools/call");
    wr.Key("params");
    wr.StartObject();
    wr.Key("name");
    wr.String(job.tool);
    wr.Key("arguments");
    wr.RawValue(job.arguments.data(), job.arguments.size(), rapidjson::kObjectType);
    wr.EndObject();
    wr.EndObject();
  });
  std::vector<std::string> headers = {"Accept: application/json, text/event-stream",
                                      std::string("MCP-Protocol-Version: ") + kProtocol};
  // The agent's name when the hub takes it (reads are not recorded by
  // author, so a name it would refuse is left out rather than failing).
  if (hub_wire::ValidAgentName(job.agent)) headers.push_back("X-Origin-Client: " + job.agent);
  if (!job.request.empty()) headers.push_back("X-Origin-Request: " + job.request);
  const Response r = w.http->PostJson("/mcp", body, headers);
  rapidjson::Document d;
  if (!Answered(r, job.timeout_ms, &out, &d)) return out;
  const bool object = !d.HasParseError() && d.IsObject();
  const rapidjson::Value* result = object ? hub_wire::Member(d, "result") : nullptr;
  if (r.status != 200 || result == nullptr || !result->IsObject()) {
    // The JSON-RPC error's message, when it gave one.
    const rapidjson::Value* error = object ? hub_wire::Member(d, "error") : nullptr;
    const rapidjson::Value* m = error != nullptr ? hub_wire::Member(*error, "message") : nullptr;
    out.error = (r.status != 200 || !object ? "it answered " + std::to_string(r.status)
                                 : std::string("it answered an error")) +
                (m != nullptr && m->IsString() ? std::string(": ") + m->GetString() : "");
    return out;
  }
  out.kind = ToolReply::Kind::kAnswered;
  const rapidjson::Value* is_error = hub_wire::Member(*result, "isError");
  if (is_error != nullptr && is_error->IsBool() && is_error->GetBool()) {
    const rapidjson::Value* content = hub_wire::Member(*result, "content");
    if (content != nullptr && content->IsArray() && !content->Empty() &&
        (*content)[0].IsObject())
      if (const rapidjson::Value* t = hub_wire::Member((*content)[0], "text");
          t != nullptr && t->IsString())
        out.tool_error = t->GetString();
    if (out.tool_error.empty()) out.tool_error = "the hub's tool failed";
    return out;
  }
  const rapidjson::Value* structured = hub_wire::Member(*result, "structuredContent");
  if (structured == nullptr || !structured->IsObject()) {
    out.kind = ToolReply::Kind::kFailed;
    out.error = "its answer has no structured content";
    return out;
  }
  out.result = rpc::Json([&](rpc::Writer& wr) { structured->Accept(wr); });
  return out;
}

ToolReply Asker::CallOperation(Worker& w, const Job& job, ToolReply out) {
  const std::string body = rpc::Json([&](rpc::Writer& wr) {
    wr.StartObject();
    wr.Key("method");
    wr.String(job.tool);
    wr.Key("params");
    wr.RawValue(job.arguments.data(), job.arguments.size(), rapidjson::kObjectType);
    wr.EndObject();
  });
  const Response r = w.http->PostJson("/v1/call", body, {"Accept: application/json"});
  rapidjson::Document d;
  if (!Answered(r, job.timeout_ms, &out, &d)) return out;
  const bool object = !d.HasParseError() && d.IsObject();
  const rapidjson::Value* result = object ? hub_wire::Member(d, "result") : nullptr;
  const rapidjson::Value* error = object ? hub_wire::Member(d, "error") : nullptr;
  if (r.status == 200 && result != nullptr) {
    out.kind = ToolReply::Kind::kAnswered;
    out.result = rpc::Json([&](rpc::Writer& wr) { result->Accept(wr); });
    if (const rapidjson::Value* n = hub_wire::Member(d, "notice"); n != nullptr && n->IsString())
      out.notice = n->GetString();
    return out;
  }
  // The operation's own error ({"error": {"code", "message"}}), or the
  // endpoint's refusal ({"error": "..."}: a token, a hub without it).
  if (error != nullptr && error->IsObject()) {
    const rapidjson::Value* code = hub_wire::Member(*error, "code");
    const rapidjson::Value* message = hub_wire::Member(*error, "message");
    if (code != nullptr && code->IsString() && message != nullptr && message->IsString()) {
      out.kind = ToolReply::Kind::kAnswered;
      out.code = code->GetString();
      out.tool_error = message->GetString();
      return out;
    }
  }
  const std::string said =
      "it answered " + std::to_string(r.status) +
      (error != nullptr && error->IsString() ? std::string(": ") + error->GetString() : "");
  if (r.status == 404) {
    out.error = said + " (a hub older than this relay: upgrade it)";
    return out;
  }
  if (r.status >= 400 && r.status < 500) {
    // Refused, not down: the token (revoked, another device's), the size.
    out.kind = ToolReply::Kind::kAnswered;
    out.code = "invalid_argument";
    out.tool_error = "the hub (" + out.url + ") refused this relay's request: " + said +
                     (r.status == 401 || r.status == 403 ? " (origin hub status checks the token)" : "");
    return out;
  }
  out.error = said;
  return out;
}

}  // namespace origin::hub
