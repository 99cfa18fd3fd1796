// SPDX-License-Identifier: MIT
#pragma once
// The failure of a core operation that its caller should tell apart: bad
// input, an unknown or forgotten id, a conflict (correcting a version that
// is no longer current).  Interfaces map the code to their own (the socket
// protocol's error codes, MCP tool errors); anything else is an internal
// error.

#include <stdexcept>
#include <string>

namespace origin {

class OpError : public std::runtime_error {
 public:
  enum class Code { kInvalidArgument, kNotFound, kForgotten, kConflict };
  OpError(Code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Code code() const noexcept { return code_; }

 private:
  Code code_;
};

}  // namespace origin
