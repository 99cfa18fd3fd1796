// SPDX-License-Identifier: MIT
// origin token create NAME | list | revoke NAME: a hub's access tokens
// (core/hub/tokens.hpp), made by the daemon of this store.  The token's
// text is printed once, by create, and kept nowhere: not in the store (its
// SHA-256 only), not in the daemon's log.

#include <cstdio>
#include <string>

#include "client/commands/commands.hpp"
#include "client/commands/common.hpp"
#include "client/render.hpp"
#include "proto/protocol.hpp"
#include "proto/requests.hpp"

namespace origin::client {

namespace {

namespace proto = origin::proto;

std::string_view TokenMethod(const Invocation& inv) {
  const std::string& sub = inv.args.at(0);
  if (sub == "create") return "token_create";
  if (sub == "revoke") return "token_revoke";
  return "token_list";
}

std::string TokenParams(const Invocation& inv) {
  const std::string& sub = inv.args.at(0);
  if (sub != "create" && sub != "list" && sub != "revoke")
    throw UsageError("origin token takes create NAME, list or revoke NAME, not " + sub);
  if (sub == "list") {
    if (inv.args.size() > 1) throw UsageError("origin token list takes no name");
    return "{}";
  }
  if (inv.args.size() < 2) throw UsageError("origin token " + sub + " needs the token's NAME");
  proto::TokenRequest r;
  r.name = inv.args[1];
  return proto::Encode(r);
}

int RenderToken(rapidjson::Document& r, const Invocation& inv) {
  if (PrintedJson(r, inv.json())) return proto::kExitOk;
  const std::string& sub = inv.args.at(0);
  Style s{UseColor(stdout)};
  if (sub == "create") {
    const std::string name = Str(r, "name");
    std::printf("%s\n", Str(r, "token").c_str());
    std::fprintf(stderr,
                 "%s\n"
                 "It is shown this once; this hub keeps only its SHA-256.  It is bound to\n"
                 "the name \"%s\" (a device's, or a cloud agent's): send it to this hub's\n"
                 "/mcp as \"Authorization: Bearer TOKEN\".\n",
                 s.Bold("A new token for " + name + " (above).").c_str(), name.c_str());
    return proto::kExitOk;
  }
  if (sub == "revoke") {
    std::printf("revoked the token of %s: its requests are refused from now on\n",
                Str(r, "name").c_str());
    return proto::kExitOk;
  }
  const auto& tokens = r["tokens"];
  if (tokens.Empty()) {
    std::printf("No token yet: origin token create NAME makes one.\n");
    return proto::kExitOk;
  }
  for (const auto& t : tokens.GetArray()) {
    const bool revoked = t["revoked_at"].IsInt64();
    std::printf("%-24s created %s  %s\n", Str(t, "name").c_str(),
                LocalTime(Int(t, "created_at")).c_str(),
                revoked ? s.Dim("revoked " + LocalTime(t["revoked_at"].GetInt64())).c_str()
                        : s.Green("active").c_str());
  }
  return proto::kExitOk;
}

constexpr Option kTokenOptions[] = {kJsonOption};

constexpr std::string_view kTokenDetails =
    "A hub's access tokens (origin serve).  Every request to the hub's /mcp needs\n"
    "one, as \"Authorization: Bearer TOKEN\".  A token is named after the device it\n"
    "is bound to (lower-case letters, digits, '.', '_' and '-'); a cloud agent's\n"
    "token takes a name of its own, such as ci.  What an agent writes through the\n"
    "hub's /mcp is recorded as AGENT@NAME (the X-Origin-Client header names the\n"
    "agent), or as NAME alone.\n"
    "create prints the new token once, on standard output; the store keeps only\n"
    "its SHA-256.  A name has one active token at a time: revoke it first to\n"
    "replace it (a device that lost its token keeps its name).  revoke takes\n"
    "effect at once.  list shows every token, revoked ones too, never their text.\n"
    "Creating and revoking are recorded in the audit log, by name.\n";

constexpr std::string_view kTokenExamples =
    "  origin token create laptop\n"
    "  origin token create ci --json\n"
    "  origin token list\n"
    "  origin token revoke laptop\n";

}  // namespace

const Command kTokenCommand{
    .name = "token",
    .args = "create NAME | list | revoke NAME",
    .min_args = 1,
    .max_args = 2,
    .missing = "what to do: create NAME, list or revoke NAME",
    .summary = "a hub's access tokens: create (shown once), list, revoke",
    .options = kTokenOptions,
    .details = kTokenDetails,
    .examples = kTokenExamples,
    .method = "token_list",
    .build = TokenParams,
    .render = RenderToken,
    .arg_words = "create list revoke",
    .method_for = TokenMethod,
};

}  // namespace origin::client
