// SPDX-License-Identifier: MIT
#include "tests/support/fault_proxy.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "tests/support/http_client.hpp"

namespace origin::test {

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
  while (ReadHttpMessage(client, from_client, &request, false, stop_, 60'000)) {
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
      if (!ReadHttpMessage(hub, buf, &answer, true, stop_, 60'000)) answer.clear();
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
    if (LowerAscii(HeaderValue(answer.substr(0, answer.find("\r\n\r\n") + 4), "connection")) ==
        "close")
      break;
  }
  ::close(client);
}

}  // namespace origin::test
