// SPDX-License-Identifier: MIT
// origin status and origin sync.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "client/connection.hpp"
#include "client/failure.hpp"
#include "proto/paths.hpp"
#include "proto/protocol.hpp"
#include "proto/requests.hpp"

namespace origin::client {

namespace {

namespace proto = origin::proto;

// 5 when the daemon lists something that needs the user (a source whose
// sync fails, a mirror refusing appends, an unreadable directory, a search
// index that cannot be written): scripts and `origin doctor` rely on it.
int AttentionCode(const rapidjson::Value& r) {
  auto a = r.FindMember("attention");
  return a != r.MemberEnd() && a->value.IsArray() && !a->value.Empty() ? proto::kExitAttention
                                                                       : proto::kExitOk;
}

// The attention list: each item after "! ", its lines under the first.
void PrintAttention(const rapidjson::Value& r, std::FILE* out, const Style& s) {
  if (auto a = r.FindMember("attention"); a != r.MemberEnd() && a->value.IsArray())
    for (const auto& n : a->value.GetArray())
      if (n.IsString()) {
        const std::size_t width = Output().width;
        std::string text = Wrapped(n.GetString(), width > 22 ? width - 2 : width, 0);
        for (std::size_t at = text.find('\n'); at + 1 < text.size(); at = text.find('\n', at + 3))
          text.insert(at + 1, "  ");
        std::fprintf(out, "%s%s", s.Red("! ").c_str(), text.c_str());
      }
}

// A device's hub: where it syncs, and when it last did (a failure is in
// the attention list).
void PrintHub(const rapidjson::Value& r, std::FILE* out) {
  if (auto h = r.FindMember("hub"); h != r.MemberEnd() && h->value.IsObject()) {
    const rapidjson::Value& hub = h->value;
    const std::string when = hub["last_sync_at"].IsInt64()
                                 ? "last synced " + LocalTime(hub["last_sync_at"].GetInt64())
                                 : std::string("not synced yet");
    std::fprintf(out, "hub: %s · %s\n", Str(hub, "url", "(no URL)").c_str(), when.c_str());
  }
}

// A hub (origin serve): where it serves, and each device whose logs it
// holds, with what came of them and its token.
void PrintServing(const rapidjson::Value& r, std::FILE* out, const Style& s) {
  auto h = r.FindMember("serving");
  if (h == r.MemberEnd() || !h->value.IsObject()) return;
  const rapidjson::Value& hub = h->value;
  const std::string url = Str(hub, "url");
  const std::string pub = Str(hub, "public_url");
  std::fprintf(out, "\nthis store is a hub: %s%s\n",
               url.empty() ? "not serving HTTP at the moment" : ("serving " + url).c_str(),
               pub.empty() ? "" : (" · public URL " + pub).c_str());
  const rapidjson::Value& devices = hub["devices"];
  if (!devices.IsArray() || devices.Empty()) {
    std::fputs(Wrapped("No device has synced here yet: origin token create NAME here, then on "
                       "the device origin hub connect URL --token T.",
                       Output().width, 0)
                   .c_str(),
               out);
    return;
  }
  std::fprintf(
      out, "%s\n",
      s.Dim("the devices whose logs it holds (the sources above count them too):").c_str());
  std::vector<std::vector<std::string>> rows = {{s.Dim("DEVICE"), s.Dim("FILES"), s.Dim("LOGS"),
                                                 s.Dim("LINES"), s.Dim("ERRORS"),
                                                 s.Dim("LAST RECEIVED"), s.Dim("TOKEN")}};
  for (const auto& d : devices.GetArray()) {
    const std::int64_t errors = Int(d, "parse_errors");
    const std::string token = Str(d, "token");
    rows.push_back(
        {Str(d, "name"), Thousands(Int(d, "files")), HumanBytes(Int(d, "bytes")),
         Thousands(Int(d, "lines")), errors > 0 ? s.Yellow(Thousands(errors)) : Thousands(errors),
         d["last_received_at"].IsInt64() ? LocalTime(d["last_received_at"].GetInt64()) : "never",
         token.empty()       ? s.Dim("none")
         : token == "active" ? token
                             : s.Yellow(token)});
  }
  std::fputs(Table(rows, {{}, {true}, {true}, {true}, {true}, {false, 1, 16}, {false, 2, 7}},
                   Output().width)
                 .c_str(),
             out);
}

// A relay (spec: Relays): no store to count, but what its agents wrote
// that the hub has not received yet, by source.
void RenderRelay(const rapidjson::Value& r, std::FILE* out, const Style& s) {
  std::fputs(Wrapped("A relay of its hub: it keeps no memory of its own, sends its agents' new "
                     "log lines to the hub, and its agents' MCP tools answer through the hub. "
                     "Until the hub has them, the agents' logs are the only copy.",
                     Output().width, 0)
                 .c_str(),
             out);
  std::vector<std::vector<std::string>> rows = {
      {s.Dim("SOURCE"), s.Dim("UNSENT FILES"), s.Dim("UNSENT"), s.Dim("OLDEST UNSENT")}};
  const rapidjson::Value& unsent = r["relay"]["unsent"];
  for (const auto& src : r["sources"].GetArray()) {
    const std::string id = Str(src, "source");
    if (!src["root_exists"].GetBool()) {
      rows.push_back({Str(src, "name"), "-", "-", s.Dim("no logs at " + Str(src, "root"))});
      continue;
    }
    std::int64_t files = 0, bytes = 0, oldest = 0;
    for (const auto& u : unsent.GetArray())
      if (Str(u, "source") == id) {
        files = Int(u, "files");
        bytes = Int(u, "bytes");
        oldest = u["oldest_at"].IsInt64() ? u["oldest_at"].GetInt64() : 0;
      }
    rows.push_back({Str(src, "name"), Thousands(files), HumanBytes(bytes),
                    files > 0 && oldest > 0 ? LocalTime(oldest) : "-"});
  }
  std::fprintf(out, "\n");
  std::fputs(Table(rows, {{}, {true}, {true}, {false, 1, 16}}, Output().width).c_str(), out);
  PrintAttention(r, out, s);
  std::fprintf(out, "\n");
  PrintHub(r, out);
}

// A store: its sources, what needs the user, its size and its hub.
void RenderStore(const rapidjson::Value& r, std::FILE* out, const Style& s) {
  const auto& st = r["store"];
  std::vector<std::vector<std::string>> rows = {{s.Dim("SOURCE"), s.Dim("FILES"), s.Dim("SESSIONS"),
                                                 s.Dim("EVENTS"), s.Dim("ERRORS 7D"),
                                                 s.Dim("LAST INGEST"), s.Dim("VERSION")}};
  std::int64_t files_total = 0;
  std::vector<std::string> notes;
  for (const auto& src : r["sources"].GetArray()) {
    std::string name = Str(src, "name");
    bool exists = src["root_exists"].GetBool();
    files_total += Int(src, "files");
    const bool looked =
        !src.HasMember("looked") || !src["looked"].IsBool() || src["looked"].GetBool();
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
  std::fputs(Table(rows, {{}, {true}, {true}, {true}, {true}, {false, 1, 16}, {false, 2, 8}},
                   Output().width)
                 .c_str(),
             out);
  PrintAttention(r, out, s);
  for (const auto& n : notes) std::fprintf(out, "%s\n", n.c_str());
  if (auto x = r.FindMember("search_index"); x != r.MemberEnd() && x->value.IsObject()) {
    const std::string state = Str(x->value, "state");
    if (state == "rebuilding")
      std::fprintf(out, "%s\n",
                   s.Yellow("search index: damaged, being rebuilt from the events (" +
                            Thousands(Int(x->value, "indexed_upto")) + " of " +
                            Thousands(Int(st, "max_seq")) + "); searches read the events meanwhile")
                       .c_str());
    else if (Int(x->value, "indexed_upto") + 1000 < Int(st, "max_seq"))
      std::fprintf(
          out, "%s\n",
          s.Dim("search index: catching up (" + Thousands(Int(x->value, "indexed_upto")) + " of " +
                Thousands(Int(st, "max_seq")) + " events); searches read the newer events directly")
              .c_str());
    else if (state == "ok" && Int(x->value, "rebuilds") > 0)
      std::fprintf(
          out, "%s\n",
          s.Dim("search index: found damaged at " + LocalTime(Int(x->value, "problem_at")) +
                " and rebuilt from the events (details: origin status --json)")
              .c_str());
  }
  std::int64_t disk = Int(st, "mirror_disk_bytes"), content = Int(st, "mirror_content_bytes");
  std::fprintf(out, "\nstore: database %s · mirrors %s on disk for %s of logs",
               HumanBytes(Int(st, "db_bytes")).c_str(), HumanBytes(disk).c_str(),
               HumanBytes(content).c_str());
  if (disk > 0)
    std::fprintf(out, " (%.1f×)", static_cast<double>(content) / static_cast<double>(disk));
  std::fprintf(out, "\n");
  PrintHub(r, out);
  PrintServing(r, out, s);
  if (files_total == 0) {
    std::fprintf(out, "\nNo agent logs found on this machine yet. Origin watches:\n");
    for (const auto& src : r["sources"].GetArray())
      std::fprintf(out, "  %-12s %s\n", Str(src, "name").c_str(), Str(src, "root").c_str());
    std::fputs(Wrapped("Use an agent (or point Origin at its logs with CLAUDE_CONFIG_DIR, "
                       "CODEX_HOME, ZCODE_HOME or GROK_HOME) and its sessions appear here.",
                       Output().width, 0)
                   .c_str(),
               out);
  }
}

int RenderStatus(rapidjson::Document& r, const Invocation& inv) {
  if (PrintedJson(r, inv.json())) return AttentionCode(r);
  Style s{UseColor(stdout)};
  char* buf = nullptr;
  std::size_t size = 0;
  std::FILE* out = ::open_memstream(&buf, &size);
  if (out == nullptr) throw std::runtime_error("out of memory");
  const auto& d = r["daemon"];
  const bool relay = r.HasMember("relay") && r["relay"].IsObject();
  std::fprintf(out, "%s %s · %s %s · daemon pid %lld\n%s\n\n", s.Bold("Origin").c_str(),
               Str(d, "version").c_str(), relay ? "relay" : "store", Str(d, "store").c_str(),
               static_cast<long long>(Int(d, "pid")), Str(d, "home").c_str());
  if (relay)
    RenderRelay(r, out, s);
  else
    RenderStore(r, out, s);
  // Every line fitted to the terminal (those wrapped above fit already).
  std::fclose(out);
  std::fputs(FitLines(std::string_view(buf, size), Output().width).c_str(), stdout);
  std::free(buf);
  return AttentionCode(r);
}

constexpr Option kStatusOptions[] = {kJsonOption};

constexpr std::string_view kStatusDetails =
    "What the store holds, per agent: files, sessions and events, parse errors of\n"
    "the last 7 days, the latest ingest and the agent's version; the search index;\n"
    "the size of the database and of the raw mirrors; the hub a device syncs with.\n"
    "Below the table, a line for each thing that needs you (a source whose latest\n"
    "sync failed, a mirror that refuses appends, a log directory that cannot be\n"
    "read, a search index that cannot be written, a hub the last sync failed\n"
    "with): then the exit code is 5, and the answer is printed all the same.\n";

constexpr std::string_view kStatusExamples =
    "  origin status\n"
    "  origin status --json | jq '.sources[] | {source, events}'\n";

}  // namespace

const Command kStatusCommand{
    .name = "status",
    .summary = "what the store holds, per agent, and how big it is",
    .options = kStatusOptions,
    .details = kStatusDetails,
    .examples = kStatusExamples,
    .method = "status",
    .build = [](const Invocation&) { return std::string("{}"); },
    .render = RenderStatus,
};

namespace {

int RenderSync(rapidjson::Document& r, const Invocation& inv) {
  // A source that could not be read or stored fails the sync (exit 1).
  bool failed = false;
  for (const auto& s : r["sources"].GetArray()) failed = failed || !s["errors"].Empty();
  const bool hub = r.HasMember("hub") && r["hub"].IsObject();
  // A hub that could not be reached fails it too.
  if (hub && r["hub"].HasMember("error") && r["hub"]["error"].IsString()) failed = true;
  const int code = failed ? proto::kExitError : proto::kExitOk;
  if (PrintedJson(r, inv.json())) return code;
  // A relay ingests nothing: its sync is the hub's part alone.
  const bool relay = r.HasMember("relay") && r["relay"].IsBool() && r["relay"].GetBool();
  // What it could not send, before an agent's own cleanup deletes it.
  if (relay && r.HasMember("warnings") && r["warnings"].IsArray())
    for (const auto& w : r["warnings"].GetArray())
      if (w.IsString()) std::fprintf(stderr, "origin: warning: %s\n", w.GetString());
  if (relay && hub) return std::max(code, RenderHubSync(r["hub"]));
  if (relay) {
    std::printf("this relay is not connected to a hub: nothing was sent "
                "(origin hub connect URL --token T)\n");
    return code;
  }
  std::int64_t errors = 0;
  for (const auto& s : r["sources"].GetArray()) errors += Int(s, "parse_errors");
  std::printf(
      "synced: %s from %s (%s) in %s%s\n",
      Plural(Int(r, "events"), "new event", "new events").c_str(),
      Plural(Int(r, "lines"), "line", "lines").c_str(), HumanBytes(Int(r, "bytes")).c_str(),
      Plural(Int(r, "files_changed"), "changed file", "changed files").c_str(),
      errors > 0 ? (", " + Plural(errors, "line", "lines") + " could not be parsed").c_str() : "");
  for (const auto& s : r["sources"].GetArray())
    for (const auto& e : s["errors"].GetArray())
      std::fprintf(stderr, "origin: %s: %s\n", Str(s, "source").c_str(), e.GetString());
  if (hub) RenderHubSync(r["hub"]);
  return code;
}

std::string SyncParams(const Invocation& inv) {
  proto::SyncRequest r;
  r.source = inv.Value("source");
  return proto::Encode(r);
}

constexpr Option kSyncOptions[] = {
    {"source", "NAME", "only this agent's logs: claude-code, codex, cursor, zcode or grok"},
    kJsonOption};

constexpr std::string_view kSyncDetails =
    "Ingests every agent's new log lines now (the daemon also does it by itself\n"
    "within about a second of a line being written).  It reports what was ingested\n"
    "between the request and its answer, a sync that was already under way\n"
    "included.  A progress bar goes to stderr when stderr is a terminal.  A source\n"
    "that could not be read or stored makes it exit 1, each error on stderr.\n"
    "On a device connected to a hub (origin hub connect), it then syncs with the\n"
    "hub: this store's mirrors, entries and tombstones up, the hub's tombstones\n"
    "down; a hub that cannot be reached makes it exit 1 too.\n";

constexpr std::string_view kSyncExamples =
    "  origin sync\n"
    "  origin sync --source codex --json\n";

}  // namespace

const Command kSyncCommand{
    .name = "sync",
    .summary = "ingest every agent's new log lines now, or one agent's",
    .options = kSyncOptions,
    .details = kSyncDetails,
    .examples = kSyncExamples,
    .method = "sync",
    .progress = true,
    .build = SyncParams,
    .render = RenderSync,
};

namespace {

int RunStop(const std::vector<std::string>& words) {
  const bool json = WantsJson(words);
  Invocation inv;
  if (std::optional<int> code = ParseOwn(kStopCommand, words, &inv)) return *code;
  const proto::Paths paths = proto::ResolvePaths();
  try {
    const std::optional<std::int64_t> pid = StopDaemon(paths, std::chrono::seconds(30));
    if (json) {
      std::printf("{\"stopped\":%s", pid ? "true" : "false");
      if (pid) std::printf(",\"pid\":%lld", static_cast<long long>(*pid));
      std::printf("}\n");
    } else if (pid) {
      std::printf("Stopped originsd (pid %lld) of %s.\n", static_cast<long long>(*pid),
                  TerminalSafe(paths.home).c_str());
    } else {
      std::printf("No originsd runs on %s.\n", TerminalSafe(paths.home).c_str());
    }
    return proto::kExitOk;
  } catch (const ClientError& e) {
    return Failure(json, e.code(), e.what());
  }
}

constexpr Option kStopOptions[] = {kJsonOption};

constexpr std::string_view kStopDetails =
    "Stops this store's daemon: it finishes the transaction it is in and exits,\n"
    "as on SIGTERM, and origin stop returns once its process is gone (30 s at\n"
    "most).  It starts no daemon: with none running it says so, and\n"
    "exits 0.  The next origin or origin-mcp starts one again, unless\n"
    "ORIGIN_NO_AUTOSTART=1.  A daemon of the user service stops as on\n"
    "systemctl --user stop (the unit restarts it only after a failure).\n";

}  // namespace

const Command kStopCommand{
    .name = "stop",
    .summary = "stop this store's daemon (it finishes the transaction it is in)",
    .options = kStopOptions,
    .details = kStopDetails,
    .examples = "  origin stop\n  ORIGIN_HOME=~/other-store origin stop\n",
    .run = RunStop,
};

}  // namespace origin::client
