// SPDX-License-Identifier: MIT
#include "core/store/request_keys.hpp"

#include "core/util/op_error.hpp"

namespace origin {

std::string AnswerOnce(Db& db, const Clock& clock, const std::string& key, const std::string& op,
                       const std::function<std::string()>& answer) {
  if (key.empty()) return answer();
  if (key.size() > kRequestKeyMaxBytes)
    throw OpError(OpError::Code::kInvalidArgument,
                  "a request key has at most " + std::to_string(kRequestKeyMaxBytes) + " bytes");
  Transaction tx(db);
  const std::int64_t now = clock.NowMs();
  // Expired keys go first, so that an old key is never answered from.
  db.Prepare("DELETE FROM request_key WHERE at_ms <= ?").Bind(1, now - kRequestKeyTtlMs).Run();
  auto seen = db.Prepare("SELECT op, answer FROM request_key WHERE key = ?");
  seen.Bind(1, key);
  if (seen.Step()) {
    std::string first_op(seen.Text(0)), first(seen.Text(1));
    seen.Reset();
    if (first_op != op)
      throw OpError(OpError::Code::kConflict,
                    "the request key '" + key + "' was used for " + first_op + ", not " + op);
    tx.Commit();
    return first;
  }
  seen.Reset();
  std::string out = answer();
  db.Prepare("INSERT INTO request_key(key, op, answer, at_ms) VALUES (?, ?, ?, ?)")
      .Bind(1, key)
      .Bind(2, op)
      .Bind(3, out)
      .Bind(4, now)
      .Run();
  tx.Commit();
  return out;
}

}  // namespace origin
