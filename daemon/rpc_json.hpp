// SPDX-License-Identifier: MIT
#pragma once
// JSON for the socket protocol's answers about events and sessions, and the
// reading of request params.  Times go out twice: `ts` in milliseconds since
// the epoch (UTC) for scripts, `time` as local ISO 8601 with milliseconds for
// people and agents.  (Requests are read by proto/requests.hpp.)

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/entries/entries.hpp"
#include "core/erase/erase.hpp"
#include "core/forget/forget.hpp"
#include "core/query/events.hpp"
#include "core/store/refs.hpp"

namespace origin::rpc {

/// The writer of every JSON answer, on the socket and on MCP.  JSON text
/// must be UTF-8, and what an answer carries came partly from outside (a log
/// line, a file name, a cwd, a mirror): a string that is not valid UTF-8
/// goes out with each invalid sequence as U+FFFD and its NUL bytes dropped
/// (SanitizeUtf8, as ingestion does to texts), so that every answer is valid
/// UTF-8.  Where the exact bytes matter, WriteBytes adds them in base64.
/// The base writer is private: nothing can write a string around this check.
class Writer : private rapidjson::Writer<rapidjson::StringBuffer> {
  using Base = rapidjson::Writer<rapidjson::StringBuffer>;

 public:
  using Ch = Base::Ch;
  explicit Writer(rapidjson::StringBuffer& out) : Base(out) {}
  /// With a store at hand (a worker's connection), each event, entry,
  /// session and tombstone written carries its short reference, `ref`
  /// (core/store/refs.hpp); Operations::OnWorker sets it.
  void UseRefs(Db* db) { refs_ = db; }
  Db* refs() const { return refs_; }
  bool String(const Ch* s, rapidjson::SizeType n, bool copy = false);
  bool String(const Ch* s) { return String(s, static_cast<rapidjson::SizeType>(std::strlen(s))); }
  bool String(std::string_view s) {
    return String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  }
  bool Key(const Ch* s, rapidjson::SizeType n, bool copy = false) { return String(s, n, copy); }
  bool Key(const Ch* s) { return String(s); }
  using Base::Bool;
  using Base::Double;
  using Base::EndArray;
  using Base::EndObject;
  using Base::Int;
  using Base::Int64;
  using Base::Null;
  using Base::RawNumber;
  using Base::RawValue;
  using Base::StartArray;
  using Base::StartObject;
  using Base::Uint;
  using Base::Uint64;

 private:
  Db* refs_ = nullptr;
};

/// `key`: `bytes` as text (SanitizeUtf8: each invalid sequence as U+FFFD,
/// NUL dropped) and, when that is not `bytes` exactly, `<key>_base64`: the
/// bytes themselves.  For raw log lines (docs/cli.md, `origin sources`).
void WriteBytes(Writer& w, const char* key, std::string_view bytes);

/// `key`: the value, or null when there is none.
void Opt(Writer& w, const char* key, const std::optional<std::string>& v);
void Opt(Writer& w, const char* key, const std::optional<std::int64_t>& v);

/// The JSON text `fill` writes.
std::string Json(const std::function<void(Writer&)>& fill);

/// `ref`: the short reference of `id`, when the writer has a store (UseRefs).
void WriteRef(Writer& w, std::string_view id);
/// `extra` may add members before the object closes (a hit's snippet).
void WriteEvent(Writer& w, const EventRow& e, const std::function<void(Writer&)>& extra = {});
void WriteSession(Writer& w, const SessionRow& s);
void WriteSource(Writer& w, const SourceLine& s);
void WriteEntry(Writer& w, const EntryRow& e, const std::function<void(Writer&)>& extra = {});
/// What a forget hides or a restore brings back: ids and counts (lists of
/// ids cut at 1,000; the counts are whole).
/// `digest`: a forget's preview's (PlanDigest), written when given.
void WriteOutcome(Writer& w, const ForgetOutcome& o, bool dry_run, std::string_view digest = {});
void WriteTombstone(Writer& w, const TombstoneRow& t);
/// What an erasure erases (or, on a dry run, would), core/erase/erase.hpp.
/// `elsewhere`: the other stores the erasure reaches as it replicates (a
/// hub, its devices), said when there are some.
void WriteEraseOutcome(Writer& w, const EraseOutcome& o, bool dry_run,
                       std::string_view elsewhere = {});

/// JSON cut to about `max_bytes`: its longest strings (an event's text, a
/// raw line) are shortened to one common length, each saying how much was
/// cut and, in `rest`, how to read the rest, and the object holding one sets
/// its `truncated`, when it has that boolean, to true; JSON already within
/// the bound comes back as it was.
std::string BoundStrings(std::string json, std::size_t max_bytes, std::string_view rest);

}  // namespace origin::rpc
