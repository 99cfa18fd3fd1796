// SPDX-License-Identifier: MIT
#pragma once
// What a tool answers an agent: the operation's answer (the JSON the CLI's
// --json prints) reshaped for a context window (docs/architecture.md, MCP
// answers).  Every answer: no null member (what is unknown is left out),
// times once (local ISO 8601, not also milliseconds), long strings cut to
// the bound with a marker saying how to read the rest.  search: snippets
// instead of texts, a rank instead of a BM25 score, event hits grouped by
// session under its title, a page (offset, more, next_offset); timeline:
// sessions compactly, or a page of a session's events with previews of
// their texts.  Snippets and previews share a budget of characters.
//
// Runs on the worker that ran the operation, on its connection.

#include <rapidjson/document.h>

#include <string>

#include "core/c/sqlite.hpp"
#include "daemon/mcp/tools.hpp"

namespace origin::mcp {

/// A tool's JSON answer stays under about 20,000 tokens (rpc::BoundStrings).
inline constexpr std::size_t kMaxAnswer = 80000;
/// What a search answer, and a page of a session's events, hold at most in
/// characters, about (docs/performance.md: 6,000, 12,000 with tool events,
/// 8,000): the snippets, or the previews, share what the rest leaves.
inline constexpr std::size_t kSearchChars = 5600, kSearchToolsChars = 11000, kPageChars = 7700;
/// Bounds of a snippet, and of a preview, in characters.
inline constexpr std::size_t kSnippetMin = 48, kSnippetMax = 240;
inline constexpr std::size_t kPreviewMin = 24, kPreviewMax = 200;
/// A session's title or first prompt, at most.
inline constexpr std::size_t kTitleChars = 100;

/// `json`, the answer of `tool`'s operation to the checked `args`, as the
/// agent gets it.
std::string ShapeAnswer(const Tool& tool, const rapidjson::Value& args, Db& db, std::string json);

}  // namespace origin::mcp
