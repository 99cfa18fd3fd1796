// SPDX-License-Identifier: MIT
#pragma once
// A device's connection to its hub (spec: Using a hub from a device), and
// the HTTP client it talks to the hub with: libcurl, on the hub thread
// only (daemon/hub/sync.hpp), never on the loop.
//
// The connection is <ORIGIN_HOME>/hub.json, {"url": ..., "token": ...},
// mode 0600 since the token lets whoever holds it write as this device;
// ORIGIN_HUB_URL and ORIGIN_HUB_TOKEN override it.  "ca_file", when there,
// names the certificates an https hub's is checked against instead of the
// system's (a hub with a certificate of its own making).

#include <rapidjson/document.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace origin::hub {

struct Connection {
  std::string url;    // the hub's base URL, without a trailing '/'
  std::string token;  // ogn_…
  std::string ca_file;  // "": the system's certificate authorities
  bool from_env = false;
};

/// hub.json under `home`, with the environment over it; nullopt when
/// neither names a hub.  Throws std::runtime_error for a hub.json that
/// cannot be read or is not the JSON above.
std::optional<Connection> LoadConnection(const std::string& home);
/// Whether ORIGIN_HUB_URL or ORIGIN_HUB_TOKEN is set in this process's
/// environment (the daemon's), which hub.json's removal does not undo.
bool HubFromEnv();
/// Writes hub.json whole, 0600.
void SaveConnection(const std::string& home, const Connection& c);
/// Removes hub.json; false when there was none.
bool RemoveConnection(const std::string& home);
/// `url` checked and made canonical (http or https, a host, a port of 1 to
/// 65535 if any, no query or fragment, no trailing '/'); std::invalid_argument
/// says what is wrong.  A user part is refused unless `user_allowed` (origin
/// hub connect refuses it; a hub.json written before keeps working).
std::string CanonicalUrl(std::string_view url, bool user_allowed = true);

/// One answer of the hub: its status and body, or why there is none
/// (`error`: the host cannot be reached, a timeout, TLS).
struct Response {
  long status = 0;
  std::string body;
  std::string error;
  bool timed_out = false;  // the request took its whole timeout
};

/// Why a sync stops: the message for the user.
struct Stopped : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// The body of `r` parsed (a parse error when it is not JSON).
rapidjson::Document ParseBody(const Response& r);
/// The hub's answer as JSON when it has `status`; else Stopped, saying what
/// went wrong for `what`.
rapidjson::Document Expect(const Response& r, long status, const std::string& what);
/// The integer member `name` of the hub's answer; Stopped when it has none.
std::int64_t IntOf(const rapidjson::Value& d, const char* name);

/// A client for one hub: keeps its connection open between requests.
/// Every request carries the bearer token, X-Origin-Device and, for a
/// POST, a JSON body, zstd-encoded (gzip for a hub that refuses zstd).
/// One thread's, but for Encode and Abort.
class Http {
 public:
  Http(Connection c, std::string device, long timeout_ms);
  ~Http();
  Http(const Http&) = delete;
  Http& operator=(const Http&) = delete;

  /// A JSON body encoded for Post: made on any thread, so that the next
  /// request's body can be ready while the hub answers this one.
  struct Encoded {
    std::string bytes;
    bool zstd = true;  // else gzip
  };
  /// `json` zstd-encoded, or gzip-encoded once the hub has refused zstd
  /// to this client (a hub older than zstd bodies answers 415; a sync
  /// makes a client of its own).
  Encoded Encode(std::string_view json) const;

  Response Get(const std::string& target);
  Response Post(const std::string& target, std::string_view json);
  /// POSTs `body`; when the hub refuses zstd (415), sends it again
  /// gzip-encoded, and encodes every later body so.
  Response Post(const std::string& target, const Encoded& body);
  /// A POST of plain JSON with `headers` ("Name: value") added: a request
  /// to the hub's /mcp.
  Response PostJson(const std::string& target, std::string_view json,
                    const std::vector<std::string>& headers);
  /// How long each later request may take, at most.
  void SetTimeout(long ms);
  /// Makes the request under way, and every later one, end at once (from
  /// any thread).
  void Abort();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> gzip_only_{false};  // the hub refused a zstd body
};

}  // namespace origin::hub
