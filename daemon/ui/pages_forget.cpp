// SPDX-License-Identifier: MIT
// Forgetting and restoring: the Forgotten page (ids, reasons and counts,
// never hidden text), a forget's preview and its form (which carries the
// plan's digest), and a tombstone's own page, the only page that shows what
// a forget hides, with restore after saying what comes back.
#include "daemon/ui/layout.hpp"
#include "daemon/ui/page_rows.hpp"
#include "proto/requests.hpp"

namespace origin::ui {

namespace {

// A tombstone's record as a definition list: ids, reason, counts.
void TombstoneFacts(Html& h, const rapidjson::Value& t) {
  const std::string_view kind = Str(t, "kind");
  h.Open("dl");
  h.Element("dt", "Kind").Element("dd", kind);
  h.Element("dt", "Target").Open("dd");
  const std::string_view target = Str(t, "target");
  if (kind == "restore")
    h.Element("a", {{"href", Link("/tombstone", {{"id", target}})}, {"class", "id"}}, target);
  else
    h.Element("span", {{"class", "id"}}, target);
  h.Close("dd");
  h.Element("dt", "Reason").Element("dd", Str(t, "reason").empty() ? std::string_view("(none given)") : Str(t, "reason"));
  h.Element("dt", "When").Open("dd");
  Time(h, t, "created");
  h.Close("dd");
  h.Element("dt", "By").Element("dd", std::string(Str(t, "author").empty() ? "(unknown)" : Str(t, "author")) + " on " + std::string(Str(t, "origin")));
  if (kind == "forget") {
    h.Element("dt", "Covers").Element("dd", Count(Int(t, "entries"), "entry", "entries") + ", " + Count(Int(t, "events"), "event", "events"));
    h.Element("dt", "In effect").Open("dd");
    if (const std::string_view restore = Str(t, "restored_by");
        Bool(t, "in_effect") && !restore.empty()) {
      // Erased: in effect whatever restores it.
      h.Text("yes: what it hid was erased, so its restore ")
          .Element("a", {{"href", Link("/tombstone", {{"id", restore}})}, {"class", "id"}}, restore)
          .Text(" no longer counts");
    } else if (Bool(t, "in_effect")) {
      h.Text("yes");
    } else if (const std::string_view by = Str(t, "restored_by"); !by.empty()) {
      h.Text("no: restored by ").Element("a", {{"href", Link("/tombstone", {{"id", by}})}, {"class", "id"}}, by);
    } else {
      h.Text("no");
    }
    h.Close("dd");
  }
  h.Close("dl");
}

// A plan's lists of ids, each with its count (the answer lists at most 1,000).
void PlanLists(Html& h, const rapidjson::Value& plan, bool links) {
  struct Part {
    const char* key;
    const char* count;
    std::string_view one, many, page;
  };
  constexpr Part kParts[] = {{"entries", "entries_count", "entry version", "entry versions", "/entry"},
                             {"events", "events_count", "event", "events", "/event"},
                             {"sessions", "sessions_count", "session whose counts change", "sessions whose counts change", "/session"},
                             {"titles", "titles_count", "session title", "session titles", ""}};
  h.Open("ul");
  for (const Part& p : kParts) {
    const std::int64_t n = Int(plan, p.count);
    h.Open("li").Text(Count(n, p.one, p.many));
    const rapidjson::Value* ids = Arr(plan, p.key);
    if (ids != nullptr && !ids->Empty()) {
      h.Open("details").Element("summary", "Their ids").Open("ul", {{"class", "id"}});
      for (const rapidjson::Value& id : ids->GetArray()) {
        if (!id.IsString()) continue;
        const std::string_view s(id.GetString(), id.GetStringLength());
        h.Open("li");
        if (links && !p.page.empty())
          h.Element("a", {{"href", Link(p.page, {{"id", s}})}}, s);
        else
          h.Text(s);
        h.Close("li");
      }
      if (static_cast<std::int64_t>(ids->Size()) < n) h.Element("li", "… and " + Num(n - ids->Size()) + " more");
      h.Close("ul").Close("details");
    }
    h.Close("li");
  }
  h.Close("ul");
}

}  // namespace

bool ForgottenParams(const Fields& q, std::string* params, std::string* error) {
  proto::ForgottenRequest r;
  if (!FieldLimit(q, 5000, 500, &r.limit, error)) return false;
  *params = proto::Encode(r);
  return true;
}

std::string ForgottenPage(const rapidjson::Value& a, const PageContext& ctx) {
  Doc doc(ctx, "Forgotten", "/forgotten");
  Html& h = doc.html();
  h.Element("h1", "Forgotten");
  h.Element("p", "Every forget and restore: what it targets, why, and how much it covers. What a forget hides is shown only on its own page.");
  const rapidjson::Value* ts = Arr(a, "tombstones");
  if (ts == nullptr || ts->Empty()) {
    h.Element("p", {{"class", "notice"}}, "Nothing has been forgotten.");
    return doc.Finish();
  }
  h.Open("div", {{"class", "table-wrap"}}).Open("table").Open("thead").Open("tr");
  for (std::string_view col : {"When", "Kind", "Id", "Target", "Reason", "By", "Covers", "State"})
    h.Element("th", {{"scope", "col"}}, col);
  h.Close("tr").Close("thead").Open("tbody");
  for (const rapidjson::Value& t : ts->GetArray()) {
    const std::string_view id = Str(t, "id"), kind = Str(t, "kind");
    h.Open("tr").Open("td");
    Time(h, t, "created");
    h.Close("td").Element("td", kind);
    h.Open("td").Element("a", {{"href", Link("/tombstone", {{"id", id}})}, {"class", "id"}}, id).Close("td");
    h.Element("td", {{"class", "id"}}, Str(t, "target"));
    h.Element("td", Str(t, "reason"));
    h.Element("td", std::string(Str(t, "author")) + " on " + std::string(Str(t, "origin")));
    h.Element("td", kind == "forget" ? Count(Int(t, "entries"), "entry", "entries") + ", " + Count(Int(t, "events"), "event", "events") : std::string("—"));
    h.Element("td", kind != "forget" ? "" : Bool(t, "in_effect") ? "in effect" : "restored");
    h.Close("tr");
  }
  h.Close("tbody").Close("table").Close("div");
  if (Bool(a, "truncated")) h.Element("p", {{"class", "meta"}}, "The latest are shown; there are more.");
  return doc.Finish();
}

bool ForgetPreviewParams(const Fields& q, std::string* params, std::string* error) {
  proto::TombstoneRequest r;
  if (!FieldId(q, "target", &r.target, error)) return false;
  r.dry_run = true;
  // forget refuses an empty reason even for a dry run, which records
  // nothing: the preview gives the one typed so far, or says what it is.
  r.reason = FieldText(q, "reason");
  if (r.reason.empty()) r.reason = "preview";
  *params = proto::Encode(r, "target");
  return true;
}

std::string ForgetPreviewPage(const rapidjson::Value& a, const PageContext& ctx) {
  const std::string_view target = Str(a, "target");
  Doc doc(ctx, "Forget " + std::string(target), "/forgotten");
  Html& h = doc.html();
  h.Open("h1").Text("Forget ").Element("span", {{"class", "id"}}, target).Close("h1");
  h.Element("p", "Forgetting hides; it does not erase. The raw logs stay on disk, and you can restore it later from the Forgotten page.");
  const std::string_view hidden_by = Str(a, "hidden_by");
  if (!hidden_by.empty()) {
    h.Open("p", {{"class", "notice"}}).Text("It is hidden already, by ");
    h.Element("a", {{"href", Link("/tombstone", {{"id", hidden_by}})}, {"class", "id"}}, hidden_by).Text(".").Close("p");
  }
  h.Element("h2", "What it would hide (" + std::string(Str(a, "target_kind")) + ")");
  PlanLists(h, a, true);
  const bool nothing = Int(a, "entries_count") == 0 && Int(a, "events_count") == 0;
  if (nothing) {
    h.Element("p", {{"class", "notice"}}, "It would hide nothing new, so no forget would be recorded.");
    return doc.Finish();
  }
  h.Open("form", {{"method", "post"}, {"action", "/admin/forget"}});
  CsrfField(h, ctx);
  h.Void("input", {{"type", "hidden"}, {"name", "target"}, {"value", target}});
  h.Void("input", {{"type", "hidden"}, {"name", "digest"}, {"value", Str(a, "digest")}});
  h.Void("input", {{"type", "hidden"}, {"name", "request_key"}, {"value", FormKey(ctx, target)}});
  h.Open("div", {{"class", "field"}}).Element("label", {{"for", "f-reason"}}, "Reason (required, kept with the record)");
  h.Void("input", {{"type", "text"}, {"id", "f-reason"}, {"name", "reason"}, {"required", ""}, {"maxlength", "2000"},
                   {"value", FieldText(ctx.query, "reason")}});
  h.Close("div");
  h.Open("p").Open("button", {{"type", "submit"}, {"class", "danger"}});
  doc.UseIcon(Icon::kEyeOff);
  h.Text(" Forget what is listed above").Close("button").Close("p");
  h.Element("p", {{"class", "meta"}}, "If anything changes before you confirm, nothing is forgotten and you are asked to preview it again.");
  h.Close("form");
  return doc.Finish();
}

bool TombstoneParams(const Fields& q, std::string* params, std::string* error) {
  std::string id;
  if (!FieldId(q, "id", &id, error)) return false;
  std::optional<std::int64_t> page;
  if (!FieldInt(q, "page", 1, 1000000, &page, error)) return false;
  ParamsJson p;
  p.Str("id", id);
  if (page) p.Int("page", *page);
  *params = p.Done();
  return true;
}

std::string TombstonePage(const rapidjson::Value& a, const PageContext& ctx) {
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* t = Obj(a, "tombstone");
  const rapidjson::Value& tomb = t ? *t : kEmpty;
  const std::string_view id = Str(tomb, "id"), kind = Str(tomb, "kind");
  Doc doc(ctx, (kind == "restore" ? "Restore " : "Forget ") + std::string(id), "/forgotten");
  Html& h = doc.html();
  h.Open("h1").Text(kind == "restore" ? "Restore " : "Forget ").Element("span", {{"class", "id"}}, id).Close("h1");
  TombstoneFacts(h, tomb);
  if (const rapidjson::Value* f = Obj(a, "forget")) {
    h.Element("h2", "The forget it restored");
    TombstoneFacts(h, *f);
  }
  if (const rapidjson::Value* r = Obj(a, "restore")) {
    h.Element("h2", "Restored by");
    TombstoneFacts(h, *r);
  }
  if (const rapidjson::Value* hidden = Obj(a, "hidden")) {
    h.Open("section", {{"aria-labelledby", "hidden-h"}});
    h.Element("h2", {{"id", "hidden-h"}}, "What it hides");
    h.Element("p", {{"class", "notice"}}, "This page alone shows hidden text. It appears nowhere else: not in search, timelines, sessions, or to agents.");
    if (const rapidjson::Value* entries = Arr(*hidden, "entries"); entries && !entries->Empty()) {
      h.Element("h3", Count(Int(*hidden, "entries_total", entries->Size()), "entry version", "entry versions"));
      EntryList(h, *entries, Links::kNone);
    }
    if (const rapidjson::Value* events = Arr(*hidden, "events"); events && !events->Empty()) {
      h.Element("h3", Count(Int(*hidden, "events_total", events->Size()), "event", "events"));
      EventList(h, *events, false, Links::kNone);
      const std::int64_t page = Int(*hidden, "page", 1), pages = Int(*hidden, "pages", 1);
      Pager(h, "Hidden events", "Page", page, pages, [&](std::int64_t n) {
        return Link("/tombstone", {{"id", id}, {"page", std::to_string(n)}});
      });
    }
    h.Close("section");
  }
  if (const rapidjson::Value* preview = Obj(a, "restore_preview")) {
    h.Element("h2", "Restore it");
    h.Element("p", "Restoring records that this forget no longer applies. This would come back (unless another forget still covers it):");
    PlanLists(h, *preview, false);
    h.Open("form", {{"method", "post"}, {"action", "/admin/restore"}});
    CsrfField(h, ctx);
    h.Void("input", {{"type", "hidden"}, {"name", "id"}, {"value", id}});
    h.Void("input", {{"type", "hidden"}, {"name", "request_key"}, {"value", FormKey(ctx, id)}});
    h.Open("div", {{"class", "field"}}).Element("label", {{"for", "f-reason"}}, "Reason (required, kept with the record)");
    h.Void("input", {{"type", "text"}, {"id", "f-reason"}, {"name", "reason"}, {"required", ""}, {"maxlength", "2000"}});
    h.Close("div");
    h.Open("p").Open("button", {{"type", "submit"}});
    doc.UseIcon(Icon::kRestore);
    h.Text(" Restore").Close("button").Close("p");
    h.Close("form");
  }
  return doc.Finish();
}

bool ForgetParams(const Fields& f, std::string* params, std::string* error) {
  std::string target, reason, digest;
  if (!FieldId(f, "target", &target, error) || !FieldId(f, "reason", &reason, error) ||
      !FieldId(f, "digest", &digest, error))
    return false;
  ParamsJson p;
  p.Str("target", target).Str("reason", reason).Str("digest", digest);
  if (const std::string key = FieldText(f, "request_key"); !key.empty()) p.Str("request_key", key);
  *params = p.Done();
  return true;
}

bool RestoreParams(const Fields& f, std::string* params, std::string* error) {
  proto::TombstoneRequest r;
  if (!FieldId(f, "id", &r.target, error) || !FieldId(f, "reason", &r.reason, error)) return false;
  r.request_key = FieldText(f, "request_key");
  *params = proto::Encode(r, "id");
  return true;
}

std::string ToTombstone(const rapidjson::Value& answer) {
  // A restore goes back to the forget it restored; a forget to itself; a
  // forget that hid nothing new to the one that hides it.
  std::string_view id = Str(answer, "kind") == "restore" ? Str(answer, "target") : Str(answer, "tombstone");
  if (id.empty()) id = Str(answer, "hidden_by");
  return id.empty() ? Link("/forgotten") : Link("/tombstone", {{"id", id}});
}

}  // namespace origin::ui
