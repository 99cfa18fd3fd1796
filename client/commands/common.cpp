// SPDX-License-Identifier: MIT
#include "client/commands/common.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "proto/protocol.hpp"
#include "proto/time.hpp"

namespace origin::client {

std::string Str(const rapidjson::Value& o, const char* k, const std::string& dflt) {
  auto it = o.FindMember(k);
  return it != o.MemberEnd() && it->value.IsString() ? it->value.GetString() : dflt;
}

std::int64_t Int(const rapidjson::Value& o, const char* k) {
  auto it = o.FindMember(k);
  if (it == o.MemberEnd()) return 0;
  if (it->value.IsInt64()) return it->value.GetInt64();
  if (it->value.IsDouble()) return static_cast<std::int64_t>(it->value.GetDouble());
  return 0;
}

bool PrintedJson(rapidjson::Document& r, bool json) {
  if (json) {
    std::printf("%s\n", proto::ToJson(r).c_str());
    return true;
  }
  MakeTerminalSafe(r, r.GetAllocator());
  return false;
}

std::string AbsolutePath(const std::string& path, const std::string& what) {
  std::error_code ec;
  std::string out = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec) throw UsageError(what + " " + path + ": " + ec.message());
  return out;
}

std::optional<std::int64_t> PositiveOption(const Invocation& a, const std::string& name) {
  std::optional<std::string> v = a.Value(name);
  if (!v) return std::nullopt;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || n < 1)
    throw UsageError("--" + name + " takes a positive number");
  return n;
}

std::optional<std::int64_t> DateOption(const Invocation& a, const std::string& name) {
  std::optional<std::string> v = a.Value(name);
  if (!v) return std::nullopt;
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  auto t = proto::ParseWhen(*v, now);
  if (!t)
    throw UsageError("--" + name + " takes a date, not '" + *v +
                     "': YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], local, or with Z or +HH:MM; "
                     "or now, today, yesterday, or a time ago such as 30m, 12h, 2d or 1w");
  return *t;
}

std::string RefCell(const rapidjson::Value& o, const Style& st) {
  return o.IsObject() && o.HasMember("ref") && o["ref"].IsString() ? st.Yellow(Str(o, "ref"))
                                                                   : "";
}

std::string EntryLine(const rapidjson::Value& e, const Style& st) {
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.0f%%", e["confidence"].GetDouble() * 100);
  std::string tags = Str(e, "kind") + " " + pct;
  if (e["project"].IsString()) tags += " · " + Str(e, "project");
  if (Str(e, "status") != "active") tags += " · " + Str(e, "status");
  if (e["concurrent"].GetBool()) tags += " (lost to a concurrent correction)";
  if (e["ended"].GetBool()) tags += " · ended";
  const std::string ref = RefCell(e, st);
  return FitWidth(
             (ref.empty() ? "" : ref + "  ") + st.Bold(Str(e, "id")) + "  " +
                 st.Dim(tags + " · " + LocalTime(Int(e, "created_at")) + " · " + Str(e, "author")),
             Output().width) +
         "\n  " + Str(e, "text") + "\n";
}

std::string Wrapped(std::string_view text, std::size_t columns, std::size_t indent) {
  if (columns == 0) return std::string(text) + "\n";
  std::string out, line;
  const std::string pad(indent, ' ');
  std::size_t used = 0;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t end = text.find(' ', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    const std::size_t w = DisplayWidth(word);
    if (used > 0 && used + 1 + w > columns) {
      out += line + "\n";
      line = pad;
      used = indent;
    } else if (used > 0 && !line.empty() && line.back() != ' ') {
      line += ' ';
      ++used;
    }
    line += FitWidth(word, columns > used ? columns - used : 1);
    used += std::min(w, columns > used ? columns - used : 1);
  }
  return out + line + "\n";
}

std::string FitLines(std::string_view text, std::size_t columns) {
  if (columns == 0) return std::string(text);
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t nl = text.find('\n', at);
    const bool last = nl == std::string_view::npos;
    if (last) nl = text.size();
    out += FitWidth(text.substr(at, nl - at), columns);
    if (!last) out += '\n';
    at = nl + 1;
  }
  return out;
}

std::string EventWhat(const rapidjson::Value& e) {
  const std::string kind = Str(e, "kind"), tool = Str(e, "tool");
  const std::string with_tool = tool.empty() ? "" : " " + tool;
  std::string what;
  if (kind == "message")
    what = Str(e, "role");
  else if (kind == "tool_call")
    what = "tool call" + with_tool;
  else if (kind == "tool_result")
    what = "tool result" + with_tool;
  else if (kind == "meta" && tool == "title")
    what = "title";
  else
    what = Str(e, "role") + " (" + kind + ")";
  // A sub-agent's row (Claude Code's sidechain) is the sub-agent's, not the session's.
  if (e.HasMember("agent") && e["agent"].IsString()) what = "sub-agent " + what;
  return what;
}

std::string OneLine(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

namespace {

// The content of <tag>...</tag> at the start of `s` (after spaces), which
// is then moved past it; nullopt, `s` untouched, when it holds none.
std::optional<std::string_view> TakeElement(std::string_view& s, std::string_view tag) {
  std::string_view rest = s;
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\n' || rest.front() == '\r' ||
                           rest.front() == '\t'))
    rest.remove_prefix(1);
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  if (!rest.starts_with(open)) return std::nullopt;
  const std::size_t end = rest.find(close, open.size());
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view inner = rest.substr(open.size(), end - open.size());
  s = rest.substr(end + close.size());
  return inner;
}

}  // namespace

std::string CommandEcho(std::string_view text) {
  std::string_view s = text, name, args;
  bool any = false;
  for (bool more = true; more;) {
    more = false;
    for (std::string_view tag : {"command-name", "command-message", "command-args"})
      if (auto inner = TakeElement(s, tag)) {
        if (tag == "command-name") name = *inner;
        if (tag == "command-args") args = *inner;
        any = more = true;
      }
  }
  if (!any || name.empty() || !OneLine(s).empty()) return std::string(text);
  std::string out(name);
  if (out.front() != '/') out.insert(out.begin(), '/');
  if (!OneLine(args).empty()) out += " " + std::string(args);
  return out;
}

std::string Preview(std::string_view text, std::size_t columns) {
  return FitWidth(OneLine(CommandEcho(text)), columns > 0 ? columns : kPreviewColumns);
}

std::size_t ColumnsLeft(std::size_t used) {
  const std::size_t width = Output().width;
  if (width == 0) return 0;
  // At least a few words' worth, even past a very narrow terminal's edge.
  return width > used + 12 ? width - used : 12;
}

std::string Highlight(std::string_view snippet, const rapidjson::Value& hit, const Style& st) {
  auto m = hit.FindMember("marks");
  if (m == hit.MemberEnd() || !m->value.IsArray()) return TerminalSafe(snippet);
  std::string out;
  std::size_t pos = 0;
  for (const auto& mark : m->value.GetArray()) {
    if (!mark.IsArray() || mark.Size() != 2 || !mark[0].IsUint64() || !mark[1].IsUint64())
      return TerminalSafe(snippet);
    const std::size_t b = mark[0].GetUint64(), e = mark[1].GetUint64();
    // Each mark sits between a bracket before it and one after it.
    if (b < pos + 1 || e < b || e >= snippet.size() || snippet[b - 1] != '[' || snippet[e] != ']')
      return TerminalSafe(snippet);
    out += TerminalSafe(snippet.substr(pos, b - 1 - pos));
    out += st.Match(TerminalSafe(snippet.substr(b, e - b)));
    pos = e + 1;
  }
  return out + TerminalSafe(snippet.substr(pos));
}

std::string MoreLine(std::int64_t shown, std::int64_t total, bool at_least, std::string_view one,
                     std::string_view many, std::string_view how, const Style& st) {
  if (total <= shown) return "";
  const std::int64_t more = total - shown;
  std::string count = Thousands(more) + (at_least ? "+" : "");
  return st.Dim("… " + count + " more " + std::string(more == 1 && !at_least ? one : many) + ": " +
                std::string(how)) +
         "\n";
}

}  // namespace origin::client
