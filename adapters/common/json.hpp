// SPDX-License-Identifier: MIT
#pragma once
// RapidJSON helpers for the adapters: tolerant lookups that return nothing
// for a missing key or a value of another type, since every agent format
// changes between versions (sources.md: parse tolerantly).

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <string>
#include <string_view>

#include "core/ingest/adapter.hpp"
#include "core/util/text.hpp"  // TrimSpace

namespace origin::adapters {

using Json = rapidjson::Value;

/// Deeper lines are parse errors: no agent writes them, and they must not
/// exhaust the stack (see JsonDepthWithin).
inline constexpr int kMaxJsonDepth = 256;

/// Parses one log line into `doc`; throws ParseError unless it is an object.
void ParseObject(std::string_view line, rapidjson::Document& doc);

const Json* Member(const Json& obj, const char* key);
std::optional<std::string_view> Str(const Json& obj, const char* key);
/// A string member that is not empty.
std::optional<std::string> NonEmpty(const Json& obj, const char* key);
bool Bool(const Json& obj, const char* key);
std::string_view StrOr(const Json& v, std::string_view dflt);
/// Compact JSON text of any value.
std::string Serialize(const Json& v);

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;
/// A string value (any bytes: its length is given).
void WriteString(JsonWriter& w, std::string_view s);
/// A member `key` with a string value.
void WriteMember(JsonWriter& w, const char* key, std::string_view s);
/// `text` as the JSON it holds when it is JSON (within kMaxJsonDepth), else
/// as a string (a column an agent filled with JSON, or not).
void WriteJsonText(JsonWriter& w, std::string_view text);

/// A whole file; nothing when it cannot be read.
std::optional<std::string> ReadWholeFile(const std::string& path);
/// A file holding a JSON object (within kMaxJsonDepth); nothing when it
/// cannot be read or is not one (it is being replaced).
std::optional<rapidjson::Document> ReadJsonObject(const std::string& path);

/// A message content as text: a string, or its {type: "text", text} parts
/// joined by blank lines; "" for anything else.
std::string TextParts(const Json* content);


/// What is between <tag> and </tag> in `text` (as agents wrap a prompt in
/// <user_query>), trimmed; nothing without both.
std::optional<std::string> TagContent(std::string_view text, std::string_view tag);

/// Appends `piece` to `out`, separated by a blank line when out is not empty.
void AppendParagraph(std::string& out, std::string_view piece);
/// The first `max_chars` characters of `s` (the spec's truncation of tool
/// events: 2,000 for calls, 4,000 for results).
std::string Truncate(std::string_view s, std::size_t max_chars);

inline bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
/// The last segment of a '/'-separated path.
inline std::string_view Basename(std::string_view p) {
  std::size_t pos = p.rfind('/');
  return pos == std::string_view::npos ? p : p.substr(pos + 1);
}

inline constexpr std::size_t kToolCallChars = 2000;
inline constexpr std::size_t kToolResultChars = 4000;

}  // namespace origin::adapters
