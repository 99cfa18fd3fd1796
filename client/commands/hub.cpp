// SPDX-License-Identifier: MIT
// origin hub connect URL --token T | status | disconnect: this device's
// connection to its hub (spec: Using a hub from a device).  The daemon
// asks the hub, keeps the connection in <ORIGIN_HOME>/hub.json (0600), and
// syncs with it (daemon/hub/sync.hpp).

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "client/connection.hpp"
#include "client/render.hpp"
#include "proto/protocol.hpp"
#include "proto/requests.hpp"

namespace origin::client {

int RenderHubSync(const rapidjson::Value& h) {
  if (h.HasMember("error") && h["error"].IsString()) {
    std::fprintf(stderr, "origin: the sync with the hub %s stopped: %s\n", Str(h, "url").c_str(),
                 h["error"].GetString());
    return proto::kExitError;
  }
  std::printf("hub %s: sent %s (%s), %s and %s; received %s\n", Str(h, "url").c_str(),
              Plural(Int(h, "chunks"), "chunk", "chunks").c_str(),
              HumanBytes(Int(h, "bytes")).c_str(),
              Plural(Int(h, "entries"), "entry", "entries").c_str(),
              Plural(Int(h, "tombstones_up"), "tombstone", "tombstones").c_str(),
              Plural(Int(h, "tombstones_down"), "tombstone", "tombstones").c_str());
  if (const std::int64_t reports = Int(h, "reports"); reports > 0)
    std::printf("  told the hub what %s made elsewhere %s here\n",
                Plural(reports, "forget", "forgets").c_str(), reports == 1 ? "covers" : "cover");
  if (h.HasMember("refused") && h["refused"].IsArray())
    for (const auto& f : h["refused"].GetArray())
      if (f.IsString()) std::printf("  not sent: %s\n", f.GetString());
  if (h.HasMember("pending") && h["pending"].IsString())
    std::printf("  %s waits for the events it cites to reach the hub; it goes with a later sync\n",
                h["pending"].GetString());
  return proto::kExitOk;
}

namespace {

namespace proto = origin::proto;

std::string_view HubMethod(const Invocation& inv) {
  const std::string& sub = inv.args.at(0);
  if (sub == "connect") return "hub_connect";
  if (sub == "disconnect") return "hub_disconnect";
  return "hub_status";
}

std::string HubParams(const Invocation& inv) {
  const std::string& sub = inv.args.at(0);
  if (sub != "connect" && sub != "status" && sub != "disconnect")
    throw UsageError("origin hub takes connect URL --token TOKEN, status or disconnect, not " + sub);
  if (sub != "connect") {
    if (inv.args.size() > 1) throw UsageError("origin hub " + sub + " takes no URL");
    if (inv.Value("token") || inv.Value("ca-file") || inv.Value("device") || inv.Flag("relay"))
      throw UsageError("--token, --ca-file, --device and --relay go with origin hub connect");
    return "{}";
  }
  if (inv.args.size() < 2) throw UsageError("origin hub connect needs the hub's URL");
  std::optional<std::string> token = inv.Value("token");
  if (!token || token->empty())
    throw UsageError("origin hub connect needs --token TOKEN (origin token create NAME on the hub)");
  proto::HubConnectRequest r;
  r.url = inv.args[1];
  r.token = *token;
  r.relay = inv.Flag("relay");
  r.device = inv.Value("device");
  // A daemon this command starts makes an empty store a relay before its
  // first sync ingests anything.
  if (r.relay) AddDaemonArgument("--relay");
  if (std::optional<std::string> ca = inv.Value("ca-file")) {
    r.ca_file = AbsolutePath(*ca, "--ca-file");
    if (std::FILE* f = std::fopen(r.ca_file->c_str(), "r"))
      std::fclose(f);
    else
      throw UsageError("cannot read --ca-file " + *ca + ": " + std::strerror(errno));
  }
  return proto::Encode(r);
}

int RenderHub(rapidjson::Document& r, const Invocation& inv) {
  const std::string& sub = inv.args.at(0);
  const bool failed = r.HasMember("error") && r["error"].IsString();
  if (PrintedJson(r, inv.json())) return failed ? proto::kExitError : proto::kExitOk;
  Style s{UseColor(stdout)};
  if (sub == "connect") {
    std::printf(
        "connected to the hub %s (%s) as %s; a sync has started (origin hub status says "
        "when it finished)\n",
        Str(r, "url").c_str(), Str(r, "hub").c_str(), Str(r, "device").c_str());
    if (r.HasMember("relay") && r["relay"].IsBool() && r["relay"].GetBool())
      std::printf(
          "this store is a relay: it keeps no memory of its own, sends the agents' new lines to "
          "the hub, and its agents' MCP tools answer through the hub\n");
    return proto::kExitOk;
  }
  if (sub == "disconnect") {
    if (r.HasMember("from_env") && r["from_env"].IsBool() && r["from_env"].GetBool()) {
      std::fprintf(stderr,
                   "origin: %sthe daemon still syncs with the hub that ORIGIN_HUB_URL and "
                   "ORIGIN_HUB_TOKEN name in its environment: unset them and restart it "
                   "(origin stop; the next command starts it)\n",
                   r["removed"].GetBool() ? "hub.json is removed, but " : "");
      return proto::kExitError;
    }
    std::printf("%s\n", r["removed"].GetBool()
                            ? "disconnected: this store no longer syncs with a hub (it keeps "
                              "everything it holds)"
                            : "this store was not connected to a hub");
    return proto::kExitOk;
  }
  if (!r["connected"].GetBool()) {
    std::printf("not connected to a hub: origin hub connect URL --token TOKEN\n");
    return proto::kExitOk;
  }
  std::printf("hub      %s%s\n", Str(r, "url").c_str(),
              r["from_env"].GetBool() ? " (ORIGIN_HUB_URL / ORIGIN_HUB_TOKEN)" : "");
  std::printf("device   %s\n", Str(r, "store").c_str());
  if (failed)
    std::printf("check    %s\n", s.Red(r["error"].GetString()).c_str());
  else
    std::printf("check    %s\n",
                s.Green("ok: the token is " + Str(r, "device") + "'s on the hub (named " +
                        Str(r, "hub") + ")")
                    .c_str());
  std::printf("synced   %s\n", r["last_sync"].IsInt64()
                                   ? LocalTime(r["last_sync"].GetInt64()).c_str()
                                   : "never");
  if (r["last_error"].IsString())
    std::printf("failed   %s: %s\n", LocalTime(Int(r, "last_error_at")).c_str(),
                s.Red(r["last_error"].GetString()).c_str());
  return failed ? proto::kExitError : proto::kExitOk;
}

constexpr Option kHubOptions[] = {
    {"token", "TOKEN", "connect: this device's token on the hub (origin token create NAME there)"},
    {"ca-file", "FILE",
     "connect: trust the https hub's certificate if FILE's certificates (PEM) signed it, "
     "instead of the system's authorities"},
    {"device", "NAME",
     "connect: give this store NAME, its token's name, while it has written no entry or "
     "tombstone and has not synced with a hub"},
    {"relay", "",
     "connect: make this empty store a relay, which keeps nothing but cursors and answers "
     "through the hub (for a machine with little disk)"},
    kJsonOption};

constexpr std::string_view kHubDetails =
    "A device's connection to its personal hub (origin serve on another machine).\n"
    "connect asks the hub whose token TOKEN is: it must be this store's name (the\n"
    "device's), else nothing is saved and it says how to fix it.  A store is\n"
    "named by ORIGIN_DEVICE or the host name; --device NAME renames it first,\n"
    "while it has written no entry or tombstone and has not synced with a hub.\n"
    "The connection is kept in ORIGIN_HOME/hub.json, readable by you only;\n"
    "ORIGIN_HUB_URL and ORIGIN_HUB_TOKEN override it.  Once connected, the\n"
    "daemon syncs with the hub: this store's raw mirrors, entries and tombstones\n"
    "up, the hub's forgets and restores down; origin sync does it at once.\n"
    "status makes the same check and shows when the last sync finished, and the\n"
    "error of a later one that failed.\n"
    "disconnect removes hub.json; the store keeps everything it holds.\n"
    "With --relay, an empty store becomes a relay of the hub: it stores no\n"
    "mirrors and no events, sends its agents' new log lines straight to the hub,\n"
    "and hands every MCP tool call to the hub.  Until the hub has them, the\n"
    "agents' own logs are the only copy: origin status warns before an agent's\n"
    "cleanup can delete what the hub has not received.  A relay stays one; a\n"
    "store that holds anything is refused (use a new ORIGIN_HOME).\n";

constexpr std::string_view kHubExamples =
    "  origin hub connect https://hub.example.net --token ogn_...\n"
    "  origin hub connect https://hub.example.net --token ogn_... --device laptop\n"
    "  origin hub connect https://hub.example.net --token ogn_... --relay\n"
    "  origin hub status\n"
    "  origin hub disconnect\n";

}  // namespace

const Command kHubCommand{
    .name = "hub",
    .args = "connect URL | status | disconnect",
    .min_args = 1,
    .max_args = 2,
    .missing = "what to do: connect URL --token TOKEN, status or disconnect",
    .summary = "this device's personal hub: connect, status, disconnect",
    .options = kHubOptions,
    .details = kHubDetails,
    .examples = kHubExamples,
    .method = "hub_status",
    .build = HubParams,
    .render = RenderHub,
    .arg_words = "connect status disconnect",
    .method_for = HubMethod,
};

}  // namespace origin::client
