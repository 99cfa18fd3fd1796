// SPDX-License-Identifier: MIT
#include "adapters/grok/grok.hpp"

#include "adapters/common/json.hpp"
#include "adapters/common/memory_stream.hpp"
#include "core/ingest/walk.hpp"

namespace origin::adapters {

Discovery GrokAdapter::Discover() const {
  Discovery d = RootDiscovery(root_);
  if (!d.root_exists) return d;
  const std::string memory = root_ + "/memory";
  AddMemoryStream(d, memory, "memory/global.jsonl");
  for (const std::string& ws : SubDirs(memory)) {
    AddMemoryStream(d, memory + "/" + ws, "memory/" + ws + ".jsonl");
    AddMemoryStream(d, memory + "/" + ws + "/sessions", "memory/" + ws + "/sessions.jsonl");
  }
  return d;
}

std::string GrokAdapter::Generate(const SourceFile& stream, std::string_view last_line,
                                  std::size_t max_bytes, std::int64_t now_ms) const {
  MemoryPlace place;
  // memory/global.jsonl, memory/<ws>.jsonl, memory/<ws>/sessions.jsonl
  std::string_view ws = stream.key;
  ws.remove_prefix(std::string_view("memory/").size());
  ws.remove_suffix(std::string_view(".jsonl").size());
  if (EndsWith(ws, "/sessions")) ws.remove_suffix(std::string_view("/sessions").size());
  if (stream.key != "memory/global.jsonl") place.project = WithoutHashSuffix(ws, 8);
  return GenerateMemoryLines(stream, last_line, max_bytes, now_ms, place);
}

ParsedLine GrokAdapter::ParseLine(std::string_view line, ParseContext& ctx) const {
  if (ctx.key.rfind("memory/", 0) != 0) throw ParseError("not a Grok Build memory stream");
  const bool session_log = EndsWith(ctx.key, "/sessions.jsonl");
  return ParseMemoryLine(line, [session_log](std::string_view file, std::string_view content) {
    return MarkdownMemory(file, content, [session_log](std::string_view, const std::string&) {
      return std::string(session_log ? "memory" : "knowledge");
    });
  });
}

}  // namespace origin::adapters
