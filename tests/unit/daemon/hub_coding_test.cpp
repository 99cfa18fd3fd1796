// SPDX-License-Identifier: MIT
// How a device encodes what it sends its hub (daemon/hub/connection.hpp):
// zstd, and gzip from the moment a hub refuses zstd.  A hub older than
// zstd bodies answers 415 to them (its ParseBody took gzip only); no build
// of that hub can run here, so the hub is a loopback server of the test's
// that answers as it did: 415 to a zstd body, 200 to a gzip one.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <string>
#include <thread>
#include <vector>

#include "core/c/fd.hpp"
#include "daemon/http/body_coding.hpp"
#include "daemon/hub/connection.hpp"

namespace {

using origin::UniqueFd;
namespace http = origin::http;

// One request as the server read it: its Content-Encoding and body.
struct Seen {
  std::string coding, body;
};

// Reads one HTTP/1.1 request with a Content-Length body from `fd`;
// false when the client closed.
bool ReadRequest(int fd, std::string& buffered, Seen* seen) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::size_t end;
  while ((end = buffered.find("\r\n\r\n")) == std::string::npos) {
    char buf[65536];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return false;
    buffered.append(buf, static_cast<std::size_t>(n));
  }
  const std::string head = lower(buffered.substr(0, end));
  auto header = [&](const std::string& name) -> std::string {
    const std::size_t at = head.find("\r\n" + name + ":");
    if (at == std::string::npos) return "";
    std::size_t from = at + name.size() + 3;
    while (from < head.size() && head[from] == ' ') ++from;
    return head.substr(from, head.find("\r\n", from) - from);
  };
  const std::size_t length =
      std::stoul(header("content-length").empty() ? "0" : header("content-length"));
  seen->coding = header("content-encoding");
  while (buffered.size() < end + 4 + length) {
    char buf[65536];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return false;
    buffered.append(buf, static_cast<std::size_t>(n));
  }
  seen->body = buffered.substr(end + 4, length);
  buffered.erase(0, end + 4 + length);
  return true;
}

}  // namespace

TEST_SUITE("hub") {
  TEST_CASE("hub: a device sends zstd, and gzip from the moment its hub refuses zstd (415)") {
    UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    REQUIRE(listener);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(listener.get(), 4) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    const int port = ntohs(addr.sin_port);

    // The old hub: every request on every connection until the test ends.
    std::vector<Seen> seen;
    std::thread server([&] {
      for (int connections = 0; connections < 4; ++connections) {
        UniqueFd c(::accept(listener.get(), nullptr, nullptr));
        if (!c) return;
        std::string buffered;
        Seen s;
        while (ReadRequest(c.get(), buffered, &s)) {
          seen.push_back(s);
          const bool refuse = s.coding != "gzip";
          const std::string body =
              refuse ? R"({"error":"Content-Encoding is gzip or none, not zstd"})" : R"({"ok":1})";
          const std::string reply = std::string("HTTP/1.1 ") +
                                    (refuse ? "415 Unsupported Media Type" : "200 OK") +
                                    "\r\nContent-Type: application/json\r\nContent-Length: " +
                                    std::to_string(body.size()) + "\r\n\r\n" + body;
          if (::write(c.get(), reply.data(), reply.size()) != static_cast<ssize_t>(reply.size()))
            return;
          if (seen.size() == 3) return;
        }
      }
    });

    {
      origin::hub::Connection conn;
      conn.url = "http://127.0.0.1:" + std::to_string(port);
      conn.token = "ogn_test";
      origin::hub::Http client(conn, "laptop", 10'000);
      const std::string json = R"({"device":"laptop","data":")" + std::string(5000, 'A') + "\"}";
      const origin::hub::Http::Encoded first = client.Encode(json);
      CHECK(first.zstd);
      const origin::hub::Response r = client.Post("/v1/ingest", first);
      CHECK(r.error.empty());
      CHECK(r.status == 200);  // sent again, gzip-encoded
      // Every later body is gzip-encoded from the start.
      const origin::hub::Http::Encoded later = client.Encode(json);
      CHECK_FALSE(later.zstd);
      CHECK(client.Post("/v1/entries", later).status == 200);
    }
    ::shutdown(listener.get(), SHUT_RDWR);  // a server still waiting gives up
    server.join();

    REQUIRE(seen.size() == 3);
    CHECK(seen[0].coding == "zstd");
    CHECK(seen[1].coding == "gzip");
    CHECK(seen[2].coding == "gzip");
    const std::string json = R"({"device":"laptop","data":")" + std::string(5000, 'A') + "\"}";
    std::string out;
    CHECK(http::Unzstd(seen[0].body, 1 << 20, &out) == http::DecodeStatus::kOk);
    CHECK(out == json);
    for (std::size_t i = 1; i < 3; ++i) {
      CHECK(http::Gunzip(seen[i].body, 1 << 20, &out) == http::DecodeStatus::kOk);
      CHECK(out == json);
    }
  }
}
