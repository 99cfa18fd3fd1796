// SPDX-License-Identifier: MIT
#include "adapters/zcode/zcode.hpp"

#include "adapters/common/json.hpp"
#include "adapters/common/memory_stream.hpp"
#include "core/ingest/walk.hpp"

namespace origin::adapters {

Discovery ZcodeAdapter::Discover() const {
  Discovery d = RootDiscovery(root_);
  if (!d.root_exists) return d;
  const std::string projects = root_ + "/cli/memories/projects";
  if (IsDirectory(projects)) {
    d.dirs.push_back(projects);
    for (const std::string& slug : SubDirs(projects)) {
      d.dirs.push_back(projects + "/" + slug);
      AddMemoryStream(d, projects + "/" + slug + "/memory", "memory/" + slug + ".jsonl");
    }
  }
  return d;
}

std::string ZcodeAdapter::Generate(const SourceFile& stream, std::string_view last_line,
                                   std::size_t max_bytes, std::int64_t now_ms) const {
  MemoryPlace place;
  std::string_view key = stream.key;  // memory/<slug>.jsonl
  key.remove_prefix(std::string_view("memory/").size());
  key.remove_suffix(std::string_view(".jsonl").size());
  place.project = WithoutHashSuffix(key, 16);
  return GenerateMemoryLines(stream, last_line, max_bytes, now_ms, place);
}

ParsedLine ZcodeAdapter::ParseLine(std::string_view line, ParseContext& ctx) const {
  if (ctx.key.rfind("memory/", 0) != 0) throw ParseError("not a ZCode memory stream");
  return ParseMemoryLine(line, [](std::string_view file, std::string_view content) {
    return MarkdownMemory(file, content, ClaudeStyleKind);
  });
}

}  // namespace origin::adapters
