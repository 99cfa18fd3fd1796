// SPDX-License-Identifier: MIT
#include "daemon/mcp/merge.hpp"

#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "core/forget/forget.hpp"
#include "core/store/refs.hpp"
#include "core/util/op_error.hpp"
#include "daemon/mcp/values.hpp"
#include "daemon/rpc_json.hpp"
#include "proto/time.hpp"

namespace origin::mcp {

namespace {

using namespace values;
using Doc = rapidjson::Document;

[[noreturn]] void NotHere() { throw OpError(OpError::Code::kNotFound, "hidden on this device"); }

Doc ParseObject(const std::string& json) {
  Doc d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject()) d.SetObject();
  return d;
}

// An entry version's place among the versions of its chain: the greatest
// (created, id) is current (spec: Entries, concurrent corrections).
std::tuple<std::int64_t, std::string> VersionKey(const Value& e) {
  return {proto::ParseDateTime(Str(e, "created")).value_or(0), Str(e, "id")};
}

// An entry's chain: its first version.
std::string ChainOf(const Value& e) {
  std::string c = Str(e, "chain");
  if (c.empty()) c = Str(e, "root");
  return c.empty() ? Str(e, "id") : c;
}

// Sets `key` of the object `o` to `v`, whether or not it had one.
void Set(Value& o, const char* key, Value v, Alloc& a) {
  o.RemoveMember(key);
  o.AddMember(Value(key, a), v, a);
}

class Merger {
 public:
  enum class Kind { kEntry, kEvent, kSession };

  Merger(Db& db, Alloc& a) : db_(db), a_(a) {}

  /// Whether this device hides the item `o`, or the item its member `also`
  /// names (its session, its chain).
  bool Hidden(const Value& o, const char* also = nullptr) {
    if (HiddenHere(db_, Str(o, "id"))) return true;
    if (also == nullptr) return false;
    const std::string other = Str(o, also);
    return !other.empty() && HiddenHere(db_, other);
  }

  /// A copy of `o`, an item of the device's own answer (side 0) or of the
  /// hub's (side 1), labelled by where it is held.  A hub's short
  /// reference is unique on the hub, not here: it is replaced by this
  /// device's when the device holds the item, and left out otherwise.
  Value Labelled(const Value& o, int side, Kind kind) {
    Value v(o, a_);
    bool held = side == 0;
    if (!held) {
      const std::string id = Str(v, "id");
      held = Holds(kind, id);
      v.RemoveMember("ref");
      if (held) Put(v, "ref", ShortRef(db_, id), a_);
    }
    Set(v, "origin", Value(held ? "local" : "hub", a_), a_);
    return v;
  }

 private:
  bool Holds(Kind kind, const std::string& id) {
    const char* sql = kind == Kind::kEntry   ? "SELECT 1 FROM entry WHERE id = ?"
                      : kind == Kind::kEvent ? "SELECT 1 FROM event WHERE id = ?"
                                             : "SELECT 1 FROM session WHERE id = ?";
    auto st = db_.Prepare(sql);
    st.Bind(1, id);
    return st.Step();
  }
  Db& db_;
  Alloc& a_;
};

using Kind = Merger::Kind;


// One hit of a ranked list, from either side.
struct Hit {
  std::int64_t rank;
  int side;
  const Value* v;
  const Value* session = nullptr;  // its session, for an event grouped under one
};

// `hits` in the order of their ranks, the device's first on a tie, each id
// once.
std::vector<Hit> Interleave(std::vector<Hit> hits) {
  std::stable_sort(hits.begin(), hits.end(), [](const Hit& x, const Hit& y) {
    return std::tie(x.rank, x.side) < std::tie(y.rank, y.side);
  });
  std::set<std::string> seen;
  std::vector<Hit> out;
  for (const Hit& h : hits)
    if (seen.insert(Str(*h.v, "id")).second) out.push_back(h);
  return out;
}

const Value* Array(const Value& o, const char* key) {
  const Value* v = Get(o, key);
  return v != nullptr && v->IsArray() ? v : nullptr;
}

void Search(const Value& args, Merger& m, const Value& local, const Value& hub, Doc& out) {
  Alloc& a = out.GetAllocator();
  const std::int64_t offset = Int(args, "offset", 0), limit = Int(args, "limit", 20);
  Copy(out, local, "order", a);

  std::vector<Hit> hits;
  for (int side : {0, 1})
    if (const Value* list = Array(side == 0 ? local : hub, "entries"))
      for (const Value& e : list->GetArray())
        if (e.IsObject() && (side == 0 || !m.Hidden(e, "chain"))) hits.push_back({Int(e, "rank", 0), side, &e});
  hits = Interleave(std::move(hits));
  if (!Flag(args, "history")) {
    // One version a chain: the current one of those answered.
    std::map<std::string, const Hit*> best;
    for (const Hit& h : hits) {
      const Hit*& b = best[ChainOf(*h.v)];
      if (b == nullptr || VersionKey(*h.v) > VersionKey(*b->v)) b = &h;
    }
    std::vector<Hit> current;
    for (const Hit& h : hits)
      if (best[ChainOf(*h.v)] == &h) current.push_back(h);
    hits = std::move(current);
  }
  Value entries(rapidjson::kArrayType);
  for (const Hit& h : hits) {
    Value e = m.Labelled(*h.v, h.side, Kind::kEntry);
    Set(e, "rank", Value(offset + entries.Size() + 1), a);
    entries.PushBack(e, a);
  }

  // Event hits, flattened from their sessions, interleaved, then grouped
  // again in the order of each session's best hit.
  hits.clear();
  for (int side : {0, 1}) {
    const Value& answer = side == 0 ? local : hub;
    if (const Value* sessions = Array(answer, "sessions"))
      for (const Value& s : sessions->GetArray()) {
        if (!s.IsObject() || (side == 1 && m.Hidden(s))) continue;
        if (const Value* events = Array(s, "events"))
          for (const Value& e : events->GetArray())
            if (e.IsObject() && (side == 0 || !m.Hidden(e)))
              hits.push_back({Int(e, "rank", 0), side, &e, &s});
      }
    if (const Value* loose = Array(answer, "events"))
      for (const Value& e : loose->GetArray())
        if (e.IsObject() && (side == 0 || !m.Hidden(e))) hits.push_back({Int(e, "rank", 0), side, &e});
  }
  hits = Interleave(std::move(hits));
  Value sessions(rapidjson::kArrayType), loose(rapidjson::kArrayType);
  std::map<std::string, rapidjson::SizeType> group;
  std::int64_t rank = offset;
  for (const Hit& h : hits) {
    Value e = m.Labelled(*h.v, h.side, Kind::kEvent);
    Set(e, "rank", Value(++rank), a);
    if (h.session == nullptr) {
      loose.PushBack(e, a);
      continue;
    }
    auto [it, added] = group.emplace(Str(*h.session, "id"), sessions.Size());
    if (added) {
      Value s = m.Labelled(*h.session, h.side, Kind::kSession);
      Set(s, "events", Value(rapidjson::kArrayType), a);
      sessions.PushBack(s, a);
    }
    sessions[it->second].FindMember("events")->value.PushBack(e, a);
  }
  out.AddMember("entries", entries, a);
  out.AddMember("sessions", sessions, a);
  out.AddMember("events", loose, a);
  const bool more = Flag(local, "more") || Flag(hub, "more");
  out.AddMember("more", more, a);
  if (more) out.AddMember("next_offset", offset + limit, a);
}

std::int64_t LastMs(const Value& s) {
  for (const char* k : {"last_time", "first_time"})
    if (auto ms = proto::ParseDateTime(Str(s, k))) return *ms;
  return 0;
}

void Timeline(const Value& args, Merger& m, const Value* local, const Value& hub, Doc& out) {
  Alloc& a = out.GetAllocator();
  if (Get(args, "session") != nullptr) {
    // A session is one device's: its page comes whole from whichever
    // store holds it.
    const Value& from = local != nullptr ? *local : hub;
    const Value* session = Get(from, "session");
    if (local == nullptr && (session == nullptr || !session->IsObject() || m.Hidden(*session)))
      NotHere();
    for (const auto& kv : from.GetObject()) {
      const std::string_view k(kv.name.GetString(), kv.name.GetStringLength());
      if (k == "session" && kv.value.IsObject()) {
        out.AddMember("session", m.Labelled(kv.value, local != nullptr ? 0 : 1, Kind::kSession), a);
      } else if (k == "events" && kv.value.IsArray()) {
        Value events(rapidjson::kArrayType);
        for (const Value& e : kv.value.GetArray())
          if (e.IsObject() && (local != nullptr || !m.Hidden(e))) events.PushBack(Value(e, a), a);
        out.AddMember("events", events, a);
      } else {
        out.AddMember(Value(kv.name, a), Value(kv.value, a), a);
      }
    }
    return;
  }
  const std::int64_t limit = Int(args, "limit", 50);
  Copy(out, *local, "since", a);
  Copy(out, *local, "until", a);
  std::vector<Hit> all;
  for (int side : {0, 1})
    if (const Value* list = Array(side == 0 ? *local : hub, "sessions"))
      for (const Value& s : list->GetArray())
        if (s.IsObject() && (side == 0 || !m.Hidden(s))) all.push_back({0, side, &s});
  all = Interleave(std::move(all));
  std::stable_sort(all.begin(), all.end(),
                   [](const Hit& x, const Hit& y) { return LastMs(*x.v) > LastMs(*y.v); });
  const bool cut = static_cast<std::int64_t>(all.size()) > limit;
  if (cut) all.resize(static_cast<std::size_t>(limit));
  Value sessions(rapidjson::kArrayType);
  for (const Hit& h : all) sessions.PushBack(m.Labelled(*h.v, h.side, Kind::kSession), a);
  out.AddMember("sessions", sessions, a);
  out.AddMember("more", cut || Flag(*local, "more") || Flag(hub, "more"), a);
}

// get of an entry: its history from both stores, and its current version
// from either.
void EntryOf(Merger& m, const Value* local, const Value& hub, Doc& out) {
  Alloc& a = out.GetAllocator();
  const Value* hub_entry = Get(hub, "entry");
  if (hub_entry != nullptr && (!hub_entry->IsObject() || m.Hidden(*hub_entry, "root")))
    hub_entry = nullptr;
  const Value* mine = local != nullptr ? Get(*local, "entry") : nullptr;
  if (mine == nullptr && hub_entry == nullptr) NotHere();
  // The hub's answer counts only for the same chain.
  if (mine != nullptr && hub_entry != nullptr && ChainOf(*mine) != ChainOf(*hub_entry))
    hub_entry = nullptr;
  const bool hub_current =
      hub_entry != nullptr && (mine == nullptr || VersionKey(*hub_entry) > VersionKey(*mine));
  const Value& current_answer = hub_current ? hub : *local;
  out.AddMember("entry", m.Labelled(hub_current ? *hub_entry : *mine, hub_current ? 1 : 0, Kind::kEntry), a);
  std::vector<Hit> versions;
  for (int side : {0, 1}) {
    const Value* answer = side == 0 ? local : (hub_entry != nullptr ? &hub : nullptr);
    if (answer == nullptr) continue;
    if (const Value* list = Array(*answer, "history"))
      for (const Value& v : list->GetArray())
        if (v.IsObject() && (side == 0 || !m.Hidden(v))) versions.push_back({0, side, &v});
  }
  versions = Interleave(std::move(versions));
  std::stable_sort(versions.begin(), versions.end(), [](const Hit& x, const Hit& y) {
    return VersionKey(*x.v) < VersionKey(*y.v);
  });
  Value history(rapidjson::kArrayType);
  for (const Hit& h : versions) history.PushBack(m.Labelled(*h.v, h.side, Kind::kEntry), a);
  out.AddMember("history", history, a);
  Value cited(rapidjson::kArrayType);
  if (const Value* list = Array(current_answer, "cited"))
    for (const Value& e : list->GetArray())
      if (e.IsObject() && (!hub_current || !m.Hidden(e, "session")))
        cited.PushBack(m.Labelled(e, hub_current ? 1 : 0, Kind::kEvent), a);
  out.AddMember("cited", cited, a);
}

void GetTool(Merger& m, const Value* local, const Value& hub, Doc& out) {
  if ((local != nullptr && Get(*local, "entry") != nullptr) ||
      (local == nullptr && Get(hub, "entry") != nullptr))
    return EntryOf(m, local, hub, out);
  Alloc& a = out.GetAllocator();
  const Value& from = local != nullptr ? *local : hub;
  const Value* event = Get(from, "event");
  if (event == nullptr || !event->IsObject() || (local == nullptr && m.Hidden(*event, "session"))) NotHere();
  out.AddMember("event", m.Labelled(*event, local != nullptr ? 0 : 1, Kind::kEvent), a);
}

void SourcesTool(Merger& m, const Value* local, const Value& hub, Doc& out) {
  Alloc& a = out.GetAllocator();
  const Value& from = local != nullptr ? *local : hub;
  if (local == nullptr && (Str(hub, "id").empty() || m.Hidden(hub))) NotHere();
  out.CopyFrom(from, a);
  Set(out, "origin", Value(local != nullptr ? "local" : "hub", a), a);
}

}  // namespace

std::string MergeAnswers(const Tool& tool, const rapidjson::Value& args, Db& db,
                         const std::string& local, const std::string& hub) {
  Doc l = ParseObject(local), h = ParseObject(hub), out;
  out.SetObject();
  const Value* mine = local.empty() ? nullptr : &l;
  Merger m(db, out.GetAllocator());
  const std::string_view name = tool.name;
  if (name == "search" && mine != nullptr) {
    Search(args, m, l, h, out);
  } else if (name == "timeline" && (mine != nullptr || Get(args, "session") != nullptr)) {
    Timeline(args, m, mine, h, out);
  } else if (name == "get") {
    GetTool(m, mine, h, out);
  } else if (name == "sources") {
    SourcesTool(m, mine, h, out);
  } else {
    return local;
  }
  rapidjson::StringBuffer sb;
  rpc::Writer w(sb);
  out.Accept(w);
  return std::string(sb.GetString(), sb.GetSize());
}

}  // namespace origin::mcp
