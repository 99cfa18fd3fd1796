// SPDX-License-Identifier: MIT
#include "proto/protocol.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

#include "proto/paths.hpp"

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

  TEST_CASE("proto: hellos round-trip, and another protocol version is refused") {
    ClientHello c{"origin", "0.1.0", 42, "/tmp"};
    std::string err;
    auto back = DecodeClientHello(Encode(c), &err);
    REQUIRE(back);
    CHECK(back->client == "origin");
    CHECK(back->pid == 42);
    CHECK(back->cwd == "/tmp");
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
}
