// SPDX-License-Identifier: MIT
#include "adapters/common/json.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <iterator>

#include "adapters/common/whole_texts.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

void ParseObject(std::string_view line, rapidjson::Document& doc) {
  if (!JsonDepthWithin(line, kMaxJsonDepth)) throw ParseError("JSON nested too deeply");
  doc.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
  if (doc.HasParseError())
    throw ParseError(std::string("not JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()) +
                     " at byte " + std::to_string(doc.GetErrorOffset()));
  if (!doc.IsObject()) throw ParseError("not a JSON object");
}

const Json* Member(const Json& obj, const char* key) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(key);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

std::optional<std::string_view> Str(const Json& obj, const char* key) {
  const Json* v = Member(obj, key);
  if (v == nullptr || !v->IsString()) return std::nullopt;
  return std::string_view(v->GetString(), v->GetStringLength());
}

std::optional<std::string> NonEmpty(const Json& obj, const char* key) {
  auto s = Str(obj, key);
  if (!s || s->empty()) return std::nullopt;
  return std::string(*s);
}

bool Bool(const Json& obj, const char* key) {
  const Json* v = Member(obj, key);
  return v != nullptr && v->IsBool() && v->GetBool();
}

std::string_view StrOr(const Json& v, std::string_view dflt) {
  return v.IsString() ? std::string_view(v.GetString(), v.GetStringLength()) : dflt;
}

std::string Serialize(const Json& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

void AppendParagraph(std::string& out, std::string_view piece) {
  if (piece.empty()) return;
  if (!out.empty()) out += "\n\n";
  out.append(piece);
}

namespace {
thread_local int whole_texts = 0;  // WholeTexts alive on this thread
}  // namespace

WholeTexts::WholeTexts() { ++whole_texts; }
WholeTexts::~WholeTexts() { --whole_texts; }

// All of `s` while a WholeTexts lives on this thread (whole_texts.hpp).
std::string Truncate(std::string_view s, std::size_t max_chars) {
  if (whole_texts > 0) return std::string(s);
  return std::string(TruncateChars(s, max_chars));
}

std::string TextParts(const Json* content) {
  if (content == nullptr) return "";
  if (content->IsString()) return std::string(content->GetString(), content->GetStringLength());
  std::string out;
  if (content->IsArray())
    for (const Json& p : content->GetArray())
      if (Str(p, "type") == "text") AppendParagraph(out, Str(p, "text").value_or(""));
  return out;
}

std::optional<std::string> TagContent(std::string_view text, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  std::size_t a = text.find(open);
  if (a == std::string_view::npos) return std::nullopt;
  std::size_t b = text.find(close, a + open.size());
  if (b == std::string_view::npos) return std::nullopt;
  return std::string(TrimSpace(text.substr(a + open.size(), b - a - open.size())));
}

void WriteString(JsonWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void WriteMember(JsonWriter& w, const char* key, std::string_view s) {
  w.Key(key);
  WriteString(w, s);
}

void WriteJsonText(JsonWriter& w, std::string_view text) {
  // The depth first: a document too deep would exhaust the stack freeing it.
  if (JsonDepthWithin(text, kMaxJsonDepth)) {
    rapidjson::Document d;
    d.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
    if (!d.HasParseError()) {
      d.Accept(w);
      return;
    }
  }
  WriteString(w, text);
}

std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::optional<rapidjson::Document> ReadJsonObject(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text || !JsonDepthWithin(*text, kMaxJsonDepth)) return std::nullopt;
  rapidjson::Document d;
  d.Parse<rapidjson::kParseIterativeFlag>(text->data(), text->size());
  if (d.HasParseError() || !d.IsObject()) return std::nullopt;
  return d;
}

}  // namespace origin::adapters
