// SPDX-License-Identifier: MIT
#pragma once
// JSON for the socket protocol's answers about events and sessions, and the
// reading of request params.  Times go out twice: `ts` in milliseconds since
// the epoch (UTC) for scripts, `time` as local ISO 8601 with milliseconds for
// people and agents.  A param of the wrong type is a RequestError
// (invalid_argument), answered as such by the dispatcher.

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/entries/entries.hpp"
#include "core/forget/forget.hpp"
#include "core/query/events.hpp"

namespace origin::rpc {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

/// A request that cannot be answered: `code` is a protocol error code.
class RequestError : public std::runtime_error {
 public:
  RequestError(const char* code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  const char* code() const { return code_; }

 private:
  const char* code_;
};

/// The params of a request (an object, or absent).
class Params {
 public:
  explicit Params(const rapidjson::Value* params) : p_(params) {}
  std::optional<std::string> Str(const char* key) const;
  std::optional<std::int64_t> Int(const char* key) const;
  bool Bool(const char* key) const;
  std::optional<double> Num(const char* key) const;
  /// A required string: invalid_argument when missing or empty.
  std::string Need(const char* key) const;
  /// [{event_id?, quote?}], each with at least one of them.
  std::vector<EntrySource> Sources(const char* key) const;

 private:
  const rapidjson::Value* Get(const char* key) const;
  const rapidjson::Value* p_;
};

/// `extra` may add members before the object closes (a hit's snippet).
void WriteEvent(Writer& w, const EventRow& e, const std::function<void(Writer&)>& extra = {});
void WriteSession(Writer& w, const SessionRow& s);
void WriteSource(Writer& w, const SourceLine& s);
void WriteEntry(Writer& w, const EntryRow& e, const std::function<void(Writer&)>& extra = {});
/// What a forget hides or a restore brings back: ids and counts (lists of
/// ids cut at 1,000; the counts are whole).
void WriteOutcome(Writer& w, const ForgetOutcome& o, bool dry_run);
void WriteTombstone(Writer& w, const TombstoneRow& t);

/// JSON cut to about `max_bytes`: its longest strings (an event's text, a
/// raw line) are shortened to one common length, each saying how much was
/// cut; JSON already within the bound comes back as it was.
std::string BoundStrings(std::string json, std::size_t max_bytes);

}  // namespace origin::rpc
