// SPDX-License-Identifier: MIT
// Browsing what the agents wrote: the timeline, a session by turns, an
// event, its provenance, and search.
#include <algorithm>

#include "daemon/ui/layout.hpp"
#include "daemon/ui/markdown.hpp"
#include "daemon/ui/page_rows.hpp"
#include "proto/requests.hpp"

namespace origin::ui {

namespace {

constexpr std::size_t kRawLimit = 4000;  // characters of a raw line shown

constexpr Option kSourceOptions[] = {
    {"", "Any source"}, {"claude-code", "Claude Code"}, {"codex", "Codex"},
    {"cursor", "Cursor"}, {"zcode", "ZCode"},          {"grok", "Grok Build"}};

// The first `limit` characters of `s` (UTF-8), and whether it was cut.
std::string_view CutChars(std::string_view s, std::size_t limit, bool* cut) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (chars == limit) {
        *cut = true;
        return s.substr(0, i);
      }
      ++chars;
    }
  }
  *cut = false;
  return s;
}

void SessionLine(Html& h, const rapidjson::Value& s) {
  const std::string_view id = Str(s, "id");
  h.Open("li");
  h.Element("a", {{"href", Link("/session", {{"id", id}})}}, SessionName(s));
  h.Open("div", {{"class", "meta"}});
  h.Element("span", {{"class", "badge"}}, Str(s, "source")).Text(" ");
  if (const std::string_view p = Str(s, "project"); !p.empty()) h.Text("project ").Text(p).Text(" · ");
  h.Text(Count(Int(s, "messages"), "message", "messages")).Text(", ");
  h.Text(Count(Int(s, "events"), "event", "events")).Text(" · last ");
  Time(h, s, "last_time");
  h.Close("div").Close("li");
}

}  // namespace

// ---------------------------------------------------------------- timeline

bool TimelineParams(const Fields& q, std::string* params, std::string* error) {
  proto::TimelineRequest r;
  if (!FieldWhen(q, "since", &r.since, error) || !FieldWhen(q, "until", &r.until, error) ||
      !FieldInt(q, "days", 1, 36500, &r.days, error) || !FieldInt(q, "limit", 1, 5000, &r.limit, error))
    return false;
  if (!r.days && !r.since) r.days = 30;
  // The form keeps both fields: a date typed in Since wins over the days
  // left in the other (the page shows the range it gives).
  if (r.since) r.days.reset();
  if (!r.limit) r.limit = 200;
  if (std::string s = FieldText(q, "source"); !s.empty()) r.source = s;
  if (std::string p = FieldText(q, "project"); !p.empty()) r.project = p;
  if (std::string n = FieldText(q, "q"); !n.empty()) r.name = n;
  *params = proto::Encode(r);
  return true;
}

std::string TimelinePage(const rapidjson::Value& a, const PageContext& ctx) {
  Doc doc(ctx, "Timeline", "/timeline");
  Html& h = doc.html();
  const std::string words = FieldText(ctx.query, "q");
  h.Element("h1", "Timeline");
  h.Open("form", {{"method", "get"}, {"action", "/admin/timeline"}, {"class", "form-grid"}});
  TextField(h, "q", "Words in the name", words, "search");
  SelectField(h, "source", "Source", FieldText(ctx.query, "source"), kSourceOptions);
  TextField(h, "project", "Project", FieldText(ctx.query, "project"));
  TextField(h, "days", "Last days", FieldText(ctx.query, "days"), "number");
  TextField(h, "since", "Since", FieldText(ctx.query, "since"));
  TextField(h, "until", "Until", FieldText(ctx.query, "until"));
  h.Open("div", {{"class", "field"}}).Element("button", {{"type", "submit"}}, "Show").Close("div");
  h.Close("form");

  const rapidjson::Value* sessions = Arr(a, "sessions");
  std::string_view day;
  std::size_t shown = 0;
  if (sessions != nullptr) {
    for (const rapidjson::Value& s : sessions->GetArray()) {
      // Sessions by the day of their last activity (the server's days: the
      // answer's local times).
      const std::string_view d = Str(s, "last_time").substr(0, 10);
      if (d != day || shown == 0) {
        if (shown != 0) h.Close("ul").Close("section");
        day = d;
        h.Open("section").Element("h2", d.empty() ? std::string_view("Undated") : d);
        h.Open("ul", {{"class", "list"}});
      }
      SessionLine(h, s);
      ++shown;
    }
  }
  if (shown != 0) h.Close("ul").Close("section");
  const std::int64_t total = Int(a, "sessions_total", static_cast<std::int64_t>(shown));
  if (shown == 0)
    h.Element("p", {{"class", "notice"}}, "No session was active in this range. Try more days, or another source.");
  else
    h.Element("p", {{"class", "meta"}}, "Showing " + Count(static_cast<std::int64_t>(shown), "session", "sessions") +
                                            (Bool(a, "truncated") ? " of " + Num(total) + "; narrow the range to see the others." : "."));
  return doc.Finish();
}

// ---------------------------------------------------------------- session by turns

bool SessionParams(const Fields& q, std::string* params, std::string* error) {
  std::string id;
  if (!FieldId(q, "id", &id, error)) return false;
  std::optional<std::int64_t> page, part;
  if (!FieldInt(q, "page", 1, 1000000, &page, error) || !FieldInt(q, "part", 1, 1000000, &part, error))
    return false;
  ParamsJson p;
  p.Str("session", id);
  if (page) p.Int("page", *page);
  if (part) p.Int("part", *part);
  if (const std::string at = FieldText(q, "at"); !at.empty()) p.Str("at", at);
  *params = p.Done();
  return true;
}

namespace {

bool IsEvent(const rapidjson::Value* e, std::string_view id) { return e != nullptr && Str(*e, "id") == id; }

// Whether the folded items hold event `id`.
bool ItemsHold(const rapidjson::Value* items, std::string_view id) {
  if (items == nullptr || id.empty()) return false;
  for (const rapidjson::Value& item : items->GetArray())
    if (IsEvent(Obj(item, "event"), id) || IsEvent(Obj(item, "call"), id) || IsEvent(Obj(item, "result"), id))
      return true;
  return false;
}

void Folded(Html& h, const rapidjson::Value& items, const rapidjson::Value* summary, bool open) {
  std::string line;
  if (summary != nullptr) {
    line = Count(Int(*summary, "tool_calls"), "tool call", "tool calls") + ", " +
           Count(Int(*summary, "messages"), "message", "messages") + " before the reply";
    if (const std::int64_t errors = Int(*summary, "errors"); errors > 0)
      line += ", " + Count(errors, "error", "errors");
    if (const std::int64_t notes = Int(*summary, "notes"); notes > 0) line += ", " + Count(notes, "note", "notes");
  } else {
    line = Count(static_cast<std::int64_t>(items.Size()), "item", "items");
  }
  h.Open("details", {{"class", "folded"}, {"open", "", open}}).Element("summary", line).Open("ol", {{"class", "list"}});
  for (const rapidjson::Value& item : items.GetArray()) {
    const std::string_view type = Str(item, "type");
    h.Open("li");
    if (type == "tool") {
      const rapidjson::Value* call = Obj(item, "call");
      const rapidjson::Value* result = Obj(item, "result");
      const std::string_view outcome = Str(item, "outcome");
      h.Open("div", {{"class", "meta"}}).Text("Tool ");
      h.Element("code", call ? Str(*call, "tool") : std::string_view("(no call)")).Text(" ");
      h.Element("span", {{"class", outcome == "error" ? "badge error" : outcome == "ok" ? "badge ok" : "badge"}}, outcome);
      h.Close("div");
      if (call != nullptr) EventBody(h, *call, false, Links::kNoSession);
      if (result != nullptr) {
        h.Open("details").Element("summary", "Result");
        EventBody(h, *result, false, Links::kNoSession);
        h.Close("details");
      }
    } else if (type == "note") {
      h.Open("div", {{"class", "note"}}).Text("Note (").Text(Str(item, "note")).Text(")").Close("div");
      if (const rapidjson::Value* ev = Obj(item, "event")) EventBody(h, *ev, false, Links::kNoSession);
    } else if (const rapidjson::Value* ev = Obj(item, "event")) {
      EventBody(h, *ev, true, Links::kNoSession);
    }
    h.Close("li");
  }
  h.Close("ol").Close("details");
}


}  // namespace

std::string SessionPage(const rapidjson::Value& a, const PageContext& ctx) {
  const rapidjson::Value* session = Obj(a, "session");
  const std::string name = session ? SessionName(*session) : std::string("Session");
  Doc doc(ctx, name, "/timeline");
  Html& h = doc.html();
  const std::string_view id = session ? Str(*session, "id") : std::string_view{};
  h.Element("h1", name);
  if (session != nullptr) {
    h.Open("p", {{"class", "meta"}});
    h.Element("span", {{"class", "badge"}}, Str(*session, "source")).Text(" ");
    h.Element("span", {{"class", "id"}}, id);
    if (const std::string_view p = Str(*session, "project"); !p.empty()) h.Text(" · project ").Text(p);
    if (const std::string_view b = Str(*session, "git_branch"); !b.empty()) h.Text(" · branch ").Text(b);
    h.Text(" · ").Text(Count(Int(*session, "events"), "event", "events")).Text(" · from ");
    Time(h, *session, "first_time");
    h.Text(" to ");
    Time(h, *session, "last_time");
    h.Close("p");
    if (const std::string_view cwd = Str(*session, "cwd"); !cwd.empty())
      h.Open("p", {{"class", "meta"}}).Text("In ").Element("code", cwd).Close("p");
  }
  const std::int64_t page = Int(a, "page", 1), pages = Int(a, "pages", 1);
  const std::int64_t part = Int(a, "part", 1), parts = Int(a, "parts", 1);
  h.Element("p", {{"class", "meta"}}, Count(Int(a, "turns_total"), "turn", "turns") + ", " +
                                          Num(Int(a, "turns_per_page", 20)) + " a page");
  auto page_link = [&](std::int64_t n) { return Link("/session", {{"id", id}, {"page", std::to_string(n)}}); };
  Pager(h, "Pages of turns", "Page", page, pages, page_link);
  // at=: the turn holding that event is marked (the script scrolls to it),
  // its folded items open when the event is among them.
  std::string at(Str(a, "at"));
  if (at.empty()) at = FieldText(ctx.query, "at");
  if (const rapidjson::Value* turns = Arr(a, "turns")) {
    for (const rapidjson::Value& t : turns->GetArray()) {
      const std::int64_t index = Int(t, "index");
      const std::string anchor = "turn-" + std::to_string(index);
      const rapidjson::Value* items = Arr(t, "items");
      const bool in_items = ItemsHold(items, at);
      const bool holds = !at.empty() && (in_items || IsEvent(Obj(t, "prompt"), at) || IsEvent(Obj(t, "reply"), at));
      h.Open("article", {{"class", holds ? "turn at" : "turn"}, {"id", anchor}, {"aria-labelledby", anchor + "-h"},
                         {"aria-current", "true", holds}});
      h.Open("header");
      const std::string_view kind = Str(t, "kind");
      h.Element("h2", {{"id", anchor + "-h"}}, index == 0 && kind == "start" ? std::string("Before the first prompt")
                                                                            : "Turn " + Num(index));
      h.Element("span", {{"class", "meta"}}, Count(Int(t, "events"), "event", "events"));
      h.Close("header");
      if (const rapidjson::Value* cmd = Obj(t, "command")) {
        h.Open("p", {{"class", "prompt"}}).Element("code", Str(*cmd, "name"));
        if (const std::string_view args = Str(*cmd, "args"); !args.empty()) h.Text(" ").Text(args);
        h.Close("p");
      } else if (const rapidjson::Value* prompt = Obj(t, "prompt")) {
        h.Open("div", {{"class", "prompt"}});
        EventBody(h, *prompt, false, Links::kNoSession);
        h.Close("div");
      }
      if (items != nullptr && !items->Empty()) Folded(h, *items, Obj(t, "summary"), in_items);
      if (const rapidjson::Value* reply = Obj(t, "reply")) {
        h.Open("section", {{"class", "reply"}, {"aria-label", "Reply"}});
        EventBody(h, *reply, true, Links::kNoSession);
        h.Close("section");
      }
      h.Close("article");
    }
  }
  Pager(h, "Parts of this long turn", "Part", part, parts, [&](std::int64_t n) {
    return Link("/session", {{"id", id}, {"page", std::to_string(page)}, {"part", std::to_string(n)}});
  });
  Pager(h, "Pages of turns, again", "Page", page, pages, page_link);
  if (!id.empty()) {
    h.Open("p").Element("a", {{"href", Link("/forget", {{"target", id}})}}, "Forget this session…").Close("p");
  }
  return doc.Finish();
}

// ---------------------------------------------------------------- an event

bool EventParams(const Fields& q, std::string* params, std::string* error) {
  proto::IdRequest r;
  if (!FieldId(q, "id", &r.id, error)) return false;
  r.full = true;
  *params = proto::Encode(r);
  return true;
}

std::string EventPage(const rapidjson::Value& a, const PageContext& ctx) {
  const rapidjson::Value* e = Obj(a, "event");
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value& ev = e ? *e : kEmpty;
  const std::string_view id = Str(ev, "id"), session = Str(ev, "session");
  Doc doc(ctx, "Event " + std::string(Str(ev, "ref")), "/timeline");
  Html& h = doc.html();
  h.Open("h1").Text("Event ").Element("span", {{"class", "id"}}, id).Close("h1");
  h.Open("dl", {{"class", "meta"}});
  h.Element("dt", "Source").Element("dd", Str(ev, "source"));
  if (!session.empty())
    h.Element("dt", "Session").Open("dd").Element("a", {{"href", Link("/session", {{"id", session}, {"at", id}})}, {"class", "id"}}, session).Close("dd");
  if (const std::string_view p = Str(ev, "project"); !p.empty()) h.Element("dt", "Project").Element("dd", p);
  if (const std::string_view m = Str(ev, "model"); !m.empty()) h.Element("dt", "Model").Element("dd", m);
  h.Close("dl");
  h.Open("article", {{"class", "event"}});
  EventBody(h, ev, true);
  h.Close("article");

  h.Element("h2", "Provenance");
  h.Open("p").Text("Where this event comes from: the agent's file, the line Origin mirrored, and that line as it was. ");
  h.Element("a", {{"href", Link("/source", {{"id", id}})}}, "Its provenance chain and raw line").Close("p");
  const std::string out_id = "raw-line";
  h.Open("form", {{"method", "get"}, {"action", "/admin/source"}, {"data-raw-line", id}, {"data-target", out_id}});
  h.Void("input", {{"type", "hidden"}, {"name", "id"}, {"value", id}});
  doc.UseIcon(Icon::kFile);
  h.Element("button", {{"type", "submit"}, {"class", "secondary"}}, "Load the raw line here");
  h.Close("form");
  h.Element("div", {{"id", out_id}, {"class", "raw-line"}, {"aria-live", "polite"}}, "");

  if (Str(ev, "kind") != "meta" && !id.empty()) {
    h.Element("h2", "Remember from this event");
    h.Open("form", {{"method", "post"}, {"action", "/admin/remember"}});
    CsrfField(h, ctx);
    h.Void("input", {{"type", "hidden"}, {"name", "cite"}, {"value", id}});
    h.Void("input", {{"type", "hidden"}, {"name", "request_key"}, {"value", FormKey(ctx, id)}});
    h.Open("div", {{"class", "field"}}).Element("label", {{"for", "f-text"}}, "What to remember");
    h.Element("textarea", {{"id", "f-text"}, {"name", "text"}, {"required", ""}}, "").Close("div");
    h.Open("div", {{"class", "form-grid"}});
    SelectField(h, "kind", "Kind", "knowledge", {{"knowledge", "Knowledge"}, {"memory", "Memory"}, {"cognition", "Cognition"}});
    TextField(h, "confidence", "Confidence (0 to 1)", "1");
    TextField(h, "quote", "Quote from the event (optional)", "");
    h.Open("div", {{"class", "field"}}).Element("button", {{"type", "submit"}}, "Remember").Close("div");
    h.Close("div");
    h.Element("p", {{"class", "meta"}}, "Written as user@" + ctx.store_name + ", citing this event.");
    h.Close("form");
    h.Open("p").Element("a", {{"href", Link("/forget", {{"target", id}})}}, "Forget this event…").Close("p");
  }
  return doc.Finish();
}

std::string SourcePage(const rapidjson::Value& a, const PageContext& ctx) {
  const std::string_view id = Str(a, "id");
  Doc doc(ctx, "Provenance", "/timeline");
  Html& h = doc.html();
  h.Open("h1").Text("Provenance of ").Element("span", {{"class", "id"}}, id).Close("h1");
  const std::string back = id.starts_with("ent_") ? Link("/entry", {{"id", id}}) : Link("/event", {{"id", id}});
  h.Open("p").Element("a", {{"href", back}}, "Back to it").Close("p");
  const rapidjson::Value* sources = Arr(a, "sources");
  if (sources == nullptr || sources->Empty()) {
    h.Element("p", {{"class", "notice"}}, "No source is recorded for it.");
    return doc.Finish();
  }
  h.Open("ol", {{"class", "list"}});
  for (const rapidjson::Value& s : sources->GetArray()) {
    h.Open("li").Open("dl");
    if (const std::string_view ev = Str(s, "event_id"); !ev.empty())
      h.Element("dt", "Event").Open("dd").Element("a", {{"href", Link("/event", {{"id", ev}})}, {"class", "id"}}, ev).Close("dd");
    h.Element("dt", "The agent's file").Open("dd").Element("code", Str(s, "file")).Close("dd");
    h.Element("dt", "Origin's mirror").Open("dd").Element("code", Str(s, "mirror"));
    h.Text(" (generation ").Text(Num(Int(s, "generation"))).Text(", line ").Text(Num(Int(s, "line"))).Text(")").Close("dd");
    h.Close("dl");
    if (const std::string_view why = Str(s, "withheld"); !why.empty()) {
      h.Element("p", {{"class", "notice"}}, "The raw line is not shown: " + std::string(why) + ".");
      h.Close("li");
      continue;
    }
    bool cut = false;
    const std::string_view raw = CutChars(Str(s, "raw"), kRawLimit, &cut);
    h.Open("details", {{"open", ""}}).Element("summary", "The raw line");
    // Focusable: it scrolls sideways, and a keyboard must reach what it hides.
    h.Open("pre", {{"tabindex", "0"}}).Element("code", raw).Close("pre");
    if (cut) h.Element("p", {{"class", "meta"}}, "Cut at " + Num(kRawLimit) + " characters; the mirror holds the whole line.");
    h.Close("details").Close("li");
  }
  h.Close("ol");
  return doc.Finish();
}

// ---------------------------------------------------------------- search

bool SearchParams(const Fields& q, std::string* params, std::string* error) {
  proto::SearchRequest r;
  r.query = FieldText(q, "q");
  if (std::string scope = FieldText(q, "scope"); !scope.empty()) r.scope = scope;
  if (!FieldWhen(q, "since", &r.since, error) || !FieldWhen(q, "until", &r.until, error) ||
      !FieldLimit(q, 1000, 50, &r.limit, error))
    return false;
  if (std::string s = FieldText(q, "kind"); !s.empty()) r.kind = s;
  if (std::string s = FieldText(q, "source"); !s.empty()) r.source = s;
  if (std::string s = FieldText(q, "project"); !s.empty()) r.project = s;
  r.history = FieldOn(q, "history");
  r.include_tools = FieldOn(q, "tools");
  r.recent = FieldOn(q, "recent");
  r.totals = true;
  r.marks = true;
  *params = proto::Encode(r);
  return true;
}

namespace {

// A snippet with its matches marked: `marks` are [begin, end) byte offsets.
void Snippet(Html& h, const rapidjson::Value& hit) {
  const std::string_view text = Str(hit, "snippet");
  const rapidjson::Value* marks = Arr(hit, "marks");
  h.Open("p", {{"class", "text snippet"}});
  std::size_t at = 0;
  if (marks != nullptr) {
    for (const rapidjson::Value& m : marks->GetArray()) {
      if (!m.IsArray() || m.Size() != 2 || !m[0].IsUint64() || !m[1].IsUint64()) continue;
      const std::size_t b = m[0].GetUint64(), e = m[1].GetUint64();
      if (b < at || e < b || e > text.size()) continue;
      h.Text(text.substr(at, b - at)).Element("mark", text.substr(b, e - b));
      at = e;
    }
  }
  h.Text(text.substr(at)).Close("p");
}

}  // namespace

std::string SearchPage(const rapidjson::Value& a, const PageContext& ctx) {
  const std::string query = FieldText(ctx.query, "q");
  Doc doc(ctx, query.empty() ? std::string("Search") : "Search: " + query, "/search");
  Html& h = doc.html();
  h.Element("h1", "Search");
  h.Open("form", {{"method", "get"}, {"action", "/admin/search"}});
  h.Open("div", {{"class", "form-grid"}});
  TextField(h, "q", "Words", query, "search");
  SelectField(h, "scope", "In", FieldText(ctx.query, "scope"), {{"both", "Entries and events"}, {"entries", "Entries"}, {"events", "Events"}});
  SelectField(h, "kind", "Entry kind", FieldText(ctx.query, "kind"), {{"", "Any kind"}, {"knowledge", "Knowledge"}, {"memory", "Memory"}, {"cognition", "Cognition"}});
  SelectField(h, "source", "Source", FieldText(ctx.query, "source"), kSourceOptions);
  TextField(h, "project", "Project", FieldText(ctx.query, "project"));
  TextField(h, "since", "Since", FieldText(ctx.query, "since"));
  TextField(h, "until", "Until", FieldText(ctx.query, "until"));
  CheckField(h, "tools", "Tool calls and results too", FieldOn(ctx.query, "tools"));
  CheckField(h, "history", "Ended and superseded entries too", FieldOn(ctx.query, "history"));
  CheckField(h, "recent", "Newest first", FieldOn(ctx.query, "recent"));
  h.Open("div", {{"class", "field"}}).Element("button", {{"type", "submit"}}, "Search").Close("div");
  h.Close("div").Close("form");

  if (const rapidjson::Value* entries = Arr(a, "entries"); entries && !entries->Empty()) {
    h.Element("h2", "Entries (" + Num(Int(a, "entries_total", entries->Size())) + (Bool(a, "totals_at_least") ? "+" : "") + ")");
    EntryList(h, *entries);
  }
  const rapidjson::Value* events = Arr(a, "events");
  if (events && !events->Empty()) {
    h.Element("h2", "Events (" + Num(Int(a, "events_total", events->Size())) + (Bool(a, "totals_at_least") ? "+" : "") + ")");
    h.Open("ol", {{"class", "list"}});
    for (const rapidjson::Value& ev : events->GetArray()) {
      const std::string_view id = Str(ev, "id"), session = Str(ev, "session");
      h.Open("li").Open("div");
      h.Element("a", {{"href", Link("/event", {{"id", id}})}}, Str(ev, "session_title").empty() ? std::string_view("Event") : Str(ev, "session_title"));
      h.Close("div").Open("div", {{"class", "meta"}});
      h.Element("span", {{"class", "badge"}}, Str(ev, "source")).Text(" ").Text(Str(ev, "kind")).Text(" · ").Text(Str(ev, "role"));
      h.Text(" · ");
      Time(h, ev, "time");
      if (!session.empty()) h.Text(" · ").Element("a", {{"href", Link("/session", {{"id", session}, {"at", id}})}}, "in its session");
      h.Close("div");
      Snippet(h, ev);
      h.Close("li");
    }
    h.Close("ol");
  }
  const bool none = (!events || events->Empty()) && (!Arr(a, "entries") || Arr(a, "entries")->Empty());
  if (none) h.Element("p", {{"class", "notice"}}, query.empty() ? "Type words to search for." : "Nothing matches.");
  if (const std::int64_t tools = Int(a, "tool_matches"); tools > 0 && !FieldOn(ctx.query, "tools"))
    h.Element("p", {{"class", "meta"}}, Num(tools) + (Bool(a, "tool_matches_at_least") ? "+" : "") +
                                            " more in tool calls and results: tick “Tool calls and results too”.");
  return doc.Finish();
}

}  // namespace origin::ui
