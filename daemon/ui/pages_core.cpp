// SPDX-License-Identifier: MIT
// The tables of pages and actions, the error page, the assets, and the
// helpers that read fields into params.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>

#include "core/util/hash.hpp"
#include "core/util/text.hpp"
#include "daemon/ui/assets.hpp"
#include "daemon/ui/layout.hpp"
#include "daemon/ui/page_rows.hpp"
#include "proto/requests.hpp"
#include "proto/time.hpp"

namespace origin::ui {

const std::string* Fields::Get(std::string_view name) const {
  for (const auto& [k, v] : items)
    if (k == name) return &v;
  return nullptr;
}

namespace {

constexpr Page kPages[] = {
    {"/", "overview", &OverviewParams, &OverviewPage},
    {"/timeline", "timeline", &TimelineParams, &TimelinePage},
    {"/session", "turns", &SessionParams, &SessionPage},
    {"/event", "show", &EventParams, &EventPage},
    {"/source", "sources", &IdParams, &SourcePage},
    {"/search", "search", &SearchParams, &SearchPage},
    {"/entries", "entries", &EntriesParams, &EntriesPage},
    {"/entry", "show", &IdParams, &EntryPage},
    {"/forgotten", "forgotten", &ForgottenParams, &ForgottenPage},
    {"/forget", "forget", &ForgetPreviewParams, &ForgetPreviewPage},
    {"/tombstone", "tombstone", &TombstoneParams, &TombstonePage},
};

constexpr Action kActions[] = {
    {"/remember", "remember", &RememberParams, &ToEntry},
    {"/correct", "correct", &CorrectParams, &ToEntry},
    {"/forget", "forget", &ForgetParams, &ToTombstone},
    {"/restore", "restore", &RestoreParams, &ToTombstone},
};

std::string_view StatusTitle(int status) {
  switch (status) {
    case 400: return "That request cannot be answered";
    case 403: return "Not allowed";
    case 404: return "Not found";
    case 409: return "It changed meanwhile";
    case 413: return "Too large";
    case 503: return "Not available now";
    default: return "Something went wrong";
  }
}

}  // namespace

std::span<const Page> AllPages() { return kPages; }
std::span<const Action> AllActions() { return kActions; }

std::span<const Asset> AllAssets() {
  static const std::vector<Asset> assets = [] {
    std::vector<Asset> out;
    for (const EmbeddedAsset& a : EmbeddedAssets()) out.push_back(a.asset);
    return out;
  }();
  return assets;
}

std::string AssetUrl(std::string_view file) {
  for (const EmbeddedAsset& a : EmbeddedAssets())
    if (a.file == file) return "/admin/assets/" + std::string(a.asset.name);
  return {};
}

std::string RenderError(int status, std::string_view message, const PageContext& ctx) {
  Doc doc(ctx, StatusTitle(status), "");
  Html& h = doc.html();
  h.Element("h1", StatusTitle(status));
  h.Open("div", {{"class", "error-box"}, {"role", "alert"}});
  doc.UseIcon(Icon::kWarning);
  h.Text(" ").Element("span", {{"class", "badge error"}}, std::to_string(status)).Text(" ");
  h.Text(message).Close("div");
  if (status == 409)
    h.Element("p", "What the preview showed is no longer what would happen; preview it again.");
  h.Open("p").Element("a", {{"href", "/admin/"}}, "Back to the overview").Close("p");
  return doc.Finish();
}

bool IdParams(const Fields& q, std::string* params, std::string* error) {
  proto::IdRequest r;
  if (!FieldId(q, "id", &r.id, error)) return false;
  *params = proto::Encode(r);
  return true;
}

std::string FieldText(const Fields& f, std::string_view name) {
  const std::string* v = f.Get(name);
  return v ? std::string(TrimSpace(*v)) : std::string();
}

std::optional<std::string> FieldOpt(const Fields& f, std::string_view name) {
  std::string text = FieldText(f, name);
  if (text.empty()) return std::nullopt;
  return text;
}

bool FieldInt(const Fields& f, std::string_view name, std::int64_t lo, std::int64_t hi,
              std::optional<std::int64_t>* out, std::string* error) {
  const std::string text = FieldText(f, name);
  if (text.empty()) return true;
  std::int64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || n > (INT64_MAX - 9) / 10) {
      *error = std::string(name) + " must be a whole number";
      return false;
    }
    n = n * 10 + (c - '0');
  }
  if (n < lo || n > hi) {
    *error = std::string(name) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi);
    return false;
  }
  *out = n;
  return true;
}

bool FieldLimit(const Fields& f, std::int64_t max, std::int64_t otherwise, std::int64_t* out,
                std::string* error) {
  std::optional<std::int64_t> limit;
  if (!FieldInt(f, "limit", 1, max, &limit, error)) return false;
  *out = limit.value_or(otherwise);
  return true;
}

bool FieldWhen(const Fields& f, std::string_view name, std::optional<std::int64_t>* out,
               std::string* error) {
  const std::string text = FieldText(f, name);
  if (text.empty()) return true;
  const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  *out = proto::ParseWhen(text, now);
  if (!*out) {
    *error = std::string(name) + ": not a date: " + text +
             " (YYYY-MM-DD[THH:MM[:SS]], or 2d, 12h, yesterday)";
    return false;
  }
  return true;
}

bool FieldOn(const Fields& f, std::string_view name) {
  const std::string* v = f.Get(name);
  return v != nullptr && !v->empty() && *v != "0";
}

bool FieldId(const Fields& f, std::string_view name, std::string* out, std::string* error) {
  *out = FieldText(f, name);
  if (out->empty()) {
    *error = std::string(name) + " is required";
    return false;
  }
  return true;
}

std::string JsonObject(std::initializer_list<std::pair<std::string_view, std::string_view>> pairs) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  for (const auto& [k, v] : pairs) {
    w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  }
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

struct ParamsJson::Impl {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w{buf};
};
ParamsJson::ParamsJson() : impl_(std::make_unique<Impl>()) { impl_->w.StartObject(); }
ParamsJson::~ParamsJson() = default;
ParamsJson& ParamsJson::Str(std::string_view key, std::string_view value) {
  impl_->w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  impl_->w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  return *this;
}
ParamsJson& ParamsJson::Int(std::string_view key, std::int64_t value) {
  impl_->w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  impl_->w.Int64(value);
  return *this;
}
ParamsJson& ParamsJson::Bool(std::string_view key, bool value) {
  impl_->w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  impl_->w.Bool(value);
  return *this;
}
std::string ParamsJson::Done() {
  impl_->w.EndObject();
  return {impl_->buf.GetString(), impl_->buf.GetSize()};
}

std::string FormKey(const PageContext& ctx, std::string_view what) {
  return "ui-" + Sha256Hex(ctx.csrf + "\n" + std::to_string(ctx.now_ms) + "\n" + ctx.target + "\n" +
                           std::string(what))
                     .substr(0, 32);
}

}  // namespace origin::ui
