// SPDX-License-Identifier: MIT
#pragma once
// An HTTP/1.1 relay on 127.0.0.1 between a device and its hub that can
// deliver a request twice or lose its answer, as a flaky network does: the
// device's requests reach the real hub, byte for byte, and the hub's real
// answers come back, unless the policy says otherwise.  Requests must carry
// a Content-Length (libcurl's do); each goes to the hub on a connection of
// its own.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace origin::test {

class FaultProxy {
 public:
  enum class Fault {
    kNone,
    kLost,      // never reaches the hub: the device's connection is closed
    kTwice,     // sent to the hub twice; the device gets the second answer
    kNoAnswer,  // sent to the hub, its answer read, the device's connection closed
  };
  /// Listens on 127.0.0.1 (port(): any free one) for the hub at `upstream_port`.
  explicit FaultProxy(int upstream_port);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  int port() const { return port_; }
  /// Decides each request's fault from its request line ("POST /v1/ingest
  /// HTTP/1.1"); none when unset.  Called on the proxy's threads.
  void SetPolicy(std::function<Fault(const std::string&)> policy);
  /// Called on the proxy's thread each time a request has been handed to
  /// the hub, before its answer is read (to stop the hub mid-request).
  void OnForwarded(std::function<void()> hook);
  /// Requests relayed so far, and how many got each fault.
  long requests() const { return requests_.load(); }
  long lost() const { return lost_.load(); }
  long twice() const { return twice_.load(); }
  long unanswered() const { return unanswered_.load(); }

 private:
  void Accept();
  void Serve(int client);
  Fault Decide(const std::string& line);

  int upstream_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::function<Fault(const std::string&)> policy_;
  std::function<void()> hook_;
  std::vector<std::thread> threads_;  // guarded by mu_
  std::thread acceptor_;
  std::atomic<long> requests_{0}, lost_{0}, twice_{0}, unanswered_{0};
};

}  // namespace origin::test
