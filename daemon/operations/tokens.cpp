// SPDX-License-Identifier: MIT
// token_create, token_list and token_revoke: a hub's access tokens
// (core/hub/tokens.hpp), the owner's alone (the CLI on the socket; never an
// MCP tool, never over HTTP).  The token's text is in token_create's answer
// and nowhere else: such a write takes no request key, whose stored answer
// would keep it.
#include "core/hub/tokens.hpp"
#include "daemon/operations/operations.hpp"

namespace origin::ops {

namespace {

// Token changes from the CLI are recorded as the CLI's (spec: Audit log).
constexpr std::string_view kActor = "cli";

}  // namespace

void TokenCreate(Context& ctx, Db& db, const proto::TokenRequest& r, const Caller& caller,
                 rpc::Writer& w) {
  const std::int64_t now = ctx.clock.NowMs();
  const std::string token = CreateToken(db, now, r.name, kActor, caller.channel);
  w.StartObject();
  w.Key("name");
  w.String(r.name);
  w.Key("token");
  w.String(token);
  w.Key("created_at");
  w.Int64(now);
  w.EndObject();
}

void TokenRevoke(Context& ctx, Db& db, const proto::TokenRequest& r, const Caller& caller,
                 rpc::Writer& w) {
  const std::int64_t now = ctx.clock.NowMs();
  RevokeToken(db, now, r.name, kActor, caller.channel);
  w.StartObject();
  w.Key("name");
  w.String(r.name);
  w.Key("revoked_at");
  w.Int64(now);
  w.EndObject();
}

void TokenList(Context&, Db& db, const proto::NoRequest&, rpc::Writer& w) {
  w.StartObject();
  w.Key("tokens");
  w.StartArray();
  for (const TokenRow& t : ListTokens(db)) {
    w.StartObject();
    w.Key("name");
    w.String(t.name);
    w.Key("created_at");
    w.Int64(t.created_at);
    w.Key("revoked_at");
    if (t.revoked_at)
      w.Int64(*t.revoked_at);
    else
      w.Null();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace origin::ops
