// SPDX-License-Identifier: MIT
#include "proto/protocol.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>

#include "proto/base64.hpp"
#include "proto/paths.hpp"
#include "proto/time.hpp"

using namespace origin::proto;

TEST_SUITE("proto") {
  TEST_CASE("proto: lines are split on \\n, with \\r\\n tolerated and partial lines kept") {
    LineBuffer b;
    b.Append("{\"a\":1}\n{\"b\"", 12);
    CHECK(b.Next() == "{\"a\":1}");
    CHECK_FALSE(b.Next());
    b.Append(":2}\r\n\n", 6);
    CHECK(b.Next() == "{\"b\":2}");
    CHECK(b.Next() == "");
    CHECK_FALSE(b.Next());
    CHECK_FALSE(b.Overflow());
  }

  TEST_CASE("proto: a long line arriving in many reads is scanned for its \\n once (fuzz: protocol)") {
    // 64 MiB (kMaxLine) in reads of 4 KiB, as a client's line may arrive:
    // scanned from its start again at each read, as it was, that is 550 GB
    // read, minutes of the daemon's loop; scanned once, 64 MiB.
    LineBuffer b;
    const std::string chunk(4096, 'x');
    const auto start = std::chrono::steady_clock::now();
    int reads = 0;
    for (; reads < 16384; ++reads) {
      b.Append(chunk.data(), chunk.size());
      REQUIRE_FALSE(b.Next());
      if (std::chrono::steady_clock::now() - start > std::chrono::seconds(5)) break;
    }
    CHECK(reads == 16384);  // all of them within 5 s
    CHECK_FALSE(b.Overflow());
    b.Append("\n{}\n", 4);
    auto line = b.Next();
    REQUIRE(line);
    CHECK(line->size() == kMaxLine);
    CHECK(b.Next() == "{}");
    CHECK_FALSE(b.Next());
  }

  TEST_CASE("proto: hellos round-trip, and another protocol version is refused") {
    ClientHello c{"origin", "0.1.0", 42, "/tmp"};
    std::string err;
    auto back = DecodeClientHello(Encode(c), &err);
    REQUIRE(back);
    CHECK(back->client == "origin");
    CHECK(back->pid == 42);
    CHECK(back->cwd == "/tmp");
    CHECK(back->session.empty());
    CHECK(Encode(c).find("session") == std::string::npos);  // absent, not ""
    c.client = "origin-mcp";
    c.session = "0123456789abcdef0123456789abcdef";
    back = DecodeClientHello(Encode(c), &err);
    REQUIRE(back);
    CHECK(back->session == c.session);
    DaemonHello d{"0.1.0", "laptop", "device", 7};
    auto dback = DecodeDaemonHello(Encode(d), &err);
    REQUIRE(dback);
    CHECK(dback->store == "laptop");
    CHECK_FALSE(DecodeClientHello("{\"proto\":2,\"client\":\"origin\"}", &err));
    CHECK(err.find("protocol version 2") != std::string::npos);
    CHECK_FALSE(DecodeClientHello("not json", &err));
    CHECK_FALSE(DecodeClientHello("{\"proto\":1}", &err));
    CHECK_FALSE(DecodeDaemonHello("[1]", &err));
  }

  TEST_CASE("proto: error codes map to the CLI's exit codes") {
    CHECK(ExitCodeFor(code::kInvalidArgument) == kExitUsage);
    CHECK(ExitCodeFor(code::kNotFound) == kExitNotFound);
    CHECK(ExitCodeFor(code::kForgotten) == kExitNotFound);
    CHECK(ExitCodeFor(code::kUnavailable) == kExitUnavailable);
    CHECK(ExitCodeFor(code::kInternal) == kExitError);
  }

  TEST_CASE("proto: versions compare numerically") {
    CHECK(CompareVersions("0.1.0", "0.1.0") == 0);
    CHECK(CompareVersions("0.10.0", "0.9.9") == 1);
    CHECK(CompareVersions("1.0", "1.0.1") == -1);
    CHECK(CompareVersions("0.01.0", "0.1") == 0);
    // Numbers of any length (fuzz: protocol; they overflowed a long).
    CHECK(CompareVersions("0.10000000000000000000", "0.9") == 1);
    CHECK(CompareVersions("0.9", "0.10000000000000000000") == -1);
    CHECK(CompareVersions("1." + std::string(40, '5'), "1." + std::string(40, '5')) == 0);
    CHECK(CompareVersions("1." + std::string(40, '5'), "1." + std::string(39, '5') + "6") == -1);
  }

  TEST_CASE("proto: paths follow ORIGIN_HOME, and a socket path too long falls back") {
    ::setenv("ORIGIN_HOME", "/tmp/o", 1);
    Paths p = ResolvePaths();
    CHECK(p.home == "/tmp/o");
    CHECK(p.socket == "/tmp/o/run/originsd.sock");
    CHECK(p.db == "/tmp/o/origin.db");
    CHECK(ResolvePaths("/x/y/").home == "/x/y");
    std::string longhome = "/tmp/" + std::string(120, 'h');
    ::setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
    Paths l = ResolvePaths(longhome);
    CHECK(l.socket.size() < 100);
    CHECK(l.socket.rfind("/run/user/1000/origin-", 0) == 0);
    CHECK(ResolvePaths(longhome).socket == l.socket);  // stable
    ::unsetenv("XDG_RUNTIME_DIR");
    ::unsetenv("ORIGIN_HOME");
  }

  TEST_CASE("proto: dates and times, one parser for the CLI and the MCP tools") {
    // With an offset: the instant, whatever the local zone.
    CHECK(ParseDateTime("2026-01-05T10:00:00Z") == 1767607200000);
    CHECK(ParseDateTime("2026-01-05T10:00:00.123Z") == 1767607200123);
    CHECK(ParseDateTime("2026-01-05T10:00:00.1234567Z") == 1767607200123);
    CHECK(ParseDateTime("2026-01-05T10:00:00.5Z") == 1767607200500);
    CHECK(ParseDateTime("2026-01-05T12:30:00+02:30") == 1767607200000);
    CHECK(ParseDateTime("2026-01-05T05:00:00-0500") == 1767607200000);
    CHECK(ParseDateTime("2026-01-05T10:00Z") == 1767607200000);
    CHECK(ParseDateTime("2024-02-29T00:00:00Z") == 1709164800000);  // a leap day
    // Without one: local time.
    ::setenv("TZ", "Europe/Paris", 1);
    ::tzset();
    CHECK(ParseDateTime("2026-01-05") == 1767567600000);           // local midnight (+01:00)
    CHECK(ParseDateTime("2026-01-05T11:00:00") == 1767607200000);  // 10:00 UTC
    CHECK(ParseDateTime("2026-07-05T12:00") == 1783245600000);     // summer time (+02:00)
    ::unsetenv("TZ");
    ::tzset();
    // Refused: what is not such a date, trailing text, days that do not exist.
    for (const char* bad : {"",
                            "yesterday",
                            "2026-1-5",
                            "2026-01-05T",
                            "2026-01-05 10:00",
                            "2026-01-05T10",
                            "2026-01-05T10:00:00Zjunk",
                            "2026-01-05junk",
                            "2026-01-05T10:00:00.",
                            "2026-13-01",
                            "2026-02-29",
                            "2026-02-30",
                            "2026-01-32",
                            "2026-01-05T24:00",
                            "2026-01-05T10:60",
                            "2026-01-05T10:00:61",
                            "2026-01-05Z",
                            "2026-01-05T10:00+25:00",
                            "2026-01-05T10:00+01",
                            "20260105",
                            "-2026-01-05"})
      CHECK_MESSAGE(!ParseDateTime(bad).has_value(), bad);
  }

  TEST_CASE("proto: base64 as RFC 4648 gives it, and any bytes round-trip") {
    // RFC 4648, section 10.
    const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                           {"f", "Zg=="},
                                                           {"fo", "Zm8="},
                                                           {"foo", "Zm9v"},
                                                           {"foob", "Zm9vYg=="},
                                                           {"fooba", "Zm9vYmE="},
                                                           {"foobar", "Zm9vYmFy"}};
    for (auto [plain, coded] : vectors) {
      CHECK(Base64Encode(plain) == coded);
      CHECK(Base64Decode(coded) == std::string(plain));
    }
    std::string all;
    for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
    for (std::size_t n = 0; n <= all.size(); n += 37) {
      const std::string bytes = all.substr(0, n) + "\xff\xfe";
      CHECK(Base64Decode(Base64Encode(bytes)) == bytes);
    }
    CHECK(Base64Encode("\xff\xfe") == "//4=");
    for (const char* bad : {"Zg=", "Zg=a", "Z===", "Zm9v\n", "Zm 9", "Zg==Zg==", "Zm9*"})
      CHECK_MESSAGE(!Base64Decode(bad).has_value(), bad);
  }
}
