// SPDX-License-Identifier: MIT
#pragma once
// The socket protocol between originsd and its clients (design.md section 5):
// newline-delimited JSON, one message a line.  The first line each way is a
// hello; after it the `origin` client sends JSON-RPC 2.0 style requests
//   {"id", "method", "params"}  →  {"id", "result"} | {"id", "error": {code, message}}
// and long operations send {"method": "progress", "params": {"id", ...}} first.
// Error codes are stable strings; the CLI maps them to exit codes.
//
// Depends on RapidJSON only; shared by the daemon, the CLI and the MCP shim.

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace origin::proto {

inline constexpr int kProtoVersion = 1;

/// How a JSON message from a client (socket, MCP, the web UI's API) or the
/// daemon is parsed: iteratively (no recursion on nesting).  Not with
/// RapidJSON's full-precision numbers: in 1.1 (Debian 12's) that path counts
/// the leading zeros of a zero significand, undefined behaviour, on a number
/// such as 0e308 (found by the protocol fuzz harness).  The default parse
/// can read a long or huge number an ulp off (4.44e35); what the daemon
/// writes reads back exactly under full precision, which the harness uses.
inline constexpr unsigned kJsonParseFlags = rapidjson::kParseIterativeFlag;
/// A line longer than this is a protocol error (the connection is closed).
inline constexpr std::size_t kMaxLine = 64u << 20;

/// Stable error codes of the protocol.
namespace code {
inline constexpr const char* kInvalidArgument = "invalid_argument";
inline constexpr const char* kNotFound = "not_found";
/// A prefix or short reference that names several items (the message lists them).
inline constexpr const char* kAmbiguous = "ambiguous";
inline constexpr const char* kForgotten = "forgotten";
inline constexpr const char* kConflict = "conflict";
inline constexpr const char* kUnavailable = "unavailable";
inline constexpr const char* kUnknownMethod = "unknown_method";
inline constexpr const char* kProtocol = "protocol";
inline constexpr const char* kInternal = "internal";
}  // namespace code

/// Exit codes of the CLI (documented in docs/cli.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,        // the daemon reported a failure (internal, conflict)
  kExitUsage = 2,        // bad command line, invalid_argument or ambiguous
  kExitUnavailable = 3,  // no daemon could be reached or started
  kExitNotFound = 4,     // not_found / forgotten
  kExitAttention = 5,    // origin status: something needs the user (its "attention" list)
};
int ExitCodeFor(std::string_view error_code);

struct ClientHello {
  std::string client;  // origin | origin-mcp | origin-ui
  std::string version;
  std::int64_t pid = 0;
  std::string cwd;
  /// origin-mcp: one per process, kept across reconnects, so that a write
  /// it replays to a new connection is answered once (request keys).
  std::string session;
};
struct DaemonHello {
  std::string daemon;  // the daemon's version
  std::string store;   // the store's name
  std::string mode = "device";
  std::int64_t pid = 0;
};

std::string Encode(const ClientHello& h);
std::string Encode(const DaemonHello& h);
/// Parse a hello line; nullopt (with *error set) when it is not one.
std::optional<ClientHello> DecodeClientHello(std::string_view line, std::string* error);
std::optional<DaemonHello> DecodeDaemonHello(std::string_view line, std::string* error);

/// Compact JSON of a value, followed by no newline.
std::string ToJson(const rapidjson::Value& v);
/// {"error":{"code":CODE,"message":MESSAGE}}: how the CLI's --json and the
/// web UI's API report a failure.
std::string ErrorJson(std::string_view code, std::string_view message);

/// Splits a byte stream into lines.  Push bytes, then pop complete lines.
class LineBuffer {
 public:
  void Append(const char* data, std::size_t n) { buf_.append(data, n); }
  /// The next complete line without its \n, or nullopt.
  std::optional<std::string> Next();
  /// True when the unterminated part exceeds kMaxLine.
  bool Overflow() const { return buf_.size() - start_ > kMaxLine; }

 private:
  std::string buf_;
  std::size_t start_ = 0;
  // Where the search for the next \n goes on: the bytes before it hold
  // none, so a long line arriving in many reads is scanned once.
  std::size_t scanned_ = 0;
};

/// A JSON-RPC 2.0 error response (MCP): {"jsonrpc":"2.0","id":<id_json>,
/// "error":{"code","message"}}; `id_json` is the request's id as JSON, or null.
std::string JsonRpcError(const std::string& id_json, int code, std::string_view message);

/// -1 if a < b, 0 if equal, 1 if a > b, comparing dotted numeric versions.
int CompareVersions(std::string_view a, std::string_view b);

}  // namespace origin::proto
