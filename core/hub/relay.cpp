// SPDX-License-Identifier: MIT
#include "core/hub/relay.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <utility>

#include "core/store/schema.hpp"
#include "core/util/op_error.hpp"

namespace origin {

namespace {

constexpr char kModeKey[] = "store.mode";
// "relay.file <source> <key>": a source's id holds no space, a key may.
constexpr std::string_view kCursorPrefix = "relay.file ";

std::string CursorKey(std::string_view source, std::string_view key) {
  return std::string(kCursorPrefix) + std::string(source) + " " + std::string(key);
}

std::int64_t IntMember(const rapidjson::Value& d, const char* name) {
  auto it = d.FindMember(name);
  return it != d.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : 0;
}

std::string StrMember(const rapidjson::Value& d, const char* name) {
  auto it = d.FindMember(name);
  return it != d.MemberEnd() && it->value.IsString()
             ? std::string(it->value.GetString(), it->value.GetStringLength())
             : std::string();
}

// A cursor from its setting's value; nullopt for one that is not a cursor
// (written by a later version, or damaged: the file is sent again from
// where the hub stands).
std::optional<RelayCursor> Decode(std::string_view source, std::string_view key,
                                  std::string_view json) {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject()) return std::nullopt;
  RelayCursor c;
  c.source = source;
  c.key = key;
  c.generation = IntMember(d, "generation");
  c.bytes = IntMember(d, "bytes");
  if (c.generation < 1 || c.bytes < 0) return std::nullopt;
  c.hash = StrMember(d, "hash");
  c.last_line = StrMember(d, "last");
  c.seen = StrMember(d, "seen");
  c.changed_ms = IntMember(d, "changed");
  return c;
}

std::int64_t Count(Db& db, const char* sql) { return db.QueryInt(sql); }

}  // namespace

bool IsRelay(Db& db) { return GetSetting(db, kModeKey).value_or("") == "relay"; }

std::string WhatItHolds(Db& db) {
  std::string out;
  auto add = [&out](std::int64_t n, const char* one, const char* many) {
    if (n == 0) return;
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + (n == 1 ? one : many);
  };
  add(Count(db, "SELECT count(*) FROM event"), "event", "events");
  add(Count(db, "SELECT count(*) FROM raw_file"), "mirrored file", "mirrored files");
  add(Count(db, "SELECT count(*) FROM entry"), "entry", "entries");
  add(Count(db, "SELECT count(*) FROM tombstone"), "tombstone", "tombstones");
  return out;
}

bool MakeRelay(Db& db, std::string_view home) {
  Transaction tx(db);
  if (IsRelay(db)) return true;
  if (const std::string held = WhatItHolds(db); !held.empty())
    throw OpError(OpError::Code::kInvalidArgument,
                  "only an empty store can become a relay, and the store in " +
                      std::string(home) + " holds " + held +
                      " (nothing was changed or deleted): to make a relay of this machine, "
                      "use a new ORIGIN_HOME (ORIGIN_HOME=~/.origin-relay origin hub connect "
                      "URL --token T --relay), or connect this store as a complete device "
                      "(without --relay)");
  PutSetting(db, kModeKey, "relay");
  tx.Commit();
  return false;
}

std::optional<RelayCursor> LoadRelayCursor(Db& db, std::string_view source, std::string_view key) {
  std::optional<std::string> v = GetSetting(db, CursorKey(source, key));
  if (!v) return std::nullopt;
  return Decode(source, key, *v);
}

void SaveRelayCursor(Db& db, const RelayCursor& c) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("generation");
  w.Int64(c.generation);
  w.Key("bytes");
  w.Int64(c.bytes);
  // The strings only when set: a file's cursor has no last line, a
  // generated stream's no hash.
  for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"hash", &c.hash},
                                   {"last", &c.last_line},
                                   {"seen", &c.seen}})
    if (!value->empty()) {
      w.Key(key);
      w.String(value->data(), static_cast<rapidjson::SizeType>(value->size()));
    }
  w.Key("changed");
  w.Int64(c.changed_ms);
  w.EndObject();
  PutSetting(db, CursorKey(c.source, c.key), std::string(sb.GetString(), sb.GetSize()));
}

std::vector<RelayCursor> AllRelayCursors(Db& db) {
  std::vector<RelayCursor> out;
  // Keys from the prefix on: "relay.file " to "relay.file!" (' ' + 1).
  auto st = db.Prepare("SELECT key, value FROM setting WHERE key >= ? AND key < ? ORDER BY key");
  st.Bind(1, std::string(kCursorPrefix)).Bind(2, std::string("relay.file!"));
  while (st.Step()) {
    const std::string_view k = st.Text(0);
    const std::string_view rest = k.substr(kCursorPrefix.size());
    const std::size_t sp = rest.find(' ');
    if (sp == std::string_view::npos) continue;
    if (auto c = Decode(rest.substr(0, sp), rest.substr(sp + 1), st.Text(1)))
      out.push_back(std::move(*c));
  }
  return out;
}

}  // namespace origin
