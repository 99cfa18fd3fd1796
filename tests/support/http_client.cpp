// SPDX-License-Identifier: MIT
#include "tests/support/http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "daemon/http/body_coding.hpp"

namespace origin::test {

const char kTokenChars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string FindRun(const std::string& text, const std::string& prefix, const std::string& chars,
                    std::size_t from, std::size_t* end) {
  const std::size_t at = text.find(prefix, from);
  if (at == std::string::npos) return "";
  std::size_t stop = text.find_first_not_of(chars, at + prefix.size());
  if (stop == std::string::npos) stop = text.size();
  if (end != nullptr) *end = stop;
  return text.substr(at, stop - at);
}

int ConnectTcp(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int ListenTcp(int* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(fd, 64) != 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

namespace {

// Parses what was read; false while the response is not whole.  `used`:
// the bytes it took.
bool ParseReply(const std::string& raw, HttpReply* r, std::size_t* used = nullptr) {
  const std::size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  r->status = std::atoi(raw.substr(9, 3).c_str());
  std::size_t at = raw.find("\r\n") + 2;
  r->headers.clear();
  while (at < end) {
    const std::size_t eol = raw.find("\r\n", at);
    const std::string line = raw.substr(at, eol - at);
    const std::size_t colon = line.find(':');
    const std::string name = LowerAscii(line.substr(0, colon));
    r->headers[name] = line.substr(colon + 2);
    at = eol + 2;
  }
  const std::size_t length = std::stoul(r->headers.count("content-length") != 0 ? r->headers["content-length"] : "0");
  if (raw.size() < end + 4 + length) return false;
  r->body = raw.substr(end + 4, length);
  if (used != nullptr) *used = end + 4 + length;
  return true;
}

}  // namespace

void SendRaw(int fd, const std::string& raw) {
  std::size_t sent = 0;
  while (sent < raw.size()) {
    const ssize_t n = ::send(fd, raw.data() + sent, raw.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may refuse before all is sent
    sent += static_cast<std::size_t>(n);
  }
}

std::vector<HttpReply> ReadReplies(int fd, int timeout_ms) {
  std::string raw;
  bool closed = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!closed && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[65536];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) closed = true;
    else raw.append(buf, static_cast<std::size_t>(n));
  }
  std::vector<HttpReply> replies;
  std::size_t at = 0;
  while (at < raw.size()) {
    HttpReply r;
    std::size_t used = 0;
    const std::string rest = raw.substr(at);
    if (!ParseReply(rest, &r, &used)) {
      replies.push_back(HttpReply{0, {}, "", rest, false});
      break;
    }
    r.raw = rest.substr(0, used);
    replies.push_back(std::move(r));
    at += used;
  }
  if (replies.empty()) replies.emplace_back();
  replies.back().closed = closed;
  return replies;
}

HttpReply HttpRaw(int port, const std::string& raw, int timeout_ms) {
  HttpReply r;
  const int fd = ConnectTcp(port);
  if (fd < 0) return r;
  SendRaw(fd, raw);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool whole = false;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[65536];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      r.closed = true;
      break;
    }
    r.raw.append(buf, static_cast<std::size_t>(n));
    if (!whole && ParseReply(r.raw, &r)) {
      whole = true;
      if (r.headers.count("connection") == 0) break;  // kept alive: done
    }
  }
  if (!whole) r.status = ParseReply(r.raw, &r) ? r.status : 0;
  ::close(fd);
  return r;
}

HttpReply Http(int port, const std::string& method, const std::string& target,
               const std::map<std::string, std::string>& headers, const std::string& body,
               int timeout_ms) {
  std::string raw = method + " " + target + " HTTP/1.1\r\n";
  if (headers.count("Host") == 0) raw += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  for (const auto& [k, v] : headers) raw += k + ": " + v + "\r\n";
  if (method == "POST" || !body.empty()) raw += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  raw += "\r\n" + body;
  return HttpRaw(port, raw, timeout_ms);
}

std::string LowerAscii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string HeaderValue(const std::string& head, const std::string& name) {
  const std::string lower = LowerAscii(head);
  const std::size_t at = lower.find("\r\n" + name + ":");
  if (at == std::string::npos) return "";
  std::size_t from = at + 3 + name.size();
  while (from < head.size() && head[from] == ' ') ++from;
  return head.substr(from, head.find("\r\n", from) - from);
}

bool ReadHttpMessage(int fd, std::string& buf, std::string* msg, bool to_eof,
                     const std::atomic<bool>& stop, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool closed = false;
  for (;;) {
    const std::size_t end = buf.find("\r\n\r\n");
    if (end != std::string::npos) {
      const std::string head = buf.substr(0, end + 4);
      if (!HeaderValue(head, "transfer-encoding").empty()) return false;  // not relayed
      if (!to_eof && LowerAscii(HeaderValue(head, "expect")) == "100-continue") {
        SendRaw(fd, "HTTP/1.1 100 Continue\r\n\r\n");
        const std::size_t at = LowerAscii(head).find("\r\nexpect:");
        buf.erase(at, head.find("\r\n", at + 2) - at);
        continue;
      }
      const std::string length = HeaderValue(head, "content-length");
      if (!length.empty() || !to_eof) {
        const std::size_t total = end + 4 + std::strtoul(length.c_str(), nullptr, 10);
        if (buf.size() >= total) {
          *msg = buf.substr(0, total);
          buf.erase(0, total);
          return true;
        }
      } else if (closed) {
        *msg = std::move(buf);
        buf.clear();
        return true;
      }
    }
    if (closed || stop.load() || std::chrono::steady_clock::now() > deadline) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0)
      closed = true;
    else
      buf.append(chunk, static_cast<std::size_t>(n));
  }
}

std::string Gzip(const std::string& data, int level) { return http::Gzip(data, level); }
std::string Zstd(const std::string& data, int level) { return http::Zstd(data, level); }

}  // namespace origin::test
