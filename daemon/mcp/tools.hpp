// SPDX-License-Identifier: MIT
#pragma once
// MCP's seven tools, each a front-end of one operation of the table
// (daemon/operations/): it names the operation, says how an agent's
// arguments become the operation's request (ISO 8601 times as
// milliseconds, limits bounded for an agent's context, forget's id as the
// target), what is made fresh first, and how the answer is shaped.  Not a
// second table of what the daemon does.

#include <rapidjson/document.h>

#include <span>
#include <string>
#include <string_view>

namespace origin::mcp {

/// What a tool makes fresh before its operation runs.
enum class Fresh {
  kNone,
  kWritten,  // what the agent wrote a moment ago is ingested first (at most 2 s): a quote of it resolves
  kWatched,  // what the watcher marked changed is ingested first (at most 1 s)
};

struct Tool {
  const char* name;
  const char* description;
  const char* schema;  // inputSchema, JSON
  bool read_only;
  std::string_view operation;  // the socket method it calls
  Fresh fresh;
  int max_limit;      // 0: no limit argument
  int default_limit;  // sent when the agent gives none (0: the operation's)
  const char* id_param;  // what the operation calls the tool's `id` ("id", forget: "target")
  bool needs_reason;     // forget: the user's reason, not blank
};

std::span<const Tool> AllTools();
const Tool* FindTool(std::string_view name);

/// The MCP server's instructions to the agent (initialize).
extern const char* const kInstructions;

/// The operation's params from a tool's `arguments` (an object or absent);
/// throws OpError (invalid_argument) for arguments an agent must fix.
rapidjson::Document ToParams(const Tool& tool, const rapidjson::Value* arguments);

}  // namespace origin::mcp
