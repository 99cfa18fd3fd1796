// SPDX-License-Identifier: MIT
#include "daemon/ui/html.hpp"

#include <cassert>

#include "core/util/text.hpp"

namespace origin::ui {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool IsUrlAttr(Name name) {
  return name.Is("href") || name.Is("action") || name.Is("src") || name.Is("formaction");
}

}  // namespace

void AppendEscaped(std::string& out, std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t start = i;
      const char32_t cp = DecodeUtf8(text, i);
      if (cp == 0xFFFD && text.substr(start, i - start) != kReplacement)
        out += kReplacement;
      else
        out.append(text.substr(start, i - start));
      continue;
    }
    ++i;
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t':
      case '\n': out += static_cast<char>(c); break;
      case '\r': out += '\n'; break;
      default:
        if (c < 0x20 || c == 0x7F)
          out += kReplacement;
        else
          out += static_cast<char>(c);
    }
  }
}

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  AppendEscaped(out, text);
  return out;
}

namespace {

bool CleanUrlChars(std::string_view url) {
  for (char ch : url) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c == 0x7F || c == '\\' || c == '"' || c == '<' || c == '>' || c == '`')
      return false;
  }
  return true;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

}  // namespace

bool ExternalUrl(std::string_view url) {
  if (url.size() > 8192 || !CleanUrlChars(url)) return false;
  std::string_view rest;
  if (StartsWithNoCase(url, "https://"))
    rest = url.substr(8);
  else if (StartsWithNoCase(url, "http://"))
    rest = url.substr(7);
  else
    return false;
  // A host: something before the first / ? #.
  const std::size_t end = rest.find_first_of("/?#");
  return end != 0 && !rest.empty();
}

bool SafeUrl(std::string_view url) {
  if (ExternalUrl(url)) return true;
  if (url.size() > 8192 || !CleanUrlChars(url)) return false;
  if (!url.empty() && url[0] == '#') return true;
  if (url == "/admin") return true;
  if (!url.starts_with("/admin/") && !url.starts_with("/admin?")) return false;
  // No dot segments in the path: a link of ours stays under /admin.
  const std::string_view path = url.substr(0, url.find_first_of("?#"));
  return path.find("/.") == std::string_view::npos;
}

void Html::Attrs(const Attr* begin, const Attr* end) {
  for (const Attr* a = begin; a != end; ++a) {
    if (!a->present) continue;
    if (IsUrlAttr(a->name) && !SafeUrl(a->value)) continue;
    out_ += ' ';
    out_ += a->name.text;
    out_ += "=\"";
    AppendEscaped(out_, a->value);
    out_ += '"';
  }
}

void Html::StartTag(Name tag, const Attr* begin, const Attr* end, bool self_close) {
  out_ += '<';
  out_ += tag.text;
  Attrs(begin, end);
  out_ += self_close ? "/>" : ">";
}

Html& Html::Open(Name tag, std::initializer_list<Attr> attrs) {
  StartTag(tag, attrs.begin(), attrs.end(), false);
  open_.push_back(tag.text);
  return *this;
}

Html& Html::Open(Name tag, const std::vector<Attr>& attrs) {
  StartTag(tag, attrs.data(), attrs.data() + attrs.size(), false);
  open_.push_back(tag.text);
  return *this;
}

Html& Html::Close(Name tag) {
  assert(!open_.empty() && open_.back() == tag.text);
  (void)tag;
  out_ += "</";
  out_ += open_.back();
  out_ += '>';
  open_.pop_back();
  return *this;
}

namespace {
bool IsHtmlVoid(std::string_view t) {
  return t == "br" || t == "hr" || t == "img" || t == "input" || t == "link" || t == "meta" ||
         t == "wbr";
}
}  // namespace

Html& Html::Void(Name tag, std::initializer_list<Attr> attrs) {
  StartTag(tag, attrs.begin(), attrs.end(), !IsHtmlVoid(tag.text));
  return *this;
}

Html& Html::Void(Name tag, const std::vector<Attr>& attrs) {
  StartTag(tag, attrs.data(), attrs.data() + attrs.size(), !IsHtmlVoid(tag.text));
  return *this;
}

Html& Html::Text(std::string_view text) {
  AppendEscaped(out_, text);
  return *this;
}

Html& Html::Element(Name tag, std::initializer_list<Attr> attrs, std::string_view text) {
  StartTag(tag, attrs.begin(), attrs.end(), false);
  AppendEscaped(out_, text);
  out_ += "</";
  out_ += tag.text;
  out_ += '>';
  return *this;
}

Html& Html::AssetScript(std::string_view src) {
  if (!src.starts_with("/admin/assets/") || !SafeUrl(src)) return *this;
  out_ += "<script src=\"";
  AppendEscaped(out_, src);
  out_ += "\" defer></script>";
  return *this;
}

Html& Html::Doctype() {
  out_ += "<!doctype html>\n";
  return *this;
}

std::string Html::Finish() {
  while (!open_.empty()) {
    out_ += "</";
    out_ += open_.back();
    out_ += '>';
    open_.pop_back();
  }
  return std::move(out_);
}

}  // namespace origin::ui
