// SPDX-License-Identifier: MIT
// The overview (operation `overview`): counts, the 30-day chart, recent
// sessions, busiest projects, sources, the latest entries and tombstones
// (ids, reasons and counts), storage.
#include "daemon/ui/chart.hpp"
#include "daemon/ui/layout.hpp"
#include "daemon/ui/page_rows.hpp"

namespace origin::ui {

namespace {

std::string Bytes(std::int64_t n) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

void Card(Html& h, std::int64_t n, std::string_view label, std::string_view href) {
  h.Open("li").Element("span", {{"class", "n"}}, Num(n));
  if (href.empty())
    h.Text(label);
  else
    h.Element("a", {{"href", href}}, label);
  h.Close("li");
}

}  // namespace

bool OverviewParams(const Fields&, std::string* params, std::string*) {
  *params = "{}";
  return true;
}

std::string OverviewPage(const rapidjson::Value& a, const PageContext& ctx) {
  Doc doc(ctx, "Overview", "/");
  Html& h = doc.html();
  h.Element("h1", ctx.store_name.empty() ? std::string("Overview") : "Overview of " + ctx.store_name);
  if (const rapidjson::Value* c = Obj(a, "counts")) {
    h.Open("ul", {{"class", "cards"}, {"aria-label", "Counts"}});
    Card(h, Int(*c, "events"), "events", Link("/timeline"));
    Card(h, Int(*c, "sessions"), "sessions", Link("/timeline"));
    Card(h, Int(*c, "entries"), "entries", Link("/entries"));
    Card(h, Int(*c, "forgets_in_effect"), "forgets in effect", Link("/forgotten"));
    Card(h, Int(*c, "sources"), "sources", "");
    h.Close("ul");
  }

  h.Element("h2", "The last 30 days");
  std::vector<std::string> series;
  if (const rapidjson::Value* s = Arr(a, "sources_in_days"))
    for (const rapidjson::Value& v : s->GetArray())
      if (v.IsString()) series.emplace_back(v.GetString(), v.GetStringLength());
  std::vector<ChartDay> days;
  if (const rapidjson::Value* d = Arr(a, "days")) {
    for (const rapidjson::Value& day : d->GetArray()) {
      ChartDay cd{std::string(Str(day, "day")), {}};
      const rapidjson::Value* by = Obj(day, "by_source");
      for (const std::string& s : series) cd.counts.push_back(by ? Int(*by, s.c_str()) : 0);
      days.push_back(std::move(cd));
    }
  }
  RenderDayChart(h, series, days);

  if (const rapidjson::Value* rs = Arr(a, "recent_sessions"); rs && !rs->Empty()) {
    h.Element("h2", "Recent sessions");
    h.Open("ul", {{"class", "list"}});
    for (const rapidjson::Value& s : rs->GetArray()) {
      h.Open("li").Element("a", {{"href", Link("/session", {{"id", Str(s, "id")}})}}, SessionName(s));
      h.Open("div", {{"class", "meta"}}).Element("span", {{"class", "badge"}}, Str(s, "source")).Text(" ");
      if (const std::string_view p = Str(s, "project"); !p.empty()) h.Text(p).Text(" · ");
      h.Text(Count(Int(s, "events"), "event", "events")).Text(" · ").Text(Ago(Int(s, "last_ts"), ctx.now_ms));
      h.Close("div").Close("li");
    }
    h.Close("ul");
  }

  if (const rapidjson::Value* ps = Arr(a, "projects"); ps && !ps->Empty()) {
    h.Element("h2", "Busiest projects (30 days)");
    h.Open("div", {{"class", "table-wrap"}}).Open("table").Open("thead").Open("tr");
    h.Element("th", {{"scope", "col"}}, "Project").Element("th", {{"scope", "col"}, {"class", "num"}}, "Events");
    h.Element("th", {{"scope", "col"}, {"class", "num"}}, "Sessions").Element("th", {{"scope", "col"}}, "Last active");
    h.Close("tr").Close("thead").Open("tbody");
    for (const rapidjson::Value& p : ps->GetArray()) {
      const std::string_view name = Str(p, "project");
      h.Open("tr").Open("th", {{"scope", "row"}}).Element("a", {{"href", Link("/timeline", {{"project", name}})}}, name).Close("th");
      h.Element("td", {{"class", "num"}}, Num(Int(p, "events"))).Element("td", {{"class", "num"}}, Num(Int(p, "sessions")));
      h.Open("td");
      Time(h, p, "last_time");
      h.Close("td").Close("tr");
    }
    h.Close("tbody").Close("table").Close("div");
  }

  if (const rapidjson::Value* ss = Arr(a, "sources"); ss && !ss->Empty()) {
    h.Element("h2", "Sources");
    h.Open("div", {{"class", "table-wrap"}}).Open("table").Open("thead").Open("tr");
    for (std::string_view col : {"Source", "Agent version", "Sessions", "Last ingestion", "Parse errors (7 days)"})
      h.Element("th", {{"scope", "col"}}, col);
    h.Close("tr").Close("thead").Open("tbody");
    for (const rapidjson::Value& s : ss->GetArray()) {
      const std::string_view name = Str(s, "source");
      h.Open("tr").Open("th", {{"scope", "row"}}).Element("a", {{"href", Link("/timeline", {{"source", name}})}}, name).Close("th");
      h.Element("td", Str(s, "agent_version").empty() ? std::string_view("—") : Str(s, "agent_version"));
      h.Element("td", {{"class", "num"}}, Num(Int(s, "sessions")));
      h.Open("td");
      Time(h, s, "last_ingestion");
      h.Close("td");
      const std::int64_t errors = Int(s, "parse_errors_7d");
      h.Open("td", {{"class", "num"}});
      if (errors > 0) h.Element("span", {{"class", "badge error"}}, Num(errors));
      else h.Text("0");
      h.Close("td").Close("tr");
    }
    h.Close("tbody").Close("table").Close("div");
  }

  if (const rapidjson::Value* es = Arr(a, "entries"); es && !es->Empty()) {
    h.Element("h2", "Latest entries");
    EntryList(h, *es);
  }

  if (const rapidjson::Value* ts = Arr(a, "tombstones"); ts && !ts->Empty()) {
    h.Element("h2", "Latest forgets and restores");
    h.Open("ul", {{"class", "list"}});
    for (const rapidjson::Value& t : ts->GetArray()) {
      const std::string_view id = Str(t, "id"), kind = Str(t, "kind");
      h.Open("li").Element("a", {{"href", Link("/tombstone", {{"id", id}})}, {"class", "id"}}, id);
      h.Text(" ").Element("span", {{"class", "badge"}}, kind).Text(" of ").Element("span", {{"class", "id"}}, Str(t, "target"));
      h.Open("div", {{"class", "meta"}}).Text("“").Text(Str(t, "reason")).Text("” · ");
      if (kind == "forget")
        h.Text(Count(Int(t, "entries"), "entry", "entries")).Text(", ").Text(Count(Int(t, "events"), "event", "events")).Text(" · ");
      Time(h, t, "created");
      h.Close("div").Close("li");
    }
    h.Close("ul");
  }

  if (const rapidjson::Value* st = Obj(a, "storage")) {
    h.Element("h2", "Storage");
    h.Open("dl");
    h.Element("dt", "Database").Element("dd", Bytes(Int(*st, "database_bytes")));
    h.Element("dt", "Search index").Element("dd", Bytes(Int(*st, "index_bytes")));
    h.Element("dt", "Raw mirrors on disk").Element("dd", Bytes(Int(*st, "mirror_bytes")) + " in " + Count(Int(*st, "mirror_files"), "file", "files"));
    h.Close("dl");
  }
  return doc.Finish();
}

}  // namespace origin::ui
