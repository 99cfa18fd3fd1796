// SPDX-License-Identifier: MIT
#pragma once
// The content codings of request bodies (Content-Encoding): what a device
// sends its hub (POST /v1/*: a device's mirrors compress well on the way),
// gzip (the spec's) or zstd (RFC 8878: several times faster to make and to
// read, and smaller; docs/architecture.md, Replication).  Decoded with a
// limit checked as the output grows, so a small body that expands past it
// (a bomb) costs at most the limit.

#include <cstddef>
#include <string>
#include <string_view>

namespace origin::http {

enum class DecodeStatus { kOk, kTooLarge, kMalformed };

/// The content of the gzip stream `body` into `out`, at most `limit` bytes:
/// kTooLarge past it, kMalformed for what is not one whole gzip stream
/// (a bad header or checksum, a truncated stream, bytes after its end).
DecodeStatus Gunzip(std::string_view body, std::size_t limit, std::string* out);

/// `data` as one gzip stream, at zlib's `level` (1 to 9).  Throws
/// std::runtime_error when zlib fails.
std::string Gzip(std::string_view data, int level);

/// The content of the zstd frame `body` into `out`, at most `limit`
/// bytes: kTooLarge past it, kMalformed for what is not one whole frame
/// of RFC 8878's format (a bad header or checksum, a truncated frame,
/// bytes after it, a skippable or legacy frame, a window larger than
/// kZstdWindowLogMax).
DecodeStatus Unzstd(std::string_view body, std::size_t limit, std::string* out);

/// `data` as one zstd frame with its checksum, at zstd's `level`.  Throws
/// std::runtime_error when zstd fails.
std::string Zstd(std::string_view data, int level);

/// The largest window a zstd body may ask of its reader: 8 MiB (RFC 8878's
/// advice for HTTP), so that what a sender declares cannot make the hub
/// allocate more.
inline constexpr int kZstdWindowLogMax = 23;

}  // namespace origin::http
