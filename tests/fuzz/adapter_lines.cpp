// SPDX-License-Identifier: MIT
// Harness: one agent's line parser and generated-source reader, built once
// per agent (ORIGIN_FUZZ_AGENT names it).  The agent's fixture is set up
// once per process (tests/support/agent_fixtures.hpp).  The input's first
// byte picks one of the streams the adapter discovers there (its low 7
// bits, modulo their number; with the high bit set, the input's first line
// is the carried state to start from, as the store saved it).  Each
// following line is parsed as that stream's next line, and asked for the
// agent's original line it copies (Original).  After the last line the
// carried state is saved and loaded again, as the ingester does at the end
// of a transaction, and, in a generated stream, the last line is given to
// Generate as the last mirrored line to go on from.  (Saving and
// generating once an input rather than once a line keeps an input's cost
// near its parse: Generate reads the fixture's SQLite databases.)  A line
// may be refused (an exception, counted as a parse error); nothing may
// crash, leak, hang or read out of bounds.

#include "tests/fuzz/fuzz.hpp"
#include "tests/support/agent_fixtures.hpp"
#include "tests/support/support.hpp"

namespace {

using namespace origin;

struct Fixture {
  test::ScopedTempDir dir;
  std::unique_ptr<SourceAdapter> adapter = test::AgentFixture(ORIGIN_FUZZ_AGENT, dir / "root");
  std::vector<SourceFile> streams = test::FixtureStreams(*adapter);
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture f;
  if (size == 0 || f.streams.empty()) return 0;
  const SourceFile& stream = f.streams[(data[0] & 0x7fu) % f.streams.size()];
  std::string_view text = fuzz::Text(data + 1, size - 1);
  std::unique_ptr<FileState> state;
  try {
    std::string_view saved;
    if ((data[0] & 0x80u) != 0) {
      saved = text.substr(0, text.find('\n'));
      text.remove_prefix(std::min(text.size(), saved.size() + 1));
    }
    state = f.adapter->LoadState(stream.key, saved);
  } catch (const std::exception&) {
    return 0;
  }
  std::int64_t line_no = 0;
  std::string_view last;
  fuzz::ForEachLine(text, [&](std::string_view line) {
    ParseContext ctx{stream.abs_path, stream.key, ++line_no, state.get()};
    try {
      f.adapter->ParseLine(line, ctx);
    } catch (const std::exception&) {
    }
    try {
      f.adapter->Original(stream.key, line);
    } catch (const std::exception&) {
    }
    last = line;
  });
  try {
    if (state) state = f.adapter->LoadState(stream.key, state->Save());
    if (stream.generated) f.adapter->Generate(stream, last, 1u << 16, 1767600000000);
  } catch (const std::exception&) {
  }
  return 0;
}
