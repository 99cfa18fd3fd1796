// SPDX-License-Identifier: MIT
#include "adapters/registry.hpp"

#include <cstdlib>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/codex/codex.hpp"
#include "adapters/cursor/cursor.hpp"
#include "adapters/grok/grok.hpp"
#include "adapters/zcode/zcode.hpp"

namespace origin::adapters {

namespace {
std::string EnvOr(const char* name, const std::string& dflt) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : dflt;
}
}  // namespace

std::vector<std::unique_ptr<SourceAdapter>> MakeAdapters(const std::string& home) {
  std::vector<std::unique_ptr<SourceAdapter>> out;
  out.push_back(std::make_unique<ClaudeCodeAdapter>(EnvOr("CLAUDE_CONFIG_DIR", home + "/.claude")));
  out.push_back(std::make_unique<CodexAdapter>(EnvOr("CODEX_HOME", home + "/.codex")));
  // The IDE keeps its data where VS Code forks do: the user data directory.
#ifdef __APPLE__
  const std::string cursor_user = home + "/Library/Application Support/Cursor/User";
#else
  const std::string cursor_user = EnvOr("XDG_CONFIG_HOME", home + "/.config") + "/Cursor/User";
#endif
  out.push_back(std::make_unique<CursorAdapter>(home + "/.cursor", cursor_user));
  out.push_back(std::make_unique<ZcodeAdapter>(EnvOr("ZCODE_HOME", home + "/.zcode")));
  out.push_back(std::make_unique<GrokAdapter>(EnvOr("GROK_HOME", home + "/.grok")));
  return out;
}

}  // namespace origin::adapters
