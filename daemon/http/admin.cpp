// SPDX-License-Identifier: MIT
#include "daemon/http/admin.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <memory>

#include "core/store/audit.hpp"
#include "core/util/text.hpp"
#include "daemon/http/form.hpp"
#include "daemon/log.hpp"
#include "daemon/ui/pages.hpp"
#include "proto/protocol.hpp"

namespace origin::http {

namespace {

constexpr std::string_view kApi[] = {
    "status",    "timeline", "projects", "show",     "sources", "entries", "search",
    "forgotten", "overview", "turns",    "tombstone", "remember", "correct", "forget", "restore"};

constexpr char kHtml[] = "text/html; charset=utf-8";
constexpr char kJson[] = "application/json";

Response Html(int status, std::string body) { return WithBody(status, kHtml, std::move(body)); }

Response SeeOther(std::string location) {
  Response r;
  r.status = 303;
  r.headers.emplace_back("Location", std::move(location));
  return r;
}

// {"error":{"code","message"}}
Response JsonError(int status, std::string_view code, std::string_view message) {
  return WithBody(status, kJson, proto::ErrorJson(code, message));
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The answer `json` parsed (on the worker, in a shape); throws when it is not JSON.
rapidjson::Document Parsed(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError()) throw std::runtime_error("an operation's answer is not JSON");
  return d;
}

constexpr char kSignInHelp[] =
    "You are not signed in. The link that origin ui printed in its terminal signs you in; "
    "press Enter there for a new one (a link works once, within 5 minutes).";
// A cookie came, but no session it names lasts.
constexpr char kSignInAgain[] =
    "Your session has ended: 30 minutes passed without a request, 12 hours since you signed in, "
    "you signed out, or origin ui was restarted. Sign in again: press Enter in the terminal "
    "where origin ui runs for a new link (it works once, within 5 minutes).";

// The session's cookie: set at sign-in, cleared (Max-Age=0) at sign-out,
// both with the same Path, or the browser would keep the first.
std::string SessionCookie(const std::string& value, std::int64_t max_age_s) {
  return std::string(kCookieName) + "=" + value + "; Path=/admin; HttpOnly; SameSite=Lax; Max-Age=" +
         std::to_string(max_age_s);
}

}  // namespace

std::string ApiParams(std::string_view operation, rapidjson::Document& params) {
  // The form's forget carries the digest of the plan its preview showed; so
  // must the API's: nothing is forgotten that was not previewed (spec:
  // Admin UI, "forget after a preview").  The preview is forget with dry_run.
  if (operation == "forget") {
    const auto dry = params.FindMember("dry_run");
    if (dry != params.MemberEnd() && dry->value.IsBool() && dry->value.GetBool()) return "";
    const auto digest = params.FindMember("digest");
    if (digest == params.MemberEnd() || digest->value.IsNull())
      return "digest is required: the digest of the plan that forget with \"dry_run\": true "
             "answered (the preview); nothing is forgotten that was not previewed";
  }
  // The spec: a correction's confidence is 1 unless given (the owner says it),
  // as the form's (ui::CorrectParams).
  if (operation == "correct" && !params.HasMember("confidence"))
    params.AddMember("confidence", 1.0, params.GetAllocator());
  return "";
}

std::span<const std::string_view> ApiOperations() { return kApi; }

int HttpStatus(OpError::Code code) {
  switch (code) {
    case OpError::Code::kInvalidArgument:
    case OpError::Code::kAmbiguous:
    case OpError::Code::kProtocol:
      return 400;
    case OpError::Code::kNotFound:
    case OpError::Code::kForgotten:
    case OpError::Code::kUnknownMethod:
      return 404;
    case OpError::Code::kConflict:
      return 409;
    case OpError::Code::kUnavailable:
      return 503;
    case OpError::Code::kInternal:
      return 500;
  }
  return 500;
}

/// One request as the routes see it: the session and the page's context.
struct AdminUi::Call {
  const Request& req;
  std::string sub;  // the path after /admin ("/" for the overview)
  const SignIn::Session* session = nullptr;
  std::string session_id;  // the cookie value that named it
  ui::PageContext ctx;
};

AdminUi::AdminUi(Operations& ops, const Clock& clock) : ops_(ops), clock_(clock), signin_(clock) {}

void AdminUi::SetPort(int port) { port_ = port; }

std::vector<std::string> AdminUi::Hosts() const {
  return {"127.0.0.1:" + std::to_string(port_), "localhost:" + std::to_string(port_)};
}

Response AdminUi::ErrorPage(int status, const std::string& message) const {
  ui::PageContext ctx;
  ctx.store_name = ops_.ctx().store_name.Get();
  ctx.now_ms = clock_.NowMs();
  return Html(status, ui::RenderError(status, message, ctx));
}

Caller AdminUi::UiCaller() const {
  Caller c;
  c.author = "user@" + ops_.ctx().store_name.Get();
  c.channel = "ui";
  return c;
}

void AdminUi::Handle(const Request& r, Respond respond) {
  if (r.path == "/admin") return respond(SeeOther("/admin/"));
  if (!StartsWith(r.path, "/admin/")) return respond(ErrorPage(404, "no such page: " + r.path));
  Call call{r, r.path.substr(6)};
  call.ctx.target = r.target;
  call.ctx.store_name = ops_.ctx().store_name.Get();
  call.ctx.now_ms = clock_.NowMs();
  std::string error;
  if (!ParseUrlEncoded(r.query, &call.ctx.query, &error)) return respond(ErrorPage(400, error));
  const bool api = StartsWith(call.sub, "/api/");
  auto refuse = [&](int status, const std::string& message, std::string_view code) {
    respond(api ? JsonError(status, code, message) : ErrorPage(status, message));
  };

  if (r.method == "GET" && StartsWith(call.sub, "/assets/")) {
    const std::string_view name = std::string_view(call.sub).substr(8);
    for (const ui::Asset& a : ui::AllAssets()) {
      if (a.name != name) continue;
      Response out;
      out.content_type = std::string(a.content_type);
      out.body = std::string(a.body);
      return respond(std::move(out));
    }
    return refuse(404, "no such asset: " + std::string(name), "not_found");
  }
  if (call.sub == "/signin") {
    if (r.method != "GET") return refuse(405, "sign in with the link origin ui printed", "invalid_argument");
    return SignInWith(call, std::move(respond));
  }

  const std::vector<std::string> cookies = CookieValues(r, kCookieName);
  call.session = signin_.Find(cookies, &call.session_id);
  AuditExpired();
  if (call.session == nullptr)
    return refuse(401, cookies.empty() ? kSignInHelp : kSignInAgain, "unauthorized");
  call.ctx.csrf = call.session->csrf;

  if (r.method == "POST") {
    ui::Fields form;
    const std::string media = MediaType(r);
    if (api) {
      if (media != kJson) return refuse(415, "the API takes application/json", "invalid_argument");
    } else if (media != "application/x-www-form-urlencoded") {
      return refuse(415, "a form is sent as application/x-www-form-urlencoded", "invalid_argument");
    } else if (!ParseUrlEncoded(r.body, &form, &error)) {
      return refuse(400, error, "invalid_argument");
    }
    if (std::string why = PostRefusal(r, *call.session, form.Get("_csrf")); !why.empty())
      return refuse(403, why, "forbidden");
    if (api) return Api(call, std::string_view(call.sub).substr(5), std::move(respond));
    if (call.sub == "/signout") {
      signin_.End(call.session_id);
      Audit("sign_out");
      Response out = SeeOther("/admin/");
      out.headers.emplace_back("Set-Cookie", SessionCookie("", 0));  // the same Path: cleared
      return respond(std::move(out));
    }
    call.ctx.query = std::move(form);  // the action's fields
    return Action(call, std::move(respond));
  }
  if (api) {
    Response out = JsonError(405, "invalid_argument", "the API takes POST requests");
    out.headers.emplace_back("Allow", "POST");
    return respond(std::move(out));
  }
  return Page(call, std::move(respond));
}

void AdminUi::SignInWith(const Call& call, Respond respond) {
  const std::string* secret = call.ctx.query.Get("secret");
  std::optional<std::string> id;
  if (secret != nullptr) id = signin_.Exchange(*secret);
  if (!id) {
    const std::int64_t window = clock_.NowMs() / (10 * 60 * 1000);
    if (window != refused_window_) {
      refused_window_ = window;
      Audit("sign_in_refused");
    }
    return respond(ErrorPage(
        403, "This sign-in link was used already, is older than 5 minutes, or was replaced by a "
             "newer one. Press Enter in the terminal where origin ui runs for a new link."));
  }
  AuditExpired();  // the sign-in dropped the sessions that had run out
  Audit("sign_in");
  // To /admin/: the secret leaves the address bar (and any referrer).
  Response out = SeeOther("/admin/");
  out.headers.emplace_back("Set-Cookie", SessionCookie(*id, kSessionMs / 1000));
  respond(std::move(out));
}

void AdminUi::EndSessions() {
  const std::int64_t live = signin_.Clear();
  AuditExpired();
  if (live > 0) Audit("session_end", live);
}

void AdminUi::WarmOverview() {
  ops_.Call("overview", nullptr, UiCaller(), [](Answer a) {
    if (a.error) LOG_WARN("origin ui: the overview could not be worked out ahead: %s", a.error->what());
  });
}

void AdminUi::AuditExpired() {
  if (const std::int64_t n = signin_.TakeExpired(); n > 0) Audit("session_expired", n);
}

void AdminUi::Audit(std::string_view action, std::int64_t sessions) {
  const std::int64_t at = clock_.NowMs();
  std::function<void()> done = ops_.Hold();
  ops_.OnWorker(
      Thread::kWriter, Caller{},
      [at, action = std::string(action), sessions](Db& db, rpc::Writer& w) {
        Transaction tx(db);
        if (sessions > 0)
          AppendAudit(db, at, "local", "ui", action, {{"sessions", sessions}});
        else
          AppendAudit(db, at, "local", "ui", action, {});
        tx.Commit();
        w.Null();
      },
      [done, action = std::string(action)](Answer a) {
        if (a.error) LOG_WARN("origin ui: %s not recorded in the audit log: %s", action.c_str(),
                              a.error->what());
        done();
      });
}

std::string AdminUi::PostRefusal(const Request& r, const SignIn::Session& s,
                                 const std::string* form_csrf) const {
  const std::string* origin = r.Header("origin");
  const std::string port = std::to_string(port_);
  if (origin == nullptr)
    return "a request that changes something needs an Origin header";
  if (*origin != "http://127.0.0.1:" + port && *origin != "http://localhost:" + port)
    return "a request from " + *origin + " is not one of this UI's";
  if (const std::string* site = r.Header("sec-fetch-site"); site != nullptr && *site == "cross-site")
    return "a request from another site is refused";
  const std::string* token = r.Header("x-csrf-token");
  if (token == nullptr) token = form_csrf;
  if (token == nullptr || !SameSecret(*token, s.csrf))
    return "the form's CSRF token is missing or wrong: reload the page and try again";
  return "";
}

void AdminUi::Page(const Call& call, Respond respond) {
  for (const ui::Page& p : ui::AllPages())
    if (p.path == call.sub)
      return Run(call, p.operation, p.params, p.render,
                 [](std::string html) { return Html(200, std::move(html)); }, std::move(respond));
  respond(ErrorPage(404, "no such page: /admin" + call.sub));
}

void AdminUi::Action(const Call& call, Respond respond) {
  for (const ui::Action& a : ui::AllActions())
    if (a.path == call.sub)
      return Run(
          call, a.operation, a.params,
          [redirect = a.redirect](const rapidjson::Value& answer, const ui::PageContext&) {
            return redirect(answer);  // worked out on the worker too
          },
          [](std::string location) { return SeeOther(std::move(location)); }, std::move(respond));
  respond(ErrorPage(404, "no such form: /admin" + call.sub));
}

void AdminUi::Run(const Call& call, std::string_view operation, ParamsFn params, ShapeFn shape,
                  std::function<Response(std::string)> done, Respond respond) {
  std::string json, error;
  if (!params(call.ctx.query, &json, &error)) return respond(ErrorPage(400, error));
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) return respond(ErrorPage(500, "the request's params are not JSON"));
  auto ctx = std::make_shared<const ui::PageContext>(call.ctx);
  Caller caller = UiCaller();
  caller.shape = [shape = std::move(shape), ctx](Db&, std::string answer) {
    return shape(Parsed(answer), *ctx);  // on the worker
  };
  ops_.Call(operation, &doc, std::move(caller), [ctx, done = std::move(done), respond](Answer a) {
    if (!a.error) return respond(done(std::move(a.result)));
    const int status = HttpStatus(a.error->code());
    respond(Html(status, ui::RenderError(status, a.error->what(), *ctx)));
  });
}

void AdminUi::Api(const Call& call, std::string_view operation, Respond respond) {
  bool allowed = false;
  for (std::string_view op : kApi) allowed = allowed || op == operation;
  if (!allowed)
    return respond(JsonError(404, "unknown_method",
                             "the web UI's API has no operation " + std::string(operation)));
  rapidjson::Document doc;
  if (JsonDepthWithin(call.req.body, 64))
    doc.Parse<proto::kJsonParseFlags>(call.req.body.data(), call.req.body.size());
  if (!JsonDepthWithin(call.req.body, 64) || doc.HasParseError() || !doc.IsObject())
    return respond(JsonError(400, "invalid_argument", "the body is not a JSON object"));
  if (std::string why = ApiParams(operation, doc); !why.empty())
    return respond(JsonError(400, "invalid_argument", why));
  ops_.Call(operation, &doc, UiCaller(), [respond](Answer a) {
    if (a.error)
      return respond(JsonError(HttpStatus(a.error->code()), CodeName(a.error->code()), a.error->what()));
    Response out;
    out.content_type = kJson;
    out.body = "{\"result\":" + a.result + "}";
    respond(std::move(out));
  });
}

}  // namespace origin::http
