// SPDX-License-Identifier: MIT
#include "client/render.hpp"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <cstdio>

using namespace origin::client;

TEST_SUITE("client") {
  TEST_CASE("client: sizes and counts read at a glance") {
    CHECK(HumanBytes(0) == "0 B");
    CHECK(HumanBytes(1023) == "1023 B");
    CHECK(HumanBytes(1536) == "1.50 KiB");
    CHECK(HumanBytes(12 * 1048576 + 400000) == "12.4 MiB");
    CHECK(HumanBytes(300LL << 30) == "300 GiB");
    CHECK(Thousands(0) == "0");
    CHECK(Thousands(999) == "999");
    CHECK(Thousands(1000) == "1,000");
    CHECK(Thousands(1234567) == "1,234,567");
    CHECK(Thousands(-12345) == "-12,345");
  }

  TEST_CASE("client: tables align columns by what is visible, colour escapes aside") {
    Style bold{true};
    std::string t = Table({{bold.Bold("NAME"), "N"}, {"部署", "12"}, {"abc", "1"}}, {false, true});
    CHECK(t == "\033[1mNAME\033[0m   N\n部署  12\nabc    1\n");
  }

  TEST_CASE("client: colour only on a terminal, and never with NO_COLOR") {
    ::setenv("NO_COLOR", "1", 1);
    CHECK_FALSE(UseColor(stdout));
    ::unsetenv("NO_COLOR");
    std::FILE* f = std::tmpfile();
    CHECK_FALSE(UseColor(f));  // not a terminal
    std::fclose(f);
  }
}
