// SPDX-License-Identifier: MIT
// origin: the thin CLI.  Parses arguments, sends one request to originsd
// over its socket (starting the daemon when none answers), renders the
// answer (tables on a terminal, JSON with --json) and exits with a
// documented code (docs/cli.md).  It never opens the store itself.

#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "client/connection.hpp"
#include "client/render.hpp"
#include "client/setup.hpp"
#include "origin_config.h"
#include "proto/base64.hpp"
#include "proto/protocol.hpp"
#include "proto/time.hpp"

namespace {

using origin::client::ClientError;
using origin::client::Connection;
namespace proto = origin::proto;
using namespace origin::client;

constexpr const char* kUsage =
    "usage: origin <command> [--json]\n"
    "\n"
    "One shared, inspectable memory for your AI coding agents.\n"
    "\n"
    "commands:\n"
    "  status                 what the store holds, per agent, and how big it is\n"
    "  sync                   ingest every agent's new log lines now (--source NAME: one agent)\n"
    "  search WORDS...        entries and events holding every word (--scope entries|events,\n"
    "                         --all: tool events too, --recent: newest first, --history)\n"
    "  timeline [SESSION]     sessions of the last 7 days, or one session's events\n"
    "  projects               the projects the sessions were in, latest first\n"
    "  entries                the current entries, newest first (--history: every version)\n"
    "  remember TEXT          write an entry: --kind memory|knowledge|cognition --confidence 0..1\n"
    "                         --cite EVENT_ID [--quote WORDS] (one or more) [--project P]\n"
    "                         [--valid-from DATE] [--valid-to DATE]\n"
    "  correct ID [TEXT]      supersede an entry's current version (same options; sources carry "
    "over)\n"
    "  show ID                an event with its full text, or an entry with its history\n"
    "  sources ID             the original log lines behind an event or an entry\n"
    "  forget ID --reason R   hide an entry (its whole history) or an event, and what cites\n"
    "                         it; shows what it will hide, and hides it with --yes\n"
    "  restore TMB --reason R undo a forget; shows what will come back, restores with --yes\n"
    "  forgotten              every forget and restore, newest first\n"
    "  mcp                    the MCP server on stdio, for agents (origin mcp install\n"
    "                         [claude-code|codex|cursor|all] [--print] registers it)\n"
    "  service                install|uninstall|status: originsd as a user service\n"
    "\n"
    "options:\n"
    "  --json     print the daemon's answer as JSON, for scripts\n"
    "  --days N, --since DATE, --until DATE, --source NAME, --project NAME,\n"
    "  --limit N  (timeline) the range and filters; DATE is YYYY-MM-DD[THH:MM[:SS]], local\n"
    "  --all      (timeline) tool calls and results too\n"
    "  --help     this text\n"
    "  --version  the version of origin\n"
    "\n"
    "The store is $ORIGIN_HOME (default ~/.origin).  origin starts originsd when\n"
    "none answers; ORIGIN_NO_AUTOSTART=1 turns that off.\n"
    "exit codes: 0 ok, 1 failed (sync: a source could not be read or stored), 2 usage,\n"
    "  3 daemon unavailable, 4 not found, 5 (status) something needs you: see its list\n";

std::string Str(const rapidjson::Value& o, const char* k, const std::string& dflt = "") {
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

void PrintJson(const rapidjson::Value& v) { std::printf("%s\n", proto::ToJson(v).c_str()); }

// With --json, prints the daemon's answer as it came, and says it did.
// Otherwise makes every string of the answer safe to print (TerminalSafe):
// every command renders what this returns false for, so stored content
// reaches the terminal only through here.
bool PrintedJson(rapidjson::Document& r, bool json) {
  if (json) {
    PrintJson(r);
    return true;
  }
  MakeTerminalSafe(r, r.GetAllocator());
  return false;
}

// 5 when the daemon lists something that needs the user (a source whose
// sync fails, a mirror refusing appends, an unreadable directory, a search
// index that cannot be written): scripts and `origin doctor` rely on it.
int AttentionCode(const rapidjson::Value& r) {
  auto a = r.FindMember("attention");
  return a != r.MemberEnd() && a->value.IsArray() && !a->value.Empty() ? proto::kExitAttention
                                                                       : proto::kExitOk;
}

int Status(Connection& c, bool json) {
  rapidjson::Document r = c.Call("status");
  if (PrintedJson(r, json)) return AttentionCode(r);
  Style s{UseColor(stdout)};
  const auto& d = r["daemon"];
  const auto& st = r["store"];
  std::printf("%s %s · store %s · %s (daemon pid %lld)\n\n", s.Bold("Origin").c_str(),
              Str(d, "version").c_str(), Str(d, "store").c_str(), Str(d, "home").c_str(),
              static_cast<long long>(Int(d, "pid")));
  std::vector<std::vector<std::string>> rows = {{s.Dim("SOURCE"), s.Dim("FILES"), s.Dim("SESSIONS"),
                                                 s.Dim("EVENTS"), s.Dim("ERRORS 7D"),
                                                 s.Dim("LAST INGEST"), s.Dim("VERSION")}};
  std::int64_t files_total = 0;
  std::vector<std::string> notes;
  for (const auto& src : r["sources"].GetArray()) {
    std::string name = Str(src, "name");
    bool exists = src["root_exists"].GetBool();
    files_total += Int(src, "files");
    const bool looked = !src.HasMember("looked") || !src["looked"].IsBool() || src["looked"].GetBool();
    if (!exists && Int(src, "files") == 0) {
      rows.push_back({name, "-", "-", "-", "-",
                      s.Dim(looked ? "no logs at " + Str(src, "root")
                                   : "not looked at yet (an import is under way)"),
                      ""});
      continue;
    }
    std::int64_t errs = Int(src, "parse_errors_7d");
    std::string last =
        src["last_ingest_at"].IsInt64() ? LocalTime(src["last_ingest_at"].GetInt64()) : "never";
    rows.push_back({name, Thousands(Int(src, "files")), Thousands(Int(src, "sessions")),
                    Thousands(Int(src, "events")),
                    errs > 0 ? s.Yellow(Thousands(errs)) : Thousands(errs), last,
                    Str(src, "agent_version", "-")});
    // A problem that lasts is in the attention list; one that is over, a
    // line of history.
    const bool lasting = src.HasMember("error") && src["error"].IsString();
    if (!lasting && src["last_error"].IsString())
      notes.push_back(s.Dim("  " + name + ": the last problem, at " +
                            LocalTime(Int(src, "last_error_at")) +
                            ", is over: " + src["last_error"].GetString()));
  }
  std::fputs(Table(rows, {false, true, true, true, true, false, false}).c_str(), stdout);
  if (auto a = r.FindMember("attention"); a != r.MemberEnd() && a->value.IsArray())
    for (const auto& n : a->value.GetArray())
      if (n.IsString()) std::printf("%s%s\n", s.Red("! ").c_str(), n.GetString());
  for (const auto& n : notes) std::printf("%s\n", n.c_str());
  if (auto x = r.FindMember("search_index"); x != r.MemberEnd() && x->value.IsObject()) {
    const std::string state = Str(x->value, "state");
    if (state == "rebuilding")
      std::printf("%s\n", s.Yellow("search index: damaged, being rebuilt from the events (" +
                                    Thousands(Int(x->value, "indexed_upto")) + " of " +
                                    Thousands(Int(st, "max_seq")) +
                                    "); searches read the events meanwhile")
                               .c_str());
    else if (Int(x->value, "indexed_upto") + 1000 < Int(st, "max_seq"))
      std::printf("%s\n", s.Dim("search index: catching up (" +
                                 Thousands(Int(x->value, "indexed_upto")) + " of " +
                                 Thousands(Int(st, "max_seq")) +
                                 " events); searches read the newer events directly")
                               .c_str());
    else if (state == "ok" && Int(x->value, "rebuilds") > 0)
      std::printf("%s\n", s.Dim("search index: found damaged at " +
                                 LocalTime(Int(x->value, "problem_at")) +
                                 " and rebuilt from the events (details: origin status --json)")
                               .c_str());
  }
  std::int64_t disk = Int(st, "mirror_disk_bytes"), content = Int(st, "mirror_content_bytes");
  std::printf("\nstore: database %s · mirrors %s on disk for %s of logs",
              HumanBytes(Int(st, "db_bytes")).c_str(), HumanBytes(disk).c_str(),
              HumanBytes(content).c_str());
  if (disk > 0) std::printf(" (%.1f×)", static_cast<double>(content) / static_cast<double>(disk));
  std::printf("\n");
  if (files_total == 0) {
    std::printf("\nNo agent logs found on this machine yet. Origin watches:\n");
    for (const auto& src : r["sources"].GetArray())
      std::printf("  %-12s %s\n", Str(src, "name").c_str(), Str(src, "root").c_str());
    std::printf(
        "Use an agent (or point Origin at its logs with CLAUDE_CONFIG_DIR, CODEX_HOME, ZCODE_HOME "
        "or GROK_HOME) and its sessions appear here.\n");
  }
  return AttentionCode(r);
}

int Sync(Connection& c, bool json, const std::string& params) {
  ProgressBar bar(!json && ::isatty(2) != 0);
  rapidjson::Document r = c.Call("sync", params, [&](const rapidjson::Value& note) {
    if (Str(note, "method") != "progress") return;
    const auto& p = note["params"];
    bar.Update(Int(p, "bytes_done"), Int(p, "bytes_total"),
               Thousands(Int(p, "files_done")) + "/" + Thousands(Int(p, "files_total")) + " files");
  });
  bar.Finish();
  // A source that could not be read or stored fails the sync (exit 1).
  bool failed = false;
  for (const auto& s : r["sources"].GetArray()) failed = failed || !s["errors"].Empty();
  const int code = failed ? proto::kExitError : proto::kExitOk;
  if (PrintedJson(r, json)) return code;
  std::int64_t errors = 0;
  for (const auto& s : r["sources"].GetArray()) errors += Int(s, "parse_errors");
  std::printf("synced: %s new events from %s lines (%s) in %s changed files%s\n",
              Thousands(Int(r, "events")).c_str(), Thousands(Int(r, "lines")).c_str(),
              HumanBytes(Int(r, "bytes")).c_str(), Thousands(Int(r, "files_changed")).c_str(),
              errors > 0 ? (", " + Thousands(errors) + " lines could not be parsed").c_str() : "");
  for (const auto& s : r["sources"].GetArray())
    for (const auto& e : s["errors"].GetArray())
      std::fprintf(stderr, "origin: %s: %s\n", Str(s, "source").c_str(), e.GetString());
  return code;
}

struct Args {
  std::string command;
  std::vector<std::string> positional;
  bool json = false, all = false, history = false, recent = false, yes = false;
  std::map<std::string, std::string> opts;  // --days, --since, --kind, ...
  // --cite ID [--quote WORDS]: event ids with their quotes (a quote alone has no id).
  std::vector<std::pair<std::optional<std::string>, std::optional<std::string>>> cites;
};

// A local date or time (YYYY-MM-DD[THH:MM[:SS]]) in ms since the epoch.
std::string JsonString(const std::string& s) {
  rapidjson::Value v(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
  return proto::ToJson(v);
}

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string PositiveNumber(const std::string& key, const std::string& v) {
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < 1) throw UsageError("--" + key + " takes a positive number");
  return std::to_string(n);
}

// A DATE option in ms since the epoch, as the daemon takes it.
std::string DateParam(const std::string& key, const std::string& v) {
  auto t = proto::ParseDateTime(v);
  if (!t)
    throw UsageError(
        "--" + key +
        " takes a date: YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], local, or with Z or +HH:MM");
  return std::to_string(*t);
}

std::string TimelineParams(const Args& a) {
  std::string p = "{";
  auto add = [&](const std::string& kv) { p += (p.size() > 1 ? "," : "") + kv; };
  if (!a.positional.empty()) add("\"session\":" + JsonString(a.positional[0]));
  if (a.all) add("\"include_tools\":true");
  for (const auto& [k, v] : a.opts) {
    if (k == "days" || k == "limit") {
      add("\"" + k + "\":" + PositiveNumber(k, v));
    } else if (k == "since" || k == "until") {
      add("\"" + k + "\":" + DateParam(k, v));
    } else {
      add("\"" + k + "\":" + JsonString(v));
    }
  }
  return p + "}";
}

std::string OneLine(std::string_view text, std::size_t max_chars) {
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
  // Cut by characters, not bytes.
  std::size_t chars = 0, i = 0;
  for (; i < out.size() && chars < max_chars; ++i)
    if ((static_cast<unsigned char>(out[i]) & 0xC0) != 0x80) ++chars;
  while (i < out.size() && (static_cast<unsigned char>(out[i]) & 0xC0) == 0x80) ++i;
  if (i < out.size()) out = out.substr(0, i) + "…";
  return out;
}

std::string SessionName(const rapidjson::Value& s, const Style& st) {
  if (s["title"].IsString()) return s["title"].GetString();
  if (s["prompt"].IsString()) return st.Dim("\"" + std::string(s["prompt"].GetString()) + "\"");
  return st.Dim("(no prompt)");
}

int Timeline(Connection& c, const Args& a) {
  rapidjson::Document r = c.Call("timeline", TimelineParams(a));
  if (PrintedJson(r, a.json)) return 0;
  Style st{UseColor(stdout)};
  if (r.HasMember("session")) {
    const auto& s = r["session"];
    std::printf("%s\n%s · %s · %s → %s · %s events\n\n",
                st.Bold(OneLine(SessionName(s, st), 500)).c_str(), Str(s, "id").c_str(),
                Str(s, "project", "-").c_str(), LocalTime(Int(s, "first_ts")).c_str(),
                LocalTime(Int(s, "last_ts")).c_str(), Thousands(Int(s, "events")).c_str());
    for (const auto& e : r["events"].GetArray()) {
      std::string who = Str(e, "role");
      std::string kind = Str(e, "kind");
      if (kind == "tool_call") who = "tool " + Str(e, "tool", "?");
      if (kind == "tool_result") who = "result";
      if (kind == "meta") who = st.Dim(who + " (meta)");
      std::printf("%s  %-16s %s\n", st.Dim(LocalTime(Int(e, "ts")).substr(11)).c_str(), who.c_str(),
                  OneLine(Str(e, "text"), 110).c_str());
    }
    if (r["events"].Empty()) std::printf("%s\n", st.Dim("(no events)").c_str());
    return 0;
  }
  std::vector<std::vector<std::string>> rows = {{st.Dim("LAST ACTIVE"), st.Dim("SOURCE"),
                                                 st.Dim("PROJECT"), st.Dim("EVENTS"),
                                                 st.Dim("SESSION"), st.Dim("ID")}};
  for (const auto& s : r["sessions"].GetArray())
    rows.push_back({LocalTime(Int(s, "last_ts")), Str(s, "source"), Str(s, "project", "-"),
                    Thousands(Int(s, "events")), OneLine(SessionName(s, st), 60), Str(s, "id")});
  if (rows.size() == 1) {
    std::printf("No sessions between %s and %s.\n", LocalTime(Int(r, "since")).c_str(),
                LocalTime(Int(r, "until")).c_str());
    return 0;
  }
  std::fputs(Table(rows, {false, false, false, true, false, false}).c_str(), stdout);
  return 0;
}

int Projects(Connection& c, const Args& a) {
  rapidjson::Document r = c.Call("projects");
  if (PrintedJson(r, a.json)) return 0;
  Style st{UseColor(stdout)};
  std::vector<std::vector<std::string>> rows = {{st.Dim("PROJECT"), st.Dim("SESSIONS"),
                                                 st.Dim("EVENTS"), st.Dim("LAST ACTIVE"),
                                                 st.Dim("SOURCES")}};
  for (const auto& p : r["projects"].GetArray())
    rows.push_back({Str(p, "project"), Thousands(Int(p, "sessions")), Thousands(Int(p, "events")),
                    LocalTime(Int(p, "last_ts")), Str(p, "sources")});
  if (rows.size() == 1) {
    std::printf("No projects yet.\n");
    return 0;
  }
  std::fputs(Table(rows, {false, true, true, false, false}).c_str(), stdout);
  return 0;
}

std::string EntryLine(const rapidjson::Value& e, const Style& st);

int Show(Connection& c, const Args& a) {
  rapidjson::Document r = c.Call("show", "{\"id\":" + JsonString(a.positional[0]) + "}");
  if (PrintedJson(r, a.json)) return 0;
  Style st{UseColor(stdout)};
  if (r.HasMember("entry")) {
    std::printf("%s", EntryLine(r["entry"], st).c_str());
    std::printf("\n%s\n", st.Dim("sources").c_str());
    for (const auto& src : r["entry"]["sources"].GetArray())
      std::printf("  %s%s\n", Str(src, "event_id").c_str(),
                  src["quote"].IsString() ? ("  \"" + Str(src, "quote") + "\"").c_str() : "");
    if (r["history"].Size() > 1) {
      std::printf("\n%s\n", st.Dim("history, oldest first").c_str());
      for (const auto& v : r["history"].GetArray()) std::printf("%s", EntryLine(v, st).c_str());
    }
    return 0;
  }
  const auto& e = r["event"];
  std::printf("%s  %s\n", st.Bold(Str(e, "id")).c_str(), st.Dim(Str(e, "time")).c_str());
  std::vector<std::vector<std::string>> rows;
  for (const char* k : {"kind", "role", "session", "project", "cwd", "git_branch", "tool",
                        "call_id", "agent", "model"})
    if (e.HasMember(k) && e[k].IsString()) rows.push_back({st.Dim(k), e[k].GetString()});
  if (e["is_error"].GetBool()) rows.push_back({st.Dim("error"), st.Red("yes")});
  std::fputs(Table(rows, {false, false}).c_str(), stdout);
  std::printf("\n%s\n", Str(e, "text").c_str());
  return 0;
}

int Sources(Connection& c, const Args& a) {
  rapidjson::Document r = c.Call("sources", "{\"id\":" + JsonString(a.positional[0]) + "}");
  if (PrintedJson(r, a.json)) return 0;
  Style st{UseColor(stdout)};
  for (const auto& s : r["sources"].GetArray()) {
    std::printf("%s:%lld  %s\n", Str(s, "file").c_str(), static_cast<long long>(Int(s, "line")),
                st.Dim("(mirror " + Str(s, "mirror") + ", generation " +
                       std::to_string(Int(s, "generation")) + ")")
                    .c_str());
    // Bytes that are not UTF-8 are shown as \xNN, from the exact bytes.
    std::string raw = Str(s, "raw");
    auto bytes =
        s.HasMember("raw_base64") ? proto::Base64Decode(Str(s, "raw_base64")) : std::nullopt;
    if (bytes) raw = TerminalSafe(*bytes);
    std::printf("%s\n", raw.c_str());
  }
  return 0;
}

Args Parse(int argc, char** argv) {
  Args a;
  static const std::set<std::string> kValued = {
      "--days",  "--since", "--until",      "--source",     "--project",  "--scope",
      "--limit", "--kind",  "--confidence", "--valid-from", "--valid-to", "--reason"};
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw UsageError(s + " needs a value");
      return std::string(argv[++i]);
    };
    if (s == "--json") {
      a.json = true;
    } else if (s == "--all") {
      a.all = true;
    } else if (s == "--history") {
      a.history = true;
    } else if (s == "--recent") {
      a.recent = true;
    } else if (s == "--yes") {
      a.yes = true;
    } else if (s == "--cite") {
      a.cites.push_back({value(), std::nullopt});
    } else if (s == "--quote") {
      std::string q = value();
      if (!a.cites.empty() && a.cites.back().first && !a.cites.back().second)
        a.cites.back().second = q;
      else
        a.cites.push_back({std::nullopt, q});
    } else if (kValued.count(s) != 0) {
      a.opts[s.substr(2)] = value();
    } else if (!s.empty() && s[0] == '-') {
      throw UsageError("unknown option " + s);
    } else if (a.command.empty()) {
      a.command = s;
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

// remember / correct params from the options.
std::string EntryParams(const Args& a, bool correct) {
  std::string p = "{";
  auto add = [&](const std::string& kv) { p += (p.size() > 1 ? "," : "") + kv; };
  std::size_t text_at = correct ? 1 : 0;
  if (correct) add("\"id\":" + JsonString(a.positional.at(0)));
  if (a.positional.size() > text_at) add("\"text\":" + JsonString(a.positional[text_at]));
  for (const auto& [k, v] : a.opts) {
    if (k == "kind" || k == "project") {
      add("\"" + k + "\":" + JsonString(v));
    } else if (k == "confidence") {
      char* end = nullptr;
      double c = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0') throw UsageError("--confidence takes a number from 0 to 1");
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", c);
      add(std::string("\"confidence\":") + buf);
    } else if (k == "valid-from" || k == "valid-to") {
      add(std::string(k == "valid-from" ? "\"valid_from\":" : "\"valid_to\":") + DateParam(k, v));
    } else {
      throw UsageError("--" + k + " is not an option of " + a.command);
    }
  }
  if (!a.cites.empty()) {
    std::string list = "[";
    for (const auto& [id, quote] : a.cites) {
      if (list.size() > 1) list += ",";
      list += "{";
      if (id) list += "\"event_id\":" + JsonString(*id);
      if (quote) list += std::string(id ? "," : "") + "\"quote\":" + JsonString(*quote);
      list += "}";
    }
    add("\"sources\":" + list + "]");
  }
  return p + "}";
}

std::string EntriesParams(const Args& a) {
  std::string p = "{";
  auto add = [&](const std::string& kv) { p += (p.size() > 1 ? "," : "") + kv; };
  if (a.history) add("\"history\":true");
  for (const auto& [k, v] : a.opts) {
    if (k == "kind" || k == "project")
      add("\"" + k + "\":" + JsonString(v));
    else if (k == "limit")
      add("\"limit\":" + PositiveNumber(k, v));
    else
      throw UsageError("--" + k + " is not an option of entries");
  }
  return p + "}";
}

std::string EntryLine(const rapidjson::Value& e, const Style& st) {
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.0f%%", e["confidence"].GetDouble() * 100);
  std::string tags = Str(e, "kind") + " " + pct;
  if (e["project"].IsString()) tags += " · " + Str(e, "project");
  if (Str(e, "status") != "active") tags += " · " + Str(e, "status");
  if (e["concurrent"].GetBool()) tags += " (lost to a concurrent correction)";
  if (e["ended"].GetBool()) tags += " · ended";
  return st.Bold(Str(e, "id")) + "  " +
         st.Dim(tags + " · " + LocalTime(Int(e, "created_at")) + " · " + Str(e, "author")) +
         "\n  " + Str(e, "text") + "\n";
}

int EntryWrite(Connection& c, const Args& a, bool correct) {
  rapidjson::Document r = c.Call(correct ? "correct" : "remember", EntryParams(a, correct));
  if (PrintedJson(r, a.json)) return 0;
  Style st{UseColor(stdout)};
  std::printf("%s %s", correct ? "corrected:" : "remembered:", EntryLine(r["entry"], st).c_str());
  return 0;
}

std::string SearchParams(const Args& a) {
  std::string query;
  for (const auto& w : a.positional) query += (query.empty() ? "" : " ") + w;
  std::string p = "{\"query\":" + JsonString(query);
  auto add = [&](const std::string& kv) { p += "," + kv; };
  if (a.all) add("\"include_tools\":true");
  if (a.recent) add("\"recent\":true");
  if (a.history) add("\"history\":true");
  for (const auto& [k, v] : a.opts) {
    if (k == "scope" || k == "kind" || k == "source" || k == "project") {
      add("\"" + k + "\":" + JsonString(v));
    } else if (k == "limit") {
      add("\"limit\":" + PositiveNumber(k, v));
    } else if (k == "since" || k == "until") {
      add("\"" + k + "\":" + DateParam(k, v));
    } else {
      throw UsageError("--" + k + " is not an option of search");
    }
  }
  return p + "}";
}

int Search(Connection& c, const Args& a) {
  rapidjson::Document r = c.Call("search", SearchParams(a));
  if (PrintedJson(r, a.json)) return 0;
  Style st{UseColor(stdout)};
  const auto& entries = r["entries"];
  const auto& events = r["events"];
  if (entries.Empty() && events.Empty()) {
    std::printf("Nothing found.\n");
    return 0;
  }
  if (!entries.Empty()) std::printf("%s\n", st.Bold("Entries").c_str());
  for (const auto& e : entries.GetArray()) {
    std::string line = EntryLine(e, st);
    std::printf("%s", line.substr(0, line.find('\n') + 1).c_str());
    std::printf("  %s\n", Str(e, "snippet").c_str());
  }
  if (!events.Empty())
    std::printf("%s%s\n", entries.Empty() ? "" : "\n", st.Bold("Events").c_str());
  for (const auto& e : events.GetArray()) {
    std::string what = Str(e, "role") + " " + Str(e, "kind");
    if (e["tool"].IsString()) what += " " + Str(e, "tool");
    std::printf(
        "%s  %s  %s\n  %s\n", st.Bold(Str(e, "id")).c_str(),
        st.Dim(LocalTime(Int(e, "ts")) + " · " + Str(e, "project", "-") + " · " + what).c_str(),
        st.Dim(Str(e, "session", "")).c_str(), Str(e, "snippet").c_str());
  }
  return 0;
}

int Entries(Connection& c, const Args& a) {
  rapidjson::Document r = c.Call("entries", EntriesParams(a));
  if (PrintedJson(r, a.json)) return 0;
  Style st{UseColor(stdout)};
  if (r["entries"].Empty())
    std::printf("No entries%s.\n", a.history ? "" : " (--history shows ended and superseded ones)");
  for (const auto& e : r["entries"].GetArray()) std::printf("%s", EntryLine(e, st).c_str());
  return 0;
}

// forget / restore params; the reason is required.
std::string TombstoneParams(const Args& a) {
  auto it = a.opts.find("reason");
  if (it == a.opts.end() || it->second.find_first_not_of(" \t\r\n") == std::string::npos)
    throw UsageError(a.command + " needs --reason, saying why (it is kept with the record)");
  for (const auto& [k, v] : a.opts)
    if (k != "reason") throw UsageError("--" + k + " is not an option of " + a.command);
  return std::string("{\"") + (a.command == "forget" ? "target" : "id") +
         "\":" + JsonString(a.positional.at(0)) + ",\"reason\":" + JsonString(it->second) +
         ",\"dry_run\":" + (a.yes ? "false" : "true") + "}";
}

// "1 event", "2 events"
std::string Plural(std::int64_t v, const char* one, const char* many) {
  return Thousands(v) + " " + (v == 1 ? one : many);
}

// "3 entry versions (1 entry) and 2 events in 1 session"
std::string Counts(const rapidjson::Value& r) {
  auto n = [&](const char* key, const char* one, const char* many) {
    return Plural(Int(r, key), one, many);
  };
  std::string s = n("entries_count", "entry version", "entry versions");
  if (Int(r, "chains_count") > 0) s += " (" + n("chains_count", "entry", "entries") + ")";
  s += " and " + n("events_count", "event", "events");
  if (Int(r, "sessions_count") > 0) s += " in " + n("sessions_count", "session", "sessions");
  // A title event's text shows as its session's title too.
  if (Int(r, "titles_count") > 0)
    s += ", and the title of " + n("titles_count", "session", "sessions");
  return s;
}

int TombstoneWrite(Connection& c, const Args& a) {
  const bool forget = a.command == "forget";
  rapidjson::Document r = c.Call(a.command, TombstoneParams(a));
  if (PrintedJson(r, a.json)) return 0;
  Style st{UseColor(stdout)};
  const std::string target = Str(r, "target");
  const bool nothing = Int(r, "entries_count") == 0 && Int(r, "events_count") == 0;
  if (forget && nothing) {
    std::printf("Nothing new to hide: %s is already hidden%s. No forget was recorded.\n",
                target.c_str(),
                r["hidden_by"].IsString() ? (" by " + Str(r, "hidden_by")).c_str() : "");
    return 0;
  }
  if (!a.yes) {
    std::printf("%s %s will %s %s:\n", forget ? "Forgetting" : "Restoring", target.c_str(),
                forget ? "hide" : "bring back", Counts(r).c_str());
    auto list = [&](const char* key, const char* label) {
      std::int64_t shown = 0;
      for (const auto& id : r[key].GetArray()) {
        if (shown++ == 20) break;
        std::printf("  %s %s\n", st.Dim(label).c_str(), id.GetString());
      }
      if (Int(r, (std::string(key) + "_count").c_str()) > 20)
        std::printf("  %s\n", st.Dim("...").c_str());
    };
    list("chains", "entry  ");
    list("events", "event  ");
    list("sessions", "session");
    if (r.HasMember("titles")) list("titles", "title  ");
    std::printf("Nothing has changed yet: run it again with --yes to %s.\n",
                forget ? "forget" : "restore");
    return 0;
  }
  if (forget)
    std::printf("Forgot %s (%s): hid %s.\nUndo with: origin restore %s --reason ...\n",
                target.c_str(), st.Bold(Str(r, "tombstone")).c_str(), Counts(r).c_str(),
                Str(r, "tombstone").c_str());
  else
    std::printf("Restored %s (%s): brought back %s.\n", target.c_str(),
                st.Bold(Str(r, "tombstone")).c_str(), Counts(r).c_str());
  return 0;
}

int Forgotten(Connection& c, const Args& a) {
  std::string p = "{}";
  if (auto it = a.opts.find("limit"); it != a.opts.end())
    p = "{\"limit\":" + PositiveNumber("limit", it->second) + "}";
  rapidjson::Document r = c.Call("forgotten", p);
  if (PrintedJson(r, a.json)) return 0;
  Style st{UseColor(stdout)};
  if (r["tombstones"].Empty()) {
    std::printf("Nothing was forgotten.\n");
    return 0;
  }
  for (const auto& t : r["tombstones"].GetArray()) {
    const bool forget = Str(t, "kind") == "forget";
    std::string state;
    if (forget)
      state = t["in_effect"].GetBool() ? st.Red("in effect")
                                       : st.Dim("restored by " + Str(t, "restored_by"));
    std::string what = forget
                           ? "forget " + Str(t, "target") + " · " + Thousands(Int(t, "entries")) +
                                 " entry versions, " + Thousands(Int(t, "events")) + " events"
                           : "restore of " + Str(t, "target");
    std::printf("%s  %s  %s\n  %s\n", st.Bold(Str(t, "id")).c_str(), what.c_str(), state.c_str(),
                st.Dim(LocalTime(Int(t, "created_at")) + " · " + Str(t, "author", "?") + " · " +
                       Str(t, "origin") + " · reason: " + Str(t, "reason"))
                    .c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Setting up, not asking the daemon: these parse their own arguments.
  if (argc >= 2 && (std::strcmp(argv[1], "mcp") == 0 || std::strcmp(argv[1], "service") == 0)) {
    std::vector<std::string> rest(argv + 2, argv + argc);
    return std::strcmp(argv[1], "mcp") == 0 ? origin::client::McpCommand(rest)
                                            : origin::client::ServiceCommand(rest);
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h" || (i == 1 && a == "help")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--version" || a == "-V") {
      std::printf("origin %s\n", ORIGIN_VERSION);
      return 0;
    }
  }
  Args args;
  try {
    args = Parse(argc, argv);
    if (args.command.empty()) {
      std::fputs(kUsage, stderr);
      return proto::kExitUsage;
    }
    static const std::map<std::string, std::pair<std::size_t, std::size_t>> kArity = {
        {"status", {0, 0}},   {"sync", {0, 0}},     {"timeline", {0, 1}}, {"projects", {0, 0}},
        {"show", {1, 1}},     {"sources", {1, 1}},  {"entries", {0, 0}},  {"remember", {1, 1}},
        {"correct", {1, 2}},  {"search", {0, 100}}, {"forget", {1, 1}},   {"restore", {1, 1}},
        {"forgotten", {0, 0}}};
    auto it = kArity.find(args.command);
    if (it == kArity.end())
      throw UsageError("unknown command " + args.command + " (see origin --help)");
    if (args.positional.size() < it->second.first)
      throw UsageError(args.command +
                       (args.command == "remember" ? " needs the entry's text" : " needs an id") +
                       " (see origin --help)");
    if (args.positional.size() > it->second.second)
      throw UsageError("unexpected argument " + args.positional.back());
    // Check the options before connecting.
    const bool writes = args.command == "remember" || args.command == "correct";
    const bool search = args.command == "search";
    if (args.all && args.command != "timeline" && !search)
      throw UsageError("--all is for timeline and search");
    if (args.history && args.command != "entries" && !search)
      throw UsageError("--history is for entries and search");
    if (args.recent && !search) throw UsageError("--recent is for search");
    const bool tombstone = args.command == "forget" || args.command == "restore";
    if (args.yes && !tombstone) throw UsageError("--yes is for forget and restore");
    if (!args.cites.empty() && !writes)
      throw UsageError("--cite and --quote are for remember and correct");
    if (args.command == "timeline") {
      for (const auto& [k, v] : args.opts)
        if (k == "kind" || k == "confidence" || k == "valid-from" || k == "valid-to" ||
            k == "scope")
          throw UsageError("--" + k + " is not an option of timeline");
      TimelineParams(args);
    } else if (writes) {
      EntryParams(args, args.command == "correct");
    } else if (args.command == "entries") {
      EntriesParams(args);
    } else if (search) {
      SearchParams(args);
    } else if (tombstone) {
      TombstoneParams(args);
    } else if (args.command == "forgotten") {
      for (const auto& [k, v] : args.opts)
        if (k != "limit") throw UsageError("--" + k + " is not an option of forgotten");
    } else if (args.command == "sync") {
      for (const auto& [k, v] : args.opts)
        if (k != "source") throw UsageError("--" + k + " is not an option of sync");
    } else if (!args.opts.empty()) {
      throw UsageError("--" + args.opts.begin()->first + " is not an option of " + args.command);
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "origin: %s\n", e.what());
    return proto::kExitUsage;
  }
  try {
    proto::Paths paths = proto::ResolvePaths();
    Connection c = Connection::Open(paths, "origin");
    if (args.command == "status") return Status(c, args.json);
    if (args.command == "sync") {
      auto src = args.opts.find("source");
      return Sync(c, args.json,
                  src == args.opts.end() ? "{}" : "{\"source\":" + JsonString(src->second) + "}");
    }
    if (args.command == "timeline") return Timeline(c, args);
    if (args.command == "projects") return Projects(c, args);
    if (args.command == "entries") return Entries(c, args);
    if (args.command == "search") return Search(c, args);
    if (args.command == "remember") return EntryWrite(c, args, false);
    if (args.command == "correct") return EntryWrite(c, args, true);
    if (args.command == "show") return Show(c, args);
    if (args.command == "forget" || args.command == "restore") return TombstoneWrite(c, args);
    if (args.command == "forgotten") return Forgotten(c, args);
    return Sources(c, args);
  } catch (const ClientError& e) {
    // The daemon's message may quote what it was given or found.
    std::fprintf(stderr, "origin: %s\n", TerminalSafe(e.what()).c_str());
    return proto::ExitCodeFor(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "origin: %s\n", TerminalSafe(e.what()).c_str());
    return proto::kExitError;
  }
}
