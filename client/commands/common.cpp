// SPDX-License-Identifier: MIT
#include "client/commands/common.hpp"

#include <cstdio>
#include <cstdlib>

#include "proto/protocol.hpp"
#include "proto/time.hpp"

namespace origin::client {

std::string Str(const rapidjson::Value& o, const char* k, const std::string& dflt) {
  auto it = o.FindMember(k);
  return it != o.MemberEnd() && it->value.IsString() ? it->value.GetString() : dflt;
}

std::int64_t Int(const rapidjson::Value& o, const char* k) {
  auto it = o.FindMember(k);
  if (it == o.MemberEnd()) return 0;
  if (it->value.IsInt64()) return it->value.GetInt64();
  if (it->value.IsDouble()) return static_cast<std::int64_t>(it->value.GetDouble());
  return 0;
}

bool PrintedJson(rapidjson::Document& r, bool json) {
  if (json) {
    std::printf("%s\n", proto::ToJson(r).c_str());
    return true;
  }
  MakeTerminalSafe(r, r.GetAllocator());
  return false;
}

std::optional<std::int64_t> PositiveOption(const Invocation& a, const std::string& name) {
  std::optional<std::string> v = a.Value(name);
  if (!v) return std::nullopt;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || n < 1)
    throw UsageError("--" + name + " takes a positive number");
  return n;
}

std::optional<std::int64_t> DateOption(const Invocation& a, const std::string& name) {
  std::optional<std::string> v = a.Value(name);
  if (!v) return std::nullopt;
  auto t = proto::ParseDateTime(*v);
  if (!t)
    throw UsageError(
        "--" + name +
        " takes a date: YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], local, or with Z or +HH:MM");
  return *t;
}

std::string RefCell(const rapidjson::Value& o, const Style& st) {
  return o.IsObject() && o.HasMember("ref") && o["ref"].IsString() ? st.Yellow(Str(o, "ref"))
                                                                   : "";
}

std::string EntryLine(const rapidjson::Value& e, const Style& st) {
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.0f%%", e["confidence"].GetDouble() * 100);
  std::string tags = Str(e, "kind") + " " + pct;
  if (e["project"].IsString()) tags += " · " + Str(e, "project");
  if (Str(e, "status") != "active") tags += " · " + Str(e, "status");
  if (e["concurrent"].GetBool()) tags += " (lost to a concurrent correction)";
  if (e["ended"].GetBool()) tags += " · ended";
  const std::string ref = RefCell(e, st);
  return (ref.empty() ? "" : ref + "  ") + st.Bold(Str(e, "id")) + "  " +
         st.Dim(tags + " · " + LocalTime(Int(e, "created_at")) + " · " + Str(e, "author")) +
         "\n  " + Str(e, "text") + "\n";
}

}  // namespace origin::client
