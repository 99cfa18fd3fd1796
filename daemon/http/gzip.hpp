// SPDX-License-Identifier: MIT
#pragma once
// Request bodies sent with Content-Encoding: gzip (the hub's /v1/ingest:
// a device's mirrors compress well on the way).  Inflated with a limit
// checked as the output grows, so a small body that inflates past it (a
// gzip bomb) costs at most the limit.

#include <cstddef>
#include <string>
#include <string_view>

namespace origin::http {

enum class InflateStatus { kOk, kTooLarge, kMalformed };

/// The content of the gzip stream `body` into `out`, at most `limit` bytes:
/// kTooLarge past it, kMalformed for what is not one whole gzip stream
/// (a bad header or checksum, a truncated stream, bytes after its end).
InflateStatus Gunzip(std::string_view body, std::size_t limit, std::string* out);

/// `data` as one gzip stream, at zlib's `level` (1 to 9): what a device
/// sends its hub.  Throws std::runtime_error when zlib fails.
std::string Gzip(std::string_view data, int level);

}  // namespace origin::http
