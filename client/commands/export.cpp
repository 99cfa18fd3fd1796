// SPDX-License-Identifier: MIT
// origin export SESSION [--format markdown|jsonl]: one session, whole, as a
// Markdown transcript to read or share (prompts and replies as sections,
// tool calls and results folded in <details>), or as the agent wrote it
// (jsonl: the session's raw lines from the mirrors, each once, in the
// order of the log).  It asks the daemon for the session's events a page
// at a time (timeline, tools included), and for jsonl each event's line
// (sources), so that forgotten events are left out as everywhere else.

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "client/command_table.hpp"
#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "client/connection.hpp"
#include "client/failure.hpp"
#include "proto/base64.hpp"
#include "proto/paths.hpp"
#include "proto/protocol.hpp"
#include "proto/requests.hpp"

namespace origin::client {

namespace {

namespace proto = origin::proto;

constexpr std::int64_t kPage = 5000;  // the timeline's largest page

// A fence longer than every run of backticks in `text`, so that nothing in
// it can close the block.
std::string Fence(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

// Text for a Markdown line or HTML summary: one line, < > & escaped.
std::string Inline(const std::string& s, std::size_t max_chars = 120) {
  std::string out;
  std::size_t chars = 0;
  bool space = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && ++chars > max_chars) {
      out += "…";
      break;
    }
    if (space) out += ' ';
    space = false;
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

std::string Block(const std::string& text) {
  const std::string f = Fence(text);
  return f + "\n" + text + (text.empty() || text.back() == '\n' ? "" : "\n") + f + "\n";
}

void Markdown(const rapidjson::Value& session, const std::vector<rapidjson::Document>& pages) {
  std::string title = Str(session, "title");
  if (title.empty()) title = Str(session, "prompt");
  if (title.empty()) title = Str(session, "id");
  std::string out = "# " + Inline(title, 200) + "\n\n";
  out += "- Session: `" + Str(session, "id") + "`\n";
  out += "- Agent: " + Str(session, "source") + "\n";
  if (!Str(session, "project").empty()) out += "- Project: " + Str(session, "project") + "\n";
  if (!Str(session, "cwd").empty()) out += "- Directory: `" + Str(session, "cwd") + "`\n";
  if (!Str(session, "git_branch").empty()) out += "- Branch: " + Str(session, "git_branch") + "\n";
  out += "- From " + LocalTime(Int(session, "first_ts")) + " to " +
         LocalTime(Int(session, "last_ts")) + "\n";
  std::fputs(out.c_str(), stdout);
  // A result names its tool when the agent's log does, else through the
  // call it answers (Claude Code's results carry only the call's id).
  std::map<std::string, std::string> tools;  // call_id → tool
  for (const rapidjson::Document& page : pages) {
    for (const auto& e : page["events"].GetArray()) {
      const std::string kind = Str(e, "kind"), role = Str(e, "role"), text = Str(e, "text");
      const std::string when = LocalTime(Int(e, "ts"));
      std::string s;
      if (kind == "tool_call" || kind == "tool_result") {
        std::string tool = Str(e, "tool");
        const std::string call = Str(e, "call_id");
        if (kind == "tool_call" && !call.empty() && !tool.empty()) tools[call] = tool;
        if (tool.empty() && tools.count(call) != 0) tool = tools[call];
        std::string summary = (kind == "tool_call" ? "Tool call" : "Tool result");
        if (!tool.empty()) summary += ": " + Inline(tool, 60);
        if (e.HasMember("is_error") && e["is_error"].IsBool() && e["is_error"].GetBool())
          summary += " (error)";
        s = "\n<details>\n<summary>" + summary + " · " + when + "</summary>\n\n" + Block(text) +
            "\n</details>\n";
      } else if (kind == "message") {
        std::string who = role == "user"        ? "User"
                          : role == "assistant" ? "Assistant"
                                                : role.empty() ? "Message" : role;
        if (role == "assistant" && !Str(e, "model").empty()) who += " (" + Str(e, "model") + ")";
        s = "\n## " + who + " · " + when + "\n\n" + text + (text.empty() || text.back() == '\n' ? "" : "\n");
      } else {
        // Anything else the agent logged (meta: a summary, a mode change).
        s = "\n<details>\n<summary>" + Inline(kind + (role.empty() ? "" : " (" + role + ")"), 60) +
            " · " + when + "</summary>\n\n" + Block(text) + "\n</details>\n";
      }
      std::fputs(s.c_str(), stdout);
    }
  }
}

// A raw line of a mirror, once.
struct Line {
  std::size_t file_order;
  std::int64_t generation, line;
  std::string raw;
};

int Jsonl(Connection& c, const std::vector<rapidjson::Document>& pages) {
  std::map<std::string, std::size_t> files;  // mirror → the order it first appeared
  std::map<std::tuple<std::string, std::int64_t, std::int64_t>, bool> seen;
  std::vector<Line> lines;
  std::int64_t withheld = 0;
  for (const rapidjson::Document& page : pages) {
    for (const auto& e : page["events"].GetArray()) {
      proto::IdRequest r;
      r.id = Str(e, "id");
      rapidjson::Document s;
      try {
        s = c.Call("sources", proto::Encode(r));
      } catch (const ClientError& err) {
        // Forgotten since the page was read: left out, as it is everywhere.
        if (err.code() == proto::code::kForgotten || err.code() == proto::code::kNotFound) continue;
        throw;
      }
      for (const auto& src : s["sources"].GetArray()) {
        const std::string mirror = Str(src, "mirror");
        const auto key = std::make_tuple(mirror, Int(src, "generation"), Int(src, "line"));
        if (seen.count(key) != 0) continue;
        seen[key] = true;
        // A line that also holds a forgotten event's text is left out, as
        // that event is.
        if (src.HasMember("withheld")) {
          ++withheld;
          continue;
        }
        std::string raw = Str(src, "raw");
        if (src.HasMember("raw_base64"))
          raw = proto::Base64Decode(Str(src, "raw_base64")).value_or(raw);
        const std::size_t order = files.emplace(mirror, files.size()).first->second;
        lines.push_back({order, std::get<1>(key), std::get<2>(key), std::move(raw)});
      }
    }
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
    return std::tie(a.file_order, a.generation, a.line) <
           std::tie(b.file_order, b.generation, b.line);
  });
  for (const Line& l : lines) {
    std::fwrite(l.raw.data(), 1, l.raw.size(), stdout);
    if (l.raw.empty() || l.raw.back() != '\n') std::fputc('\n', stdout);
  }
  if (withheld > 0)
    std::fprintf(stderr,
                 "origin: %lld line%s left out: each also holds the text of a forgotten event\n",
                 static_cast<long long>(withheld), withheld == 1 ? "" : "s");
  return 0;
}

int RunExport(const std::vector<std::string>& words) {
  const bool json = WantsJson(words);
  Invocation inv;
  if (std::optional<int> code = ParseOwn(kExportCommand, words, &inv, [](const Invocation& i) {
        const std::string format = i.Value("format").value_or("markdown");
        if (format != "markdown" && format != "jsonl")
          throw UsageError("--format takes markdown or jsonl, not '" + format + "'");
      }))
    return *code;
  const bool jsonl = inv.Value("format").value_or("markdown") == "jsonl";
  try {
    Connection c = Connection::Open(proto::ResolvePaths(), "origin");
    std::vector<rapidjson::Document> pages;
    rapidjson::Document session;
    for (std::int64_t offset = 0;; offset += kPage) {
      proto::TimelineRequest r;
      r.session = inv.args[0];
      r.include_tools = true;
      r.limit = kPage;
      r.offset = offset;
      rapidjson::Document page = c.Call("timeline", proto::Encode(r));
      if (!page.IsObject() || !page.HasMember("events") || !page["events"].IsArray())
        throw std::runtime_error("the daemon's answer has no events");
      const auto n = static_cast<std::int64_t>(page["events"].Size());
      if (offset == 0) session.CopyFrom(page["session"], session.GetAllocator());
      pages.push_back(std::move(page));
      if (n < kPage) break;
    }
    if (jsonl) return Jsonl(c, pages);
    for (rapidjson::Document& p : pages) MakeTerminalSafe(p, p.GetAllocator());
    MakeTerminalSafe(session, session.GetAllocator());
    Markdown(session, pages);
    return 0;
  } catch (const ClientError& e) {
    return Failure(json, e.code(), e.what());
  } catch (const std::exception& e) {
    return Failure(json, proto::code::kInternal, e.what());
  }
}

constexpr Option kExportOptions[] = {
    {"format", "FORMAT", "markdown (the default): a transcript to read; jsonl: the log's own lines",
     false, "markdown jsonl"}};

constexpr std::string_view kExportDetails =
    "Prints a whole session.  markdown: a transcript, with the session's agent,\n"
    "project and time at the top, each prompt and reply as a section, and tool\n"
    "calls and results folded in <details> (their text in a code block that\n"
    "nothing in it can close).  jsonl: the lines of the agent's log that the\n"
    "session's events came from, byte for byte as the agent wrote them (from\n"
    "Origin's mirror, so they are there after the agent deleted its log), each\n"
    "once, in the log's order.  Forgotten events are left out of both, and so is\n"
    "a log line that also holds a forgotten event's text (said on stderr).\n"
    "SESSION is a session's id, as origin timeline takes it.\n";

constexpr std::string_view kExportExamples =
    "  origin export claude-code:5f0c2a9e-8d1b-4c3e-9a7f-2b6d1e0c4a11 > session.md\n"
    "  origin export codex:019a3c5e-77d2-7b40-8e1f-4c2d9a6b3e10 --format jsonl\n";

}  // namespace

const Command kExportCommand{
    .name = "export",
    .args = "SESSION",
    .min_args = 1,
    .max_args = 1,
    .missing = "a session id (origin timeline lists them)",
    .summary = "a session as a Markdown transcript, or as its original log lines",
    .options = kExportOptions,
    .details = kExportDetails,
    .examples = kExportExamples,
    .run = RunExport,
};

}  // namespace origin::client
