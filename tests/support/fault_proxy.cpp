// SPDX-License-Identifier: MIT
#include "tests/support/fault_proxy.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "tests/support/http_client.hpp"

namespace origin::test {

namespace {

using Clock = std::chrono::steady_clock;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The value of header `name` (lower case) in `head`, or "".
std::string Header(const std::string& head, const std::string& name) {
  const std::string lower = Lower(head);
  const std::size_t at = lower.find("\r\n" + name + ":");
  if (at == std::string::npos) return "";
  std::size_t from = at + 3 + name.size();
  while (from < head.size() && head[from] == ' ') ++from;
  return head.substr(from, head.find("\r\n", from) - from);
}

// Reads one whole HTTP message from `fd` into `msg`, keeping what follows
// it in `buf`.  A message without Content-Length has no body, unless it is
// an answer (`to_eof`), which then runs to the end of the connection.
// A request's sender waiting for "100 Continue" is told to go on, and the
// message loses its Expect header.  False when the peer closed or went
// quiet for `timeout_ms` before the message was whole, or when `stop` was set.
bool ReadMessage(int fd, std::string& buf, std::string* msg, bool to_eof,
                 const std::atomic<bool>& stop, int timeout_ms) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  bool closed = false;
  for (;;) {
    const std::size_t end = buf.find("\r\n\r\n");
    if (end != std::string::npos) {
      const std::string head = buf.substr(0, end + 4);
      if (!Header(head, "transfer-encoding").empty()) return false;  // not relayed
      if (!to_eof && Lower(Header(head, "expect")) == "100-continue") {
        SendRaw(fd, "HTTP/1.1 100 Continue\r\n\r\n");
        const std::size_t at = Lower(head).find("\r\nexpect:");
        buf.erase(at, head.find("\r\n", at + 2) - at);
        continue;
      }
      const std::string length = Header(head, "content-length");
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
    if (closed || stop.load() || Clock::now() > deadline) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) closed = true;
    else buf.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace

FaultProxy::FaultProxy(int upstream_port) : upstream_(upstream_port) {
  listen_fd_ = ListenTcp(&port_);
  if (listen_fd_ < 0) throw std::runtime_error("the fault proxy could not listen");
  acceptor_ = std::thread([this] { Accept(); });
}

FaultProxy::~FaultProxy() {
  stop_ = true;
  acceptor_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
  ::close(listen_fd_);
}

void FaultProxy::SetPolicy(std::function<Fault(const std::string&)> policy) {
  std::lock_guard<std::mutex> lock(mu_);
  policy_ = std::move(policy);
}

void FaultProxy::OnForwarded(std::function<void()> hook) {
  std::lock_guard<std::mutex> lock(mu_);
  hook_ = std::move(hook);
}

FaultProxy::Fault FaultProxy::Decide(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  return policy_ ? policy_(line) : Fault::kNone;
}

void FaultProxy::Accept() {
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    threads_.emplace_back([this, client] { Serve(client); });
  }
}

void FaultProxy::Serve(int client) {
  std::string from_client;
  std::string request;
  while (ReadMessage(client, from_client, &request, false, stop_, 60'000)) {
    const Fault fault = Decide(request.substr(0, request.find("\r\n")));
    ++requests_;
    if (fault == Fault::kLost) {
      ++lost_;
      break;
    }
    std::function<void()> hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      hook = hook_;
    }
    // Sends the request to the hub on a connection of its own; its answer,
    // or "" when there is none.
    auto relay = [&] {
      const int hub = ConnectTcp(upstream_);
      if (hub < 0) return std::string();
      SendRaw(hub, request);
      if (hook) hook();
      std::string buf, answer;
      if (!ReadMessage(hub, buf, &answer, true, stop_, 60'000)) answer.clear();
      ::close(hub);
      return answer;
    };
    std::string answer = relay();
    if (!answer.empty() && fault == Fault::kTwice) {
      ++twice_;
      answer = relay();
    }
    if (answer.empty() || fault == Fault::kNoAnswer) {
      if (!answer.empty()) ++unanswered_;
      break;
    }
    SendRaw(client, answer);
    if (Lower(Header(answer.substr(0, answer.find("\r\n\r\n") + 4), "connection")) == "close") break;
  }
  ::close(client);
}

}  // namespace origin::test
