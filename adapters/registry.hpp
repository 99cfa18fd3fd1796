// SPDX-License-Identifier: MIT
#pragma once
// The adapters this build has, with their roots from the environment:
// CLAUDE_CONFIG_DIR (default ~/.claude) and CODEX_HOME (default ~/.codex).

#include <memory>
#include <vector>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

/// `home` is $HOME, used for the defaults.
std::vector<std::unique_ptr<SourceAdapter>> MakeAdapters(const std::string& home);

}  // namespace origin::adapters
