// SPDX-License-Identifier: MIT
// SourceAdapter::CursorOf: what Generate reads from a generated stream's
// last line, without the line's text.  Erasing a stream's last line keeps
// it (core/erase), and Generate is then given it in the line's place; so
// for every generated stream of every agent's fixture, and every line of
// it, going on from the cursor must give exactly what going on from the
// line gives.
#include <doctest/doctest.h>

#include "tests/support/agent_fixtures.hpp"
#include "tests/support/support.hpp"

using namespace origin;

namespace {

std::vector<std::string> SplitLines(const std::string& data) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < data.size();) {
    const std::size_t nl = data.find('\n', pos);
    out.push_back(data.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

}  // namespace

TEST_SUITE("adapters") {
  TEST_CASE(
      "CursorOf: going on from a generated line's cursor gives what going on from the line "
      "gives, for every generated stream of every agent's fixture") {
    constexpr std::int64_t kNow = 1767600000000;
    int streams = 0, cursors = 0;
    for (const char* agent : test::FixtureAgents()) {
      test::ScopedTempDir dir;
      auto adapter = test::AgentFixture(agent, dir / "root");
      for (const SourceFile& stream : test::FixtureStreams(*adapter)) {
        if (!stream.generated) continue;
        ++streams;
        std::string all;
        try {
          all = adapter->Generate(stream, "", 1u << 24, kNow);
        } catch (const std::exception& e) {
          FAIL_CHECK(agent << " " << stream.key << ": " << e.what());
          continue;
        }
        for (const std::string& line : SplitLines(all)) {
          const std::string cursor = adapter->CursorOf(stream.key, line);
          INFO(agent, " ", stream.key, " after ", line);
          REQUIRE(!cursor.empty());
          ++cursors;
          CHECK(cursor.size() < line.size());
          CHECK(adapter->Generate(stream, cursor, 1u << 24, kNow) ==
                adapter->Generate(stream, line, 1u << 24, kNow));
        }
      }
    }
    CHECK(streams >= 5);
    CHECK(cursors >= 10);
  }
}
