// SPDX-License-Identifier: MIT
#pragma once
// An HTTP request as the server (http_server.hpp) hands it to its handler,
// the response the handler gives back, and the one place a response becomes
// bytes on the wire: SerializeResponse adds the headers every response of
// the web UI carries (SecurityHeaders: issue 16's point 6, the spec's Admin
// UI "Responses"), so that no route, error or asset can go out without them.
//
// Left out on purpose: chunked responses (every body is built whole, at most
// a page), compression, ranges, conditional requests (nothing is cached:
// Cache-Control no-store) and HSTS (plain http on loopback).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace origin::http {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;  // "GET" or "POST": the server answers others itself (405)
  std::string target;  // the path and query, as received
  std::string path;    // the target before '?', not decoded
  std::string query;   // after '?', not decoded ("" without one)
  HeaderList headers;  // names in lower case, in order
  std::string body;    // at most the server's body limit
  /// The first header `lower_name`, or null.
  const std::string* Header(std::string_view lower_name) const;
};

struct Response {
  int status = 200;
  std::string content_type;  // empty: no body type (a redirect)
  HeaderList headers;        // beside the common ones: Location, Set-Cookie, Allow
  std::string body;
  bool close = false;  // the connection closes once it is written
};

/// `s` with its ASCII letters in lower case (header names, media types,
/// host names: HTTP compares them without case).
std::string AsciiLower(std::string_view s);

/// A response of `status` with a body of `content_type`.
Response WithBody(int status, std::string content_type, std::string body);

/// The Content-Security-Policy of every response: nothing but what the
/// pages use, all from 'self'; no inline script or style; Trusted Types
/// with no policy.
extern const char kContentSecurityPolicy[];
/// The headers every response carries (name, value), in order.
const HeaderList& SecurityHeaders();
/// The reason phrase of `status` ("Not Found").
std::string_view StatusText(int status);
/// The whole response: status line, the security headers, the response's
/// own headers, Content-Type, Content-Length, Connection, body.
std::string SerializeResponse(const Response& r);

}  // namespace origin::http
