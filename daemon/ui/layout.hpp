// SPDX-License-Identifier: MIT
#pragma once
// What every page of the web UI shares: the document around it (head, the
// header with the store's name and the search form, the nav, <main>, a skip
// link), the icons it uses (inlined as <symbol>s, only those), links with
// their query strings encoded, and the small pieces pages repeat (times,
// counts, an event's line, an entry's card, the CSRF field).

#include <rapidjson/document.h>

#include <bitset>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "daemon/ui/html.hpp"
#include "daemon/ui/pages.hpp"

namespace origin::ui {

enum class Icon { kHome, kClock, kSearch, kBookmark, kEyeOff, kRestore, kChat, kFile, kWarning, kCount };

/// One HTML document: Begin() writes everything up to <main>'s content;
/// pages write into html(); Finish() closes it with the icons it used.
class Doc {
 public:
  /// `nav`: the nav item this page belongs to ("/", "/timeline", "/search",
  /// "/entries", "/forgotten"), marked aria-current.
  Doc(const PageContext& ctx, std::string_view title, std::string_view nav);
  Html& html() { return html_; }
  const PageContext& ctx() const { return ctx_; }
  /// <svg class="icon"><use href="#i-..."/></svg>, decorative (aria-hidden).
  void UseIcon(Icon icon);
  std::string Finish();

 private:
  Html html_;
  const PageContext& ctx_;
  std::bitset<static_cast<std::size_t>(Icon::kCount)> used_;
};

using Query = std::initializer_list<std::pair<std::string_view, std::string_view>>;
/// "/admin" + path, with the query's pairs percent-encoded (empty values left out).
std::string Link(std::string_view path, Query query = {});
void AppendQueryValue(std::string& out, std::string_view value);

// Reading an answer: absent, null or of another type gives the default.
std::string_view Str(const rapidjson::Value& v, const char* key);
std::int64_t Int(const rapidjson::Value& v, const char* key, std::int64_t otherwise = 0);
double Dbl(const rapidjson::Value& v, const char* key, double otherwise = 0);
bool Bool(const rapidjson::Value& v, const char* key);
const rapidjson::Value* Obj(const rapidjson::Value& v, const char* key);
const rapidjson::Value* Arr(const rapidjson::Value& v, const char* key);

std::string Num(std::int64_t n);
/// "3 events" / "1 event".
std::string Count(std::int64_t n, std::string_view one, std::string_view many);
/// <time datetime="…">2026-02-01 09:00</time> from an answer's ISO time (key `time_key`).
void Time(Html& h, const rapidjson::Value& v, const char* time_key);
/// "5 min ago", "3 days ago" from ms to now.
std::string Ago(std::int64_t ts_ms, std::int64_t now_ms);

/// A nav of pages: "← Previous", "<What> 2 of 5", "Next →"; `href(n)` is
/// page n's link.  Nothing when there is one page.
void Pager(Html& h, std::string_view label, std::string_view what, std::int64_t page,
           std::int64_t pages, const std::function<std::string(std::int64_t)>& href);

/// <input type=hidden name=_csrf>.
void CsrfField(Html& h, const PageContext& ctx);
/// A labelled field in a .form-grid: <div class=field><label>…</label><input…></div>.
void TextField(Html& h, std::string_view name, std::string_view label, std::string_view value,
               std::string_view type = "text");
using Option = std::pair<std::string_view, std::string_view>;  // value, text
void SelectField(Html& h, std::string_view name, std::string_view label, std::string_view value,
                 std::span<const Option> options);
inline void SelectField(Html& h, std::string_view name, std::string_view label, std::string_view value,
                        std::initializer_list<Option> options) {
  SelectField(h, name, label, value, std::span<const Option>(options.begin(), options.size()));
}
void CheckField(Html& h, std::string_view name, std::string_view label, bool checked);

/// A session's title, or its provisional name in quotes, or its id.
std::string SessionName(const rapidjson::Value& session);
/// Which links an event or entry carries: to its page and its place in its
/// session; not to the session on the session's own page; none for what a
/// forget hides (their pages would only say so).
enum class Links { kAll, kNoSession, kNone };
/// An event as a list item's content: who, when, kind, its text (Markdown
/// for messages when `markdown`), with its links.
void EventBody(Html& h, const rapidjson::Value& event, bool markdown, Links links = Links::kAll);
/// An entry's card: kind, confidence, author, status, text, its sources.
void EntryBody(Html& h, const rapidjson::Value& entry, Links links = Links::kAll);
/// An <ol class=list> of entries (EntryBody) or events (EventBody).
void EntryList(Html& h, const rapidjson::Value& entries, Links links = Links::kAll);
void EventList(Html& h, const rapidjson::Value& events, bool markdown, Links links = Links::kAll);
/// A text of the store: pre-wrapped, escaped.
void PlainText(Html& h, std::string_view text);

}  // namespace origin::ui
