// SPDX-License-Identifier: MIT
#pragma once
// The Markdown of agents' messages, rendered for the web UI (issue 16; the
// spec's Admin UI, "Responses"): paragraphs, ATX headings, emphasis (* _ **
// __), inline code, fenced code, lists (- * + and 1. 1)), blockquotes,
// thematic breaks, GitHub's pipe tables, and links [text](url).  The
// renderer only recognises structure: every piece of text goes through the
// builder's escaping (daemon/ui/html.hpp), so HTML in a message stays text.
// A link becomes an <a> only to an http or https URL, opening in a new tab
// with rel="noopener noreferrer", its URL shown beside it; any other stays
// text.  Work is bounded: blocks nest at most kMaxDepth deep (deeper
// markers stay text), every line is scanned a bounded number of times, and
// inline delimiters look for their closers with remembered positions, so
// pathological emphasis or brackets are linear.

#include <string_view>

#include "daemon/ui/html.hpp"

namespace origin::ui {

inline constexpr int kMaxMarkdownDepth = 8;

/// Renders `text` as Markdown into `out` (block elements; the caller wraps
/// them, e.g. in <div class="md">).
void RenderMarkdown(Html& out, std::string_view text);

}  // namespace origin::ui
