// SPDX-License-Identifier: MIT
#pragma once
// The typed requests of the socket protocol: one struct per method's params,
// encoded by the clients and decoded (and validated) by the daemon with the
// same code, so that what the CLI sends and what the daemon reads cannot
// drift apart.  The daemon's table of operations (daemon/operations/)
// names, for each method, the struct here that its params decode into.
//
// Decoding is strict about types and ranges (a limit out of range, a kind
// that is not one of the three) and lenient about names it does not know,
// as the protocol has always been.  Times are milliseconds since the epoch;
// the MCP front-end turns an agent's ISO 8601 into them before decoding.
//
// Depends on RapidJSON only.

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace origin::proto {

/// No params (ping, status, projects, shutdown).
struct NoRequest {};

/// sync: every source, or one agent's logs.
struct SyncRequest {
  std::optional<std::string> source;
};

/// timeline: a session's events (`session`), or the sessions of a range.
struct TimelineRequest {
  std::optional<std::string> session;
  bool include_tools = false;
  std::optional<std::int64_t> limit;   // 1..5000; 500 for a session, else 50
  std::optional<std::int64_t> offset;  // a session's events: 0 or more
  std::optional<std::int64_t> since, until;
  std::optional<std::int64_t> days;  // the range without `since`: 1 or more (7)
  std::optional<std::string> source, project;
  std::optional<std::string> name;  // words the session's name holds (sessions only)
};

/// A source an entry cites: an event, or a quote of a message.
struct SourceRef {
  std::optional<std::string> event_id;
  std::optional<std::string> quote;
};

/// remember, and correct (which names the version it supersedes in `id`,
/// and whose fields left out carry over).
struct EntryRequest {
  std::string id;  // correct only
  std::optional<std::string> kind, text, project;
  std::optional<double> confidence;  // 0..1
  std::optional<std::int64_t> valid_from, valid_to;
  std::vector<SourceRef> sources;
  /// Reused on a retry, so that a write whose answer was lost is answered
  /// again rather than done twice (docs/architecture.md, request keys).
  std::string request_key;
};

/// forget (`target`) and restore (`id`, sent as such).
struct TombstoneRequest {
  std::string target;
  std::string reason;
  bool dry_run = false;
  std::string request_key;
  /// forget: the digest of the plan a preview showed (PlanDigest); the
  /// forget is refused (conflict) when the plan differs by then.
  std::optional<std::string> digest;
};

/// search: entries and events.
struct SearchRequest {
  std::string query;
  std::string scope = "both";  // both | entries | events
  std::int64_t limit = 20;     // 1..1000
  bool history = false, include_tools = false, recent = false;
  std::optional<std::string> kind, source, project;
  std::optional<std::int64_t> since, until;
  std::int64_t context = 0;  // 0..20: the events around each event hit, in its session
  /// Count what the limit left out (up to 1,000 a section), and the matches
  /// in tool events when they were not asked for.
  bool totals = false;
  /// Each snippet's matches as `marks`: [begin, end) byte offsets.
  bool marks = false;
};

/// entries: current entries (or every version, `history`).
struct EntriesRequest {
  bool history = false;
  std::optional<std::string> kind, project;
  std::int64_t limit = 100;  // 1..5000
};

/// forgotten: the tombstones.
struct ForgottenRequest {
  std::int64_t limit = 100;  // 1..5000
};

/// show and sources: one event or entry.
struct IdRequest {
  std::string id;
  /// show: an event's whole text, where ingestion cut it (tool events).
  bool full = false;
};

/// backup: the directory to back the store up into (absolute: the CLI
/// resolves it against its working directory).
struct BackupRequest {
  std::string dir;
};

/// verify: a sample of events (`sample`, 1..1000000; 1000) or every event,
/// and with `all` the search indexes too.
struct VerifyRequest {
  bool all = false;
  std::int64_t sample = 1000;
};

/// turns: a session by turns (the web UI's session page): a page (1-based),
/// or the page of the turn holding event `at`; `part` of a long turn.
struct TurnsRequest {
  std::string session;
  std::optional<std::int64_t> page, part;
  std::optional<std::string> at;
};

/// tombstone: one forget or restore, with what a forget in effect hides
/// (its events `page` by page, 1-based) and what a restore would bring back.
struct TombstoneViewRequest {
  std::string id;
  std::int64_t page = 1;
};

/// token_create and token_revoke: a hub's access token, by the name of the
/// device it is bound to.
struct TokenRequest {
  std::string name;
};

/// hub_connect: the hub's base URL and this device's token on it.
struct HubConnectRequest {
  std::string url;
  std::string token;
  std::optional<std::string> ca_file;  // an absolute path: the CA certificates to trust
  bool relay = false;  // make this (empty) store a relay of the hub
  std::optional<std::string> device;  // rename the store first (--device)
};

/// Longest request key accepted.
inline constexpr std::size_t kMaxRequestKey = 200;

// Each Decode reads `params` (an object, or null when absent) into `out`;
// false with `*error` set (a message for the caller: "limit must be between
// 1 and 5000") when a param has the wrong type or is out of range.  The
// method decides which struct: `restore` decodes a TombstoneRequest from
// `id`, `forget` from `target`.
bool Decode(const rapidjson::Value* params, NoRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, SyncRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, TimelineRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, SearchRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, EntriesRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, ForgottenRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, IdRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, BackupRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, VerifyRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, TurnsRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, TombstoneViewRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, TokenRequest* out, std::string* error);
bool Decode(const rapidjson::Value* params, HubConnectRequest* out, std::string* error);
/// `correct`: whether `id` is required (correct) or ignored (remember).
bool Decode(const rapidjson::Value* params, EntryRequest* out, std::string* error, bool correct);
/// `target_key`: "target" (forget) or "id" (restore).
bool Decode(const rapidjson::Value* params, TombstoneRequest* out, std::string* error,
            const char* target_key);

// Each Encode gives the params object as JSON text; absent optionals are
// left out.
std::string Encode(const SyncRequest& r);
std::string Encode(const TimelineRequest& r);
std::string Encode(const SearchRequest& r);
std::string Encode(const EntriesRequest& r);
std::string Encode(const ForgottenRequest& r);
std::string Encode(const IdRequest& r);
std::string Encode(const BackupRequest& r);
std::string Encode(const VerifyRequest& r);
std::string Encode(const TurnsRequest& r);
std::string Encode(const TombstoneViewRequest& r);
std::string Encode(const TokenRequest& r);
std::string Encode(const HubConnectRequest& r);
std::string Encode(const EntryRequest& r, bool correct);
std::string Encode(const TombstoneRequest& r, const char* target_key);

}  // namespace origin::proto
