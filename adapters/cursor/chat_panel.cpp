// SPDX-License-Identifier: MIT
// Cursor: the IDE's oldest chat panel (before 0.40, cursor.hpp).
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <vector>

#include "adapters/common/json.hpp"
#include "adapters/common/sqlite_source.hpp"
#include "adapters/common/stream_cursor.hpp"
#include "adapters/common/title.hpp"
#include "adapters/cursor/cursor.hpp"
#include "adapters/cursor/parts.hpp"
#include "core/ingest/walk.hpp"
#include "core/util/text.hpp"

namespace origin::adapters {

using namespace cursor_parts;

// The oldest chat panel (Cursor before 0.40): a workspace database's
// ItemTable row workbench.panel.aichat.view.aichat.chatdata holds
// {tabs: [{tabId, chatTitle, bubbles: [{id, type: user|ai, text}]}]}, one
// JSON value rewritten as a whole.  Its bubbles, tab after tab, are a
// sequence (SequenceCursor), each a line with its tab's id and title, the
// workspace's folder and the bubble.  Those Cursor versions are long
// replaced, so the panel's content is taken as final.
std::string CursorAdapter::GenerateChatPanel(const SourceFile& stream, std::string_view last_line,
                                             std::size_t max_bytes) const {
  const std::string dir = stream.abs_path.substr(0, stream.abs_path.rfind('/'));
  std::string value;
  ReadDatabase(stream.abs_path, [&](Db& db) {
    if (db.QueryInt("SELECT count(*) FROM sqlite_master WHERE name = 'ItemTable'") == 0)
      return std::string();
    auto st = db.Prepare(
        "SELECT value FROM ItemTable WHERE key = 'workbench.panel.aichat.view.aichat.chatdata'");
    if (st.Step()) value = std::string(st.Blob(0));
    return std::string();
  });
  if (value.empty() || !JsonDepthWithin(value, kMaxJsonDepth)) return "";
  rapidjson::Document d;
  d.Parse<rapidjson::kParseIterativeFlag>(value.data(), value.size());
  const Json* tabs = d.HasParseError() || !d.IsObject() ? nullptr : Member(d, "tabs");
  if (tabs == nullptr || !tabs->IsArray()) return "";
  const std::string folder = WorkspaceFolder(dir).value_or("");
  struct Item {
    const Json* tab;
    const Json* bubble;
    std::size_t index;  // in its tab
  };
  std::vector<std::string> ids;
  std::vector<Item> items;
  for (const Json& tab : tabs->GetArray()) {
    const Json* bubbles = Member(tab, "bubbles");
    auto tab_id = NonEmpty(tab, "tabId");
    if (!tab_id || bubbles == nullptr || !bubbles->IsArray()) continue;
    std::size_t i = 0;
    for (const Json& b : bubbles->GetArray()) {
      if (!b.IsObject()) continue;
      ids.push_back(*tab_id + ":" + NonEmpty(b, "id").value_or("#" + std::to_string(i)));
      items.push_back({&tab, &b, i++});
    }
  }
  SequenceCursor cursor = SequenceCursor::FromLine(last_line);
  std::string out;
  for (std::size_t i = cursor.Start(ids); i < ids.size() && out.size() < max_bytes; ++i) {
    rapidjson::StringBuffer sb;
    JsonWriter w(sb);
    w.StartObject();
    WriteMember(w, "id", ids[i]);
    w.Key("tab");
    w.StartObject();
    WriteMember(w, "id", Str(*items[i].tab, "tabId").value_or(""));
    WriteMember(w, "title", Str(*items[i].tab, "chatTitle").value_or(""));
    // No time per bubble: the tab's, else the database's mtime.
    std::int64_t time = stream.mtime_ns / 1000000;
    for (const char* t : {"lastSendTime", "createdAt"})
      if (const Json* v = Member(*items[i].tab, t); v != nullptr && v->IsInt64()) {
        time = v->GetInt64();
        break;
      }
    w.Key("time");
    w.Int64(time);
    if (!folder.empty()) WriteMember(w, "cwd", folder);
    w.EndObject();
    w.Key("index");
    w.Int64(static_cast<std::int64_t>(items[i].index));
    cursor.Write(w, i, ids[i]);
    w.Key("bubble");
    items[i].bubble->Accept(w);
    w.EndObject();
    out.append(sb.GetString(), sb.GetSize()).push_back('\n');
  }
  return out;
}

ParsedLine CursorAdapter::ParseChatPanel(std::string_view line) {
  rapidjson::Document doc;
  ParseObject(line, doc);
  auto id = NonEmpty(doc, "id");
  const Json* tab = Member(doc, "tab");
  const Json* b = Member(doc, "bubble");
  const Json* index = Member(doc, "index");
  if (!id || tab == nullptr || !tab->IsObject() || b == nullptr || !b->IsObject() ||
      index == nullptr || !index->IsInt64())
    throw ParseError("not a Cursor chat panel line");
  auto tab_id = NonEmpty(*tab, "id");
  if (!tab_id) throw ParseError("a Cursor chat panel line without its tab");
  ParsedLine out;
  // The tab's time, one ms apart in order.
  const Json* t = Member(*tab, "time");
  const std::int64_t ts = (t != nullptr && t->IsInt64() ? t->GetInt64() : 0) + index->GetInt64();
  if (auto title = NonEmpty(*tab, "title"))
    out.titles.push_back(MakeTitle(*tab_id, *title, false, ts));
  const std::string type(Str(*b, "type").value_or(""));
  std::string text(Str(*b, "text").value_or(""));
  if (TrimSpace(text).empty()) text = std::string(Str(*b, "rawText").value_or(""));
  if (TrimSpace(text).empty() || (type != "user" && type != "ai")) return out;
  ParsedEvent& e = out.events.emplace_back();
  e.native_id = "aichat:" + *id;
  e.session = *tab_id;
  e.ts = ts;
  e.role = type == "user" ? "user" : "assistant";
  e.kind = "message";
  e.text = std::move(text);
  e.cwd = NonEmpty(*tab, "cwd");
  if (type == "ai") e.model = NonEmpty(*b, "modelType");
  return out;
}

}  // namespace origin::adapters
