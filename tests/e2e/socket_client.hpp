// SPDX-License-Identifier: MIT
#pragma once
// A client of the socket protocol written by hand, for the end-to-end
// tests that call operations no CLI command sends as they are.

#include <doctest/doctest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>

#include "proto/protocol.hpp"
#include "tests/e2e/daemon_fixture.hpp"
#include "tests/support/support.hpp"

namespace origin::test {

// The socket protocol by hand: a hello, then request lines.
class Client {
 public:
  explicit Client(DaemonFixture& f) : fd_(UnixSocket(f.home() + "/run/originsd.sock")) {
    REQUIRE(fd_ >= 0);
    Write(proto::Encode(proto::ClientHello{"origin", "test", ::getpid(), "/"}) + "\n");
    auto hello = Line(10);
    REQUIRE(hello);
    CHECK(hello->find("\"daemon\"") != std::string::npos);
  }
  ~Client() { ::close(fd_); }
  void Write(const std::string& s) {
    std::size_t done = 0;
    while (done < s.size()) {
      ssize_t n = ::write(fd_, s.data() + done, s.size() - done);
      REQUIRE(n > 0);
      done += static_cast<std::size_t>(n);
    }
  }
  /// The next line, or nothing when the daemon closed the connection or
  /// `seconds` passed.
  std::optional<std::string> Line(double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            until - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) return std::nullopt;
      char chunk[65536];
      ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  /// One request and its answer, parsed.
  rapidjson::Document Call(const std::string& method, const std::string& params) {
    Write("{\"id\":1,\"method\":\"" + method + "\",\"params\":" + params + "}\n");
    auto line = Line(10);
    REQUIRE_MESSAGE(line, method << ": no answer");
    return Json(*line);
  }

 private:
  int fd_;
  std::string buf_;
};

inline std::string ErrorCode(const rapidjson::Document& d) {
  if (!d.HasMember("error")) return "";
  return d["error"]["code"].GetString();
}

}  // namespace origin::test
