// SPDX-License-Identifier: MIT
#pragma once
// Random keys the clients send so that a request sent twice is done once:
// the CLI's request_key of a write (one per command run, the same on its
// second attempt) and origin-mcp's session (one per process; the daemon
// keys MCP writes by session and JSON-RPC id).  From the kernel's CSPRNG
// (getrandom(2), else /dev/urandom), never std::rand: two clients on one
// machine must not draw the same key.

#include <string>

namespace origin::client {

/// 32 lower-case hex digits (128 random bits).  Throws std::system_error
/// when the kernel gives no randomness.
std::string RandomKey();

}  // namespace origin::client
