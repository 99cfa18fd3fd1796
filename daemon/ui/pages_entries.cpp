// SPDX-License-Identifier: MIT
// Entries: the list, one entry with its history and what it cites, and the
// writes that make them (remember from an event page, correct).
#include <cstdlib>

#include "daemon/ui/layout.hpp"
#include "daemon/ui/page_rows.hpp"
#include "proto/requests.hpp"

namespace origin::ui {

namespace {

constexpr Option kKinds[] = {
    {"knowledge", "Knowledge"}, {"memory", "Memory"}, {"cognition", "Cognition"}};

// A confidence between 0 and 1, or nothing when left empty.
bool FieldConfidence(const Fields& f, std::optional<double>* out, std::string* error) {
  const std::string text = FieldText(f, "confidence");
  if (text.empty()) return true;
  char* end = nullptr;
  const double c = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(c >= 0 && c <= 1)) {
    *error = "confidence must be a number from 0 to 1";
    return false;
  }
  *out = c;
  return true;
}

// The fields remember and correct share: text, kind, confidence, project,
// the event cited and its quote, the request key.
bool EntryFields(const Fields& f, proto::EntryRequest* r, std::string* error) {
  r->text = FieldOpt(f, "text");
  r->kind = FieldOpt(f, "kind");
  r->project = FieldOpt(f, "project");
  if (!FieldConfidence(f, &r->confidence, error)) return false;
  const std::string cite = FieldText(f, "cite"), quote = FieldText(f, "quote");
  if (!cite.empty() || !quote.empty()) {
    proto::SourceRef s;
    if (!cite.empty()) s.event_id = cite;
    if (!quote.empty()) s.quote = quote;
    r->sources.push_back(std::move(s));
  }
  r->request_key = FieldText(f, "request_key");
  return true;
}

}  // namespace

bool EntriesParams(const Fields& q, std::string* params, std::string* error) {
  proto::EntriesRequest r;
  if (!FieldLimit(q, 5000, 200, &r.limit, error)) return false;
  r.history = FieldOn(q, "history");
  if (std::string k = FieldText(q, "kind"); !k.empty()) r.kind = k;
  if (std::string p = FieldText(q, "project"); !p.empty()) r.project = p;
  *params = proto::Encode(r);
  return true;
}

std::string EntriesPage(const rapidjson::Value& a, const PageContext& ctx) {
  Doc doc(ctx, "Entries", "/entries");
  Html& h = doc.html();
  h.Element("h1", "Entries");
  h.Open("form", {{"method", "get"}, {"action", "/admin/entries"}, {"class", "form-grid"}});
  SelectField(h, "kind", "Kind", FieldText(ctx.query, "kind"),
              {{"", "Any kind"}, {"knowledge", "Knowledge"}, {"memory", "Memory"}, {"cognition", "Cognition"}});
  TextField(h, "project", "Project", FieldText(ctx.query, "project"));
  CheckField(h, "history", "Every version", FieldOn(ctx.query, "history"));
  h.Open("div", {{"class", "field"}}).Element("button", {{"type", "submit"}}, "Show").Close("div");
  h.Close("form");
  const rapidjson::Value* entries = Arr(a, "entries");
  if (entries == nullptr || entries->Empty()) {
    h.Element("p", {{"class", "notice"}}, "No entry yet. Remember something from an event's page.");
    return doc.Finish();
  }
  h.Element("p", {{"class", "meta"}}, Count(static_cast<std::int64_t>(entries->Size()), "entry", "entries") +
                                          (Bool(a, "truncated") ? ", the latest (there are more)" : ""));
  EntryList(h, *entries);
  return doc.Finish();
}

std::string EntryPage(const rapidjson::Value& a, const PageContext& ctx) {
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* e = Obj(a, "entry");
  const rapidjson::Value& en = e ? *e : kEmpty;
  const std::string_view id = Str(en, "id");
  Doc doc(ctx, "Entry " + std::string(Str(en, "ref")), "/entries");
  Html& h = doc.html();
  h.Open("h1").Text("Entry ").Element("span", {{"class", "id"}}, id).Close("h1");
  h.Open("article");
  EntryBody(h, en);
  h.Close("article");

  if (const rapidjson::Value* cited = Arr(a, "cited"); cited && !cited->Empty()) {
    h.Element("h2", "What it cites");
    EventList(h, *cited, false);
  }
  if (const rapidjson::Value* history = Arr(a, "history"); history && history->Size() > 1) {
    h.Element("h2", "History");
    EntryList(h, *history);
  }

  if (Str(en, "status") == "active" && !id.empty()) {
    h.Element("h2", "Correct it");
    h.Element("p", {{"class", "meta"}}, "A correction is a new version that supersedes this one; this one stays in the history. Its sources carry over; its confidence is 1 unless you give one.");
    h.Open("form", {{"method", "post"}, {"action", "/admin/correct"}});
    CsrfField(h, ctx);
    h.Void("input", {{"type", "hidden"}, {"name", "id"}, {"value", id}});
    h.Void("input", {{"type", "hidden"}, {"name", "request_key"}, {"value", FormKey(ctx, id)}});
    h.Open("div", {{"class", "field"}}).Element("label", {{"for", "f-text"}}, "Text");
    h.Element("textarea", {{"id", "f-text"}, {"name", "text"}, {"required", ""}}, Str(en, "text")).Close("div");
    h.Open("div", {{"class", "form-grid"}});
    SelectField(h, "kind", "Kind", Str(en, "kind"), kKinds);
    TextField(h, "confidence", "Confidence (0 to 1)", "");
    TextField(h, "project", "Project", Str(en, "project"));
    h.Open("div", {{"class", "field"}}).Element("button", {{"type", "submit"}}, "Correct").Close("div");
    h.Close("div").Close("form");
  }
  if (!id.empty()) {
    h.Open("p");
    h.Element("a", {{"href", Link("/source", {{"id", id}})}}, "Its provenance").Text(" · ");
    h.Element("a", {{"href", Link("/forget", {{"target", id}})}}, "Forget this entry…");
    h.Close("p");
  }
  return doc.Finish();
}

bool RememberParams(const Fields& f, std::string* params, std::string* error) {
  proto::EntryRequest r;
  if (!EntryFields(f, &r, error)) return false;
  if (!r.text) {
    *error = "the text to remember is required";
    return false;
  }
  if (r.sources.empty()) {
    *error = "an entry needs a source: remember from an event's page";
    return false;
  }
  *params = proto::Encode(r, false);
  return true;
}

bool CorrectParams(const Fields& f, std::string* params, std::string* error) {
  proto::EntryRequest r;
  if (!FieldId(f, "id", &r.id, error) || !EntryFields(f, &r, error)) return false;
  // The spec: a correction's confidence is 1 unless given (the owner says it).
  if (!r.confidence) r.confidence = 1.0;
  *params = proto::Encode(r, true);
  return true;
}

std::string ToEntry(const rapidjson::Value& answer) {
  const rapidjson::Value* e = Obj(answer, "entry");
  const std::string_view id = e ? Str(*e, "id") : std::string_view{};
  return id.empty() ? Link("/entries") : Link("/entry", {{"id", id}});
}

}  // namespace origin::ui
