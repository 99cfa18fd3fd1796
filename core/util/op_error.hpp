// SPDX-License-Identifier: MIT
#pragma once
// The one error type of an operation, from core to the daemon's front-ends:
// bad input, an unknown or forgotten id, a conflict (correcting a version
// that is no longer current), a daemon that cannot take the request now
// (shutting down), a method nobody implements, a message that breaks the
// protocol.  Each front-end turns it into its own reply in one place (the
// socket protocol's error codes, MCP tool errors and JSON-RPC errors); any
// other exception is an internal error.

#include <stdexcept>
#include <string>

namespace origin {

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
  OpError(Code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Code code() const noexcept { return code_; }

 private:
  Code code_;
};

}  // namespace origin
