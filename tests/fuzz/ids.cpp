// SPDX-License-Identifier: MIT
// Harness: ids as people and agents type them (core/query/ids.hpp).  A
// store holding the Claude Code and Codex fixtures' events and sessions is
// made once per process; the input's first byte is the mask of kinds the
// operation takes, the rest the id typed.  ResolveId answers a full id or
// throws OpError (invalid_argument, not_found, ambiguous); any other
// exception is a bug.

#include "core/query/ids.hpp"
#include "core/util/op_error.hpp"
#include "tests/fuzz/fuzz.hpp"
#include "tests/support/agent_fixtures.hpp"
#include "tests/support/support.hpp"

namespace {

using namespace origin;

struct Store {
  test::ScopedTempDir dir;
  test::TestStore store;
  Store() {
    for (const char* agent : {"claude-code", "codex"}) {
      auto adapter = test::AgentFixture(agent, dir / agent);
      store.ingester->Sync({adapter.get()}, {});
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Store s;
  if (size == 0) return 0;
  try {
    ResolveId(*s.store.db, fuzz::Text(data + 1, size - 1), data[0] & 0xfu);
  } catch (const OpError&) {
  }
  return 0;
}
