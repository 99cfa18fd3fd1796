// SPDX-License-Identifier: MIT
#pragma once
// MCP's seven tools, each a front-end of one operation of the table
// (daemon/operations/): it names the operation, says how an agent's
// arguments become the operation's request (checked against the tool's
// input schema first: an unknown argument or a wrong type is a tool error;
// ISO 8601 times as milliseconds, limits bounded for an agent's context,
// forget's id as the target, a page of search asked for with one more hit
// so that the answer can say whether more follow), what is made fresh
// first, and the schema of its answer (daemon/mcp/answers.hpp shapes it).
// Not a second table of what the daemon does.

#include <rapidjson/document.h>

#include <span>
#include <string>
#include <string_view>

namespace origin::mcp {

/// What a read tool makes fresh before its operation runs (a write citing
/// what was just said is its operation's: Operation::cites_fresh).
enum class Fresh {
  kNone,
  kWatched,  // what the watcher marked changed is ingested first (at most 1 s)
};

struct Tool {
  const char* name;
  const char* description;
  const char* schema;         // inputSchema, JSON
  const char* output_schema;  // outputSchema, JSON (protocol 2025-06-18 and later)
  bool read_only;
  std::string_view operation;  // the socket method it calls
  Fresh fresh;
  int default_limit;     // sent when the agent gives none (0: the operation's)
  const char* id_param;  // what the operation calls the tool's `id` ("id", forget: "target")
  bool needs_reason;     // forget: the user's reason, not blank
};

std::span<const Tool> AllTools();
const Tool* FindTool(std::string_view name);

/// The MCP server's instructions to the agent (initialize).
extern const char* const kInstructions;

/// A tool's schemas, parsed once.
const rapidjson::Value& InputSchema(const Tool& tool);
const rapidjson::Value& OutputSchema(const Tool& tool);

/// Checks `value` against `schema` (the part of JSON Schema the tools'
/// schemas use: type, properties, required, additionalProperties: false,
/// enum, minimum, maximum, minItems, items); throws OpError
/// (invalid_argument) naming what is wrong and, for an unknown member, the
/// valid ones.  `name` is the value's name in the message ("" for the
/// arguments themselves).  A null member counts as absent.
void CheckSchema(const rapidjson::Value& schema, const rapidjson::Value& value,
                 const std::string& name);

/// The agent's `arguments` (an object or absent) checked against the
/// tool's input schema, with null members left out; throws OpError
/// (invalid_argument) for arguments an agent must fix.
rapidjson::Document CheckArguments(const Tool& tool, const rapidjson::Value* arguments);

/// The operation's params from checked arguments.  `now_ms`: what a
/// relative `since` or `until` (2d, 12h, yesterday) counts back from.
rapidjson::Document ToParams(const Tool& tool, const rapidjson::Value& arguments,
                             std::int64_t now_ms);

}  // namespace origin::mcp
