// SPDX-License-Identifier: MIT
#include "daemon/rpc_json.hpp"

#include <algorithm>

#include "core/util/text.hpp"
#include "proto/base64.hpp"
#include "proto/protocol.hpp"

namespace origin::rpc {

bool Writer::String(const Ch* s, rapidjson::SizeType n, bool copy) {
  const std::string_view text(s, n);
  if (ValidUtf8(text)) return Base::String(s, n, copy);
  const std::string clean = SanitizeUtf8(text);
  return Base::String(clean.data(), static_cast<rapidjson::SizeType>(clean.size()), true);
}

std::string Json(const std::function<void(Writer&)>& fill) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  fill(w);
  return std::string(sb.GetString(), sb.GetSize());
}

void WriteBytes(Writer& w, const char* key, std::string_view bytes) {
  w.Key(key);
  w.String(bytes);
  if (ValidUtf8(bytes)) return;
  w.Key((std::string(key) + "_base64").c_str());
  const std::string b64 = proto::Base64Encode(bytes);
  w.String(std::string_view(b64));
}

void Opt(Writer& w, const char* key, const std::optional<std::string>& v) {
  w.Key(key);
  if (v)
    w.String(*v);
  else
    w.Null();
}

void Opt(Writer& w, const char* key, const std::optional<std::int64_t>& v) {
  w.Key(key);
  if (v)
    w.Int64(*v);
  else
    w.Null();
}

namespace {
void Time(Writer& w, const char* ms_key, const char* iso_key, std::int64_t ms) {
  w.Key(ms_key);
  w.Int64(ms);
  w.Key(iso_key);
  w.String(FormatIsoLocal(ms));
}
}  // namespace

void WriteRef(Writer& w, std::string_view id) {
  if (w.refs() == nullptr) return;
  w.Key("ref");
  w.String(ShortRef(*w.refs(), id));
}

void WriteEvent(Writer& w, const EventRow& e, const std::function<void(Writer&)>& extra) {
  w.StartObject();
  w.Key("id");
  w.String(e.id);
  WriteRef(w, e.id);
  w.Key("source");
  w.String(e.source);
  Opt(w, "session", e.session);
  Time(w, "ts", "time", e.ts);
  w.Key("kind");
  w.String(e.kind);
  w.Key("role");
  w.String(e.role);
  Opt(w, "project", e.project);
  Opt(w, "cwd", e.cwd);
  Opt(w, "git_branch", e.git_branch);
  Opt(w, "tool", e.tool_name);
  Opt(w, "call_id", e.call_id);
  Opt(w, "agent", e.agent);
  Opt(w, "model", e.model);
  w.Key("is_error");
  w.Bool(e.is_error);
  w.Key("text");
  w.String(e.text);
  if (extra) extra(w);
  w.EndObject();
}

void WriteSession(Writer& w, const SessionRow& s) {
  w.StartObject();
  w.Key("id");
  w.String(s.id);
  WriteRef(w, s.id);
  w.Key("source");
  w.String(s.source);
  Opt(w, "title", s.title);
  w.Key("title_manual");
  w.Bool(s.title_manual);
  Opt(w, "prompt", s.prompt);
  Opt(w, "project", s.project);
  Opt(w, "cwd", s.cwd);
  Opt(w, "git_branch", s.git_branch);
  Opt(w, "parent", s.parent);
  Time(w, "first_ts", "first_time", s.first_ts);
  Time(w, "last_ts", "last_time", s.last_ts);
  w.Key("events");
  w.Int64(s.events);
  w.Key("messages");
  w.Int64(s.messages);
  w.EndObject();
}

void WriteSource(Writer& w, const SourceLine& s) {
  w.StartObject();
  w.Key("file");
  w.String(s.path);
  w.Key("mirror");
  w.String(s.mirror);
  w.Key("generation");
  w.Int64(s.generation);
  w.Key("line");
  w.Int64(s.line);
  WriteBytes(w, "raw", s.raw);
  if (s.withheld) {
    w.Key("withheld");
    w.String("the line also holds the text of a forgotten event");
  }
  if (s.generated_line) {
    // The line Origin generated around it, as its mirror holds it.
    w.Key("generated");
    w.StartObject();
    w.Key("line");
    w.Int64(*s.generated_line);
    WriteBytes(w, "raw", s.generated_raw);
    w.EndObject();
  }
  w.EndObject();
}

void WriteEntry(Writer& w, const EntryRow& e, const std::function<void(Writer&)>& extra) {
  w.StartObject();
  w.Key("id");
  w.String(e.id);
  WriteRef(w, e.id);
  w.Key("kind");
  w.String(e.kind);
  w.Key("text");
  w.String(e.text);
  w.Key("confidence");
  w.Double(e.confidence);
  w.Key("author");
  w.String(e.author);
  Opt(w, "project", e.project);
  w.Key("status");
  w.String(e.status);
  Opt(w, "superseded_by", e.superseded_by);
  w.Key("concurrent");
  w.Bool(e.concurrent);
  Opt(w, "supersedes", e.supersedes);
  w.Key("root");
  w.String(e.root);
  w.Key("imported");
  w.Bool(e.imported);
  w.Key("ended");
  w.Bool(e.ended);
  w.Key("valid_from");
  if (e.valid_from)
    w.String(FormatIsoLocal(*e.valid_from));
  else
    w.Null();
  w.Key("valid_to");
  if (e.valid_to)
    w.String(FormatIsoLocal(*e.valid_to));
  else
    w.Null();
  Time(w, "created_at", "created", e.created_at);
  w.Key("origin");
  w.String(e.origin);
  w.Key("sources");
  w.StartArray();
  for (const EntrySource& s : e.sources) {
    w.StartObject();
    Opt(w, "event_id", s.event_id);
    if (s.event_id) WriteRef(w, *s.event_id);
    Opt(w, "quote", s.quote);
    w.EndObject();
  }
  w.EndArray();
  if (extra) extra(w);
  w.EndObject();
}

namespace {
// The first 1,000 of `v` under `key`, and their count under `<key>_count`.
void Ids(Writer& w, const char* key, const std::vector<std::string>& v) {
  w.Key(key);
  w.StartArray();
  for (std::size_t i = 0; i < v.size() && i < 1000; ++i) w.String(v[i]);
  w.EndArray();
  w.Key((std::string(key) + "_count").c_str());
  w.Int64(static_cast<std::int64_t>(v.size()));
}
}  // namespace

void WriteOutcome(Writer& w, const ForgetOutcome& o, bool dry_run, std::string_view digest) {
  w.StartObject();
  w.Key("kind");
  w.String(o.kind);
  w.Key("target");
  w.String(o.target);
  if (!o.target_kind.empty()) {
    w.Key("target_kind");
    w.String(o.target_kind);
  }
  w.Key("dry_run");
  w.Bool(dry_run);
  w.Key("recorded");
  w.Bool(o.tombstone.has_value());
  Opt(w, "tombstone", o.tombstone);
  Opt(w, "hidden_by", o.hidden_by);
  Ids(w, "chains", o.chains);
  Ids(w, "entries", o.entries);
  Ids(w, "events", o.events);
  Ids(w, "sessions", o.sessions);
  Ids(w, "titles", o.titles);
  if (!digest.empty()) {
    w.Key("digest");
    w.String(digest);
  }
  w.EndObject();
}

void WriteEraseOutcome(Writer& w, const EraseOutcome& o, bool dry_run, std::string_view elsewhere) {
  w.StartObject();
  w.Key("forget");
  w.String(o.forget);
  w.Key("dry_run");
  w.Bool(dry_run);
  Opt(w, "erasure", o.erasure);
  w.Key("resumed");
  w.Bool(o.resumed);
  w.Key("lines_count");
  w.Int64(o.lines);
  w.Key("frames_rewritten");
  w.Int64(o.frames);
  Ids(w, "events", o.events);
  Ids(w, "entries", o.entries);
  // Each mirror and the agent's file it mirrors, which Origin never writes.
  w.Key("files");
  w.StartArray();
  for (const ErasedFile& f : o.files) {
    w.StartObject();
    w.Key("mirror");
    w.String(f.mirror);
    w.Key("source");
    w.String(f.source);
    w.Key("generation");
    w.Int64(f.generation);
    w.Key("agent_file");
    w.String(f.path);
    w.Key("agent_file_exists");
    w.Bool(f.path_exists);
    w.Key("lines");
    w.StartArray();
    for (std::int64_t l : f.lines) w.Int64(l);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  if (!dry_run) {
    w.Key("wal_truncated");
    w.Bool(o.wal_truncated);
  }
  w.Key("backups_untouched");
  w.Bool(true);
  if (!elsewhere.empty()) {
    w.Key("elsewhere");
    w.String(elsewhere.data(), static_cast<rapidjson::SizeType>(elsewhere.size()));
  }
  w.EndObject();
}

void WriteTombstone(Writer& w, const TombstoneRow& t) {
  w.StartObject();
  w.Key("id");
  w.String(t.id);
  WriteRef(w, t.id);
  w.Key("kind");
  w.String(t.kind);
  w.Key("target");
  w.String(t.target);
  w.Key("reason");
  w.String(t.reason);
  Time(w, "created_at", "created", t.created_at);
  w.Key("origin");
  w.String(t.origin);
  Opt(w, "author", t.author);
  if (t.kind == "forget") {
    w.Key("in_effect");
    w.Bool(t.in_effect);
    Opt(w, "restored_by", t.restored_by);
    if (t.erasure) {
      w.Key("erasure");
      w.StartObject();
      w.Key("id");
      w.String(t.erasure->id);
      w.Key("state");
      w.String(t.erasure->done_at ? "done" : "pending");
      if (t.erasure->done_at) Time(w, "done_at", "done", *t.erasure->done_at);
      w.Key("lines");
      w.Int64(t.erasure->lines);
      w.Key("events");
      w.Int64(t.erasure->events);
      w.Key("entries");
      w.Int64(t.erasure->entries);
      w.EndObject();
    }
    w.Key("entries");
    w.Int64(t.entries);
    w.Key("events");
    w.Int64(t.events);
  }
  w.EndObject();
}

std::string BoundStrings(std::string json, std::size_t max_bytes, std::string_view rest) {
  if (json.size() <= max_bytes) return json;
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError()) return json;
  // Each long string, with the object it is a member of (null in an array).
  std::vector<std::pair<rapidjson::Value*, rapidjson::Value*>> strings;
  std::vector<std::pair<rapidjson::Value*, rapidjson::Value*>> stack = {{&d, nullptr}};
  while (!stack.empty()) {
    auto [v, parent] = stack.back();
    stack.pop_back();
    if (v->IsString() && v->GetStringLength() > 256) {
      strings.emplace_back(v, parent);
    } else if (v->IsObject()) {
      for (auto& kv : v->GetObject()) stack.emplace_back(&kv.value, v);
    } else if (v->IsArray()) {
      for (auto& e : v->GetArray()) stack.emplace_back(&e, nullptr);
    }
  }
  // The greatest common length that brings the whole under the bound
  // (escapes make the JSON longer than the strings; the marker is about
  // 40 B and `rest`).
  const std::size_t budget = max_bytes - max_bytes / 10;
  auto size_with = [&](std::size_t cap) {
    std::size_t size = json.size();
    for (const auto& [v, parent] : strings)
      if (v->GetStringLength() > cap) size -= v->GetStringLength() - cap - 40 - rest.size();
    return size;
  };
  std::size_t lo = 256, hi = 256;
  for (const auto& [v, parent] : strings) hi = std::max<std::size_t>(hi, v->GetStringLength());
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo + 1) / 2;
    if (size_with(mid) <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  for (auto& [v, parent] : strings) {
    const std::size_t n = v->GetStringLength();
    if (n <= lo) continue;
    // An object that says whether its text is whole (an event's
    // `truncated`) says it is not.
    if (parent != nullptr)
      if (auto t = parent->FindMember("truncated"); t != parent->MemberEnd() && t->value.IsBool())
        t->value.SetBool(true);
    // Cut where a character starts.
    const char* text = v->GetString();
    std::size_t end = lo;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    std::string cut(text, end);
    cut += " [... cut: " + std::to_string(n - cut.size()) + " of " + std::to_string(n) +
           " bytes left out; " + std::string(rest) + "]";
    v->SetString(cut.c_str(), static_cast<rapidjson::SizeType>(cut.size()), d.GetAllocator());
  }
  rapidjson::StringBuffer sb;
  rpc::Writer w(sb);
  d.Accept(w);
  return sb.GetString();
}

}  // namespace origin::rpc
