// SPDX-License-Identifier: MIT
#include "daemon/ui/layout.hpp"

#include <cstdio>

#include "daemon/ui/assets.hpp"
#include "daemon/ui/markdown.hpp"

namespace origin::ui {

namespace {

// Our own icons, drawn on a 24×24 grid with strokes (the stylesheet's
// .icon): each a few shapes, as path data.
struct IconDef {
  std::string_view id;
  std::string_view path;
};
constexpr IconDef kIcons[] = {
    {"i-home", "M3 11 12 3l9 8M5 10v10h5v-6h4v6h5V10"},
    {"i-clock", "M12 3a9 9 0 1 0 0 18 9 9 0 1 0 0-18zM12 7v5l3 3"},
    {"i-search", "M10.5 3a7.5 7.5 0 1 0 0 15 7.5 7.5 0 1 0 0-15zM16 16l5 5"},
    {"i-bookmark", "M6 3h12v18l-6-5-6 5z"},
    {"i-eye-off", "M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12zM12 9a3 3 0 1 0 0 6 3 3 0 1 0 0-6zM3 3l18 18"},
    {"i-restore", "M4 4v6h6M4.5 10A8 8 0 1 1 6 17"},
    {"i-chat", "M4 4h16v12H9l-5 4z"},
    {"i-file", "M6 2h8l5 5v15H6zM14 2v5h5"},
    {"i-warning", "M12 3 2 21h20zM12 10v5M12 18v.5"},
};
static_assert(std::size(kIcons) == static_cast<std::size_t>(Icon::kCount));

struct NavItem {
  std::string_view path, label;
  Icon icon;
};
constexpr NavItem kNav[] = {
    {"/", "Overview", Icon::kHome},       {"/timeline", "Timeline", Icon::kClock},
    {"/search", "Search", Icon::kSearch}, {"/entries", "Entries", Icon::kBookmark},
    {"/forgotten", "Forgotten", Icon::kEyeOff},
};

bool Unreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '~' || c == ':';
}

}  // namespace

Doc::Doc(const PageContext& ctx, std::string_view title, std::string_view nav) : ctx_(ctx) {
  Html& h = html_;
  h.Doctype().Open("html", {{"lang", "en"}}).Open("head");
  h.Void("meta", {{"charset", "utf-8"}});
  h.Void("meta", {{"name", "viewport"}, {"content", "width=device-width, initial-scale=1"}});
  h.Void("meta", {{"name", "csrf"}, {"content", ctx.csrf}});
  h.Void("meta", {{"name", "color-scheme"}, {"content", "light dark"}});
  h.Void("meta", {{"name", "robots"}, {"content", "noindex, nofollow"}});
  const std::string full = std::string(title) + " · Origin" +
                           (ctx.store_name.empty() ? "" : " · " + ctx.store_name);
  h.Element("title", full);
  h.Void("link", {{"rel", "stylesheet"}, {"href", AssetUrl("origin.css")}});
  h.Void("link", {{"rel", "icon"}, {"href", AssetUrl("favicon.svg")}, {"type", "image/svg+xml"}});
  h.AssetScript(AssetUrl("origin.js"));
  h.Close("head").Open("body");
  h.Element("a", {{"class", "skip"}, {"href", "#main"}}, "Skip to content");
  h.Open("header", {{"class", "site-header"}});
  h.Open("a", {{"class", "brand"}, {"href", "/admin/"}});
  h.Text("Origin");
  if (!ctx.store_name.empty()) h.Text(" ").Element("span", {{"class", "store"}}, ctx.store_name);
  h.Close("a");
  h.Open("nav", {{"aria-label", "Main"}}).Open("ul");
  for (const NavItem& item : kNav) {
    h.Open("li").Open("a", {{"href", Link(item.path)}, {"aria-current", "page", item.path == nav}});
    UseIcon(item.icon);
    h.Text(" ").Text(item.label).Close("a").Close("li");
  }
  h.Close("ul").Close("nav");
  h.Open("form", {{"role", "search"}, {"method", "get"}, {"action", "/admin/search"}});
  const std::string* q = nav == "/search" ? ctx.query.Get("q") : nullptr;
  h.Element("label", {{"for", "site-search"}, {"class", "vh"}}, "Search the store");
  h.Void("input", {{"type", "search"}, {"id", "site-search"}, {"name", "q"}, {"value", q ? *q : ""},
                   {"placeholder", "Search (press /)"}, {"aria-keyshortcuts", "/"}});
  h.Open("button", {{"type", "submit"}, {"class", "secondary"}});
  UseIcon(Icon::kSearch);
  h.Element("span", {{"class", "vh"}}, "Search").Close("button");
  h.Close("form").Close("header");
  h.Open("main", {{"id", "main"}, {"tabindex", "-1"}});
}

void Doc::UseIcon(Icon icon) {
  const std::size_t i = static_cast<std::size_t>(icon);
  used_.set(i);
  const std::string ref = "#" + std::string(kIcons[i].id);
  html_.Open("svg", {{"class", "icon"}, {"aria-hidden", "true"}, {"focusable", "false"}});
  html_.Void("use", {{"href", ref}}).Close("svg");
}

std::string Doc::Finish() {
  std::string body = html_.Finish();
  // The symbols of the icons used, before </body></html>.
  Html sprite;
  sprite.Open("svg", {{"xmlns", "http://www.w3.org/2000/svg"}, {"class", "sprite"}, {"aria-hidden", "true"}});
  for (std::size_t i = 0; i < std::size(kIcons); ++i) {
    if (!used_.test(i)) continue;
    sprite.Open("symbol", {{"id", kIcons[i].id}, {"viewBox", "0 0 24 24"}});
    sprite.Void("path", {{"d", kIcons[i].path}}).Close("symbol");
  }
  const std::string symbols = sprite.Finish();
  // Finish() closed what was open, innermost first: the document ends so.
  constexpr std::string_view kTail = "</body></html>";
  if (body.ends_with(kTail)) body.insert(body.size() - kTail.size(), symbols);
  return body;
}

std::string Link(std::string_view path, Query query) {
  std::string out = "/admin";
  out += path;
  char sep = '?';
  for (const auto& [k, v] : query) {
    if (v.empty()) continue;
    out += sep;
    out += k;
    out += '=';
    AppendQueryValue(out, v);
    sep = '&';
  }
  return out;
}

void AppendQueryValue(std::string& out, std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (char ch : value) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (Unreserved(c)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
}

std::string_view Str(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return {};
  auto it = v.FindMember(key);
  if (it == v.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}
std::int64_t Int(const rapidjson::Value& v, const char* key, std::int64_t otherwise) {
  if (!v.IsObject()) return otherwise;
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : otherwise;
}
double Dbl(const rapidjson::Value& v, const char* key, double otherwise) {
  if (!v.IsObject()) return otherwise;
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsNumber() ? it->value.GetDouble() : otherwise;
}
bool Bool(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return false;
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsBool() && it->value.GetBool();
}
const rapidjson::Value* Obj(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsObject() ? &it->value : nullptr;
}
const rapidjson::Value* Arr(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsArray() ? &it->value : nullptr;
}

std::string Num(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string Count(std::int64_t n, std::string_view one, std::string_view many) {
  return Num(n) + " " + std::string(n == 1 ? one : many);
}

void Time(Html& h, const rapidjson::Value& v, const char* time_key) {
  const std::string_view iso = Str(v, time_key);
  if (iso.empty()) {
    h.Text("—");
    return;
  }
  // 2026-02-01T09:00:00.015+00:00 is shown as 2026-02-01 09:00.
  std::string shown(iso.substr(0, 16));
  if (shown.size() == 16 && shown[10] == 'T') shown[10] = ' ';
  h.Element("time", {{"datetime", iso}, {"title", iso}}, shown);
}

std::string Ago(std::int64_t ts_ms, std::int64_t now_ms) {
  const std::int64_t s = (now_ms - ts_ms) / 1000;
  if (s < 0) return "in the future";
  if (s < 60) return "just now";
  if (s < 3600) return Count(s / 60, "minute", "minutes") + " ago";
  if (s < 86400) return Count(s / 3600, "hour", "hours") + " ago";
  return Count(s / 86400, "day", "days") + " ago";
}

void Pager(Html& h, std::string_view label, std::string_view what, std::int64_t page,
           std::int64_t pages, const std::function<std::string(std::int64_t)>& href) {
  if (pages <= 1) return;
  h.Open("nav", {{"class", "pager"}, {"aria-label", label}});
  if (page > 1) h.Element("a", {{"href", href(page - 1)}, {"rel", "prev"}}, "← Previous");
  h.Element("span", std::string(what) + " " + Num(page) + " of " + Num(pages));
  if (page < pages) h.Element("a", {{"href", href(page + 1)}, {"rel", "next"}}, "Next →");
  h.Close("nav");
}

void CsrfField(Html& h, const PageContext& ctx) {
  h.Void("input", {{"type", "hidden"}, {"name", "_csrf"}, {"value", ctx.csrf}});
}

namespace {
std::string FieldId(std::string_view name) { return "f-" + std::string(name); }
}  // namespace

void TextField(Html& h, std::string_view name, std::string_view label, std::string_view value,
               std::string_view type) {
  const std::string id = FieldId(name);
  h.Open("div", {{"class", "field"}}).Element("label", {{"for", id}}, label);
  h.Void("input", {{"type", type}, {"id", id}, {"name", name}, {"value", value}});
  h.Close("div");
}

void SelectField(Html& h, std::string_view name, std::string_view label, std::string_view value,
                 std::span<const Option> options) {
  const std::string id = FieldId(name);
  h.Open("div", {{"class", "field"}}).Element("label", {{"for", id}}, label);
  h.Open("select", {{"id", id}, {"name", name}});
  for (const auto& [v, text] : options)
    h.Element("option", {{"value", v}, {"selected", "", v == value}}, text);
  h.Close("select").Close("div");
}

void CheckField(Html& h, std::string_view name, std::string_view label, bool checked) {
  const std::string id = FieldId(name);
  h.Open("div", {{"class", "field check"}});
  h.Void("input", {{"type", "checkbox"}, {"id", id}, {"name", name}, {"value", "1"}, {"checked", "", checked}});
  h.Element("label", {{"for", id}}, label).Close("div");
}

std::string SessionName(const rapidjson::Value& s) {
  if (const std::string_view t = Str(s, "title"); !t.empty()) return std::string(t);
  if (const std::string_view p = Str(s, "prompt"); !p.empty()) return "“" + std::string(p) + "”";
  return std::string(Str(s, "id"));
}

void PlainText(Html& h, std::string_view text) {
  h.Element("div", {{"class", "text"}}, text);
}

void EventBody(Html& h, const rapidjson::Value& e, bool markdown, Links links) {
  const std::string_view id = Str(e, "id"), session = Str(e, "session");
  h.Open("div", {{"class", "meta"}});
  h.Element("span", {{"class", "badge"}}, Str(e, "kind"));
  h.Text(" ");
  if (const std::string_view role = Str(e, "role"); !role.empty()) h.Text(role).Text(" · ");
  if (const std::string_view tool = Str(e, "tool"); !tool.empty()) h.Element("code", tool).Text(" · ");
  if (Bool(e, "is_error")) h.Element("span", {{"class", "badge error"}}, "error").Text(" · ");
  Time(h, e, "time");
  if (links == Links::kNone) h.Text(" · ").Element("span", {{"class", "id"}}, id);
  else h.Text(" · ").Element("a", {{"href", Link("/event", {{"id", id}})}}, "event");
  if (!session.empty() && links == Links::kAll)
    h.Text(" · ").Element("a", {{"href", Link("/session", {{"id", session}, {"at", id}})}}, "in its session");
  h.Close("div");
  const std::string_view text = Str(e, "text");
  if (markdown && Str(e, "kind") == "message") {
    h.Open("div", {{"class", "md"}});
    RenderMarkdown(h, text);
    h.Close("div");
  } else {
    PlainText(h, text);
  }
  if (Bool(e, "truncated"))
    h.Element("p", {{"class", "meta"}}, "The text was cut where it was stored; its event page shows it whole.");
}

void EntryList(Html& h, const rapidjson::Value& entries, Links links) {
  h.Open("ol", {{"class", "list"}});
  for (const rapidjson::Value& en : entries.GetArray()) {
    h.Open("li");
    EntryBody(h, en, links);
    h.Close("li");
  }
  h.Close("ol");
}

void EventList(Html& h, const rapidjson::Value& events, bool markdown, Links links) {
  h.Open("ol", {{"class", "list"}});
  for (const rapidjson::Value& ev : events.GetArray()) {
    h.Open("li");
    EventBody(h, ev, markdown, links);
    h.Close("li");
  }
  h.Close("ol");
}

void EntryBody(Html& h, const rapidjson::Value& en, Links links) {
  const std::string_view id = Str(en, "id");
  h.Open("div", {{"class", "meta"}});
  h.Element("span", {{"class", "badge"}}, Str(en, "kind")).Text(" ");
  const std::string_view status = Str(en, "status");
  if (!status.empty() && status != "active") h.Element("span", {{"class", "badge"}}, status).Text(" ");
  char conf[32];
  std::snprintf(conf, sizeof conf, "confidence %.2g", Dbl(en, "confidence", 1));
  h.Text(conf).Text(" · ").Text(Str(en, "author")).Text(" · ");
  Time(h, en, "created");
  if (const std::string_view project = Str(en, "project"); !project.empty())
    h.Text(" · project ").Text(project);
  if (links == Links::kNone) h.Text(" · ").Element("span", {{"class", "id"}}, id);
  else h.Text(" · ").Element("a", {{"href", Link("/entry", {{"id", id}})}, {"class", "id"}}, id);
  h.Close("div");
  PlainText(h, Str(en, "text"));
  if (const rapidjson::Value* sources = Arr(en, "sources"); sources && !sources->Empty()) {
    h.Open("p", {{"class", "meta"}}).Text("Cites ");
    bool first = true;
    for (const rapidjson::Value& s : sources->GetArray()) {
      if (!first) h.Text(", ");
      first = false;
      const std::string_view ev = Str(s, "event_id");
      if (links == Links::kNone) h.Element("span", {{"class", "id"}}, ev);
      else h.Element("a", {{"href", Link("/event", {{"id", ev}})}, {"class", "id"}}, ev);
      if (const std::string_view quote = Str(s, "quote"); !quote.empty()) h.Text(" (“").Text(quote).Text("”)");
    }
    h.Close("p");
  }
}

}  // namespace origin::ui
