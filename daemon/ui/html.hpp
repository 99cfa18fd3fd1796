// SPDX-License-Identifier: MIT
#pragma once
// The HTML builder every page of the web UI is written with (issue 16).
// Text reaches the output only through Escape(): element content and
// attribute values alike.  Tag and attribute names are string literals,
// checked when the page is compiled (consteval): letters, digits, '-' and
// ':', never (in any case) an event handler (on...), style= or srcdoc=, nor
// a script, iframe, object or embed element, so no page can emit script or
// inline style.  A URL attribute (href, action, src, formaction, in any
// case) passes only when SafeUrl() accepts it; any other is dropped, so a
// link to javascript: or data: becomes plain text around it.  Open
// elements are kept on a stack and Finish() closes what is left, so every
// page is balanced.

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace origin::ui {

/// Appends `text` escaped for element content and quoted attribute values:
/// & < > " ' as references; NUL and invalid UTF-8 as U+FFFD; other C0
/// controls but tab and newline as U+FFFD.
void AppendEscaped(std::string& out, std::string_view text);
std::string Escape(std::string_view text);

/// True for http:// and https:// URLs (with a host), and for our own
/// relative links: a path under /admin/ or "/admin", or a fragment "#...".
/// No control characters, spaces or backslashes anywhere.
bool SafeUrl(std::string_view url);
/// True for absolute http:// and https:// URLs alone (links in Markdown).
bool ExternalUrl(std::string_view url);

/// A name known when the page is compiled: a tag or attribute name.
struct Name {
  std::string_view text;
  consteval Name(const char* s) : text(s) {  // NOLINT(google-explicit-constructor)
    if (text.empty()) throw "empty name";
    for (char c : text)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == ':' ||
            (c >= 'A' && c <= 'Z')))
        throw "a tag or attribute name is letters, digits, '-' or ':'";
    if (Is("on", 2)) throw "no event handler attributes";
    if (Is("style") || Is("srcdoc") || Is("xlink:href")) throw "no inline style or document";
    if (Is("script") || Is("iframe") || Is("object") || Is("embed") || Is("frame"))
      throw "no script or embedded content";
  }
  /// Whether the name is `word` (its first `n` characters, when given), in any case.
  constexpr bool Is(std::string_view word, std::size_t n = std::string_view::npos) const {
    const std::string_view t = n == std::string_view::npos ? text : text.substr(0, n);
    if (t.size() != word.size()) return false;
    for (std::size_t i = 0; i < t.size(); ++i) {
      const char c = t[i] >= 'A' && t[i] <= 'Z' ? static_cast<char>(t[i] - 'A' + 'a') : t[i];
      if (c != word[i]) return false;
    }
    return true;
  }
};

struct Attr {
  Name name;
  std::string_view value;
  bool present = true;  // false: left out (a boolean attribute that is off)
};

class Html {
 public:
  Html() { out_.reserve(8192); }
  /// <tag attrs...>; closed by Close() or Finish().
  Html& Open(Name tag, std::initializer_list<Attr> attrs = {});
  Html& Open(Name tag, const std::vector<Attr>& attrs);
  /// </tag> of the innermost open element, which must be `tag`.
  Html& Close(Name tag);
  /// A void element (<input>, <br>, <meta>...) or an empty SVG one (<path/>);
  /// never another HTML element, which "/>" would leave open.
  Html& Void(Name tag, std::initializer_list<Attr> attrs = {});
  Html& Void(Name tag, const std::vector<Attr>& attrs);
  /// Escaped text.
  Html& Text(std::string_view text);
  /// <tag attrs>text</tag>.
  Html& Element(Name tag, std::initializer_list<Attr> attrs, std::string_view text);
  Html& Element(Name tag, std::string_view text) { return Element(tag, {}, text); }
  /// <script src defer></script> of one of our embedded assets: the only
  /// script a page can have (`src` must be under /admin/assets/).
  Html& AssetScript(std::string_view src);
  /// The document's "<!doctype html>", written first.
  Html& Doctype();
  /// Closes every element still open, and gives the document.
  std::string Finish();
  std::size_t Depth() const { return open_.size(); }

 private:
  void Attrs(const Attr* begin, const Attr* end);
  void StartTag(Name tag, const Attr* begin, const Attr* end, bool self_close);

  std::string out_;
  std::vector<std::string_view> open_;
};

}  // namespace origin::ui
