// SPDX-License-Identifier: MIT
#pragma once
// Grok Build (sources.md section 5), root $GROK_HOME or ~/.grok.
//
// Read so far: the native memory (sources.md 5.5), plain Markdown without
// front matter, as memory streams (adapters/common/memory_stream.hpp):
//   memory/                    memory/global.jsonl: the global MEMORY.md
//   memory/<ws>/               memory/<ws>.jsonl: a workspace's MEMORY.md
//   memory/<ws>/sessions/      memory/<ws>/sessions.jsonl: per-session logs
// where <ws> is <project-slug>-<8 hex>.  A MEMORY.md here is the memory
// itself (curated by Grok's "dream"), not an index: it is knowledge; a
// session log is memory (what happened), ended when dream consumes and
// deletes it.  The sessions (updates.jsonl, summary.json) are not read yet.

#include <string>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

class GrokAdapter final : public SourceAdapter {
 public:
  explicit GrokAdapter(std::string root) : root_(std::move(root)) {}
  std::string_view id() const override { return "grok"; }
  std::string_view display_name() const override { return "Grok Build"; }
  const std::string& root() const override { return root_; }
  Discovery Discover() const override;
  ParsedLine ParseLine(std::string_view line, ParseContext& ctx) const override;
  std::string Generate(const SourceFile& stream, std::string_view last_line, std::size_t max_bytes,
                       std::int64_t now_ms) const override;

 private:
  std::string root_;
};

}  // namespace origin::adapters
