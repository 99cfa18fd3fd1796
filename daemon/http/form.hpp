// SPDX-License-Identifier: MIT
#pragma once
// What the web UI reads from a request besides its path: the query string
// and form bodies (application/x-www-form-urlencoded, the WHATWG rules:
// '+' is a space, %XX a byte; the decoded names and values must be UTF-8
// without NUL) and a cookie's values.

#include <string>
#include <string_view>
#include <vector>

#include "daemon/http/response.hpp"
#include "daemon/ui/pages.hpp"

namespace origin::http {

/// Decodes `text` into `out` (appended in order); false with the message
/// when a %-escape is broken or a name or value is not UTF-8.
bool ParseUrlEncoded(std::string_view text, ui::Fields* out, std::string* error);
/// Every value of cookie `name` in the request's Cookie headers, in the order
/// sent (a browser sends the cookie with the longest Path first; another
/// server on the same host can set one of the same name).
std::vector<std::string> CookieValues(const Request& r, std::string_view name);
/// The media type of the request's Content-Type, lower case, without parameters.
std::string MediaType(const Request& r);

}  // namespace origin::http
