// SPDX-License-Identifier: MIT
#include "adapters/common/title.hpp"

#include "core/util/hash.hpp"

namespace origin::adapters {

ParsedTitle MakeTitle(std::string session, std::string text, bool manual, std::int64_t ts,
                      std::string_view before) {
  ParsedTitle t;
  std::string digest_of = manual ? "manual\n" : "generated\n";
  digest_of.append(before).append("\n").append(text);
  t.native_id = session + ":title:" + Sha256Hex(digest_of).substr(0, 24);
  t.session = std::move(session);
  t.text = std::move(text);
  t.manual = manual;
  t.ts = ts;
  return t;
}

}  // namespace origin::adapters
