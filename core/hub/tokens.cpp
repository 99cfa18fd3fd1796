// SPDX-License-Identifier: MIT
#include "core/hub/tokens.hpp"

#include "core/store/audit.hpp"
#include "core/util/hash.hpp"
#include "core/util/op_error.hpp"

namespace origin {

namespace {

constexpr std::size_t kTokenBytes = 24;  // 192 random bits, 48 hex digits

bool Lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

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
  if (!ValidDeviceName(name))
    throw OpError(OpError::Code::kInvalidArgument,
                  "a token is named after its device: lower-case letters, digits, '.', '_' and "
                  "'-', at most 63, starting with a letter or a digit (not \"" +
                      std::string(name) + "\")");
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

}  // namespace origin
