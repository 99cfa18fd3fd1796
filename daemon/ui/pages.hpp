// SPDX-License-Identifier: MIT
#pragma once
// The owner's web UI as a library (issue 16): each page is a row naming the
// operation whose JSON answer it renders, how its params come from the query
// string, and how the answer becomes the whole HTML document; each form's
// POST is a row naming the operation it calls and where the browser goes
// after.  The HTTP server (daemon/http/) routes GET /admin<path> and POST
// /admin<path> to these rows, calls the operation through Operations::Call
// like every other front-end (invariant 5), and renders on the worker that
// answered (Caller::shape), never on the loop thread.

#include <rapidjson/document.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace origin::ui {

/// Decoded query-string or form fields, in order (http parses them:
/// application/x-www-form-urlencoded, UTF-8 checked).
struct Fields {
  std::vector<std::pair<std::string, std::string>> items;
  const std::string* Get(std::string_view name) const;  // the first, or null
};

struct PageContext {
  std::string csrf;         // the session's CSRF token: every form carries it as the hidden field _csrf
  std::string target;       // the request's path and query, as received (for paging links)
  Fields query;             // the request's query parameters
  std::string store_name;   // this device's store name (author user@<store_name>)
  std::int64_t now_ms = 0;  // the daemon's clock (Context::clock), for the 30-day chart and "ago"
};

/// A page: GET /admin<path>.  `operation` is a method of daemon/operations/table.cpp.
struct Page {
  std::string_view path;       // "/", "/timeline", "/session", "/event", "/search", "/entries", "/entry", "/forgotten", "/forget", "/tombstone"
  std::string_view operation;  // whose answer it renders
  /// The operation's params (a JSON object's text) from the query; false with the message for a 400.
  bool (*params)(const Fields& query, std::string* params_json, std::string* error);
  /// The whole HTML document, from the operation's answer.
  std::string (*render)(const rapidjson::Value& answer, const PageContext& ctx);
};

/// A form's POST to /admin<path>: the operation it calls, and where the browser goes after (303).
struct Action {
  std::string_view path;       // "/remember", "/correct", "/forget", "/restore"
  std::string_view operation;
  bool (*params)(const Fields& form, std::string* params_json, std::string* error);
  std::string (*redirect)(const rapidjson::Value& answer);  // e.g. "/admin/entry?id=ent_..."
};

std::span<const Page> AllPages();
std::span<const Action> AllActions();

/// An error page (400, 403, 404, 409, 500 ...) with the message, escaped.
std::string RenderError(int status, std::string_view message, const PageContext& ctx);

/// The embedded assets (stylesheet, script, favicon), each under a content-hashed name;
/// http serves them at /admin/assets/<name> with the same headers as pages.
struct Asset {
  std::string_view name, content_type, body;
};
std::span<const Asset> AllAssets();

}  // namespace origin::ui
