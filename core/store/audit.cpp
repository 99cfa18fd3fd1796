// SPDX-License-Identifier: MIT
#include "core/store/audit.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace origin {

std::string AuditActor(std::string_view author, std::string_view channel) {
  if (channel == "ui") return "local";
  return std::string(author);
}

void AppendAudit(Db& db, std::int64_t at, std::string_view actor, std::string_view channel,
                 std::string_view action, AuditDetails details) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  for (const auto& [key, value] : details) {
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    if (const auto* id = std::get_if<std::string_view>(&value))
      w.String(id->data(), static_cast<rapidjson::SizeType>(id->size()));
    else
      w.Int64(std::get<std::int64_t>(value));
  }
  w.EndObject();
  db.Prepare("INSERT INTO audit_log(at, actor, channel, action, details) VALUES (?,?,?,?,?)")
      .Bind(1, at)
      .Bind(2, std::string(actor))
      .Bind(3, std::string(channel))
      .Bind(4, std::string(action))
      .Bind(5, std::string(sb.GetString(), sb.GetSize()))
      .Run();
}

void AuditUiWrite(Db& db, std::int64_t at, std::string_view author, std::string_view channel,
                  std::string_view action, AuditDetails details) {
  if (channel != "ui") return;
  AppendAudit(db, at, AuditActor(author, channel), channel, action, details);
}

}  // namespace origin
