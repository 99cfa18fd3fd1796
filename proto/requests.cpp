// SPDX-License-Identifier: MIT
#include "proto/requests.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <stdexcept>

namespace origin::proto {

namespace {

// A param that cannot be read: caught by Decode, whose caller gets the message.
struct Invalid : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads the params object; a member that is null counts as absent.
class Reader {
 public:
  explicit Reader(const rapidjson::Value* p) : p_(p) {
    if (p_ != nullptr && !p_->IsNull() && !p_->IsObject()) throw Invalid("params must be an object");
  }
  std::optional<std::string> Str(const char* key) const {
    const rapidjson::Value* v = Get(key);
    if (v == nullptr) return std::nullopt;
    if (!v->IsString()) throw Invalid(std::string(key) + " must be a string");
    return std::string(v->GetString(), v->GetStringLength());
  }
  std::optional<std::int64_t> Int(const char* key) const {
    const rapidjson::Value* v = Get(key);
    if (v == nullptr) return std::nullopt;
    if (!v->IsInt64()) throw Invalid(std::string(key) + " must be an integer");
    return v->GetInt64();
  }
  bool Bool(const char* key) const {
    const rapidjson::Value* v = Get(key);
    if (v == nullptr) return false;
    if (!v->IsBool()) throw Invalid(std::string(key) + " must be true or false");
    return v->GetBool();
  }
  std::optional<double> Num(const char* key) const {
    const rapidjson::Value* v = Get(key);
    if (v == nullptr) return std::nullopt;
    if (!v->IsNumber()) throw Invalid(std::string(key) + " must be a number");
    // A literal beyond a double's range (4.4e343) parses as infinity, which
    // no JSON can say again (found by the protocol fuzz harness).
    if (!std::isfinite(v->GetDouble())) throw Invalid(std::string(key) + " is too large a number");
    return v->GetDouble();
  }
  /// A required string: missing or empty is an error.
  std::string Need(const char* key) const {
    auto v = Str(key);
    if (!v || v->empty()) throw Invalid(std::string(key) + " is required");
    return *v;
  }
  std::int64_t Limit(std::int64_t fallback, std::int64_t max) const {
    std::int64_t limit = Int("limit").value_or(fallback);
    if (limit < 1 || limit > max)
      throw Invalid("limit must be between 1 and " + std::to_string(max));
    return limit;
  }
  std::string Key() const {
    std::string key = Str("request_key").value_or("");
    if (key.size() > kMaxRequestKey)
      throw Invalid("request_key is longer than " + std::to_string(kMaxRequestKey) + " bytes");
    return key;
  }
  std::vector<SourceRef> Sources(const char* key) const {
    std::vector<SourceRef> out;
    const rapidjson::Value* v = Get(key);
    if (v == nullptr) return out;
    if (!v->IsArray()) throw Invalid(std::string(key) + " must be a list");
    for (const auto& item : v->GetArray()) {
      if (!item.IsObject()) throw Invalid(std::string(key) + " holds objects {event_id, quote}");
      Reader one(&item);
      SourceRef src{one.Str("event_id"), one.Str("quote")};
      if (!src.event_id && !src.quote) throw Invalid("a source needs an event_id or a quote");
      out.push_back(std::move(src));
    }
    return out;
  }

 private:
  const rapidjson::Value* Get(const char* key) const {
    if (p_ == nullptr || !p_->IsObject()) return nullptr;
    auto it = p_->FindMember(key);
    if (it == p_->MemberEnd() || it->value.IsNull()) return nullptr;
    return &it->value;
  }
  const rapidjson::Value* p_;
};

void CheckKind(const std::optional<std::string>& kind) {
  if (kind && *kind != "memory" && *kind != "knowledge" && *kind != "cognition")
    throw Invalid("kind is memory, knowledge or cognition");
}

void CheckRange(const std::optional<std::int64_t>& since, const std::optional<std::int64_t>& until) {
  if (since && until && *since > *until) throw Invalid("since is after until");
}

// Runs `read`, turning a param that cannot be read into false and *error.
template <class F>
bool Try(std::string* error, F&& read) {
  try {
    read();
    return true;
  } catch (const Invalid& e) {
    if (error != nullptr) *error = e.what();
    return false;
  }
}

// The params object as JSON text, members added by `add`.
class Out {
 public:
  Out() { w_.StartObject(); }
  void Str(const char* k, const std::string& v) {
    w_.Key(k);
    w_.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  }
  void Str(const char* k, const std::optional<std::string>& v) {
    if (v) Str(k, *v);
  }
  void Int(const char* k, std::optional<std::int64_t> v) {
    if (!v) return;
    w_.Key(k);
    w_.Int64(*v);
  }
  void Num(const char* k, std::optional<double> v) {
    if (!v) return;
    w_.Key(k);
    w_.Double(*v);
  }
  void Flag(const char* k, bool v) {  // only when set: false is the default
    if (!v) return;
    w_.Key(k);
    w_.Bool(true);
  }
  void Sources(const std::vector<SourceRef>& sources) {
    if (sources.empty()) return;
    w_.Key("sources");
    w_.StartArray();
    for (const SourceRef& s : sources) {
      w_.StartObject();
      Str("event_id", s.event_id);
      Str("quote", s.quote);
      w_.EndObject();
    }
    w_.EndArray();
  }
  std::string Done() {
    w_.EndObject();
    return sb_.GetString();
  }

 private:
  rapidjson::StringBuffer sb_;
  rapidjson::Writer<rapidjson::StringBuffer> w_{sb_};
};

}  // namespace

bool Decode(const rapidjson::Value* params, NoRequest*, std::string* error) {
  return Try(error, [&] { Reader{params}; });
}

bool Decode(const rapidjson::Value* params, SyncRequest* out, std::string* error) {
  return Try(error, [&] { out->source = Reader(params).Str("source"); });
}

bool Decode(const rapidjson::Value* params, TimelineRequest* out, std::string* error) {
  return Try(error, [&] {
    Reader p(params);
    out->session = p.Str("session");
    out->include_tools = p.Bool("include_tools");
    out->limit = p.Limit(out->session ? 500 : 50, 5000);
    out->offset = p.Int("offset");
    if (out->offset && *out->offset < 0) throw Invalid("offset must be 0 or more");
    out->since = p.Int("since");
    out->until = p.Int("until");
    out->days = p.Int("days");
    if (out->days && *out->days < 1) throw Invalid("days must be 1 or more");
    out->source = p.Str("source");
    out->project = p.Str("project");
    out->name = p.Str("name");
    // No word (spaces only) is no filter.
    if (out->name && out->name->find_first_not_of(' ') == std::string::npos) out->name.reset();
    if (out->name && out->session) throw Invalid("name is for the list of sessions, not one session");
    CheckRange(out->since, out->until);
  });
}

bool Decode(const rapidjson::Value* params, SearchRequest* out, std::string* error) {
  return Try(error, [&] {
    Reader p(params);
    out->query = p.Str("query").value_or("");
    out->scope = p.Str("scope").value_or("both");
    if (out->scope != "both" && out->scope != "entries" && out->scope != "events")
      throw Invalid("scope is both, entries or events");
    out->limit = p.Limit(20, 1000);
    out->history = p.Bool("history");
    out->include_tools = p.Bool("include_tools");
    out->recent = p.Bool("recent");
    out->kind = p.Str("kind");
    CheckKind(out->kind);
    out->source = p.Str("source");
    out->project = p.Str("project");
    out->since = p.Int("since");
    out->until = p.Int("until");
    CheckRange(out->since, out->until);
    out->context = p.Int("context").value_or(0);
    if (out->context < 0 || out->context > 20) throw Invalid("context must be between 0 and 20");
    out->totals = p.Bool("totals");
    out->marks = p.Bool("marks");
  });
}

bool Decode(const rapidjson::Value* params, EntriesRequest* out, std::string* error) {
  return Try(error, [&] {
    Reader p(params);
    out->history = p.Bool("history");
    out->kind = p.Str("kind");
    out->project = p.Str("project");
    out->limit = p.Limit(100, 5000);
  });
}

bool Decode(const rapidjson::Value* params, ForgottenRequest* out, std::string* error) {
  return Try(error, [&] { out->limit = Reader(params).Limit(100, 5000); });
}

bool Decode(const rapidjson::Value* params, IdRequest* out, std::string* error) {
  return Try(error, [&] {
    Reader p(params);
    out->id = p.Need("id");
    out->full = p.Bool("full");
  });
}

bool Decode(const rapidjson::Value* params, EntryRequest* out, std::string* error, bool correct) {
  return Try(error, [&] {
    Reader p(params);
    if (correct) {
      out->id = p.Need("id");
      out->text = p.Str("text");
    } else {
      out->text = p.Need("text");
    }
    out->kind = p.Str("kind");
    out->confidence = p.Num("confidence");
    out->project = p.Str("project");
    out->valid_from = p.Int("valid_from");
    out->valid_to = p.Int("valid_to");
    out->sources = p.Sources("sources");
    out->request_key = p.Key();
  });
}

bool Decode(const rapidjson::Value* params, TombstoneRequest* out, std::string* error,
            const char* target_key) {
  return Try(error, [&] {
    Reader p(params);
    out->target = p.Need(target_key);
    out->reason = p.Str("reason").value_or("");
    out->dry_run = p.Bool("dry_run");
    out->request_key = p.Key();
    out->digest = p.Str("digest");
    if (out->digest && out->dry_run) throw Invalid("digest is for the forget itself, not dry_run");
  });
}

namespace {
// A 1-based page or part number.
std::optional<std::int64_t> Positive(const Reader& p, const char* key) {
  auto v = p.Int(key);
  if (v && *v < 1) throw Invalid(std::string(key) + " must be 1 or more");
  return v;
}
}  // namespace

bool Decode(const rapidjson::Value* params, TurnsRequest* out, std::string* error) {
  return Try(error, [&] {
    Reader p(params);
    out->session = p.Need("session");
    out->page = Positive(p, "page");
    out->part = Positive(p, "part");
    out->at = p.Str("at");
    if (out->at && out->at->empty()) throw Invalid("at must name an event");
    if (out->at && out->page) throw Invalid("turns takes page or at, not both");
  });
}

bool Decode(const rapidjson::Value* params, TombstoneViewRequest* out, std::string* error) {
  return Try(error, [&] {
    Reader p(params);
    out->id = p.Need("id");
    out->page = Positive(p, "page").value_or(1);
  });
}

std::string Encode(const SyncRequest& r) {
  Out o;
  o.Str("source", r.source);
  return o.Done();
}

std::string Encode(const TimelineRequest& r) {
  Out o;
  o.Str("session", r.session);
  o.Flag("include_tools", r.include_tools);
  o.Int("limit", r.limit);
  o.Int("offset", r.offset);
  o.Int("since", r.since);
  o.Int("until", r.until);
  o.Int("days", r.days);
  o.Str("source", r.source);
  o.Str("project", r.project);
  o.Str("name", r.name);
  return o.Done();
}

std::string Encode(const SearchRequest& r) {
  Out o;
  o.Str("query", r.query);
  o.Str("scope", r.scope);
  o.Int("limit", r.limit);
  o.Flag("history", r.history);
  o.Flag("include_tools", r.include_tools);
  o.Flag("recent", r.recent);
  o.Str("kind", r.kind);
  o.Str("source", r.source);
  o.Str("project", r.project);
  o.Int("since", r.since);
  o.Int("until", r.until);
  if (r.context > 0) o.Int("context", r.context);
  o.Flag("totals", r.totals);
  o.Flag("marks", r.marks);
  return o.Done();
}

std::string Encode(const EntriesRequest& r) {
  Out o;
  o.Flag("history", r.history);
  o.Str("kind", r.kind);
  o.Str("project", r.project);
  o.Int("limit", r.limit);
  return o.Done();
}

std::string Encode(const ForgottenRequest& r) {
  Out o;
  o.Int("limit", r.limit);
  return o.Done();
}

bool Decode(const rapidjson::Value* params, BackupRequest* out, std::string* error) {
  return Try(error, [&] {
    out->dir = Reader(params).Need("dir");
    if (out->dir.empty() || out->dir[0] != '/') throw Invalid("dir must be an absolute path");
  });
}

bool Decode(const rapidjson::Value* params, VerifyRequest* out, std::string* error) {
  return Try(error, [&] {
    Reader p(params);
    out->all = p.Bool("all");
    out->sample = p.Int("sample").value_or(1000);
    if (out->sample < 1 || out->sample > 1000000)
      throw Invalid("sample must be between 1 and 1000000");
  });
}

bool Decode(const rapidjson::Value* params, TokenRequest* out, std::string* error) {
  return Try(error, [&] { out->name = Reader(params).Need("name"); });
}

std::string Encode(const TokenRequest& r) {
  Out o;
  o.Str("name", r.name);
  return o.Done();
}

bool Decode(const rapidjson::Value* params, HubConnectRequest* out, std::string* error) {
  return Try(error, [&] {
    Reader p(params);
    out->url = p.Need("url");
    out->token = p.Need("token");
    out->ca_file = p.Str("ca_file");
    out->relay = p.Bool("relay");
    out->device = p.Str("device");
  });
}

std::string Encode(const HubConnectRequest& r) {
  Out o;
  o.Str("url", r.url);
  o.Str("token", r.token);
  o.Str("ca_file", r.ca_file);
  o.Flag("relay", r.relay);
  o.Str("device", r.device);
  return o.Done();
}

std::string Encode(const BackupRequest& r) {
  Out o;
  o.Str("dir", r.dir);
  return o.Done();
}

std::string Encode(const VerifyRequest& r) {
  Out o;
  o.Flag("all", r.all);
  o.Int("sample", r.sample);
  return o.Done();
}

std::string Encode(const IdRequest& r) {
  Out o;
  o.Str("id", r.id);
  o.Flag("full", r.full);
  return o.Done();
}

std::string Encode(const EntryRequest& r, bool correct) {
  Out o;
  if (correct) o.Str("id", r.id);
  o.Str("kind", r.kind);
  o.Str("text", r.text);
  o.Num("confidence", r.confidence);
  o.Str("project", r.project);
  o.Int("valid_from", r.valid_from);
  o.Int("valid_to", r.valid_to);
  o.Sources(r.sources);
  if (!r.request_key.empty()) o.Str("request_key", r.request_key);
  return o.Done();
}

std::string Encode(const TurnsRequest& r) {
  Out o;
  o.Str("session", r.session);
  o.Int("page", r.page);
  o.Int("part", r.part);
  o.Str("at", r.at);
  return o.Done();
}

std::string Encode(const TombstoneViewRequest& r) {
  Out o;
  o.Str("id", r.id);
  if (r.page != 1) o.Int("page", r.page);
  return o.Done();
}

std::string Encode(const TombstoneRequest& r, const char* target_key) {
  Out o;
  o.Str(target_key, r.target);
  if (!r.reason.empty()) o.Str("reason", r.reason);
  o.Flag("dry_run", r.dry_run);
  if (!r.request_key.empty()) o.Str("request_key", r.request_key);
  o.Str("digest", r.digest);
  return o.Done();
}

}  // namespace origin::proto
