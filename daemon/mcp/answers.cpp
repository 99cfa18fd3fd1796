// SPDX-License-Identifier: MIT
#include "daemon/mcp/answers.hpp"

#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <map>
#include <optional>

#include "core/query/events.hpp"
#include "core/query/terms.hpp"
#include "core/store/refs.hpp"
#include "core/util/op_error.hpp"
#include "core/util/text.hpp"
#include "daemon/mcp/values.hpp"
#include "daemon/rpc_json.hpp"

namespace origin::mcp {

namespace {

using namespace values;

// No null member, and times once: the milliseconds beside a local ISO time
// are left out.
void Tidy(Value& v) {
  if (v.IsArray())
    for (auto& e : v.GetArray()) Tidy(e);
  if (!v.IsObject()) return;
  for (auto it = v.MemberBegin(); it != v.MemberEnd();) {
    const std::string_view k(it->name.GetString(), it->name.GetStringLength());
    const bool twin = (k == "ts" && v.HasMember("time")) ||
                      (k == "first_ts" && v.HasMember("first_time")) ||
                      (k == "last_ts" && v.HasMember("last_time")) ||
                      (k == "created_at" && v.HasMember("created"));
    if (it->value.IsNull() || twin) {
      it = v.EraseMember(it);
    } else {
      Tidy(it->value);
      ++it;
    }
  }
}

// What names a session: its title or, without one, its first prompt, on
// one line and short.
std::string TitleOf(const std::optional<std::string>& title,
                    const std::optional<std::string>& prompt) {
  const std::optional<std::string>& t = title && !title->empty() ? title : prompt;
  return t ? Snippet(*t, {}, kTitleChars) : "";
}

// A session as a line of a list: its title (or, without one, its first
// prompt), its project, its span and its counts.  `brief`: id, source,
// title and project only (the sessions of search hits).
Value Session(const Value& s, bool brief, Alloc& a) {
  Value o(rapidjson::kObjectType);
  Copy(o, s, "id", a);
  Copy(o, s, "ref", a);
  Copy(o, s, "source", a);
  auto opt = [&](const char* k) {
    const Value* v = Get(s, k);
    return v != nullptr && v->IsString() ? std::optional<std::string>(v->GetString())
                                         : std::nullopt;
  };
  const std::string title = TitleOf(opt("title"), opt("prompt"));
  if (!title.empty()) Put(o, "title", title, a);
  Copy(o, s, "project", a);
  if (brief) return o;
  Copy(o, s, "first_time", a);
  Copy(o, s, "last_time", a);
  Copy(o, s, "messages", a);
  Copy(o, s, "events", a);
  return o;
}

// What every event in a list says about itself; its text is added by the
// caller.  Its time to the second (get gives the millisecond): a list
// answer is read, not sorted.  `ref`: its short reference, which a person
// can type into the CLI (a search hit's; a page of a session's events
// leaves it out, the characters going to the previews instead).
Value EventHead(const Value& e, bool ref, Alloc& a) {
  Value o(rapidjson::kObjectType);
  Copy(o, e, "id", a);
  if (ref) Copy(o, e, "ref", a);
  std::string time = Str(e, "time");
  if (time.size() > 23 && time[19] == '.') time.erase(19, 4);  // 2025-11-25T06:00:46.488+00:00
  if (!time.empty()) Put(o, "time", time, a);
  Copy(o, e, "role", a);
  if (Str(e, "kind") != "message") Copy(o, e, "kind", a);
  Copy(o, e, "tool", a);
  if (Flag(e, "is_error")) o.AddMember("is_error", true, a);
  return o;
}

// Items [offset, offset + limit) of `all` through `shape`; whether more follow.
template <class Shape>
bool Page(const Value* all, std::int64_t offset, std::int64_t limit, Value& out, Shape shape) {
  out.SetArray();
  if (all == nullptr || !all->IsArray()) return false;
  const auto n = static_cast<std::int64_t>(all->Size());
  for (std::int64_t i = offset; i < n && i < offset + limit; ++i)
    shape((*all)[static_cast<rapidjson::SizeType>(i)], i);
  return n > offset + limit;
}

void More(Value& out, bool more, std::int64_t next, Alloc& a) {
  out.AddMember("more", more, a);
  if (more) out.AddMember("next_offset", next, a);
}

// The characters of `v` as JSON text.
std::size_t JsonChars(const Value& v) {
  return CountChars(rpc::Json([&](rpc::Writer& w) { v.Accept(w); }));
}

// The texts of `slots` (each holding a whole text) cut to share what the
// rest of `answer` leaves of `budget` characters equally: each a snippet
// around its first match of `terms` (a preview from its start without
// terms), of at least `min` and at most `max` characters.
void ShareBudget(const Value& answer, const std::vector<Value*>& slots,
                 const std::vector<Term>& terms, std::size_t budget, std::size_t min,
                 std::size_t max, Alloc& a) {
  if (slots.empty()) return;
  std::vector<std::string> texts;
  for (Value* v : slots) {
    texts.emplace_back(v->GetString(), v->GetStringLength());
    v->SetString("", a);
  }
  const std::size_t rest = JsonChars(answer);
  std::size_t share = rest < budget ? (budget - rest) / slots.size() : 0;
  // What a snippet adds to its window: "…" at each end, the brackets
  // around matches, and JSON's escapes of quotes and backslashes.
  share = terms.empty() ? share - std::min<std::size_t>(share, 2) : share * 4 / 5;
  share = std::clamp(share, min, max);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const std::string cut = Snippet(texts[i], terms, share);
    slots[i]->SetString(cut.c_str(), static_cast<rapidjson::SizeType>(cut.size()), a);
  }
}

void Search(const Value& args, Db& db, const Value& in, Value& out, Alloc& a) {
  const std::string query = Str(args, "query");
  const std::vector<Term> terms = ParseTerms(query);
  bool long_term = false;
  for (const Term& t : terms) long_term = long_term || t.kind == Term::Kind::kTrigram;
  const std::int64_t offset = Int(args, "offset", 0), limit = Int(args, "limit", 20);
  Put(out, "order", Flag(args, "recent") || !long_term ? "newest" : "relevance", a);

  // Snippets hold the whole texts until ShareBudget cuts them.
  Value entries;
  const bool more_entries =
      Page(Get(in, "entries"), offset, limit, entries, [&](const Value& e, std::int64_t i) {
        Value o(rapidjson::kObjectType);
        Copy(o, e, "id", a);
        Copy(o, e, "ref", a);
        Copy(o, e, "kind", a);
        Put(o, "snippet", Str(e, "text"), a);
        // A later version names its chain (its first version), so that
        // versions from two stores can be told apart (daemon/mcp/merge.cpp).
        if (const std::string root = Str(e, "root"); !root.empty() && root != Str(e, "id"))
          Put(o, "chain", root, a);
        Copy(o, e, "confidence", a);
        Copy(o, e, "project", a);
        Copy(o, e, "author", a);
        o.AddMember("imported", Flag(e, "imported"), a);
        if (Str(e, "status") != "active") Copy(o, e, "status", a);
        if (Flag(e, "ended")) o.AddMember("ended", true, a);
        Copy(o, e, "valid_from", a);
        Copy(o, e, "valid_to", a);
        Copy(o, e, "created", a);
        o.AddMember("rank", i + 1, a);
        entries.PushBack(o, a);
      });

  // Event hits grouped by session (its title said once), the groups in
  // the order of their best hit; hits without a session in `events`.
  Value page, sessions(rapidjson::kArrayType), loose(rapidjson::kArrayType);
  std::map<std::string, rapidjson::SizeType> group;
  const bool more_events =
      Page(Get(in, "events"), offset, limit, page, [&](const Value& e, std::int64_t i) {
        Value o = EventHead(e, true, a);
        Put(o, "snippet", Str(e, "text"), a);
        o.AddMember("rank", i + 1, a);
        const std::string session = Str(e, "session");
        if (session.empty()) {
          Copy(o, e, "source", a);
          loose.PushBack(o, a);
          return;
        }
        auto [it, added] = group.emplace(session, sessions.Size());
        if (added) {
          // Its title or first prompt as the operation read it in the
          // same snapshot (session_title), not read again.
          std::optional<SessionRow> row;
          try {
            row = GetSession(db, session, false);
          } catch (const OpError&) {  // hidden meanwhile: its id alone
          }
          Value s(rapidjson::kObjectType);
          Put(s, "id", session, a);
          if (row) {
            Put(s, "ref", ShortRef(db, session), a);
            Put(s, "source", row->source, a);
            const std::string title = TitleOf(Str(e, "session_title"), std::nullopt);
            if (!title.empty()) Put(s, "title", title, a);
            if (row->project) Put(s, "project", *row->project, a);
          } else {
            Copy(s, e, "source", a);
          }
          s.AddMember("events", Value(rapidjson::kArrayType), a);
          sessions.PushBack(s, a);
        }
        sessions[it->second]["events"].PushBack(o, a);
      });
  out.AddMember("entries", entries, a);
  out.AddMember("sessions", sessions, a);
  out.AddMember("events", loose, a);
  More(out, more_entries || more_events, offset + limit, a);
  std::vector<Value*> slots;
  for (auto& e : out["entries"].GetArray()) slots.push_back(&e["snippet"]);
  for (auto& s : out["sessions"].GetArray())
    for (auto& e : s["events"].GetArray()) slots.push_back(&e["snippet"]);
  for (auto& e : out["events"].GetArray()) slots.push_back(&e["snippet"]);
  ShareBudget(out, slots, terms, Flag(args, "include_tools") ? kSearchToolsChars : kSearchChars,
              kSnippetMin, kSnippetMax, a);
}

void Timeline(const Value& args, const Value& in, Value& out, Alloc& a) {
  const std::int64_t limit = Int(args, "limit", 50);
  if (const Value* s = Get(in, "session")) {
    const std::int64_t offset = Int(args, "offset", 0);
    out.AddMember("session", Session(*s, false, a), a);
    Value events;
    // The operation answered the page and one more: Page from 0.
    const bool more = Page(Get(in, "events"), 0, limit, events, [&](const Value& e, std::int64_t) {
      Value o = EventHead(e, false, a);
      Put(o, "text", Str(e, "text"), a);
      events.PushBack(o, a);
    });
    out.AddMember("events", events, a);
    More(out, more, offset + limit, a);
    std::vector<Value*> slots;
    for (auto& e : out["events"].GetArray()) slots.push_back(&e["text"]);
    ShareBudget(out, slots, {}, kPageChars, kPreviewMin, kPreviewMax, a);
    return;
  }
  for (const char* k : {"since", "until"})
    if (const Value* v = Get(in, k); v != nullptr && v->IsInt64())
      Put(out, k, FormatIsoLocal(v->GetInt64()), a);
  Value sessions;
  const bool more = Page(Get(in, "sessions"), 0, limit, sessions, [&](const Value& s, std::int64_t) {
    sessions.PushBack(Session(s, false, a), a);
  });
  out.AddMember("sessions", sessions, a);
  // No offset for sessions: the next ones are those before the last one listed.
  out.AddMember("more", more, a);
}

// How the rest of a cut string is read, by tool.
const char* RestOf(std::string_view tool) {
  if (tool == "get") return "the whole text: the sources tool gives its log file and line";
  if (tool == "sources") return "the whole line is in the log file, at the line number given";
  return "get one id for its whole text";
}

}  // namespace

std::string ShapeAnswer(const Tool& tool, const rapidjson::Value& args, Db& db, std::string json) {
  rapidjson::Document in;
  in.Parse(json.data(), json.size());
  if (in.HasParseError() || !in.IsObject()) return json;
  const std::string_view name = tool.name;
  rapidjson::Document out;
  if (name == "search") {
    out.SetObject();
    Search(args, db, in, out, out.GetAllocator());
  } else if (name == "timeline") {
    out.SetObject();
    Timeline(args, in, out, out.GetAllocator());
  } else {
    out.Swap(in);
    // The store that wrote an entry is its `store` here: `origin` labels
    // where an item of a connected device's answer comes from
    // (daemon/mcp/merge.hpp).
    auto rename = [&](Value& e) {
      if (!e.IsObject()) return;
      auto it = e.FindMember("origin");
      if (it != e.MemberEnd()) it->name.SetString("store", out.GetAllocator());
    };
    if (auto it = out.FindMember("entry"); it != out.MemberEnd()) rename(it->value);
    if (auto it = out.FindMember("history"); it != out.MemberEnd() && it->value.IsArray())
      for (auto& v : it->value.GetArray()) rename(v);
  }
  Tidy(out);
  rapidjson::StringBuffer sb;
  rpc::Writer w(sb);
  out.Accept(w);
  return rpc::BoundStrings(std::string(sb.GetString(), sb.GetSize()), kMaxAnswer, RestOf(name));
}

}  // namespace origin::mcp
