// SPDX-License-Identifier: MIT
#include "daemon/hub/wire.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/hub/replicate.hpp"
#include "core/util/text.hpp"
#include "proto/base64.hpp"

namespace origin::hub_wire {

const rapidjson::Value* Member(const rapidjson::Value& o, const char* name) {
  if (!o.IsObject()) return nullptr;  // a hub's answer of another shape has no members
  auto it = o.FindMember(name);
  return it == o.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
}

namespace {

// A field of `o` read by `take` (which says what is wrong with its value,
// or ""): false with the error when it is wrong, or missing and required.
// A null field is a missing one.
template <class Take>
bool Field(const rapidjson::Value& o, const char* name, bool required, std::string* error,
           Take take) {
  const rapidjson::Value* v = Member(o, name);
  if (v == nullptr) {
    if (required) *error = std::string(name) + " is required";
    return !required;
  }
  if (std::string wrong = take(*v); !wrong.empty()) {
    *error = std::string(name) + " is " + wrong;
    return false;
  }
  return true;
}

}  // namespace

namespace {

// The array `name` of a push, of at most kMaxPushRecords objects; nullptr
// with the error otherwise.
const rapidjson::Value* Records(const rapidjson::Value& d, const char* name, std::string* error) {
  const rapidjson::Value* list = Member(d, name);
  if (list == nullptr || !list->IsArray()) {
    *error = std::string(name) + " is an array";
    return nullptr;
  }
  if (list->Size() > kMaxPushRecords) {
    *error = "at most 1000 " + std::string(name) + " a request";
    return nullptr;
  }
  for (const rapidjson::Value& v : list->GetArray())
    if (!v.IsObject()) {
      *error = "each of " + std::string(name) + " is an object";
      return nullptr;
    }
  return list;
}

}  // namespace

bool StringField(const rapidjson::Value& o, const char* name, bool required, std::string* out,
                 std::string* error) {
  return Field(o, name, required, error, [out](const rapidjson::Value& v) -> std::string {
    if (!v.IsString()) return "a string";
    out->assign(v.GetString(), v.GetStringLength());
    return "";
  });
}

bool IntField(const rapidjson::Value& o, const char* name, bool required, std::int64_t lo,
              std::int64_t hi, std::optional<std::int64_t>* out, std::string* error) {
  return Field(o, name, required, error, [&](const rapidjson::Value& v) -> std::string {
    if (!v.IsInt64() || v.GetInt64() < lo || v.GetInt64() > hi)
      return "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    *out = v.GetInt64();
    return "";
  });
}

bool NumberField(const rapidjson::Value& o, const char* name, bool required, double* out,
                 std::string* error) {
  return Field(o, name, required, error, [out](const rapidjson::Value& v) -> std::string {
    // Not a literal beyond a double's range, which parses as infinity.
    if (!v.IsNumber() || !std::isfinite(v.GetDouble())) return "a finite number";
    *out = v.GetDouble();
    return "";
  });
}

bool DecodeEntries(const rapidjson::Value& d, std::vector<EntryRow>* out, std::string* error) {
  const rapidjson::Value* list = Records(d, "entries", error);
  if (list == nullptr) return false;
  for (const rapidjson::Value& v : list->GetArray()) {
    EntryRow e;
    std::string project, supersedes;
    std::optional<std::int64_t> from, to, created;
    if (!StringField(v, "id", true, &e.id, error) || !StringField(v, "kind", true, &e.kind, error) ||
        !StringField(v, "text", true, &e.text, error) ||
        !NumberField(v, "confidence", true, &e.confidence, error) ||
        !StringField(v, "author", true, &e.author, error) ||
        !StringField(v, "project", false, &project, error) ||
        !StringField(v, "supersedes", false, &supersedes, error) ||
        !StringField(v, "origin", true, &e.origin, error) ||
        !IntField(v, "validFrom", false, 0, kMaxMs, &from, error) ||
        !IntField(v, "validTo", false, 0, kMaxMs, &to, error) ||
        !IntField(v, "createdAt", true, 0, kMaxMs, &created, error))
      return false;
    if (!ValidUtf8(e.text) || !ValidUtf8(e.author) || !ValidUtf8(project)) {
      *error = "entry " + e.id + ": its text, author and project are UTF-8";
      return false;
    }
    if (Member(v, "project") != nullptr) e.project = project;
    if (Member(v, "supersedes") != nullptr) e.supersedes = supersedes;
    if (Member(v, "erased") != nullptr) {
      std::string erased;
      if (!StringField(v, "erased", false, &erased, error)) return false;
      e.erased = erased;
    }
    e.valid_from = from;
    e.valid_to = to;
    e.created_at = *created;
    const rapidjson::Value* sources = Member(v, "sources");
    if (sources == nullptr || !sources->IsArray()) {
      *error = "entry " + e.id + ": sources is an array";
      return false;
    }
    for (const rapidjson::Value& s : sources->GetArray()) {
      std::string event, quote;
      if (!s.IsObject() || !StringField(s, "eventId", true, &event, error) ||
          !StringField(s, "quote", false, &quote, error)) {
        if (error->empty()) *error = "each source is an object";
        *error = "entry " + e.id + ": " + *error;
        return false;
      }
      e.sources.push_back({event, Member(s, "quote") != nullptr ? std::optional(quote) : std::nullopt});
    }
    out->push_back(std::move(e));
  }
  return true;
}

void WriteEntry(rpc::Writer& w, const EntryRow& e) {
  w.StartObject();
  w.Key("id");
  w.String(e.id);
  w.Key("kind");
  w.String(e.kind);
  w.Key("text");
  w.String(e.text);
  w.Key("confidence");
  w.Double(e.confidence);
  w.Key("author");
  w.String(e.author);
  rpc::Opt(w, "project", e.project);
  rpc::Opt(w, "supersedes", e.supersedes);
  rpc::Opt(w, "validFrom", e.valid_from);
  rpc::Opt(w, "validTo", e.valid_to);
  w.Key("createdAt");
  w.Int64(e.created_at);
  w.Key("origin");
  w.String(e.origin);
  rpc::Opt(w, "erased", e.erased);
  w.Key("sources");
  w.StartArray();
  for (const EntrySource& s : e.sources) {
    w.StartObject();
    w.Key("eventId");
    w.String(s.event_id.value_or(""));
    if (s.quote) {
      w.Key("quote");
      w.String(*s.quote);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

namespace {

bool IdList(const rapidjson::Value& v, const char* name, const std::string& id,
            std::vector<std::string>* out, std::string* error) {
  const rapidjson::Value* list = Member(v, name);
  if (list == nullptr) return true;
  if (!list->IsArray()) {
    *error = "tombstone " + id + ": " + name + " is an array of ids";
    return false;
  }
  for (const rapidjson::Value& item : list->GetArray()) {
    if (!item.IsString()) {
      *error = "tombstone " + id + ": " + name + " is an array of ids";
      return false;
    }
    out->emplace_back(item.GetString(), item.GetStringLength());
  }
  return true;
}

// A forget's coverage: its `entries` and `events`.
void WriteCoverage(rpc::Writer& w, const std::vector<std::string>& entries,
                   const std::vector<std::string>& events) {
  for (const auto& [name, list] : {std::pair{"entries", &entries}, {"events", &events}}) {
    w.Key(name);
    w.StartArray();
    for (const std::string& id : *list) w.String(id);
    w.EndArray();
  }
}

}  // namespace

bool DecodeTombstones(const rapidjson::Value& d, std::vector<ReplicaTombstone>* out,
                      std::string* error) {
  const rapidjson::Value* list = Records(d, "tombstones", error);
  if (list == nullptr) return false;
  for (const rapidjson::Value& v : list->GetArray()) {
    ReplicaTombstone t;
    std::string author;
    std::optional<std::int64_t> created;
    if (!StringField(v, "id", true, &t.id, error) ||
        !StringField(v, "target", true, &t.target, error) ||
        !StringField(v, "reason", true, &t.reason, error) ||
        !StringField(v, "origin", true, &t.origin, error) ||
        !StringField(v, "author", false, &author, error) ||
        !IntField(v, "createdAt", true, 0, kMaxMs, &created, error) ||
        !IdList(v, "entries", t.id, &t.entries, error) ||
        !IdList(v, "events", t.id, &t.events, error))
      return false;
    if (!ValidUtf8(t.reason) || !ValidUtf8(author) || !ValidUtf8(t.target)) {
      *error = "tombstone " + t.id + ": its target, reason and author are UTF-8";
      return false;
    }
    if (Member(v, "author") != nullptr) t.author = author;
    t.created_at = *created;
    out->push_back(std::move(t));
  }
  return true;
}

void WriteTombstone(rpc::Writer& w, const ReplicaTombstone& t) {
  w.StartObject();
  w.Key("id");
  w.String(t.id);
  w.Key("target");
  w.String(t.target);
  w.Key("reason");
  w.String(t.reason);
  w.Key("createdAt");
  w.Int64(t.created_at);
  w.Key("origin");
  w.String(t.origin);
  if (t.author) {
    w.Key("author");
    w.String(*t.author);
  }
  if (!t.IsRestore()) WriteCoverage(w, t.entries, t.events);
  w.EndObject();
}

bool DecodeErasures(const rapidjson::Value& d, std::vector<ReplicaErasure>* out,
                    std::string* error) {
  if (Member(d, "erasures") == nullptr) return true;  // a store that sends none
  const rapidjson::Value* list = Records(d, "erasures", error);
  if (list == nullptr) return false;
  for (const rapidjson::Value& v : list->GetArray()) {
    ReplicaErasure e;
    std::optional<std::int64_t> created;
    if (!StringField(v, "id", true, &e.id, error) ||
        !StringField(v, "forget", true, &e.forget, error) ||
        !StringField(v, "reason", true, &e.reason, error) ||
        !StringField(v, "author", true, &e.author, error) ||
        !StringField(v, "origin", true, &e.origin, error) ||
        !IntField(v, "createdAt", true, 0, kMaxMs, &created, error))
      return false;
    if (!ValidUtf8(e.reason) || !ValidUtf8(e.author) || !ValidUtf8(e.origin)) {
      *error = "erasure " + e.id + ": its reason, author and origin are UTF-8";
      return false;
    }
    e.created_at = *created;
    out->push_back(std::move(e));
  }
  return true;
}

void WriteErasures(rpc::Writer& w, const std::vector<ReplicaErasure>& erasures) {
  w.Key("erasures");
  w.StartArray();
  for (const ReplicaErasure& e : erasures) {
    w.StartObject();
    w.Key("id");
    w.String(e.id);
    w.Key("forget");
    w.String(e.forget);
    w.Key("reason");
    w.String(e.reason);
    w.Key("author");
    w.String(e.author);
    w.Key("createdAt");
    w.Int64(e.created_at);
    w.Key("origin");
    w.String(e.origin);
    w.EndObject();
  }
  w.EndArray();
}

bool DecodeReports(const rapidjson::Value& d, std::vector<CoverageReport>* out,
                   std::string* error) {
  if (Member(d, "reports") == nullptr) return true;  // a store that sends none
  const rapidjson::Value* list = Records(d, "reports", error);
  if (list == nullptr) return false;
  for (const rapidjson::Value& v : list->GetArray()) {
    CoverageReport r;
    if (!StringField(v, "forget", true, &r.forget, error) ||
        !IdList(v, "entries", r.forget, &r.entries, error) ||
        !IdList(v, "events", r.forget, &r.events, error))
      return false;
    out->push_back(std::move(r));
  }
  return true;
}

void WriteReports(rpc::Writer& w, const std::vector<CoverageReport>& reports) {
  w.Key("reports");
  w.StartArray();
  for (const CoverageReport& r : reports) {
    w.StartObject();
    w.Key("forget");
    w.String(r.forget);
    WriteCoverage(w, r.entries, r.events);
    w.EndObject();
  }
  w.EndArray();
}

bool ValidAgentName(std::string_view name) {
  if (name.empty() || name.size() > 64 || !std::isalnum(static_cast<unsigned char>(name[0])))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::string IngestBody(std::string_view source, const RemoteChunk& c) {
  return rpc::Json([&](rpc::Writer& w) {
    w.StartObject();
    w.Key("device");
    w.String(c.device);
    w.Key("source");
    w.String(source.data(), static_cast<rapidjson::SizeType>(source.size()));
    w.Key("path");
    w.String(c.path);
    w.Key("relPath");
    w.String(c.rel_path);
    w.Key("generation");
    w.Int64(c.generation);
    w.Key("offset");
    w.Int64(c.offset);
    if (c.mtime_ms) {
      w.Key("mtimeMs");
      w.Int64(*c.mtime_ms);
    }
    w.Key("data");
    w.String(proto::Base64Encode(c.data));
    w.EndObject();
  });
}

}  // namespace origin::hub_wire
