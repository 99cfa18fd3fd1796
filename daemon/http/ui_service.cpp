// SPDX-License-Identifier: MIT
#include "daemon/http/ui_service.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <stdexcept>

#include "daemon/log.hpp"

namespace origin::http {

UiService::UiService(uv_loop_t* loop, Operations& ops, const Clock& clock, ServerLimits limits)
    : clock_(clock), admin_(ops, clock), server_(loop, ops.ctx().loop_thread, limits) {}

std::string UiService::Link() {
  return "http://127.0.0.1:" + std::to_string(server_.port()) +
         "/admin/signin?secret=" + admin_.signin().NewSecret();
}

Answer UiService::LinkAnswer() {
  const std::string link = Link();
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("link");
  w.String(link.c_str());
  w.Key("url");
  const std::string url = "http://127.0.0.1:" + std::to_string(server_.port()) + "/admin/";
  w.String(url.c_str());
  w.Key("port");
  w.Int(server_.port());
  w.Key("expires_ms");
  w.Int64(clock_.NowMs() + kSecretMs);
  w.EndObject();
  return Answer{std::string(sb.GetString(), sb.GetSize()), std::nullopt, {}};
}

void UiService::Ui(const rapidjson::Value* params, const Caller& caller, Reply reply) {
  if (caller.channel != "ui" || !caller.when_closed)
    return reply(Answer::Fail(OpError::Code::kInvalidArgument,
                              "ui is asked by origin ui on its own connection"));
  std::string host = "127.0.0.1";
  int port = kDefaultUiPort;
  bool new_link = false;
  if (params != nullptr && !params->IsNull()) {
    if (!params->IsObject())
      return reply(Answer::Fail(OpError::Code::kInvalidArgument, "ui takes an object"));
    for (const auto& m : params->GetObject()) {
      const std::string_view key(m.name.GetString(), m.name.GetStringLength());
      if (key == "host" && m.value.IsString())
        host = m.value.GetString();
      else if (key == "port" && m.value.IsInt())
        port = m.value.GetInt();
      else if (key == "new_link" && m.value.IsBool())
        new_link = m.value.GetBool();
      else
        return reply(Answer::Fail(OpError::Code::kInvalidArgument,
                                  "ui: unknown or mistyped field " + std::string(key)));
    }
  }
  if (new_link) {
    if (!running() || caller.connection != owner_)
      return reply(Answer::Fail(OpError::Code::kInvalidArgument,
                                "a new link is asked by the origin ui that serves the UI"));
    return reply(LinkAnswer());
  }
  if (running())
    return reply(Answer::Fail(OpError::Code::kConflict,
                              "origin ui already runs (on port " + std::to_string(server_.port()) +
                                  "): use its link, or press Enter in its terminal for a new one"));
  try {
    server_.Listen(
        host, port, [this](const Request& r, Respond respond) { admin_.Handle(r, std::move(respond)); },
        [this](int status, const std::string& message) { return admin_.ErrorPage(status, message); });
  } catch (const std::invalid_argument& e) {
    return reply(Answer::Fail(OpError::Code::kInvalidArgument, e.what()));
  } catch (const UvError& e) {
    const std::string why = e.rc() == UV_EADDRINUSE
                                ? "port " + std::to_string(port) +
                                      " is in use by another program: origin ui --port N"
                                : std::string(e.what());
    return reply(Answer::Fail(OpError::Code::kUnavailable, why));
  }
  admin_.SetPort(server_.port());
  server_.SetAllowedHosts(admin_.Hosts());
  owner_ = caller.connection;
  caller.when_closed([this, owner = owner_] {
    if (owner_ == owner) Stop();
  });
  LOG_INFO("origin ui: serving on 127.0.0.1:%d", server_.port());
  reply(LinkAnswer());
  // The person's browser opens the link, which leads to the overview: its
  // day counts are read meanwhile (about 100 ms at 2M events), once.
  admin_.WarmOverview();
}

void UiService::Stop() {
  if (!running()) return;
  LOG_INFO("origin ui: stopped serving on 127.0.0.1:%d", server_.port());
  server_.Close();
  admin_.EndSessions();
  owner_ = 0;
}

void StartUi(Operations& ops, const Operation&, const rapidjson::Value* params, Caller caller,
             Reply reply) {
  if (ops.ctx().ui == nullptr)
    return reply(Answer::Fail(OpError::Code::kUnavailable, "this daemon serves no web UI"));
  ops.ctx().ui->Ui(params, caller, std::move(reply));
}

}  // namespace origin::http
