// SPDX-License-Identifier: MIT
#include "client/config_merge.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace origin::client {

namespace {

// `s` without the white space around it (a file of blank lines is empty).
std::string Trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  std::size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

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

}  // namespace

std::optional<std::string> MergeJsonServer(const std::string& existing, const std::string& command,
                                           bool typed) {
  rapidjson::Document d;
  if (Trim(existing).empty()) {
    d.SetObject();
  } else {
    d.Parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseIterativeFlag>(existing.data(),
                                                                                 existing.size());
    if (d.HasParseError())
      throw std::runtime_error(std::string("it is not valid JSON (") +
                               rapidjson::GetParseError_En(d.GetParseError()) + " at byte " +
                               std::to_string(d.GetErrorOffset()) + ")");
    if (!d.IsObject()) throw std::runtime_error("it is not a JSON object");
  }
  auto& a = d.GetAllocator();
  if (!d.HasMember("mcpServers"))
    d.AddMember("mcpServers", rapidjson::Value(rapidjson::kObjectType), a);
  rapidjson::Value& servers = d["mcpServers"];
  if (!servers.IsObject()) throw std::runtime_error("its \"mcpServers\" is not an object");
  if (!servers.HasMember("origin"))
    servers.AddMember("origin", rapidjson::Value(rapidjson::kObjectType), a);
  rapidjson::Value& origin = servers["origin"];
  if (!origin.IsObject())
    throw std::runtime_error("its \"mcpServers\".\"origin\" is not an object");
  rapidjson::Value want_args(rapidjson::kArrayType);
  bool same = origin.HasMember("command") && origin["command"].IsString() &&
              command == origin["command"].GetString() && origin.HasMember("args") &&
              origin["args"] == want_args &&
              (!typed || (origin.HasMember("type") && origin["type"].IsString() &&
                          std::string_view(origin["type"].GetString()) == "stdio"));
  if (same) return std::nullopt;
  auto set = [&](const char* key, rapidjson::Value v) {
    if (origin.HasMember(key))
      origin[key] = v;
    else
      origin.AddMember(rapidjson::Value(key, a), v, a);
  };
  if (typed) set("type", rapidjson::Value("stdio", a));
  set("command", rapidjson::Value(command.c_str(), a));
  set("args", std::move(want_args));
  // An url (a hub's server registered under this name) would be ambiguous.
  origin.RemoveMember("url");
  rapidjson::StringBuffer sb;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(sb);
  w.SetIndent(' ', 2);
  d.Accept(w);
  return std::string(sb.GetString()) + "\n";
}

std::optional<std::string> MergeCodexToml(const std::string& existing, const std::string& command) {
  std::vector<std::string> lines;
  {
    std::size_t start = 0;
    while (start < existing.size()) {
      std::size_t end = existing.find('\n', start);
      if (end == std::string::npos) end = existing.size();
      lines.push_back(existing.substr(start, end - start));
      start = end + 1;
    }
  }
  const std::string cmd_line = "command = " + TomlString(command);
  const std::string args_line = "args = []";
  // Find [mcp_servers.origin]; refuse the forms this edit cannot change
  // safely (an inline table or dotted keys elsewhere).
  std::string table;
  std::ptrdiff_t header = -1, end = static_cast<std::ptrdiff_t>(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string h = TomlHeader(lines[i]);
    if (!h.empty()) {
      table = h;
      if (h == "mcp_servers.origin") {
        if (header >= 0) throw std::runtime_error("it has [mcp_servers.origin] twice");
        header = static_cast<std::ptrdiff_t>(i);
      } else if (header >= 0 && end == static_cast<std::ptrdiff_t>(lines.size())) {
        end = static_cast<std::ptrdiff_t>(i);
      }
      continue;
    }
    std::string key = TomlKey(lines[i]);
    std::string full = table.empty() ? key : table + "." + key;
    if (!key.empty() && table != "mcp_servers.origin" &&
        table.rfind("mcp_servers.origin.", 0) != 0 &&
        (full == "mcp_servers.origin" || full.rfind("mcp_servers.origin.", 0) == 0))
      throw std::runtime_error("it defines mcp_servers.origin in a form origin does not edit (" +
                               Trim(lines[i]) +
                               "); write it as a [mcp_servers.origin] table, or remove it");
  }
  std::vector<std::string> out;
  if (header < 0) {
    out = lines;
    while (!out.empty() && Trim(out.back()).empty()) out.pop_back();
    if (!out.empty()) out.push_back("");
    out.push_back("[mcp_servers.origin]");
    out.push_back(cmd_line);
    out.push_back(args_line);
  } else {
    bool has_cmd = false, has_args = false;
    out.assign(lines.begin(), lines.begin() + header + 1);
    for (std::ptrdiff_t i = header + 1; i < end; ++i) {
      std::string key = TomlKey(lines[static_cast<std::size_t>(i)]);
      if (key == "command") {
        out.push_back(cmd_line);
        has_cmd = true;
      } else if (key == "args") {
        out.push_back(args_line);
        has_args = true;
        // A multi-line array: its lines up to the closing bracket go too.
        int depth = 0;
        for (std::ptrdiff_t j = i;; ++j) {
          for (char c : lines[static_cast<std::size_t>(j)])
            depth += c == '[' ? 1 : c == ']' ? -1 : 0;
          if (depth <= 0 || j + 1 >= end) {
            i = j;
            break;
          }
        }
      } else if (key == "url") {
        // A hub's server registered under this name: the command replaces it.
      } else {
        out.push_back(lines[static_cast<std::size_t>(i)]);
      }
    }
    std::size_t at = static_cast<std::size_t>(header) + 1;
    if (!has_args) out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), args_line);
    if (!has_cmd) out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), cmd_line);
    out.insert(out.end(), lines.begin() + end, lines.end());
  }
  std::string text;
  for (const std::string& l : out) text += l + "\n";
  std::string old = existing;
  if (!old.empty() && old.back() != '\n') old += '\n';
  if (text == old) return std::nullopt;
  return text;
}

}  // namespace origin::client
