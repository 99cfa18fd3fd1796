// SPDX-License-Identifier: MIT
#include "daemon/http/response.hpp"

namespace origin::http {

const std::string* Request::Header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers)
    if (name == lower_name) return &value;
  return nullptr;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

Response WithBody(int status, std::string content_type, std::string body) {
  Response r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

// img-src: the favicon; connect-src: the script's calls of the JSON API;
// icons are inline SVG symbols, which need no source.
const char kContentSecurityPolicy[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'; "
    "require-trusted-types-for 'script'; trusted-types 'none'";

const HeaderList& SecurityHeaders() {
  static const HeaderList kHeaders = {
      {"Content-Security-Policy", kContentSecurityPolicy},
      {"Cache-Control", "no-store, private"},
      {"Vary", "Cookie"},
      {"X-Frame-Options", "DENY"},
      {"X-Content-Type-Options", "nosniff"},
      // Not no-referrer: under it Chromium sends `Origin: null` with a form's
      // POST, which the Origin check must refuse; same-origin sends no
      // referrer to another origin, and the real Origin to ours.
      {"Referrer-Policy", "same-origin"},
      {"X-Robots-Tag", "noindex, nofollow"},
      {"Cross-Origin-Opener-Policy", "same-origin"},
      {"Cross-Origin-Resource-Policy", "same-origin"},
  };
  return kHeaders;
}

std::string_view StatusText(int status) {
  switch (status) {
    case 200: return "OK";
    case 202: return "Accepted";
    case 303: return "See Other";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

std::string SerializeResponse(const Response& r) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + std::string(StatusText(r.status)) + "\r\n";
  auto add = [&out](std::string_view name, std::string_view value) {
    out.append(name).append(": ").append(value).append("\r\n");
  };
  for (const auto& [name, value] : SecurityHeaders()) add(name, value);
  for (const auto& [name, value] : r.headers) add(name, value);
  if (!r.content_type.empty()) add("Content-Type", r.content_type);
  add("Content-Length", std::to_string(r.body.size()));
  if (r.close) add("Connection", "close");
  out += "\r\n";
  out += r.body;
  return out;
}

}  // namespace origin::http
