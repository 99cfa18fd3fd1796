// SPDX-License-Identifier: MIT
#pragma once
// The JSON of the replication API (spec: HTTP interface), both ways: what
// a hub reads from a device's push and writes in its feed
// (daemon/http/replication.cpp), and what a device writes and reads
// (daemon/hub/sync.cpp).  One reader and one writer per record, so the two
// sides cannot disagree.

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/entries/entries.hpp"
#include "core/forget/replica.hpp"
#include "core/ingest/ingester.hpp"
#include "daemon/rpc_json.hpp"

namespace origin::hub_wire {

/// The member `name` of `o`; nullptr when it is missing or null, or `o` is
/// not an object.
const rapidjson::Value* Member(const rapidjson::Value& o, const char* name);

/// Fields of `o`: false with `*error` set when one is of the wrong type or
/// range, or missing and required (a null field is a missing one).
bool StringField(const rapidjson::Value& o, const char* name, bool required, std::string* out,
                 std::string* error);
bool IntField(const rapidjson::Value& o, const char* name, bool required, std::int64_t lo,
              std::int64_t hi, std::optional<std::int64_t>* out, std::string* error);
bool NumberField(const rapidjson::Value& o, const char* name, bool required, double* out,
                 std::string* error);

/// An agent's name as X-Origin-Client gives it on the hub's /mcp:
/// [A-Za-z0-9][A-Za-z0-9._-]{0,63}.
bool ValidAgentName(std::string_view name);

/// A time in ms: from 1970 to about 2255.
inline constexpr std::int64_t kMaxMs = 9'000'000'000'000;

/// `entries` of a push: each { id, kind, text, confidence, author, project,
/// supersedes, validFrom, validTo, createdAt, origin, erased, sources: [{
/// eventId, quote }] }, at most kMaxPushRecords; `erased` (an erasure's id)
/// on a version an erasure emptied, whose text is then "".
bool DecodeEntries(const rapidjson::Value& d, std::vector<EntryRow>* out, std::string* error);
void WriteEntry(rpc::Writer& w, const EntryRow& e);

/// `tombstones` of a push or of a page of the feed: each { id, target,
/// reason, createdAt, origin, author, entries, events }, at most
/// kMaxPushRecords.
bool DecodeTombstones(const rapidjson::Value& d, std::vector<ReplicaTombstone>* out,
                      std::string* error);
void WriteTombstone(rpc::Writer& w, const ReplicaTombstone& t);

/// `erasures` beside them (core/forget/replica.hpp): each { id, forget,
/// reason, author, createdAt, origin }, at most kMaxPushRecords; a body
/// without the member has none.  WriteErasures writes the member.
bool DecodeErasures(const rapidjson::Value& d, std::vector<ReplicaErasure>* out,
                    std::string* error);
void WriteErasures(rpc::Writer& w, const std::vector<ReplicaErasure>& erasures);

/// `reports` of a push (core/forget/replica.hpp, CoverageReport): each {
/// forget, entries, events }, at most kMaxPushRecords; a body without the
/// member has none.  WriteReports writes the member.
bool DecodeReports(const rapidjson::Value& d, std::vector<CoverageReport>* out, std::string* error);
void WriteReports(rpc::Writer& w, const std::vector<CoverageReport>& reports);

/// The request of POST /v1/ingest: a chunk of `source`'s file, its data in
/// base64, as a device sends its mirror and a relay its agent's file.
std::string IngestBody(std::string_view source, const RemoteChunk& c);

}  // namespace origin::hub_wire
