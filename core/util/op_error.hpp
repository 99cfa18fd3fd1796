// SPDX-License-Identifier: MIT
#pragma once
// The one error type of an operation, from core to the daemon's front-ends:
// bad input, an unknown or forgotten id, a conflict (correcting a version
// that is no longer current), a daemon that cannot take the request now
// (shutting down), a method nobody implements, a message that breaks the
// protocol.  Each front-end turns it into its own reply in one place (the
// socket protocol's error codes, MCP tool errors and JSON-RPC errors); any
// other exception is an internal error.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace origin {

/// An error's message is at most about this many bytes (an ambiguous
/// reference's list of ten candidates fits): one that echoes
/// what a client sent (an id of 100 KB) keeps its start and its end, and
/// says how much was cut between them, on UTF-8 character boundaries.
inline constexpr std::size_t kMaxErrorMessage = 4000;
inline std::string BoundErrorMessage(std::string m) {
  if (m.size() <= kMaxErrorMessage) return m;
  // Back to the start of the character at `i` (at most 3 bytes back: a
  // run of stray continuation bytes is no character).
  auto start = [&m](std::size_t i) {
    for (int k = 0; k < 3 && i > 0 && (static_cast<unsigned char>(m[i]) & 0xC0) == 0x80; ++k) --i;
    return i;
  };
  const std::size_t head = start(kMaxErrorMessage * 3 / 5);
  const std::size_t tail = start(m.size() - kMaxErrorMessage / 5);
  return m.substr(0, head) + "\u2026 (" + std::to_string(tail - head) + " bytes cut) \u2026" +
         m.substr(tail);
}

class OpError : public std::runtime_error {
 public:
  enum class Code {
    kInvalidArgument,
    kNotFound,
    kAmbiguous,  // an id's prefix or reference that names several items
    kForgotten,
    kConflict,
    kUnavailable,
    kUnknownMethod,
    kProtocol,
    kInternal,
  };
  OpError(Code code, const std::string& message)
      : std::runtime_error(BoundErrorMessage(message)), code_(code) {}
  Code code() const noexcept { return code_; }

 private:
  Code code_;
};

}  // namespace origin
