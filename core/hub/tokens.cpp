// SPDX-License-Identifier: MIT
#include "core/hub/tokens.hpp"

#include "core/entries/entries.hpp"
#include "core/store/audit.hpp"
#include "core/store/schema.hpp"
#include "core/util/hash.hpp"
#include "core/util/op_error.hpp"

namespace origin {

namespace {

constexpr std::size_t kTokenBytes = 24;  // 192 random bits, 48 hex digits

bool Lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// OpError kInvalidArgument, `what` then the rule, unless `name` is a
// device's name.
void CheckDeviceName(std::string_view name, const char* what) {
  if (!ValidDeviceName(name))
    throw OpError(OpError::Code::kInvalidArgument,
                  std::string(what) +
                      " lower-case letters, digits, '.', '_' and '-', at most 63, starting "
                      "with a letter or a digit (not \"" +
                      std::string(name) + "\")");
}

}  // namespace

bool ValidDeviceName(std::string_view name) {
  if (name.empty() || name.size() > 63 || !Lower(name[0])) return false;
  for (char c : name)
    if (!Lower(c) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

bool LooksLikeToken(std::string_view text) {
  if (text.size() != kTokenPrefix.size() + 2 * kTokenBytes || !text.starts_with(kTokenPrefix))
    return false;
  for (char c : text.substr(kTokenPrefix.size()))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string CreateToken(Db& db, std::int64_t now_ms, std::string_view name,
                        std::string_view actor, std::string_view channel) {
  CheckDeviceName(name, "a token is named after its device:");
  Transaction tx(db);
  if (db.Prepare("SELECT 1 FROM api_token WHERE name = ? AND revoked_at IS NULL")
          .Bind(1, std::string(name))
          .Step())
    throw OpError(OpError::Code::kConflict,
                  "\"" + std::string(name) +
                      "\" has a token already: revoke it first (origin token revoke " +
                      std::string(name) + ")");
  const std::string token = RandomId(kTokenPrefix, kTokenBytes);
  db.Prepare("INSERT INTO api_token(name, hash, created_at) VALUES (?, ?, ?)")
      .Bind(1, std::string(name))
      .Bind(2, Sha256Hex(token))
      .Bind(3, now_ms)
      .Run();
  AppendAudit(db, now_ms, actor, channel, "token_create", {{"name", name}});
  tx.Commit();
  return token;
}

void RevokeToken(Db& db, std::int64_t now_ms, std::string_view name, std::string_view actor,
                 std::string_view channel) {
  Transaction tx(db);
  db.Prepare("UPDATE api_token SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL")
      .Bind(1, now_ms)
      .Bind(2, std::string(name))
      .Run();
  if (db.Changes() == 0)
    throw OpError(OpError::Code::kNotFound,
                  "no active token is named \"" + std::string(name) + "\" (origin token list)");
  AppendAudit(db, now_ms, actor, channel, "token_revoke", {{"name", name}});
  tx.Commit();
}

std::vector<TokenRow> ListTokens(Db& db) {
  std::vector<TokenRow> out;
  auto st = db.Prepare(
      "SELECT name, created_at, revoked_at FROM api_token ORDER BY name, created_at DESC, seq DESC");
  while (st.Step()) {
    TokenRow r{std::string(st.Text(0)), st.Int(1), std::nullopt};
    if (!st.IsNull(2)) r.revoked_at = st.Int(2);
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<std::string> TokenOwner(Db& db, std::string_view token) {
  if (!LooksLikeToken(token)) return std::nullopt;
  // Looked up by its hash: what is compared is a digest the caller cannot
  // steer, so the lookup's timing tells nothing of a stored token.
  auto st = db.Prepare("SELECT name FROM api_token WHERE hash = ? AND revoked_at IS NULL");
  st.Bind(1, Sha256Hex(token));
  if (!st.Step()) return std::nullopt;
  return std::string(st.Text(0));
}

std::string RenameStore(Db& db, std::string_view name, std::string_view connected, bool apply) {
  CheckDeviceName(name, "a device's name is made of");
  std::optional<Transaction> tx;  // a check only may run on a reader
  if (apply) tx.emplace(db);
  const std::string was = StoreNameOf(db);
  if (was != name) {
    const std::string keeps = "; this store keeps its name, " + was +
                              ": a hub takes it with a token named " + was +
                              " (origin token create " + was + " on the hub)";
    // Entries derived from the agents' memory files are never sent, and so
    // do not fix a name (spec: Storage, Store names).
    auto own = db.Prepare(
        "SELECT (SELECT count(*) FROM entry WHERE origin = ?1 AND id NOT IN "
        "(SELECT entry_id FROM imported_entry)), "
        "(SELECT count(*) FROM tombstone WHERE origin = ?1)");
    own.Bind(1, was);
    own.Step();
    const std::int64_t entries = own.Int(0), tombstones = own.Int(1);
    if (entries + tombstones > 0)
      throw OpError(OpError::Code::kConflict, "this store has written " + std::to_string(entries) +
                                                  (entries == 1 ? " entry" : " entries") + " and " +
                                                  std::to_string(tombstones) +
                                                  (tombstones == 1 ? " tombstone" : " tombstones") +
                                                  " as " + was + ", which other stores know it by" +
                                                  keeps);
    // A hub knows a device's mirrors and cursors by its name: under another,
    // they would all be sent again, as a new device's.  A store that is
    // connected, or has tried a sync (a failed one may have sent mirrors),
    // keeps its name.
    if (!connected.empty())
      throw OpError(OpError::Code::kConflict, "this store is connected to the hub " +
                                                  std::string(connected) + " as " + was + keeps);
    if (db.Prepare("SELECT 1 FROM setting WHERE key IN ('hub.last_sync', 'hub.last_error') OR "
                   "key GLOB 'hub.push *' OR key GLOB 'hub.pull *' OR key GLOB 'relay.file *' "
                   "LIMIT 1")
            .Step())
      throw OpError(OpError::Code::kConflict, "this store has synced with a hub as " + was +
                                                  ", which holds what it sent under that name" +
                                                  keeps);
  }
  if (!apply) return was;
  // Its own name too is fixed, as an entry would fix it: ORIGIN_DEVICE and
  // the host name no longer count.
  PutSetting(db, "store.name", std::string(name));
  tx->Commit();
  return was;
}

}  // namespace origin
