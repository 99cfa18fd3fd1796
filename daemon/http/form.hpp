// SPDX-License-Identifier: MIT
#pragma once
// What the web UI reads from a request besides its path: the query string
// and form bodies (application/x-www-form-urlencoded, the WHATWG rules:
// '+' is a space, %XX a byte; the decoded names and values must be UTF-8
// without NUL) and a cookie's value.

#include <string>
#include <string_view>

#include "daemon/http/response.hpp"
#include "daemon/ui/pages.hpp"

namespace origin::http {

/// Decodes `text` into `out` (appended in order); false with the message
/// when a %-escape is broken or a name or value is not UTF-8.
bool ParseUrlEncoded(std::string_view text, ui::Fields* out, std::string* error);
/// The value of cookie `name` in the request's Cookie headers ("" without one).
std::string CookieValue(const Request& r, std::string_view name);
/// The media type of the request's Content-Type, lower case, without parameters.
std::string MediaType(const Request& r);

}  // namespace origin::http
