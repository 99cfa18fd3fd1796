// SPDX-License-Identifier: MIT
#pragma once
// Reading and writing the members of a tool's answer (daemon/mcp/answers.cpp
// shapes it, daemon/mcp/merge.cpp merges a hub's into it).

#include <rapidjson/document.h>

#include <cstdint>
#include <string>

namespace origin::mcp::values {

using rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

// A member, or null when absent or null.
inline const Value* Get(const Value& o, const char* key) {
  if (!o.IsObject()) return nullptr;
  auto it = o.FindMember(key);
  return it == o.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
}
inline std::string Str(const Value& o, const char* key) {
  const Value* v = Get(o, key);
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : "";
}
inline std::int64_t Int(const Value& o, const char* key, std::int64_t fallback) {
  const Value* v = Get(o, key);
  return v != nullptr && v->IsInt64() ? v->GetInt64() : fallback;
}
inline bool Flag(const Value& o, const char* key) {
  const Value* v = Get(o, key);
  return v != nullptr && v->IsBool() && v->GetBool();
}
// Copies `key` from `in` to `out` unless it is absent or null.
inline void Copy(Value& out, const Value& in, const char* key, Alloc& a) {
  if (const Value* v = Get(in, key)) out.AddMember(Value(key, a), Value(*v, a), a);
}
inline void Put(Value& out, const char* key, const std::string& s, Alloc& a) {
  out.AddMember(Value(key, a), Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a), a);
}

}  // namespace origin::mcp::values
