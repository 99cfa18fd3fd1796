// SPDX-License-Identifier: MIT
#pragma once
// The web UI's routes under /admin (issue 16), behind the HTTP server:
//   GET  /admin/signin?secret=S   the one-time secret for a session (303 to /admin/)
//   GET  /admin/assets/<name>     the embedded assets (no session needed: they
//                                 hold nothing of the store)
//   GET  /admin/ and /admin<path> a page of ui::AllPages(): its operation, then
//                                 its HTML rendered on the worker (Caller::shape)
//   POST /admin<path>             a form of ui::AllActions(): its operation, then 303
//   POST /admin/signout           ends the session
//   POST /admin/api/<operation>   the JSON API: the operations of ApiOperations()
// Everything but sign-in and the assets needs the session (a page says how
// to get a link; the API answers 401).  Every POST needs the session's CSRF
// token (form field _csrf, or header X-CSRF-Token), an Origin header equal
// to the UI's origin, and no Sec-Fetch-Site: cross-site.  Every page and
// call goes through Operations::Call as user@<store> on channel "ui"
// (invariant 5).  Loop thread; the rendering runs on the worker.

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "core/util/clock.hpp"
#include "core/util/op_error.hpp"
#include "daemon/http/http_server.hpp"
#include "daemon/http/signin.hpp"
#include "daemon/operations/operations.hpp"
#include "daemon/ui/pages.hpp"

namespace origin::http {

/// The operations the JSON API calls; nothing else (no erase, backup,
/// verify, shutdown, sync, check).
std::span<const std::string_view> ApiOperations();
/// What the forms add to an operation's params, for the JSON API's call of
/// `operation`: why it is refused (forget without the preview's digest), or
/// "" with `params` completed (correct's confidence 1 unless given).
std::string ApiParams(std::string_view operation, rapidjson::Document& params);
/// The HTTP status of an operation's error (the interface's mapping).
int HttpStatus(OpError::Code code);

class AdminUi {
 public:
  AdminUi(Operations& ops, const Clock& clock);
  /// The origins and hosts of the UI on `port`; call before serving.
  void SetPort(int port);
  std::vector<std::string> Hosts() const;
  void Handle(const Request& r, Respond respond);
  /// An error page without a session (the server's own refusals).
  Response ErrorPage(int status, const std::string& message) const;
  SignIn& signin() { return signin_; }
  /// origin ui stopped: its sessions end, and the audit log says how many.
  void EndSessions();
  /// Works out the overview on a reader, its answer dropped: the page a
  /// sign-in leads to then finds its counts kept (core/ui/overview.hpp).
  void WarmOverview();

 private:
  struct Call;
  void SignInWith(const Call& call, Respond respond);
  void Page(const Call& call, Respond respond);
  void Action(const Call& call, Respond respond);
  using ParamsFn = bool (*)(const ui::Fields&, std::string*, std::string*);
  using ShapeFn = std::function<std::string(const rapidjson::Value&, const ui::PageContext&)>;
  /// A page's or a form's call: its params from the fields, the operation
  /// with `shape` on the worker, then `done` with what it made, or the error page.
  void Run(const Call& call, std::string_view operation, ParamsFn params, ShapeFn shape,
           std::function<Response(std::string)> done, Respond respond);
  void Api(const Call& call, std::string_view operation, Respond respond);
  /// The POST checks (Origin, Sec-Fetch-Site, CSRF); the refusal, or "".
  std::string PostRefusal(const Request& r, const SignIn::Session& s, const std::string* form_csrf) const;
  Caller UiCaller() const;
  /// Appends `action` to the audit log (spec: Admin UI, Audit log): actor
  /// local, channel ui, details only how many `sessions` it concerns when
  /// more than one could be (never a secret or a session id); on the
  /// writer, counted in flight so that a shutdown waits for it.
  void Audit(std::string_view action, std::int64_t sessions = 0);
  /// Records the sessions that ran out of time since the last record
  /// (session_expired), if any.
  void AuditExpired();

  Operations& ops_;
  const Clock& clock_;
  SignIn signin_;
  int port_ = 0;
  /// The 10-minute window of the last refused link recorded: refusals are
  /// recorded once a window, so a loop of bad links cannot fill the log.
  std::int64_t refused_window_ = -1;
};

}  // namespace origin::http
