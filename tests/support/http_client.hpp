// SPDX-License-Identifier: MIT
#pragma once
// Raw HTTP/1.1 over real TCP to 127.0.0.1, for the web UI's end-to-end
// tests (each refusal sent exactly as a hostile or broken client would) and
// its benchmark: no library between the bytes and the server.

#include <atomic>
#include <map>
#include <string>
#include <vector>

namespace origin::test {

struct HttpReply {
  int status = 0;  // 0: no answer (closed, or timed out)
  std::map<std::string, std::string> headers;  // names in lower case, the last of each
  std::string body;
  std::string raw;
  bool closed = false;  // the server closed the connection after it
};

/// Sends `raw` (a whole request, as bytes) to 127.0.0.1:`port` and reads one
/// response (at most `timeout_ms`).
HttpReply HttpRaw(int port, const std::string& raw, int timeout_ms = 5000);
/// A request built from its parts; Host 127.0.0.1:port unless `headers` has one.
HttpReply Http(int port, const std::string& method, const std::string& target,
               const std::map<std::string, std::string>& headers = {},
               const std::string& body = "", int timeout_ms = 5000);
/// In `text` from `from`: the first `prefix` and the run of characters of
/// `chars` after it (prefix included); "" when there is none.
std::string FindRun(const std::string& text, const std::string& prefix, const std::string& chars,
                    std::size_t from = 0, std::size_t* end = nullptr);
/// Letters, digits, '-' and '_' (base64url), for FindRun.
extern const char kTokenChars[];
/// Connects to 127.0.0.1:`port`; -1 when nothing listens.
int ConnectTcp(int port);
/// A socket listening on 127.0.0.1 at a free port, which `port` receives;
/// -1 when that fails.
int ListenTcp(int* port);
/// Sends `raw` on `fd` (what the peer takes before it closes).
void SendRaw(int fd, const std::string& raw);
/// Reads from `fd` until the peer closes it (at most `timeout_ms`) and
/// splits what came into its responses, in order; `closed` is set on the
/// last one (or on a lone empty reply when the connection closed with none).
/// A part that is not a whole response ends the list with status 0.
std::vector<HttpReply> ReadReplies(int fd, int timeout_ms = 5000);

/// `s` with its ASCII letters in lower case.
std::string LowerAscii(std::string s);
/// The value of header `name` (lower case) in `head` (an HTTP message's
/// header block), or "".
std::string HeaderValue(const std::string& head, const std::string& name);
/// Reads one whole HTTP message from `fd` into `msg`, keeping what follows
/// it in `buf`.  A message without Content-Length has no body, unless it is
/// an answer (`to_eof`), which then runs to the end of the connection.
/// A request's sender waiting for "100 Continue" is told to go on, and the
/// message loses its Expect header.  False when the peer closed or went
/// quiet for `timeout_ms` before the message was whole, or when `stop` was
/// set.
bool ReadHttpMessage(int fd, std::string& buf, std::string* msg, bool to_eof,
                     const std::atomic<bool>& stop, int timeout_ms);

/// `data` as one gzip stream (Content-Encoding: gzip), at `level`.
std::string Gzip(const std::string& data, int level = 6);
/// `data` as one zstd frame (what a device sends its hub).
std::string Zstd(const std::string& data, int level = 1);

}  // namespace origin::test
