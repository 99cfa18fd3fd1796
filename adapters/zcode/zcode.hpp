// SPDX-License-Identifier: MIT
#pragma once
// ZCode (sources.md section 4), root $ZCODE_HOME or ~/.zcode.
//
// Read so far: the native memory (sources.md 4.4).  Each project's
// cli/memories/projects/<slug>/memory/ directory is a memory stream
// (adapters/common/memory_stream.hpp) mirrored as memory/<slug>.jsonl;
// <slug> is <lower-cased basename>-<16 hex>, so the project is the slug
// without its hash, and the cwd is unknown.  The files follow Claude Code's
// auto-memory: optional front matter with name, description and type, and a
// MEMORY.md index that derives no entry.  The sessions in cli/db/db.sqlite
// are not read yet (a generated source, issue 5).

#include <string>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

class ZcodeAdapter final : public SourceAdapter {
 public:
  explicit ZcodeAdapter(std::string root) : root_(std::move(root)) {}
  std::string_view id() const override { return "zcode"; }
  std::string_view display_name() const override { return "ZCode"; }
  const std::string& root() const override { return root_; }
  Discovery Discover() const override;
  ParsedLine ParseLine(std::string_view line, ParseContext& ctx) const override;
  std::string Generate(const SourceFile& stream, std::string_view last_line, std::size_t max_bytes,
                       std::int64_t now_ms) const override;

 private:
  std::string root_;
};

}  // namespace origin::adapters
