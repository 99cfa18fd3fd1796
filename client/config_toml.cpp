// SPDX-License-Identifier: MIT
// Codex's config.toml, edited as lines (config_merge.hpp); the JSON files
// are in config_merge.cpp.
#include "client/config_merge.hpp"

#include <cctype>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace origin::client {

namespace {

// The table a TOML header line names ("mcp_servers.origin"), or "" for a
// line that is not a table header.  Quoted keys lose their quotes.
std::string TomlHeader(const std::string& line) {
  std::string t = TrimSpace(line);
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
  std::string t = TrimSpace(line);
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
  return eq == std::string::npos ? "" : TrimSpace(line.substr(eq + 1));
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
                               TrimSpace(line) +
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
    while (!out.empty() && TrimSpace(out.back()).empty()) out.pop_back();
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
                                 TrimSpace(line) + ")");
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
    if (TrimSpace(lines[i]).empty() && !out.empty() && TrimSpace(out.back()).empty()) continue;
    out.push_back(lines[i]);
  }
  while (!out.empty() && TrimSpace(out.back()).empty()) out.pop_back();
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
