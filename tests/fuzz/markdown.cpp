// SPDX-License-Identifier: MIT
// Harness: the web UI's Markdown renderer (daemon/ui/markdown.hpp), the one
// piece of the UI that reads what agents wrote for structure.  The input is
// a message's text.  Besides not crashing, the rendering must be well-formed
// HTML with every piece of text escaped, no link but to http(s), no script
// and no style (tests/unit/daemon/html_check.hpp), and its size bounded by
// the input's (no blow-up from nesting or delimiters).

#include <cstdlib>

#include "daemon/ui/html.hpp"
#include "daemon/ui/markdown.hpp"
#include "tests/fuzz/fuzz.hpp"
#include "tests/unit/daemon/html_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = origin::fuzz::Text(data, size);
  origin::ui::Html h;
  h.Open("div");
  origin::ui::RenderMarkdown(h, text);
  const std::string out = h.Finish();
  // Every input byte becomes at most a reference of 6 bytes (&quot;) or
  // U+FFFD (3), plus a bounded number of tags per line and delimiter.
  if (out.size() > 64 + 80 * size) std::abort();
  if (!origin::test::CheckHtml(out).ok()) std::abort();
  return 0;
}
