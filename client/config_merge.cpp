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

std::string TrimSpace(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  std::size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

namespace {

constexpr unsigned kJsonFlags = rapidjson::kParseFullPrecisionFlag | rapidjson::kParseIterativeFlag;

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
    fresh_ = TrimSpace(text_).empty();
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
    if (TrimSpace(inside).empty())
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
    return TrimSpace(text_).find('\n') != std::string::npos || Skip(0) == o.begin;
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
  if (TrimSpace(existing).empty()) return std::nullopt;
  JsonEdit e(existing, jsonc);
  std::optional<JsonEdit::Object> servers = e.Find(kServers);
  if (!servers || e.MemberOf(*servers, "origin") == nullptr) return std::nullopt;
  e.Remove(kServers, "origin");
  return e.text();
}

std::optional<Registration> ReadJsonServer(const std::string& existing, bool jsonc) {
  if (TrimSpace(existing).empty()) return std::nullopt;
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

}  // namespace origin::client
