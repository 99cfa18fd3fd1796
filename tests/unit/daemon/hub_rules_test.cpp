// SPDX-License-Identifier: MIT
// What the hub answers before a token is even looked at
// (daemon/http/hub_service.hpp): the Host a request is addressed to, the
// Origin of a browser's page, and the public URL both are checked against;
// and how a push's body is read (gzip, zstd, its fields:
// daemon/hub/wire.hpp).
#include <doctest/doctest.h>
#include <zstd.h>

#include <memory>

#include "daemon/http/body_coding.hpp"
#include "daemon/http/hub_service.hpp"
#include "daemon/hub/backoff.hpp"
#include "daemon/hub/connection.hpp"
#include "daemon/hub/wire.hpp"
#include "daemon/rpc_json.hpp"
#include "proto/protocol.hpp"
#include "tests/support/http_client.hpp"

using namespace origin::http;

TEST_SUITE("hub") {
  TEST_CASE("hub: a Host is an IP address or localhost, or the public URL's host (DNS rebinding)") {
    for (const char* ok : {"127.0.0.1", "127.0.0.1:7077", "localhost:7077", "LOCALHOST",
                           "10.1.2.3:8080", "192.168.1.5", "[::1]:7077", "[2001:db8::1]", "[::]"})
      CHECK_MESSAGE(HubHostAllowed(ok, nullptr), ok);
    for (const char* bad : {"", "evil.example.com", "evil.example.com:7077", "127.0.0.1.nip.io",
                            "localhost.evil.com", "::1", "[::1", "127.0.0.1:", "127.0.0.1:x",
                            "127.0.0.1:1234567", "1.2.3.4:80:80", "[::1]x", "0x7f.1"})
      CHECK_FALSE_MESSAGE(HubHostAllowed(bad, nullptr), bad);
    std::string error;
    std::optional<PublicUrl> pub = ParsePublicUrl("https://Origin.Example.com/", &error);
    REQUIRE(pub);
    CHECK(pub->host == "origin.example.com");
    CHECK(pub->origin == "https://origin.example.com");
    CHECK(HubHostAllowed("origin.example.com", &*pub));
    CHECK(HubHostAllowed("ORIGIN.example.com", &*pub));
    CHECK(HubHostAllowed("127.0.0.1:7077", &*pub));  // a proxy that sends its upstream's address
    CHECK_FALSE(HubHostAllowed("other.example.com", &*pub));
    CHECK_FALSE(HubHostAllowed("origin.example.com:8443", &*pub));
  }

  TEST_CASE("hub: an Origin is a loopback page's, or the public URL's") {
    for (const char* ok : {"http://localhost:3000", "http://127.0.0.1", "https://127.0.0.2:8443",
                           "http://[::1]:7077"})
      CHECK_MESSAGE(HubOriginAllowed(ok, nullptr), ok);
    for (const char* bad : {"null", "", "http://evil.example.com", "http://10.1.2.3:7077",
                            "file://", "http://localhost.evil.com", "http://127.0.0.1/x",
                            "http://user@127.0.0.1", "ftp://127.0.0.1"})
      CHECK_FALSE_MESSAGE(HubOriginAllowed(bad, nullptr), bad);
    std::string error;
    std::optional<PublicUrl> pub = ParsePublicUrl("https://origin.example.com:443", &error);
    REQUIRE(pub);
    CHECK(HubOriginAllowed("https://origin.example.com", &*pub));
    CHECK_FALSE(HubOriginAllowed("http://origin.example.com", &*pub));
  }

  TEST_CASE("hub: a public URL is http or https, with a host and no user") {
    std::string error;
    std::optional<PublicUrl> p = ParsePublicUrl("http://hub.lan:7077/path?q", &error);
    REQUIRE(p);
    CHECK(p->host == "hub.lan:7077");
    CHECK(p->origin == "http://hub.lan:7077");
    p = ParsePublicUrl("http://[2001:db8::1]:80", &error);
    REQUIRE(p);
    CHECK(p->host == "[2001:db8::1]");
    for (const char* bad : {"ftp://x", "hub.lan", "https://", "https://user@hub", "https://:443",
                            "https://hub:99999"}) {
      error.clear();
      CHECK_FALSE_MESSAGE(ParsePublicUrl(bad, &error), bad);
      CHECK_FALSE(error.empty());
    }
  }
}

// A device's chunk may come gzip-encoded (spec: Replication): inflated with
// a limit checked as it grows, so a small body cannot inflate past it.
TEST_SUITE("hub") {
  TEST_CASE("hub: gzip bodies inflate to their content, within a limit a bomb cannot pass") {
    using origin::test::Gzip;
    std::string lines;
    for (int i = 0; i < 5000; ++i) lines += "{\"n\":" + std::to_string(i) + "}\n";
    std::string out;
    CHECK(Gunzip(Gzip(lines), lines.size(), &out) == DecodeStatus::kOk);
    CHECK(out == lines);
    CHECK(Gunzip(Gzip(""), 10, &out) == DecodeStatus::kOk);
    CHECK(out.empty());
    // One byte past the limit is too much, however small the body.
    CHECK(Gunzip(Gzip(lines), lines.size() - 1, &out) == DecodeStatus::kTooLarge);
    const std::string bomb = Gzip(std::string(64 << 20, 'a'), 9);
    CHECK(bomb.size() < 100 * 1024);
    CHECK(Gunzip(bomb, 24 << 20, &out) == DecodeStatus::kTooLarge);
    CHECK(out.size() <= (24 << 20) + 64 * 1024);
    // Not one whole gzip stream: truncated, with bytes after it, a bad
    // checksum, not gzip at all, nothing.
    const std::string z = Gzip(lines);
    CHECK(Gunzip(z.substr(0, z.size() - 5), 1 << 20, &out) == DecodeStatus::kMalformed);
    CHECK(Gunzip(z + "x", 1 << 20, &out) == DecodeStatus::kMalformed);
    CHECK(Gunzip(z + z, 1 << 20, &out) == DecodeStatus::kMalformed);
    std::string bad_crc = z;
    bad_crc[bad_crc.size() - 6] ^= 1;
    CHECK(Gunzip(bad_crc, 1 << 20, &out) == DecodeStatus::kMalformed);
    CHECK(Gunzip(lines, 1 << 20, &out) == DecodeStatus::kMalformed);
    CHECK(Gunzip("", 1 << 20, &out) == DecodeStatus::kMalformed);
  }

  // zstd bodies (docs/architecture.md, Replication): one frame of RFC
  // 8878's format, the same limits, and no window larger than the hub
  // allows, whatever the frame declares.
  TEST_CASE("hub: zstd bodies decode to their content, within a limit a bomb cannot pass") {
    std::string lines;
    for (int i = 0; i < 5000; ++i) lines += "{\"n\":" + std::to_string(i) + "}\n";
    std::string out;
    const std::string z = Zstd(lines, 1);
    CHECK(z.size() < lines.size() / 4);
    CHECK(Unzstd(z, lines.size(), &out) == DecodeStatus::kOk);
    CHECK(out == lines);
    CHECK(Unzstd(Zstd("", 1), 10, &out) == DecodeStatus::kOk);
    CHECK(out.empty());
    // One byte past the limit is too much, however small the body.
    CHECK(Unzstd(z, lines.size() - 1, &out) == DecodeStatus::kTooLarge);
    const std::string bomb = Zstd(std::string(64 << 20, 'a'), 1);
    CHECK(bomb.size() < 100 * 1024);
    CHECK(Unzstd(bomb, 24 << 20, &out) == DecodeStatus::kTooLarge);
    CHECK(out.size() <= (24 << 20) + 64 * 1024);
    // Not one whole frame: truncated (at every length), with bytes or a
    // second frame after it, a bad checksum, not zstd at all, nothing.
    for (std::size_t n = 0; n < z.size(); ++n)
      CHECK_MESSAGE(Unzstd(z.substr(0, n), 1 << 20, &out) == DecodeStatus::kMalformed, n);
    CHECK(Unzstd(z + "x", 1 << 20, &out) == DecodeStatus::kMalformed);
    CHECK(Unzstd(z + Zstd("more\n", 1), 1 << 20, &out) == DecodeStatus::kMalformed);
    std::string bad_sum = z;
    bad_sum[bad_sum.size() - 1] ^= 1;
    CHECK(Unzstd(bad_sum, 1 << 20, &out) == DecodeStatus::kMalformed);
    CHECK(Unzstd(lines, 1 << 20, &out) == DecodeStatus::kMalformed);
    CHECK(Unzstd("", 1 << 20, &out) == DecodeStatus::kMalformed);
    // Only RFC 8878's frames: a skippable frame (magic 0x184D2A50, 4
    // bytes of content), and a frame of the legacy format 0.7 (magic
    // 0xFD2FB527), which libzstd would read without the window limit.
    const std::string skippable(std::string("\x50\x2a\x4d\x18\x04\x00\x00\x00", 8) + "abcd");
    CHECK(Unzstd(skippable, 1 << 20, &out) == DecodeStatus::kMalformed);
    CHECK(Unzstd(skippable + z, 1 << 20, &out) == DecodeStatus::kMalformed);
    std::string legacy = z;
    legacy[0] = '\x27';
    CHECK(Unzstd(legacy, 1 << 20, &out) == DecodeStatus::kMalformed);
    // A limit of SIZE_MAX is no limit (a device decoding its own body).
    CHECK(Unzstd(z, SIZE_MAX, &out) == DecodeStatus::kOk);
    CHECK(out == lines);
    // A frame asking for a window of 128 MiB (content of unknown size,
    // streamed) is refused before the hub allocates it.
    std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> c(ZSTD_createCCtx(), ZSTD_freeCCtx);
    REQUIRE(!ZSTD_isError(ZSTD_CCtx_setParameter(c.get(), ZSTD_c_windowLog, 27)));
    std::string wide(1 << 20, '\0');
    ZSTD_inBuffer in{lines.data(), lines.size(), 0};
    ZSTD_outBuffer o{wide.data(), wide.size(), 0};
    REQUIRE(!ZSTD_isError(ZSTD_compressStream2(c.get(), &o, &in, ZSTD_e_continue)));
    ZSTD_inBuffer none{nullptr, 0, 0};
    REQUIRE(ZSTD_compressStream2(c.get(), &o, &none, ZSTD_e_end) == 0);
    wide.resize(o.pos);
    std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> d(ZSTD_createDCtx(), ZSTD_freeDCtx);
    std::string plain(lines.size(), '\0');
    REQUIRE(ZSTD_decompressDCtx(d.get(), plain.data(), plain.size(), wide.data(), wide.size()) ==
            lines.size());  // a valid frame, for a reader that allows its window
    CHECK(Unzstd(wide, 1 << 20, &out) == DecodeStatus::kMalformed);
  }

  TEST_CASE("hub: a pushed number beyond a double's range is refused, not read as infinity") {
    rapidjson::Document d;
    d.Parse<origin::proto::kJsonParseFlags>(
        R"({"confidence":444000000000000017982712088562470448.51e308,"ok":0.5})");
    REQUIRE_FALSE(d.HasParseError());
    double v = 0;
    std::string error;
    CHECK_FALSE(origin::hub_wire::NumberField(d, "confidence", true, &v, &error));
    CHECK(error == "confidence is a finite number");
    CHECK(origin::hub_wire::NumberField(d, "ok", true, &v, &error));
    CHECK(v == 0.5);
  }

  TEST_CASE(
      "hub: a push's reports of forgets made elsewhere read back as written; a body "
      "without them has none, and a malformed one is refused") {
    using origin::CoverageReport;
    const std::vector<CoverageReport> sent = {
        {"tmb_0a1b2c3d4e5f60718293a4b5", {"ent_1"}, {"claude-code:u1", "claude-code:u2"}},
        {"tmb_ffeeddccbbaa998877665544", {}, {}}};
    const std::string body = origin::rpc::Json([&](origin::rpc::Writer& w) {
      w.StartObject();
      origin::hub_wire::WriteReports(w, sent);
      w.EndObject();
    });
    rapidjson::Document d;
    d.Parse(body.c_str());
    std::vector<CoverageReport> got;
    std::string error;
    REQUIRE(origin::hub_wire::DecodeReports(d, &got, &error));
    REQUIRE(got.size() == 2);
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].forget == sent[i].forget);
      CHECK(got[i].entries == sent[i].entries);
      CHECK(got[i].events == sent[i].events);
    }
    d.Parse(R"({"tombstones":[]})");
    got.clear();
    CHECK(origin::hub_wire::DecodeReports(d, &got, &error));
    CHECK(got.empty());
    for (const char* bad : {R"({"reports":{}})", R"({"reports":[{"events":[]}]})",
                            R"({"reports":[{"forget":"tmb_0","events":[1]}]})"}) {
      d.Parse(bad);
      CHECK_MESSAGE(!origin::hub_wire::DecodeReports(d, &got, &error), bad);
    }
  }
}

// A device's own syncs after failures (daemon/hub/backoff.hpp): the rule
// the Syncer applies on its steady clock, here on a clock of the test's.
TEST_SUITE("hub") {
  TEST_CASE("hub: the daemon's own syncs back off after failures, doubling up to the longest "
            "wait, and a success ends it") {
    origin::hub::Backoff b(5'000, 300'000);
    std::int64_t now = 1'000'000;
    CHECK(b.Allows(now));  // nothing failed yet
    b.Ended(false, now);   // 1st failure: 5 s
    CHECK(b.failures() == 1);
    CHECK_FALSE(b.Allows(now + 4'999));
    CHECK(b.Allows(now + 5'000));
    now += 5'000;
    std::int64_t expected = 5'000;
    for (int i = 2; i <= 12; ++i) {  // 10 s, 20 s, ... then 5 minutes at most
      b.Ended(false, now);
      expected = std::min<std::int64_t>(expected * 2, 300'000);
      CHECK(b.retry_at_ms() - now == expected);
      CHECK_FALSE(b.Allows(now + expected - 1));
      CHECK(b.Allows(now + expected));
      now += expected;
    }
    CHECK(expected == 300'000);
    for (int i = 0; i < 100; ++i) b.Ended(false, now);  // no overflow, however long it lasts
    CHECK(b.retry_at_ms() - now == 300'000);
    b.Ended(true, now);  // a success: the next automatic sync may go at once
    CHECK(b.failures() == 0);
    CHECK(b.Allows(now));
    b.Ended(false, now);  // and a new failure starts from the first wait again
    CHECK(b.retry_at_ms() - now == 5'000);
  }
}

// A device's connection (daemon/hub/connection.hpp): the URL it is given,
// and what it says when the hub's answer is not what it asked for.
TEST_SUITE("hub") {
  TEST_CASE(
      "hub: a hub's URL is http or https with a host and a port of 1 to 65535, said as given") {
    using origin::hub::CanonicalUrl;
    CHECK(CanonicalUrl("http://127.0.0.1:7077/") == "http://127.0.0.1:7077");
    CHECK(CanonicalUrl("https://hub.example.org/origin//") == "https://hub.example.org/origin");
    CHECK(CanonicalUrl("http://[::1]:7077") == "http://[::1]:7077");
    CHECK(CanonicalUrl("http://hub") == "http://hub");
    auto refused = [](const char* url) {
      try {
        CanonicalUrl(url);
      } catch (const std::invalid_argument& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(refused("http://") == "the hub's URL names a host: http://");
    CHECK(refused("https:///x") == "the hub's URL names a host: https:///x");
    CHECK(refused("http://:7077") == "the hub's URL names a host: http://:7077");
    CHECK(refused("http://[]:1") == "the hub's URL names a host: http://[]:1");
    CHECK(refused("ftp://hub") == "the hub's URL starts with http:// or https://: ftp://hub");
    CHECK(refused("hub:7077") == "the hub's URL starts with http:// or https://: hub:7077");
    for (const char* url :
         {"http://127.0.0.1:99999", "http://127.0.0.1:0", "http://h:x1", "http://[::1]x"})
      CHECK_MESSAGE(refused(url).starts_with("the hub's URL has a port of 1 to 65535"), url);
    // An empty port is none; a user part is origin hub connect's to refuse
    // (a hub.json written before keeps working).
    CHECK(CanonicalUrl("http://hub:/") == "http://hub:");
    CHECK(CanonicalUrl("http://me@hub:7077") == "http://me@hub:7077");
    CHECK_MESSAGE(refused("http://me@hub:99999").starts_with("the hub's URL has a port"),
                  refused("http://me@hub:99999"));
    CHECK(refused("http://hub/?a=1").find("no query or fragment") != std::string::npos);
    CHECK(refused("http://hub /").find("no spaces") != std::string::npos);
  }

  TEST_CASE(
      "hub: an answer that is not the hub's says what to do: a new token, the hub's own URL, "
      "http") {
    using origin::hub::Expect;
    using origin::hub::Response;
    auto stopped = [](const Response& r) {
      try {
        Expect(r, 200, "GET /v1/device");
      } catch (const origin::hub::Stopped& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    const std::string revoked =
        stopped(Response{401, R"({"error":"the token is unknown or revoked"})", "", false});
    CHECK(revoked.starts_with("the hub answered 401 to GET /v1/device: the token is unknown"));
    CHECK(revoked.find("origin token create NAME on the hub") != std::string::npos);
    CHECK(revoked.find("origin hub connect URL --token NEW") != std::string::npos);
    // Not an Origin hub, or not its base URL (a path of its API given).
    for (const char* body :
         {"<html>Not Found</html>", R"({"error":"no such endpoint: /v1/v1/device"})"})
      CHECK(stopped(Response{404, body, "", false}).find("without /mcp or another path") !=
            std::string::npos);
    CHECK(stopped(Response{200, "<html></html>", "", false})
              .find("is not a JSON object: is the URL an Origin hub's") != std::string::npos);
    CHECK(stopped(Response{0, "", "OpenSSL/3.0: error:0A00010B:SSL routines::wrong version number",
                           false})
              .find("the hub speaks plain http") != std::string::npos);
    CHECK(stopped(Response{0, "", "SSL certificate problem: self-signed certificate", false})
              .find("--ca-file FILE") != std::string::npos);
  }
}
