// SPDX-License-Identifier: MIT
#include "adapters/common/stream_cursor.hpp"

#include <rapidjson/document.h>

#include <map>

#include "adapters/common/json.hpp"
#include "core/util/hash.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

std::string CursorMembers(std::string_view line, std::initializer_list<const char*> names) {
  rapidjson::Document doc;
  try {
    ParseObject(line, doc);
  } catch (const std::exception&) {
    return {};  // a filler, or no line of ours: nothing to go on from
  }
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  bool any = false;
  for (const char* name : names)
    if (const Json* v = Member(doc, name)) {
      w.Key(name);
      v->Accept(w);
      any = true;
    }
  w.EndObject();
  return any ? std::string(sb.GetString(), sb.GetSize()) : std::string();
}

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

std::string GenerateItems(
    const std::string& path, std::string_view last_line, std::size_t max_bytes,
    const std::function<void(rapidjson::Writer<rapidjson::StringBuffer>&, std::size_t)>& extra,
    const std::function<void(const std::vector<std::string_view>&, std::size_t)>& plan) {
  std::optional<std::string> text = ReadWholeFile(path);
  if (!text) throw SourceBusy("cannot read " + path);
  std::vector<std::string> ids;
  std::vector<std::string_view> items;
  std::vector<std::int64_t> line_nos;  // each item's line in the file, 1-based
  std::map<std::string, int> seen;
  std::size_t pos = 0;
  std::int64_t line_no = 0;
  while (pos < text->size()) {
    std::size_t nl = text->find('\n', pos);
    const bool last = nl == std::string::npos;
    if (last) nl = text->size();
    std::string_view line(text->data() + pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    // A last line without its newline that is not a whole object yet is
    // still being written: it waits.  A whole line that is not one is kept
    // as it is, a string, and counts as a parse error.
    if (last) {
      if (!JsonDepthWithin(line, kMaxJsonDepth)) break;
      rapidjson::Document d;
      d.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
      if (d.HasParseError() || !d.IsObject()) break;
    }
    const std::string h = Sha256Hex(line).substr(0, 24);
    ids.push_back(h + "." + std::to_string(seen[h]++));
    items.push_back(line);
    line_nos.push_back(line_no);
  }
  SequenceCursor cursor = SequenceCursor::FromLine(last_line);
  const std::size_t start = cursor.Start(ids);
  if (plan) plan(items, start);
  std::string out;
  for (std::size_t i = start; i < ids.size() && out.size() < max_bytes; ++i) {
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    w.StartObject();
    w.Key("item_id");
    WriteString(w, ids[i]);
    extra(w, i);
    cursor.Write(w, i, ids[i]);
    w.Key("source_line");
    w.Int64(line_nos[i]);
    // The agent's line itself, byte for byte, when it is JSON (ItemOriginal
    // gives it back); else as a string.  Always the last member.
    w.Key("item");
    bool verbatim = false;
    if (JsonDepthWithin(items[i], kMaxJsonDepth)) {
      rapidjson::Document d;
      d.Parse<rapidjson::kParseIterativeFlag>(items[i].data(), items[i].size());
      if (!d.HasParseError()) {
        w.RawValue(items[i].data(), items[i].size(), d.GetType());
        verbatim = true;
      }
    }
    if (!verbatim) WriteString(w, items[i]);
    w.EndObject();
    out.append(sb.GetString(), sb.GetSize()).push_back('\n');
  }
  return out;
}

std::optional<OriginalLine> ItemOriginal(std::string_view line) {
  // "item" is the last member and "source_line" comes right before it; a
  // '"' inside a JSON string is always escaped, so the first ,"item": not
  // inside a string is the member's key.
  constexpr std::string_view kKey = ",\"item\":";
  const std::size_t k = line.find(kKey);
  if (k == std::string_view::npos || line.empty() || line.back() != '}') return std::nullopt;
  if (!JsonDepthWithin(line, kMaxJsonDepth)) return std::nullopt;
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  const Json* n = Member(doc, "source_line");
  const Json* item = Member(doc, "item");
  if (n == nullptr || !n->IsInt64() || item == nullptr) return std::nullopt;
  OriginalLine out;
  out.line = n->GetInt64();
  if (item->IsString())
    out.raw.assign(item->GetString(), item->GetStringLength());
  else
    out.raw = std::string(line.substr(k + kKey.size(), line.size() - 1 - k - kKey.size()));
  return out;
}

ItemLine ParseItemLine(std::string_view line, rapidjson::Document& doc) {
  ParseObject(line, doc);
  ItemLine out;
  auto id = NonEmpty(doc, "item_id");
  const Json* ts = Member(doc, "ts");
  out.item = Member(doc, "item");
  if (!id || ts == nullptr || !ts->IsInt64() || out.item == nullptr || !out.item->IsObject())
    throw ParseError("not an item line");
  out.id = std::move(*id);
  out.ts = ts->GetInt64();
  return out;
}

}  // namespace origin::adapters
