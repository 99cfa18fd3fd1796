// SPDX-License-Identifier: MIT
#pragma once
// The rows of pages.hpp's tables, each page's params and render function,
// defined in the file of its kind (pages_*.cpp), and the helpers that turn
// query or form fields into an operation's params.

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <initializer_list>
#include <memory>
#include <utility>

#include "daemon/ui/pages.hpp"

namespace origin::ui {

// ---- params from fields (pages_core.cpp)

/// The field, trimmed; empty when absent.
std::string FieldText(const Fields& f, std::string_view name);
/// The field, trimmed, or nothing when absent or empty.
std::optional<std::string> FieldOpt(const Fields& f, std::string_view name);
/// A whole number in [lo, hi], or nothing when the field is absent or
/// empty; false with `*error` when it is not one.
bool FieldInt(const Fields& f, std::string_view name, std::int64_t lo, std::int64_t hi,
              std::optional<std::int64_t>* out, std::string* error);
/// The field `limit` in [1, max], or `otherwise` when absent.
bool FieldLimit(const Fields& f, std::int64_t max, std::int64_t otherwise, std::int64_t* out,
                std::string* error);
/// A date as the CLI takes it (proto/time.hpp ParseWhen), in ms.
bool FieldWhen(const Fields& f, std::string_view name, std::optional<std::int64_t>* out,
               std::string* error);
/// A box that is ticked: present and not "0" or "".
bool FieldOn(const Fields& f, std::string_view name);
/// A required id field, or false with the message.
bool FieldId(const Fields& f, std::string_view name, std::string* out, std::string* error);
/// `{"id": ...}` from the field id: the params of show and sources.
bool IdParams(const Fields& q, std::string* params, std::string* error);
/// `{"<key>": "<value>", ...}` of string pairs, as JSON text.
std::string JsonObject(std::initializer_list<std::pair<std::string_view, std::string_view>> pairs);
/// An operation's params written field by field.
class ParamsJson {
 public:
  ParamsJson();
  ~ParamsJson();
  ParamsJson& Str(std::string_view key, std::string_view value);
  ParamsJson& Int(std::string_view key, std::int64_t value);
  ParamsJson& Bool(std::string_view key, bool value);
  std::string Done();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
/// A request key for a form: the same for the same rendered form (a
/// resubmission is answered once), new for each rendering.
std::string FormKey(const PageContext& ctx, std::string_view what);

// ---- pages
bool OverviewParams(const Fields&, std::string*, std::string*);
std::string OverviewPage(const rapidjson::Value&, const PageContext&);
bool TimelineParams(const Fields&, std::string*, std::string*);
std::string TimelinePage(const rapidjson::Value&, const PageContext&);
bool SessionParams(const Fields&, std::string*, std::string*);
std::string SessionPage(const rapidjson::Value&, const PageContext&);
bool EventParams(const Fields&, std::string*, std::string*);
std::string EventPage(const rapidjson::Value&, const PageContext&);
std::string SourcePage(const rapidjson::Value&, const PageContext&);
bool SearchParams(const Fields&, std::string*, std::string*);
std::string SearchPage(const rapidjson::Value&, const PageContext&);
bool EntriesParams(const Fields&, std::string*, std::string*);
std::string EntriesPage(const rapidjson::Value&, const PageContext&);
std::string EntryPage(const rapidjson::Value&, const PageContext&);
bool ForgottenParams(const Fields&, std::string*, std::string*);
std::string ForgottenPage(const rapidjson::Value&, const PageContext&);
bool ForgetPreviewParams(const Fields&, std::string*, std::string*);
std::string ForgetPreviewPage(const rapidjson::Value&, const PageContext&);
bool TombstoneParams(const Fields&, std::string*, std::string*);
std::string TombstonePage(const rapidjson::Value&, const PageContext&);

// ---- actions
bool RememberParams(const Fields&, std::string*, std::string*);
bool CorrectParams(const Fields&, std::string*, std::string*);
std::string ToEntry(const rapidjson::Value&);
bool ForgetParams(const Fields&, std::string*, std::string*);
bool RestoreParams(const Fields&, std::string*, std::string*);
std::string ToTombstone(const rapidjson::Value&);

}  // namespace origin::ui
