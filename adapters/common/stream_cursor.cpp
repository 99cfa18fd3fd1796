// SPDX-License-Identifier: MIT
#include "adapters/common/stream_cursor.hpp"

#include <rapidjson/document.h>

#include "adapters/common/json.hpp"
#include "core/util/hash.hpp"

namespace origin::adapters {

RowCursor RowCursor::FromLine(std::string_view last_line) {
  RowCursor c;
  if (last_line.empty()) return c;
  rapidjson::Document last;
  ParseObject(last_line, last);
  if (const Json* u = Member(last, "upto"); u != nullptr && u->IsInt64()) c.upto_ = u->GetInt64();
  if (const Json* a = Member(last, "after"); a != nullptr && a->IsArray())
    for (const Json& v : a->GetArray())
      if (v.IsInt64()) c.after_.insert(v.GetInt64());
  return c;
}

bool RowCursor::Done(std::int64_t rowid) {
  if (after_.count(rowid) == 0) return false;
  if (!held_) {
    upto_ = rowid;
    after_.erase(rowid);
  }
  return true;
}

void RowCursor::Out(std::int64_t rowid) {
  if (held_)
    after_.insert(rowid);
  else
    upto_ = rowid;
}

void RowCursor::Write(rapidjson::Writer<rapidjson::StringBuffer>& w) const {
  w.Key("upto");
  w.Int64(upto_);
  w.Key("after");
  w.StartArray();
  for (std::int64_t a : after_) w.Int64(a);
  w.EndArray();
}

SequenceCursor SequenceCursor::FromLine(std::string_view last_line) {
  SequenceCursor c;
  if (last_line.empty()) return c;
  rapidjson::Document last;
  ParseObject(last_line, last);
  if (const Json* n = Member(last, "index"); n != nullptr && n->IsInt64())
    c.written_ = n->GetInt64() + 1;
  c.chain_ = std::string(Str(last, "chain").value_or(""));
  return c;
}

std::size_t SequenceCursor::Start(const std::vector<std::string>& ids) {
  digest_.clear();
  std::size_t start = 0;
  for (; start < ids.size() && static_cast<std::int64_t>(start) < written_; ++start)
    digest_ = Sha256Hex(digest_ + ids[start]);
  if (static_cast<std::int64_t>(start) != written_ || digest_ != chain_) {
    digest_.clear();  // replaced: from the start
    return 0;
  }
  return start;
}

void SequenceCursor::Write(rapidjson::Writer<rapidjson::StringBuffer>& w, std::size_t index,
                           const std::string& id) {
  digest_ = Sha256Hex(digest_ + id);
  w.Key("index");
  w.Int64(static_cast<std::int64_t>(index));
  w.Key("chain");
  WriteString(w, digest_);
}

}  // namespace origin::adapters
