// SPDX-License-Identifier: MIT
#include "adapters/zcode/zcode.hpp"

#include "adapters/common/json.hpp"
#include "adapters/common/memory_stream.hpp"
#include "core/ingest/walk.hpp"

namespace origin::adapters {

namespace {

// <lower-cased basename>-<16 hex>: the basename.
std::string ProjectOfSlug(std::string_view slug) {
  std::size_t dash = slug.rfind('-');
  if (dash == std::string_view::npos || slug.size() - dash - 1 != 16) return std::string(slug);
  return std::string(slug.substr(0, dash));
}

}  // namespace

Discovery ZcodeAdapter::Discover() const {
  Discovery d;
  d.root_exists = IsDirectory(root_);
  if (!d.root_exists) return d;
  d.dirs.push_back(root_);
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
  place.project = ProjectOfSlug(key);
  return GenerateMemoryLines(stream, last_line, max_bytes, now_ms, place);
}

ParsedLine ZcodeAdapter::ParseLine(std::string_view line, ParseContext& ctx) const {
  if (ctx.key.rfind("memory/", 0) != 0) throw ParseError("not a ZCode memory stream");
  return ParseMemoryLine(line, [](std::string_view file, std::string_view content) {
    return MarkdownMemory(file, content, ClaudeStyleKind);
  });
}

}  // namespace origin::adapters
