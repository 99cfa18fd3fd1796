// SPDX-License-Identifier: MIT
#include "tests/support/agent_fixtures.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "adapters/claude_code/claude_code.hpp"
#include "adapters/codex/codex.hpp"
#include "adapters/cursor/cursor.hpp"
#include "adapters/grok/grok.hpp"
#include "adapters/zcode/zcode.hpp"
#include "core/ingest/ingester.hpp"
#include "tests/support/support.hpp"

namespace fs = std::filesystem;

namespace origin::test {

namespace {

// Cursor's databases: a cursor-agent chat, an IDE conversation and a
// workspace's chat panel.
void PrepareCursor(const std::string& root) {
  BuildCursorChat(
      root + "/chats/9f3b2c/ac43c6/store.db",
      {R"({"role":"user","content":"<user_query>hi</user_query>"})",
       R"({"role":"assistant","content":[{"type":"text","text":"yes"},{"type":"tool-call","toolCallId":"t","toolName":"Read","args":{"p":1}}]})",
       R"({"role":"tool","content":[{"type":"tool-result","toolCallId":"t","result":[{"type":"text","text":"r"}],"isError":true}]})"});
  PutCursorConversation(
      root + "/ide-user/globalStorage/state.vscdb", "6f1e", "completed",
      {{"b1", R"({"bubbleId":"b1","type":1,"text":"q"})"},
       {"b2",
        R"({"bubbleId":"b2","type":2,"text":"a","toolFormerData":{"name":"read_file","rawArgs":"{}","result":"r","status":"completed"}})"}});
  PutCursorWorkspace(
      root + "/ide-user/workspaceStorage/ab12", "file:///home/dev/app", {"6f1e"},
      R"({"tabs":[{"tabId":"t1","chatTitle":"x","lastSendTime":1,"bubbles":[{"id":"u","type":"user","text":"q"},{"id":"a","type":"ai","text":"a","modelType":"m"}]}]})");
}

}  // namespace

std::span<const char* const> FixtureAgents() {
  static const char* const agents[] = {"claude-code", "codex", "cursor", "zcode", "grok"};
  return agents;
}

std::unique_ptr<SourceAdapter> AgentFixture(const std::string& agent, const std::string& root) {
  fs::copy(std::string(ORIGIN_SOURCE_DIR) + "/tests/fixtures/" + agent, root,
           fs::copy_options::recursive);
  std::unique_ptr<SourceAdapter> a;
  if (agent == "claude-code") {
    a = std::make_unique<adapters::ClaudeCodeAdapter>(root);
  } else if (agent == "codex") {
    a = std::make_unique<adapters::CodexAdapter>(root);
  } else if (agent == "cursor") {
    PrepareCursor(root);
    a = std::make_unique<adapters::CursorAdapter>(root, root + "/ide-user");
  } else if (agent == "zcode") {
    BuildZcodeDb(root + "/cli/db/db.sqlite");
    a = std::make_unique<adapters::ZcodeAdapter>(root);
  } else if (agent == "grok") {
    a = std::make_unique<adapters::GrokAdapter>(root);
  } else {
    throw std::invalid_argument("no fixture for " + agent);
  }
  for (auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) SetMtime(e.path().string(), 1767600000000000000);
  return a;
}

std::vector<SourceFile> FixtureStreams(const SourceAdapter& adapter) {
  std::vector<SourceFile> files = adapter.Discover().files;
  std::sort(files.begin(), files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.key < b.key; });
  return files;
}

std::vector<MirroredLine> MirroredLines(const SourceAdapter& adapter) {
  TestStore s;
  Ingester ing(*s.db, *s.mirrors, s.clock);
  ing.Sync({&adapter}, {});
  std::vector<MirroredLine> out;
  Stmt st(s.db->get(), "SELECT id, key FROM raw_file ORDER BY id");
  while (st.Step()) {
    const std::string content = s.mirrors->ReadContent(*s.db, st.Int(0));
    std::size_t pos = 0;
    while (pos < content.size()) {
      std::size_t nl = content.find('\n', pos);
      if (nl == std::string::npos) nl = content.size();
      out.push_back({std::string(st.Text(1)), content.substr(pos, nl - pos)});
      pos = nl + 1;
    }
  }
  return out;
}

}  // namespace origin::test
