// SPDX-License-Identifier: MIT
// How a device encodes what it sends its hub (daemon/hub/connection.hpp):
// zstd, and gzip from the moment a hub refuses zstd.  A hub older than
// zstd bodies answers 415 to them (its ParseBody took gzip only); no build
// of that hub can run here, so the hub is a loopback server of the test's
// that answers as it did: 415 to a zstd body, 200 to a gzip one.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/c/fd.hpp"
#include "daemon/http/body_coding.hpp"
#include "daemon/hub/connection.hpp"
#include "tests/support/http_client.hpp"

namespace {

namespace http = origin::http;
namespace test = origin::test;

// One request as the server read it: its Content-Encoding and body.
struct Seen {
  std::string coding, body;
};

}  // namespace

TEST_SUITE("hub") {
  TEST_CASE("hub: a device sends zstd, and gzip from the moment its hub refuses zstd (415)") {
    const std::string json = R"({"device":"laptop","data":")" + std::string(5000, 'A') + "\"}";
    int port = 0;
    const int listener = test::ListenTcp(&port);
    REQUIRE(listener >= 0);

    // The old hub: every request on every connection until the test ends.
    std::vector<Seen> seen;
    std::thread server([&] {
      for (int connections = 0; connections < 4; ++connections) {
        const origin::UniqueFd c(::accept(listener, nullptr, nullptr));
        if (!c) return;
        std::string buffered, request;
        const std::atomic<bool> stop{false};
        while (test::ReadHttpMessage(c.get(), buffered, &request, false, stop, 10'000)) {
          const std::string head = request.substr(0, request.find("\r\n\r\n") + 4);
          seen.push_back(
              {test::HeaderValue(head, "content-encoding"), request.substr(head.size())});
          const bool refuse = seen.back().coding != "gzip";
          const std::string body =
              refuse ? R"({"error":"Content-Encoding is gzip or none, not zstd"})" : R"({"ok":1})";
          test::SendRaw(c.get(), std::string("HTTP/1.1 ") +
                                     (refuse ? "415 Unsupported Media Type" : "200 OK") +
                                     "\r\nContent-Type: application/json\r\nContent-Length: " +
                                     std::to_string(body.size()) + "\r\n\r\n" + body);
          if (seen.size() == 3) return;
        }
      }
    });

    {
      origin::hub::Connection conn;
      conn.url = "http://127.0.0.1:" + std::to_string(port);
      conn.token = "ogn_test";
      origin::hub::Http client(conn, "laptop", 10'000);
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
    ::shutdown(listener, SHUT_RDWR);  // a server still waiting gives up
    server.join();
    ::close(listener);

    REQUIRE(seen.size() == 3);
    CHECK(seen[0].coding == "zstd");
    CHECK(seen[1].coding == "gzip");
    CHECK(seen[2].coding == "gzip");
    std::string out;
    CHECK(http::Unzstd(seen[0].body, 1 << 20, &out) == http::DecodeStatus::kOk);
    CHECK(out == json);
    for (std::size_t i = 1; i < 3; ++i) {
      CHECK(http::Gunzip(seen[i].body, 1 << 20, &out) == http::DecodeStatus::kOk);
      CHECK(out == json);
    }
  }
}
