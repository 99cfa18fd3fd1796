// SPDX-License-Identifier: MIT
#pragma once
// The five agents' fixtures as their adapters read them: tests/fixtures/<agent>
// copied to a directory and completed with the databases the adapter reads
// (built by tests/support, not committed), every file's mtime fixed so that
// the lines carrying one are the same on every run.  The mutation tests
// (tests/unit/adapters/hostile_test.cpp) and the fuzz harnesses and their
// seeds (tests/fuzz) start from these.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/ingest/adapter.hpp"

namespace origin::test {

/// claude-code, codex, cursor, zcode, grok.
std::span<const char* const> FixtureAgents();

/// `agent`'s fixture copied to `root` (which must not exist), and its
/// adapter reading it.
std::unique_ptr<SourceAdapter> AgentFixture(const std::string& agent, const std::string& root);

/// The streams the adapter discovers, in the order of their keys.
std::vector<SourceFile> FixtureStreams(const SourceAdapter& adapter);

struct MirroredLine {
  std::string key, line;
};
/// Every line a sync of `adapter` into a new store mirrors, with its
/// stream's key, in the order of the streams' ids.
std::vector<MirroredLine> MirroredLines(const SourceAdapter& adapter);

}  // namespace origin::test
