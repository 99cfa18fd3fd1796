// SPDX-License-Identifier: MIT
#pragma once
// Base64 (RFC 4648, standard alphabet, with padding): how an answer carries
// bytes that are not UTF-8, such as a raw log line holding \xff (its
// `raw_base64`, docs/cli.md).  The daemon encodes, the CLI decodes.

#include <optional>
#include <string>
#include <string_view>

namespace origin::proto {

std::string Base64Encode(std::string_view bytes);
/// The bytes of `text`; nothing when it is not padded base64 of the
/// standard alphabet (no whitespace, no line breaks).
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace origin::proto
