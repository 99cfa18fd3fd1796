// SPDX-License-Identifier: MIT
#include "client/config_merge.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace origin::client {

namespace {

constexpr unsigned kJsonFlags = rapidjson::kParseFullPrecisionFlag | rapidjson::kParseIterativeFlag;

// `s` without the white space around it (a file of blank lines is empty).
std::string Trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  std::size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// ---- JSON and JSONC, edited as text ---------------------------------------

// A JSON (or JSONC) file, read for editing in place.  `clean` is the text
// with every comment (and, in JSONC, every trailing comma) blanked to
// spaces, byte for byte, so that positions in it are positions in `text`;
// `comment` marks the bytes of comments.  Everything is found by scanning
// `clean`, which has been checked to be JSON first, without recursion (a
// file nested 100,000 deep is only skipped over).
class JsonEdit {
 public:
  struct Member {
    std::string key;
    std::size_t key_begin = 0, value_begin = 0, value_end = 0;
  };
  struct Object {
    std::size_t begin = 0, end = 0;  // '{' and one past '}'
    std::vector<Member> members;
  };

  JsonEdit(std::string text, bool jsonc) : text_(std::move(text)), jsonc_(jsonc) {
    fresh_ = Trim(text_).empty();
    if (fresh_) text_ = "{}\n";
    Load();
  }
  const std::string& text() const { return text_; }
  bool fresh() const { return fresh_; }
  const std::string& clean() const { return clean_; }

  // The object at the end of `path` (keys from the top), or nothing when a
  // key is missing; throws when a value on the way is not an object, or a
  // key is there twice.
  std::optional<Object> Find(const std::vector<std::string>& path) const {
    Object o = ObjectAt(Skip(0));
    std::string where;
    for (const std::string& k : path) {
      where += where.empty() ? "\"" + k + "\"" : ".\"" + k + "\"";
      const Member* m = MemberOf(o, k);
      if (m == nullptr) return std::nullopt;
      if (clean_[m->value_begin] != '{') throw std::runtime_error("its " + where + " is not an object");
      o = ObjectAt(m->value_begin);
    }
    return o;
  }
  const Member* MemberOf(const Object& o, const std::string& key) const {
    const Member* found = nullptr;
    for (const Member& m : o.members) {
      if (m.key != key) continue;
      if (found != nullptr) throw std::runtime_error("it has \"" + key + "\" twice in one object");
      found = &m;
    }
    return found;
  }
  // The value of a member, parsed.
  rapidjson::Document Value(const Member& m) const {
    rapidjson::Document d;
    d.Parse<kJsonFlags>(clean_.data() + m.value_begin, m.value_end - m.value_begin);
    return d;
  }

  // Sets `key` of the object at `path` (which must be there) to `v`: its
  // value replaced when it differs, else a member added after the last.
  void Set(const std::vector<std::string>& path, const std::string& key, const rapidjson::Value& v) {
    Object o = *Find(path);
    if (const Member* m = MemberOf(o, key)) {
      if (Value(*m) == v) return;
      Replace(m->value_begin, m->value_end,
              Render(v, LineIndent(m->key_begin), Multiline(o)), path, key);
      return;
    }
    const bool multi = Multiline(o);
    if (!o.members.empty()) {
      const std::string indent = LineIndent(o.members.front().key_begin);
      const std::string member = Quote(key) + (multi ? ": " : ":") + Render(v, indent, multi);
      const std::size_t p = o.members.back().value_end;
      // A comment that ends the last member's line stays with it: the new
      // member goes on the next line.
      std::size_t q = p;
      bool comma = false;
      while (q < text_.size() && (text_[q] == ' ' || text_[q] == '\t' || (text_[q] == ',' && !comma))) {
        comma = comma || text_[q] == ',';
        ++q;
      }
      if (multi && q < text_.size() && comment_[q] && text_.compare(q, 2, "//") == 0) {
        std::size_t eol = text_.find('\n', q);
        if (eol == std::string::npos) eol = text_.size();
        // In the file's style: a trailing comma when the last member had one.
        text_.insert(eol, "\n" + indent + member + (comma ? "," : ""));
        if (!comma) text_.insert(p, ",");
        Load();
        return;
      }
      Replace(p, p, (multi ? ",\n" + indent : std::string(",")) + member, path, key);
      return;
    }
    const std::string base = LineIndent(o.begin), inner = base + Unit();
    const std::string member = Quote(key) + (multi ? ": " : ":") + Render(v, inner, multi);
    const std::string inside = text_.substr(o.begin + 1, o.end - o.begin - 2);
    if (Trim(inside).empty())
      Replace(o.begin + 1, o.end - 1, multi ? "\n" + inner + member + "\n" + base : member, path, key);
    else  // only comments inside: the member goes before them
      Replace(o.begin + 1, o.begin + 1, (multi ? "\n" + inner : "") + member, path, key);
  }

  // Removes `key` from the object at `path`, with the comma that separated
  // it; comments inside it, and one that ends its line, go with it.  A
  // member alone on its lines takes its lines; a trailing comma (JSONC)
  // stays as the file had it.
  void Remove(const std::vector<std::string>& path, const std::string& key) {
    std::optional<Object> o = Find(path);
    if (!o) return;
    const Member* m = MemberOf(*o, key);
    if (m == nullptr) return;
    const std::size_t i = static_cast<std::size_t>(m - o->members.data());
    const bool own_line = LineStarts(m->key_begin);
    // Its own comma (a separator, or a trailing one), in the text.
    std::size_t q = m->value_end;
    while (q < text_.size() && IsSpace(text_[q])) ++q;
    const bool own_comma = q < text_.size() && text_[q] == ',';
    if (o->members.size() == 1) {
      // The only member: the object becomes {} when nothing else is in it.
      std::size_t after = own_comma ? q + 1 : m->value_end;
      bool other_comments = false;
      for (std::size_t p = o->begin + 1; p + 1 < o->end; ++p)
        if (comment_[p] && (p < m->key_begin || p >= after)) other_comments = true;
      if (!other_comments) {
        text_.replace(o->begin + 1, o->end - o->begin - 2, "");
        Load();
        return;
      }
      text_.replace(m->key_begin, after - m->key_begin, "");
      Load();
      return;
    }
    std::size_t from = m->key_begin, to = own_comma ? q + 1 : m->value_end;
    // A comment that ends its line is about it.
    std::size_t r = to;
    while (r < text_.size() && (text_[r] == ' ' || text_[r] == '\t')) ++r;
    if (r < text_.size() && comment_[r] && text_.compare(r, 2, "//") == 0) {
      r = text_.find('\n', r);
      to = r == std::string::npos ? text_.size() : r;
      r = to;
    }
    const bool line_ends = r >= text_.size() || text_[r] == '\n';
    std::size_t separator = std::string::npos;  // the comma before it, to go too
    if (i + 1 < o->members.size()) {
      // Up to the next member: the next takes its place, indentation and all.
      if (own_line && line_ends) {
        from = LineStart(m->key_begin);
        to = r < text_.size() ? r + 1 : r;
      } else {
        while (to < text_.size() && IsSpace(text_[to]) && !comment_[to]) ++to;
      }
    } else {
      // The last: its line goes with the newline before it, and the comma
      // after the one before, unless it had a trailing comma of its own.
      if (own_line && line_ends && LineStart(m->key_begin) > 0) from = LineStart(m->key_begin) - 1;
      if (!own_comma) separator = Skip(o->members[i - 1].value_end);
    }
    text_.replace(from, to - from, "");
    if (separator != std::string::npos && separator < from && text_[separator] == ',')
      text_.erase(separator, 1);
    Load();
  }

 private:
  void Load() {
    clean_ = text_;
    comment_.assign(text_.size(), false);
    bool in_string = false;
    // The last comma outside strings and comments, until something else
    // comes: followed by a closing bracket, it is a trailing comma (JSONC).
    std::size_t comma = std::string::npos;
    for (std::size_t i = 0; i < clean_.size(); ++i) {
      char c = clean_[i];
      if (in_string) {
        if (c == '\\')
          ++i;
        else if (c == '"')
          in_string = false;
        continue;
      }
      if (jsonc_ && c == '/' && i + 1 < clean_.size() &&
          (clean_[i + 1] == '/' || clean_[i + 1] == '*')) {
        const bool line = clean_[i + 1] == '/';
        std::size_t end = line ? clean_.find('\n', i) : clean_.find("*/", i + 2);
        if (end == std::string::npos) {
          if (!line) throw std::runtime_error("it is not valid JSONC (a comment is not closed)");
          end = clean_.size();
        } else if (!line) {
          end += 2;
        }
        for (std::size_t j = i; j < end; ++j) {
          comment_[j] = true;
          if (clean_[j] != '\n') clean_[j] = ' ';
        }
        i = end - 1;
        continue;
      }
      if (IsSpace(c)) continue;
      if (jsonc_ && (c == '}' || c == ']') && comma != std::string::npos) clean_[comma] = ' ';
      comma = c == ',' ? i : std::string::npos;
      in_string = c == '"';
    }
    rapidjson::Document d;
    d.Parse<kJsonFlags>(clean_.data(), clean_.size());
    if (d.HasParseError())
      throw std::runtime_error(std::string("it is not valid ") + (jsonc_ ? "JSONC" : "JSON") +
                               " (" + rapidjson::GetParseError_En(d.GetParseError()) +
                               " at byte " + std::to_string(d.GetErrorOffset()) + ")");
    if (!d.IsObject()) throw std::runtime_error("it is not a JSON object");
  }

  std::size_t Skip(std::size_t p) const {
    while (p < clean_.size() && IsSpace(clean_[p])) ++p;
    return p;
  }
  std::size_t SkipString(std::size_t p) const {  // at '"'; one past the closing '"'
    for (++p; p < clean_.size() && clean_[p] != '"'; ++p)
      if (clean_[p] == '\\') ++p;
    return p + 1;
  }
  std::size_t SkipValue(std::size_t p) const {
    if (clean_[p] == '"') return SkipString(p);
    if (clean_[p] == '{' || clean_[p] == '[') {
      std::size_t depth = 0;
      while (p < clean_.size()) {
        char c = clean_[p];
        if (c == '"') {
          p = SkipString(p);
          continue;
        }
        if (c == '{' || c == '[') ++depth;
        if ((c == '}' || c == ']') && --depth == 0) return p + 1;
        ++p;
      }
      return p;
    }
    while (p < clean_.size() && !IsSpace(clean_[p]) && clean_[p] != ',' && clean_[p] != '}' &&
           clean_[p] != ']')
      ++p;
    return p;
  }
  Object ObjectAt(std::size_t p) const {
    Object o;
    o.begin = p;
    p = Skip(p + 1);
    while (clean_[p] != '}') {
      Member m;
      m.key_begin = p;
      const std::size_t key_end = SkipString(p);
      rapidjson::Document k;
      k.Parse(clean_.data() + p, key_end - p);
      m.key = k.IsString() ? std::string(k.GetString(), k.GetStringLength()) : "";
      p = Skip(Skip(key_end) + 1);  // past ':'
      m.value_begin = p;
      m.value_end = SkipValue(p);
      o.members.push_back(std::move(m));
      p = Skip(o.members.back().value_end);
      if (clean_[p] == ',') p = Skip(p + 1);
    }
    o.end = p + 1;
    return o;
  }

  // Where the line `p` is on starts.
  std::size_t LineStart(std::size_t p) const {
    const std::size_t b = p == 0 ? std::string::npos : text_.rfind('\n', p - 1);
    return b == std::string::npos ? 0 : b + 1;
  }
  bool LineStarts(std::size_t p) const {
    return text_.find_first_not_of(" \t", LineStart(p)) == p;
  }
  // The white space that starts the line `p` is on.
  std::string LineIndent(std::size_t p) const {
    std::size_t b = p == 0 ? std::string::npos : text_.rfind('\n', p - 1);
    b = b == std::string::npos ? 0 : b + 1;
    std::size_t e = b;
    while (e < text_.size() && (text_[e] == ' ' || text_[e] == '\t')) ++e;
    return text_.substr(b, e - b);
  }
  // One level of indentation, as the file's top object uses it (two spaces
  // when it shows none).
  std::string Unit() const {
    const Object top = ObjectAt(Skip(0));
    if (!top.members.empty() && LineStarts(top.members.front().key_begin)) {
      std::string a = LineIndent(top.begin), b = LineIndent(top.members.front().key_begin);
      if (b.size() > a.size() && b.compare(0, a.size(), a) == 0) return b.substr(a.size());
    }
    return "  ";
  }
  // Whether the object is written over several lines (an empty one: when
  // the file is, or when it is the whole file).
  bool Multiline(const Object& o) const {
    if (!o.members.empty())
      return text_.substr(o.begin, o.members.front().key_begin - o.begin).find('\n') !=
             std::string::npos;
    return Trim(text_).find('\n') != std::string::npos || Skip(0) == o.begin;
  }
  std::string Render(const rapidjson::Value& v, const std::string& indent, bool multi) const {
    rapidjson::StringBuffer sb;
    if (multi) {
      const std::string unit = Unit();
      rapidjson::PrettyWriter<rapidjson::StringBuffer> w(sb);
      w.SetIndent(unit[0], static_cast<unsigned>(unit.size()));
      v.Accept(w);
    } else {
      rapidjson::Writer<rapidjson::StringBuffer> w(sb);
      v.Accept(w);
    }
    std::string out;
    for (const char* c = sb.GetString(); *c != '\0'; ++c) {
      out += *c;
      if (*c == '\n') out += indent;
    }
    return out;
  }
  static std::string Quote(const std::string& s) {
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    return sb.GetString();
  }
  // Replaces [from, to) with `with`; refused when a comment would go.
  void Replace(std::size_t from, std::size_t to, const std::string& with,
               const std::vector<std::string>& path, const std::string& key) {
    for (std::size_t p = from; p < to; ++p)
      if (comment_[p]) {
        std::string where;
        for (const std::string& k : path) where += k + ".";
        throw std::runtime_error("setting " + where + key +
                                 " would lose a comment inside it; origin changes nothing");
      }
    text_.replace(from, to - from, with);
    Load();
  }

  std::string text_, clean_;
  std::vector<bool> comment_;
  bool jsonc_ = false, fresh_ = false;
};

rapidjson::Value StringValue(const std::string& s, rapidjson::Document::AllocatorType& a) {
  return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// mcpServers.origin as it should be.
void ServerValue(const McpServer& server, bool typed, rapidjson::Document& d) {
  auto& a = d.GetAllocator();
  d.SetObject();
  if (typed) d.AddMember("type", "stdio", a);
  d.AddMember("command", StringValue(server.command, a), a);
  rapidjson::Value args(rapidjson::kArrayType);
  for (const std::string& s : server.args) args.PushBack(StringValue(s, a), a);
  d.AddMember("args", args, a);
  if (!server.env.empty()) {
    rapidjson::Value env(rapidjson::kObjectType);
    for (const auto& [k, v] : server.env) env.AddMember(StringValue(k, a), StringValue(v, a), a);
    d.AddMember("env", env, a);
  }
}

const std::vector<std::string> kServers = {"mcpServers"};
const std::vector<std::string> kOrigin = {"mcpServers", "origin"};
const std::vector<std::string> kEnv = {"mcpServers", "origin", "env"};

// ---- TOML -------------------------------------------------------------------

// The table a TOML header line names ("mcp_servers.origin"), or "" for a
// line that is not a table header.  Quoted keys lose their quotes.
std::string TomlHeader(const std::string& line) {
  std::string t = Trim(line);
  if (t.size() < 3 || t[0] != '[' || t[1] == '[') return "";
  std::size_t close = t.find(']');
  if (close == std::string::npos) return "";
  std::string name;
  for (char c : t.substr(1, close - 1))
    if (c != ' ' && c != '\t' && c != '"' && c != '\'') name += c;
  return name;
}

// The key a TOML "key = value" line sets, or "".
std::string TomlKey(const std::string& line) {
  std::string t = Trim(line);
  if (t.empty() || t[0] == '#' || t[0] == '[') return "";
  std::size_t eq = t.find('=');
  if (eq == std::string::npos) return "";
  std::string key;
  for (char c : t.substr(0, eq))
    if (c != ' ' && c != '\t' && c != '"' && c != '\'') key += c;
  return key;
}

// What follows the '=' of a "key = value" line.
std::string TomlValue(const std::string& line) {
  std::size_t eq = line.find('=');
  return eq == std::string::npos ? "" : Trim(line.substr(eq + 1));
}

std::string TomlString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

void AppendUtf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Reads a TOML string (basic "..." or literal '...') at s[*at]; advances
// past it.  Nothing when there is none there.
std::optional<std::string> TomlStringAt(const std::string& s, std::size_t* at) {
  std::size_t p = *at;
  if (p >= s.size() || (s[p] != '"' && s[p] != '\'')) return std::nullopt;
  const char q = s[p++];
  std::string out;
  while (p < s.size() && s[p] != q) {
    if (q == '"' && s[p] == '\\' && p + 1 < s.size()) {
      char e = s[++p];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u':
        case 'U': {
          const std::size_t n = e == 'u' ? 4 : 8;
          if (p + n >= s.size()) return std::nullopt;
          const std::string hex = s.substr(p + 1, n);
          if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
            return std::nullopt;
          AppendUtf8(out, std::stoul(hex, nullptr, 16));
          p += n;
          break;
        }
        default: out += e;
      }
      ++p;
      continue;
    }
    out += s[p++];
  }
  if (p >= s.size()) return std::nullopt;
  *at = p + 1;
  return out;
}

void SkipTomlSpace(const std::string& s, std::size_t* at) {
  while (*at < s.size() && (s[*at] == ' ' || s[*at] == '\t')) ++*at;
}

// An inline table of strings, `{ K = "V", "K 2" = 'W' }`: its pairs, and
// where it ends; nothing when it is another form.
std::optional<std::vector<std::pair<std::string, std::string>>> TomlInlineStrings(
    const std::string& s, std::size_t* at) {
  std::size_t p = *at;
  SkipTomlSpace(s, &p);
  if (p >= s.size() || s[p] != '{') return std::nullopt;
  ++p;
  std::vector<std::pair<std::string, std::string>> out;
  for (;;) {
    SkipTomlSpace(s, &p);
    if (p < s.size() && s[p] == '}') break;
    std::string key;
    if (auto q = TomlStringAt(s, &p)) {
      key = *q;
    } else {
      while (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) != 0 || s[p] == '_' ||
                              s[p] == '-'))
        key += s[p++];
    }
    if (key.empty()) return std::nullopt;
    SkipTomlSpace(s, &p);
    if (p >= s.size() || s[p] != '=') return std::nullopt;
    ++p;
    SkipTomlSpace(s, &p);
    auto v = TomlStringAt(s, &p);
    if (!v) return std::nullopt;
    out.emplace_back(key, *v);
    SkipTomlSpace(s, &p);
    if (p < s.size() && s[p] == ',') {
      ++p;
      continue;
    }
    SkipTomlSpace(s, &p);
    if (p >= s.size() || s[p] != '}') return std::nullopt;
    break;
  }
  *at = p + 1;
  return out;
}

std::string TomlBareOrQuoted(const std::string& k) {
  for (char c : k)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_' && c != '-')
      return TomlString(k);
  return k.empty() ? "\"\"" : k;
}

std::string TomlInline(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out = "{ ";
  for (std::size_t i = 0; i < pairs.size(); ++i)
    out += (i > 0 ? ", " : "") + TomlBareOrQuoted(pairs[i].first) + " = " +
           TomlString(pairs[i].second);
  return out + " }";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::optional<std::string> Changed(const std::vector<std::string>& out,
                                   const std::string& existing) {
  std::string text;
  for (const std::string& l : out) text += l + "\n";
  std::string old = existing;
  if (!old.empty() && old.back() != '\n') old += '\n';
  if (text == old) return std::nullopt;
  return text;
}

// Where [mcp_servers.origin] and its subtables are in a config.toml.
struct TomlTables {
  std::ptrdiff_t header = -1, end = -1;  // the table: its header line, the next header
  std::ptrdiff_t env = -1, env_end = -1;  // [mcp_servers.origin.env]
  std::vector<std::pair<std::ptrdiff_t, std::ptrdiff_t>> all;  // it and every subtable
};

TomlTables FindTables(const std::vector<std::string>& lines) {
  TomlTables t;
  std::string table;
  const auto n = static_cast<std::ptrdiff_t>(lines.size());
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const std::string& line = lines[static_cast<std::size_t>(i)];
    std::string h = TomlHeader(line);
    if (!h.empty()) {
      if (!t.all.empty() && t.all.back().second < 0) t.all.back().second = i;
      if (t.header >= 0 && t.end < 0) t.end = i;
      if (t.env >= 0 && t.env_end < 0) t.env_end = i;
      table = h;
      if (h == "mcp_servers.origin") {
        if (t.header >= 0) throw std::runtime_error("it has [mcp_servers.origin] twice");
        t.header = i;
      } else if (h == "mcp_servers.origin.env") {
        t.env = i;
      }
      if (h == "mcp_servers.origin" || h.rfind("mcp_servers.origin.", 0) == 0)
        t.all.emplace_back(i, -1);
      continue;
    }
    std::string key = TomlKey(line);
    std::string full = table.empty() ? key : table + "." + key;
    if (!key.empty() && table != "mcp_servers.origin" &&
        table.rfind("mcp_servers.origin.", 0) != 0 &&
        (full == "mcp_servers.origin" || full.rfind("mcp_servers.origin.", 0) == 0))
      throw std::runtime_error("it defines mcp_servers.origin in a form origin does not edit (" +
                               Trim(line) +
                               "); write it as a [mcp_servers.origin] table, or remove it");
  }
  if (t.header >= 0 && t.end < 0) t.end = n;
  if (t.env >= 0 && t.env_end < 0) t.env_end = n;
  if (!t.all.empty() && t.all.back().second < 0) t.all.back().second = n;
  return t;
}

// The last line of a value that starts at line i (a multi-line array ends
// at its closing bracket), before `end`.
std::ptrdiff_t ValueEnd(const std::vector<std::string>& lines, std::ptrdiff_t i, std::ptrdiff_t end) {
  int depth = 0;
  for (std::ptrdiff_t j = i;; ++j) {
    std::size_t at = 0;
    const std::string& l = lines[static_cast<std::size_t>(j)];
    if (j == i) at = l.find('=') + 1;
    for (; at < l.size(); ++at) {
      char c = l[at];
      if (c == '"' || c == '\'') {
        if (!TomlStringAt(l, &at)) break;
        --at;
        continue;
      }
      if (c == '#') break;
      depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    }
    if (depth <= 0 || j + 1 >= end) return j;
  }
}

}  // namespace

std::optional<std::string> MergeJsonServer(const std::string& existing, const McpServer& server,
                                           bool typed, bool jsonc) {
  JsonEdit e(existing, jsonc);
  rapidjson::Document want;
  ServerValue(server, typed, want);
  if (!e.Find(kServers)) {
    rapidjson::Document servers;
    servers.SetObject();
    rapidjson::Value origin(want, servers.GetAllocator());
    servers.AddMember("origin", origin, servers.GetAllocator());
    e.Set({}, "mcpServers", servers);
  } else if (!e.Find(kOrigin)) {
    e.Set(kServers, "origin", want);
  } else {
    if (typed) e.Set(kOrigin, "type", want["type"]);
    e.Set(kOrigin, "command", want["command"]);
    e.Set(kOrigin, "args", want["args"]);
    // An url (a hub's server registered under this name) would be ambiguous.
    e.Remove(kOrigin, "url");
    const auto home = server.env.find("ORIGIN_HOME");
    if (home != server.env.end()) {
      if (!e.Find(kEnv))
        e.Set(kOrigin, "env", want["env"]);
      else
        e.Set(kEnv, "ORIGIN_HOME", want["env"]["ORIGIN_HOME"]);
    } else if (e.Find(kEnv)) {
      e.Remove(kEnv, "ORIGIN_HOME");
    }
  }
  if (!e.fresh() && e.text() == existing) return std::nullopt;
  return e.text();
}

std::optional<std::string> RemoveJsonServer(const std::string& existing, bool jsonc) {
  if (Trim(existing).empty()) return std::nullopt;
  JsonEdit e(existing, jsonc);
  std::optional<JsonEdit::Object> servers = e.Find(kServers);
  if (!servers || e.MemberOf(*servers, "origin") == nullptr) return std::nullopt;
  e.Remove(kServers, "origin");
  return e.text();
}

std::optional<Registration> ReadJsonServer(const std::string& existing, bool jsonc) {
  if (Trim(existing).empty()) return std::nullopt;
  JsonEdit e(existing, jsonc);
  std::optional<JsonEdit::Object> servers = e.Find(kServers);
  if (!servers) return std::nullopt;
  const JsonEdit::Member* m = e.MemberOf(*servers, "origin");
  if (m == nullptr) return std::nullopt;
  rapidjson::Document v = e.Value(*m);
  if (!v.IsObject()) throw std::runtime_error("its \"mcpServers\".\"origin\" is not an object");
  Registration r;
  auto str = [&](const char* k) {
    auto it = v.FindMember(k);
    return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString()) : "";
  };
  r.command = str("command");
  r.url = str("url");
  if (auto it = v.FindMember("args"); it != v.MemberEnd() && it->value.IsArray())
    for (const auto& a : it->value.GetArray())
      if (a.IsString()) r.args.emplace_back(a.GetString());
  if (auto it = v.FindMember("env"); it != v.MemberEnd() && it->value.IsObject())
    for (const auto& kv : it->value.GetObject())
      if (kv.value.IsString()) r.env[kv.name.GetString()] = kv.value.GetString();
  return r;
}

std::string RenderJsonServer(const McpServer& server, bool typed) {
  rapidjson::Document d;
  ServerValue(server, typed, d);
  rapidjson::StringBuffer sb;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(sb);
  w.SetIndent(' ', 2);
  d.Accept(w);
  return "\"origin\": " + std::string(sb.GetString()) + "\n";
}

std::string RenderCodexTable(const McpServer& server) {
  std::string out = "[mcp_servers.origin]\ncommand = " + TomlString(server.command) + "\nargs = [";
  for (std::size_t i = 0; i < server.args.size(); ++i)
    out += (i > 0 ? ", " : "") + TomlString(server.args[i]);
  out += "]\n";
  if (!server.env.empty()) {
    std::vector<std::pair<std::string, std::string>> pairs(server.env.begin(), server.env.end());
    out += "env = " + TomlInline(pairs) + "\n";
  }
  return out;
}

std::optional<std::string> MergeCodexToml(const std::string& existing, const McpServer& server) {
  const std::vector<std::string> lines = Lines(existing);
  const TomlTables t = FindTables(lines);
  const std::string cmd_line = "command = " + TomlString(server.command);
  std::string args_line = "args = [";
  for (std::size_t i = 0; i < server.args.size(); ++i)
    args_line += (i > 0 ? ", " : "") + TomlString(server.args[i]);
  args_line += "]";
  const auto home_it = server.env.find("ORIGIN_HOME");
  const std::optional<std::string> home =
      home_it == server.env.end() ? std::nullopt : std::optional<std::string>(home_it->second);

  std::vector<std::string> out;
  if (t.header < 0) {
    out = lines;
    while (!out.empty() && Trim(out.back()).empty()) out.pop_back();
    if (!out.empty()) out.push_back("");
    for (const std::string& l : Lines(RenderCodexTable(server))) out.push_back(l);
    return Changed(out, existing);
  }
  bool has_cmd = false, has_args = false, env_done = false;
  out.assign(lines.begin(), lines.begin() + t.header + 1);
  for (std::ptrdiff_t i = t.header + 1; i < t.end; ++i) {
    const std::string& line = lines[static_cast<std::size_t>(i)];
    const std::string key = TomlKey(line);
    if (key == "command") {
      out.push_back(cmd_line);
      has_cmd = true;
      i = ValueEnd(lines, i, t.end);
    } else if (key == "args") {
      out.push_back(args_line);
      has_args = true;
      i = ValueEnd(lines, i, t.end);
    } else if (key == "url") {
      // A hub's server registered under this name: the command replaces it.
      i = ValueEnd(lines, i, t.end);
    } else if (key == "env") {
      std::size_t at = line.find('=') + 1;
      auto pairs = TomlInlineStrings(line, &at);
      if (!pairs && !home && line.find("ORIGIN_HOME") == std::string::npos) {
        // Nothing of ours to change in it.
        out.push_back(line);
        env_done = true;
        i = ValueEnd(lines, i, t.end);
        continue;
      }
      if (!pairs)
        throw std::runtime_error("its mcp_servers.origin env is in a form origin does not edit (" +
                                 Trim(line) + ")");
      bool found = false;
      for (auto it = pairs->begin(); it != pairs->end();) {
        if (it->first != "ORIGIN_HOME") {
          ++it;
          continue;
        }
        found = true;
        if (home) {
          (it++)->second = *home;
        } else {
          it = pairs->erase(it);
        }
      }
      if (!found && home) pairs->emplace_back("ORIGIN_HOME", *home);
      env_done = true;
      const std::string rest = line.substr(at);
      std::string unchanged = line;
      std::size_t probe = line.find('=') + 1;
      const auto before = TomlInlineStrings(line, &probe);
      if (before == pairs) {
        out.push_back(unchanged);
      } else if (!pairs->empty() || !rest.empty()) {
        out.push_back(line.substr(0, line.find('=')) + "= " + TomlInline(*pairs) + rest);
      }
    } else if (key == "env.ORIGIN_HOME") {
      env_done = true;
      if (home) out.push_back("env.ORIGIN_HOME = " + TomlString(*home));
    } else {
      out.push_back(line);
    }
  }
  // [mcp_servers.origin.env], when it is there, holds the env.
  if (t.env >= 0) env_done = true;
  std::size_t at = static_cast<std::size_t>(t.header) + 1;
  std::vector<std::string> missing;
  if (!has_cmd) missing.push_back(cmd_line);
  if (!has_args) missing.push_back(args_line);
  if (!env_done && home)
    missing.push_back("env = " + TomlInline({{"ORIGIN_HOME", *home}}));
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), missing.begin(), missing.end());
  for (std::ptrdiff_t i = t.end; i < static_cast<std::ptrdiff_t>(lines.size()); ++i) {
    const std::string& line = lines[static_cast<std::size_t>(i)];
    if (i > t.env && i < t.env_end && TomlKey(line) == "ORIGIN_HOME") {
      if (home) out.push_back("ORIGIN_HOME = " + TomlString(*home));
      env_done = true;
      continue;
    }
    out.push_back(line);
    if (i == t.env && home) {
      bool has = false;
      for (std::ptrdiff_t j = t.env + 1; j < t.env_end; ++j)
        has = has || TomlKey(lines[static_cast<std::size_t>(j)]) == "ORIGIN_HOME";
      if (!has) out.push_back("ORIGIN_HOME = " + TomlString(*home));
    }
  }
  return Changed(out, existing);
}

std::optional<std::string> RemoveCodexToml(const std::string& existing) {
  const std::vector<std::string> lines = Lines(existing);
  const TomlTables t = FindTables(lines);
  if (t.all.empty()) return std::nullopt;
  std::vector<bool> drop(lines.size(), false);
  for (const auto& [b, e] : t.all)
    for (std::ptrdiff_t i = b; i < e; ++i) drop[static_cast<std::size_t>(i)] = true;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (drop[i]) continue;
    // One blank line between tables, not two where the table was.
    if (Trim(lines[i]).empty() && !out.empty() && Trim(out.back()).empty()) continue;
    out.push_back(lines[i]);
  }
  while (!out.empty() && Trim(out.back()).empty()) out.pop_back();
  return Changed(out, existing);
}

std::optional<Registration> ReadCodexToml(const std::string& existing) {
  const std::vector<std::string> lines = Lines(existing);
  const TomlTables t = FindTables(lines);
  if (t.header < 0) return std::nullopt;
  Registration r;
  auto strings = [](const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at < text.size();) {
      if (text[at] == '#') {
        at = text.find('\n', at);
        if (at == std::string::npos) break;
        continue;
      }
      if (auto s = TomlStringAt(text, &at)) {
        out.push_back(*s);
        continue;
      }
      ++at;
    }
    return out;
  };
  for (std::ptrdiff_t i = t.header + 1; i < t.end; ++i) {
    const std::string& line = lines[static_cast<std::size_t>(i)];
    const std::string key = TomlKey(line);
    const std::ptrdiff_t last = ValueEnd(lines, i, t.end);
    std::string value = TomlValue(line);
    for (std::ptrdiff_t j = i + 1; j <= last; ++j) value += "\n" + lines[static_cast<std::size_t>(j)];
    if (key == "command" || key == "url") {
      auto s = strings(value);
      (key == "command" ? r.command : r.url) = s.empty() ? "" : s.front();
    } else if (key == "args") {
      r.args = strings(value);
    } else if (key == "env") {
      std::size_t at = 0;
      if (auto pairs = TomlInlineStrings(value, &at))
        for (const auto& [k, v] : *pairs) r.env[k] = v;
    } else if (key.rfind("env.", 0) == 0) {
      auto s = strings(value);
      if (!s.empty()) r.env[key.substr(4)] = s.front();
    }
    i = last;
  }
  for (std::ptrdiff_t i = t.env + 1; t.env >= 0 && i < t.env_end; ++i) {
    const std::string& line = lines[static_cast<std::size_t>(i)];
    std::size_t at = line.find('=');
    if (TomlKey(line).empty() || at == std::string::npos) continue;
    ++at;
    SkipTomlSpace(line, &at);
    if (auto s = TomlStringAt(line, &at)) r.env[TomlKey(line)] = *s;
  }
  return r;
}

}  // namespace origin::client
