// SPDX-License-Identifier: MIT
#include "core/ingest/verify_events.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "core/ingest/ingester.hpp"

namespace origin {

namespace {

struct Event {
  std::int64_t seq;
  std::string id;
  std::int64_t line;
};

struct File {
  std::string source, key, path, mirror;
  std::int64_t bytes = 0;
};

// The ids `line` gives (events and titles), each with the line it is
// attributed to, added to *out.
void Produce(const SourceAdapter& a, std::string_view line, ParseContext& ctx,
             std::map<std::string, std::int64_t>* out) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;
  ParsedLine parsed;
  try {
    parsed = a.ParseLine(line, ctx);
  } catch (const std::exception&) {
    return;  // a parse error: the line gives no event (counted at ingestion)
  }
  const std::string prefix = std::string(a.id()) + ":";
  for (const ParsedEvent& e : parsed.events)
    out->emplace(prefix + e.native_id, e.line.value_or(ctx.line_no));
  for (const ParsedTitle& t : parsed.titles)
    out->emplace(prefix + t.native_id, t.line.value_or(ctx.line_no));
}

// Every id the mirror's content gives, parsed from its first line with the
// adapter's state for a new file, as the ingester parses it.
std::map<std::string, std::int64_t> ParseAll(const SourceAdapter& a, const File& f,
                                             const std::string& content) {
  std::map<std::string, std::int64_t> out;
  std::unique_ptr<FileState> state = a.LoadState(f.key, "");
  std::int64_t line_no = 0;
  std::size_t pos = 0;
  while (pos < content.size()) {
    std::size_t nl = content.find('\n', pos);
    if (nl == std::string::npos) break;
    ParseContext ctx{f.path, f.key, ++line_no, state.get()};
    Produce(a, std::string_view(content).substr(pos, nl - pos), ctx, &out);
    pos = nl + 1;
  }
  return out;
}

// The events to check, by their file.
void Pick(Db& db, bool all, std::int64_t sample,
          std::map<std::int64_t, std::vector<Event>>* by_file) {
  const std::int64_t lo = db.QueryInt("SELECT coalesce(min(seq), 0) FROM event");
  const std::int64_t hi = db.QueryInt("SELECT coalesce(max(seq), 0) FROM event");
  std::set<std::int64_t> seen;
  auto add = [&](StmtLease& st) {
    if (!seen.insert(st.Int(0)).second) return;
    (*by_file)[st.Int(2)].push_back(Event{st.Int(0), std::string(st.Text(1)), st.Int(3)});
  };
  // An erased event's line is a filler now (core/erase): it gives no event.
  if (all || hi - lo + 1 <= sample) {
    auto st = db.Prepare(
        "SELECT seq, id, file_id, line FROM event "
        "WHERE seq NOT IN (SELECT seq FROM erased_event) ORDER BY seq");
    while (st.Step()) add(st);
    return;
  }
  auto st =
      db.Prepare("SELECT seq, id, file_id, line FROM event WHERE seq >= ? "
                 "AND seq NOT IN (SELECT seq FROM erased_event) ORDER BY seq LIMIT 1");
  for (std::int64_t i = 0; i < sample; ++i) {
    st.Reset();
    st.Bind(1, lo + (hi - lo) * i / (sample - 1));
    if (st.Step()) add(st);
  }
}

}  // namespace

VerifyCheck VerifyEvents(Db& db, MirrorStore& mirrors,
                         const std::vector<std::unique_ptr<SourceAdapter>>& adapters, bool all,
                         std::int64_t sample) {
  VerifyCheck c{"events"};
  std::map<std::int64_t, std::vector<Event>> by_file;
  Pick(db, all, std::max<std::int64_t>(sample, 2), &by_file);
  for (auto& [file_id, events] : by_file) {
    File f;
    {
      auto st =
          db.Prepare("SELECT source, key, path, mirror, bytes_ingested FROM raw_file WHERE id = ?");
      st.Bind(1, file_id);
      if (!st.Step()) {
        for (const Event& e : events)
          c.Add("event " + e.id + ": its file " + std::to_string(file_id) + " is not recorded");
        c.checked += static_cast<std::int64_t>(events.size());
        continue;
      }
      // Parsed as ingestion parsed it: a device's file on a hub by the
      // device's own key.
      f = File{std::string(st.Text(0)), std::string(AdapterKey(st.Text(1))),
               std::string(st.Text(2)), std::string(st.Text(3)), st.Int(4)};
    }
    const SourceAdapter* a = nullptr;
    for (const auto& ad : adapters)
      if (ad->id() == f.source) a = ad.get();
    // The mirror is read once, whole (each frame decompressed once), and
    // parsed whole only when a line alone does not give its event's id.
    std::optional<std::string> content;
    std::vector<std::size_t> starts;  // where each line starts in it
    std::optional<std::map<std::string, std::int64_t>> whole;
    std::string failed;  // why the content could not be read
    for (const Event& e : events) {
      ++c.checked;
      const std::string at =
          "event " + e.id + " (mirror " + f.mirror + ", line " + std::to_string(e.line) + ")";
      if (a == nullptr) {
        c.Add(at + ": no adapter reads source " + f.source);
        continue;
      }
      if (!content && failed.empty()) {
        try {
          content = mirrors.ReadRange(db, file_id, 0, f.bytes);
          for (std::size_t pos = 0; pos < content->size(); pos = content->find('\n', pos) + 1)
            starts.push_back(pos);
        } catch (const std::exception& ex) {
          failed = ex.what();
        }
      }
      if (!failed.empty()) {
        c.Add(at + ": the mirror cannot be read: " + failed);
        continue;
      }
      if (e.line < 1 || e.line > static_cast<std::int64_t>(starts.size())) {
        c.Add(at + ": the mirror has no such line");
        continue;
      }
      if (!all && !whole) {
        // The line alone first: most lines give their events by themselves.
        const std::size_t from = starts[static_cast<std::size_t>(e.line - 1)];
        const std::string_view line =
            std::string_view(*content).substr(from, content->find('\n', from) - from);
        std::map<std::string, std::int64_t> alone;
        std::unique_ptr<FileState> state = a->LoadState(f.key, "");
        ParseContext ctx{f.path, f.key, e.line, state.get()};
        Produce(*a, line, ctx, &alone);
        if (auto it = alone.find(e.id); it != alone.end() && it->second == e.line) continue;
      }
      if (!whole) whole = ParseAll(*a, f, *content);
      auto it = whole->find(e.id);
      if (it == whole->end())
        c.Add(at + ": the mirror's lines do not parse to this id");
      else if (it->second != e.line)
        c.Add(at + ": the mirror gives this id at line " + std::to_string(it->second));
    }
  }
  return c;
}

}  // namespace origin
