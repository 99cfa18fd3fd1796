// SPDX-License-Identifier: MIT
#pragma once
// A small structural checker of the web UI's HTML (issue 16), for tests:
// every tag balanced (void elements and SVG's self-closed ones aside), no
// '<' or '>' in text or attribute values that is not escaped, only the
// entities the builder writes, every attribute quoted, no style= or on*=
// attribute, no link but to http(s) or our own /admin, and no <script> but
// the embedded asset's, empty; every id once, and every field (input but
// hidden ones, select, textarea) labelled by a <label for>.  It also gives the text as a reader sees it
// (entities decoded), to check what a page shows.

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace origin::test {

struct HtmlCheck {
  std::string error;             // empty when well-formed
  std::string text;              // the text content, decoded
  std::map<std::string, int> tags;  // how many of each element
  std::vector<std::string> hrefs;
  bool ok() const { return error.empty(); }
  int Tag(const std::string& name) const {
    auto it = tags.find(name);
    return it == tags.end() ? 0 : it->second;
  }
};

inline HtmlCheck CheckHtml(std::string_view doc) {
  HtmlCheck r;
  auto fail = [&](std::string msg, std::size_t at) {
    if (r.error.empty())
      r.error = msg + " at " + std::to_string(at) + ": …" +
                std::string(doc.substr(at > 60 ? at - 60 : 0, 120)) + "…";
  };
  auto is_void = [](std::string_view t) {
    return t == "br" || t == "hr" || t == "img" || t == "input" || t == "link" || t == "meta" ||
           t == "wbr";
  };
  // Decodes `s` (text or an attribute value) into `out`, checking it.
  auto decode = [&](std::string_view s, std::size_t base, std::string* out) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '<' || s[i] == '>') return fail("unescaped < or >", base + i);
      if (s[i] != '&') {
        *out += s[i];
        continue;
      }
      static const std::pair<std::string_view, char> kEntities[] = {
          {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};
      bool known = false;
      for (const auto& [e, c] : kEntities) {
        if (s.substr(i, e.size()) == e) {
          *out += c;
          i += e.size() - 1;
          known = true;
          break;
        }
      }
      if (!known) return fail("an & that starts no entity the builder writes", base + i);
    }
  };
  std::vector<std::string> open;
  std::set<std::string> ids, label_for;
  std::vector<std::pair<std::string, std::size_t>> fields;  // id, where
  std::size_t i = 0;
  constexpr std::string_view kDoctype = "<!doctype html>";
  if (doc.substr(0, kDoctype.size()) == kDoctype) i = kDoctype.size();
  while (i < doc.size() && r.ok()) {
    const std::size_t lt = doc.find('<', i);
    const std::size_t text_end = lt == std::string_view::npos ? doc.size() : lt;
    decode(doc.substr(i, text_end - i), i, &r.text);
    if (lt == std::string_view::npos) break;
    std::size_t p = lt + 1;
    const bool end = p < doc.size() && doc[p] == '/';
    if (end) ++p;
    const std::size_t name_start = p;
    while (p < doc.size() && (std::isalnum(static_cast<unsigned char>(doc[p])) || doc[p] == '-')) ++p;
    std::string name(doc.substr(name_start, p - name_start));
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) {
      fail("a < that starts no tag", lt);
      break;
    }
    if (end) {
      if (p >= doc.size() || doc[p] != '>') return fail("a bad end tag", lt), r;
      if (open.empty() || open.back() != name) return fail("</" + name + "> closes nothing open", lt), r;
      open.pop_back();
      i = p + 1;
      continue;
    }
    bool self_closed = false;
    std::map<std::string, std::string> attrs;
    while (r.ok()) {
      while (p < doc.size() && doc[p] == ' ') ++p;
      if (p >= doc.size()) return fail("an unterminated tag", lt), r;
      if (doc[p] == '>') {
        ++p;
        break;
      }
      if (doc.substr(p, 2) == "/>") {
        self_closed = true;
        p += 2;
        break;
      }
      const std::size_t an = p;
      while (p < doc.size() && (std::isalnum(static_cast<unsigned char>(doc[p])) || doc[p] == '-' || doc[p] == ':')) ++p;
      std::string attr(doc.substr(an, p - an));
      if (attr.empty()) return fail("a bad attribute", p), r;
      std::string lower;
      for (char c : attr) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower == "style" || lower.rfind("on", 0) == 0 || lower == "srcdoc")
        return fail("a forbidden attribute " + attr, an), r;
      std::string value;
      if (p < doc.size() && doc[p] == '=') {
        if (p + 1 >= doc.size() || doc[p + 1] != '"') return fail("an unquoted attribute", p), r;
        const std::size_t q = doc.find('"', p + 2);
        if (q == std::string_view::npos) return fail("an unterminated attribute", p), r;
        decode(doc.substr(p + 2, q - p - 2), p + 2, &value);
        p = q + 1;
      }
      if (lower == "href" || lower == "src" || lower == "action") {
        const bool ours = value.rfind("/admin", 0) == 0 || value.rfind("#", 0) == 0;
        std::string scheme = value.substr(0, 8);  // the scheme in any case, as browsers read it
        for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const bool web = scheme.rfind("http://", 0) == 0 || scheme.rfind("https://", 0) == 0;
        if (!ours && !web) return fail("a link to " + value, an), r;
        if (lower == "href") r.hrefs.push_back(value);
      }
      attrs[lower] = value;
    }
    if (!r.ok()) break;
    ++r.tags[name];
    if (attrs.count("id") && !ids.insert(attrs["id"]).second) return fail("a second id " + attrs["id"], lt), r;
    if (name == "label" && attrs.count("for")) label_for.insert(attrs["for"]);
    if ((name == "input" && attrs["type"] != "hidden") || name == "select" || name == "textarea")
      fields.emplace_back(attrs.count("id") ? attrs["id"] : std::string(), lt);
    if (name == "script") {
      if (attrs["src"].rfind("/admin/assets/", 0) != 0) return fail("a script that is not our asset", lt), r;
      if (doc.substr(p, 9) != "</script>") return fail("a script with content", lt), r;
      i = p + 9;
      continue;
    }
    if (name == "style" || name == "iframe" || name == "object" || name == "embed")
      return fail("a <" + name + "> element", lt), r;
    if (!self_closed && !is_void(name)) open.push_back(name);
    // Text is separated from the next element's by a space, as a reader sees it.
    r.text += ' ';
    i = p;
  }
  if (r.ok() && !open.empty()) r.error = "<" + open.back() + "> is never closed";
  for (const auto& [id, at] : fields)
    if (r.ok() && (id.empty() || !label_for.count(id))) fail("a field without a label", at);
  return r;
}

}  // namespace origin::test
