// SPDX-License-Identifier: MIT
#include "proto/protocol.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

namespace origin::proto {

int ExitCodeFor(std::string_view c) {
  if (c == code::kInvalidArgument || c == code::kUnknownMethod || c == code::kAmbiguous)
    return kExitUsage;
  if (c == code::kNotFound || c == code::kForgotten) return kExitNotFound;
  if (c == code::kUnavailable) return kExitUnavailable;
  return kExitError;
}

std::string JsonRpcError(const std::string& id_json, int code, std::string_view message) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("jsonrpc");
  w.String("2.0");
  w.Key("id");
  w.RawValue(id_json.c_str(), id_json.size(), rapidjson::kObjectType);
  w.Key("error");
  w.StartObject();
  w.Key("code");
  w.Int(code);
  w.Key("message");
  w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  w.EndObject();
  w.EndObject();
  return sb.GetString();
}

std::string ErrorJson(std::string_view code, std::string_view message) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("error");
  w.StartObject();
  w.Key("code");
  w.String(code.data(), static_cast<rapidjson::SizeType>(code.size()));
  w.Key("message");
  w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  w.EndObject();
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

std::string ToJson(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

namespace {
rapidjson::Value Str(std::string_view s, rapidjson::Document::AllocatorType& a) {
  return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}
std::optional<std::string> GetStr(const rapidjson::Value& o, const char* k) {
  auto it = o.FindMember(k);
  if (it == o.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return std::string(it->value.GetString(), it->value.GetStringLength());
}
bool ParseHello(std::string_view line, rapidjson::Document& d, std::string* error) {
  d.Parse<kJsonParseFlags>(line.data(), line.size());
  if (d.HasParseError() || !d.IsObject()) {
    *error = "hello is not a JSON object";
    return false;
  }
  auto it = d.FindMember("proto");
  if (it == d.MemberEnd() || !it->value.IsInt()) {
    *error = "hello without a protocol version";
    return false;
  }
  if (it->value.GetInt() != kProtoVersion) {
    *error = "protocol version " + std::to_string(it->value.GetInt()) + " is not " +
             std::to_string(kProtoVersion);
    return false;
  }
  return true;
}
std::int64_t GetInt(const rapidjson::Value& o, const char* k) {
  auto it = o.FindMember(k);
  return it != o.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : 0;
}
}  // namespace

std::string Encode(const ClientHello& h) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("proto", kProtoVersion, a);
  d.AddMember("client", Str(h.client, a), a);
  d.AddMember("version", Str(h.version, a), a);
  d.AddMember("pid", h.pid, a);
  d.AddMember("cwd", Str(h.cwd, a), a);
  if (!h.session.empty()) d.AddMember("session", Str(h.session, a), a);
  return ToJson(d);
}

std::string Encode(const DaemonHello& h) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("proto", kProtoVersion, a);
  d.AddMember("daemon", Str(h.daemon, a), a);
  d.AddMember("store", Str(h.store, a), a);
  d.AddMember("mode", Str(h.mode, a), a);
  d.AddMember("pid", h.pid, a);
  return ToJson(d);
}

std::optional<ClientHello> DecodeClientHello(std::string_view line, std::string* error) {
  rapidjson::Document d;
  if (!ParseHello(line, d, error)) return std::nullopt;
  ClientHello h;
  auto client = GetStr(d, "client");
  if (!client) {
    *error = "hello without a client name";
    return std::nullopt;
  }
  h.client = *client;
  h.version = GetStr(d, "version").value_or("");
  h.cwd = GetStr(d, "cwd").value_or("");
  h.session = GetStr(d, "session").value_or("");
  if (h.session.size() > 200) {
    *error = "a session is at most 200 bytes";
    return std::nullopt;
  }
  h.pid = GetInt(d, "pid");
  return h;
}

std::optional<DaemonHello> DecodeDaemonHello(std::string_view line, std::string* error) {
  rapidjson::Document d;
  if (!ParseHello(line, d, error)) return std::nullopt;
  DaemonHello h;
  auto daemon = GetStr(d, "daemon");
  if (!daemon) {
    *error = "hello without a daemon version";
    return std::nullopt;
  }
  h.daemon = *daemon;
  h.store = GetStr(d, "store").value_or("");
  h.mode = GetStr(d, "mode").value_or("device");
  h.pid = GetInt(d, "pid");
  return h;
}

std::optional<std::string> LineBuffer::Next() {
  std::size_t nl = buf_.find('\n', std::max(start_, scanned_));
  if (nl == std::string::npos) {
    scanned_ = buf_.size();
    if (start_ > 0 && start_ >= buf_.size() / 2) {
      buf_.erase(0, start_);
      scanned_ -= start_;
      start_ = 0;
    }
    return std::nullopt;
  }
  std::string line = buf_.substr(start_, nl - start_);
  start_ = scanned_ = nl + 1;
  if (start_ == buf_.size()) {
    buf_.clear();
    start_ = scanned_ = 0;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

int CompareVersions(std::string_view a, std::string_view b) {
  // Each number as its digits without leading zeros: a longer one is
  // larger, one as long compares as text, so no number is too large.
  auto next = [](std::string_view& s) {
    std::size_t n = 0;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
    std::string_view v = s.substr(0, n);
    s.remove_prefix(n);
    while (!v.empty() && v.front() == '0') v.remove_prefix(1);
    while (!s.empty() && (s.front() < '0' || s.front() > '9')) s.remove_prefix(1);
    return v;
  };
  while (!a.empty() || !b.empty()) {
    const std::string_view x = next(a), y = next(b);
    if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
    if (const int c = x.compare(y); c != 0) return c < 0 ? -1 : 1;
  }
  return 0;
}

}  // namespace origin::proto
