// SPDX-License-Identifier: MIT
// Harness: the MCP message handler (daemon/mcp/server.hpp) of a real
// daemon, started once per process on a store in a temporary home that
// holds the Claude Code and Codex fixtures; its loop runs on this thread
// (the loop thread) between inputs.  An input is one new peer's messages,
// a message (or a batch) a line, handed to the handler as origin-mcp's
// lines are, each answered (the loop runs until it is) before the next: the JSON-RPC framing
// and validation, the lifecycle, tools/list, and the read-only tools'
// calls (argument checks, the operations on the readers, the answers
// shaped for a context window).  An input that would write (a call of
// remember, correct or forget, or origin/left, which syncs) is skipped, so
// that every input meets the same store.  Every reply must be JSON.

#include <uv.h>

#include <cstdlib>

#include "core/entries/entries.hpp"
#include "daemon/mcp/tools.hpp"
#include "tests/fuzz/fixture_daemon.hpp"
#include "tests/fuzz/fuzz.hpp"

namespace {

using namespace origin;

class Instance {
 public:
  Instance() {
    // The first sync done: a search waits for it.
    Handle(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}})");
  }

  std::string Handle(std::string_view message,
                     const std::shared_ptr<McpPeer>& peer = std::make_shared<McpPeer>()) {
    bool answered = false;
    std::string reply;
    d_.daemon().mcp().Handle(message, peer, [&](std::string r) {
      answered = true;
      reply = std::move(r);
    });
    while (!answered) uv_run(d_.loop(), UV_RUN_ONCE);
    return reply;
  }

 private:
  fuzz::FixtureDaemon d_;
};

// Whether message `m` (an element of the document the handler parses)
// would write: read as the handler reads it.
bool Writes(const rapidjson::Value& m) {
  if (!m.IsObject()) return false;
  auto method = m.FindMember("method");
  if (method == m.MemberEnd() || !method->value.IsString()) return false;
  const std::string name = method->value.GetString();
  if (name == "origin/left") return true;
  if (name != "tools/call") return false;
  auto params = m.FindMember("params");
  if (params == m.MemberEnd() || !params->value.IsObject()) return false;
  auto tool = params->value.FindMember("name");
  if (tool == params->value.MemberEnd() || !tool->value.IsString()) return false;
  const mcp::Tool* t = mcp::FindTool(tool->value.GetString());
  return t != nullptr && !t->read_only;
}

bool Writes(std::string_view text) {
  rapidjson::Document d;
  d.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (d.HasParseError()) return false;
  if (!d.IsArray()) return Writes(static_cast<const rapidjson::Value&>(d));
  for (const auto& m : d.GetArray())
    if (Writes(m)) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Instance daemon;
  const std::string_view text = fuzz::Text(data, size);
  bool writes = false;
  fuzz::ForEachLine(text, [&](std::string_view line) { writes = writes || Writes(line); });
  if (writes) return 0;
  auto peer = std::make_shared<McpPeer>();
  fuzz::ForEachLine(text, [&](std::string_view line) {
    const std::string reply = daemon.Handle(line, peer);
    rapidjson::Document d;
    if (!reply.empty() && d.Parse(reply.data(), reply.size()).HasParseError()) std::abort();
  });
  return 0;
}
