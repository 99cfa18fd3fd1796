// SPDX-License-Identifier: MIT
#pragma once
// Where a generated stream goes on, read from its last line alone (spec:
// Ingestion, Generated sources: the adapter keeps no state of its own).
//   RowCursor       rows of a database in rowid order, some still changing
//                   (ZCode's messages, Cursor's IDE bubbles);
//   SequenceCursor  an ordered sequence of items that may be replaced from
//                   some point on (a cursor-agent chat after a rewind, a
//                   Grok history after compaction).
//   GenerateItems   a JSONL file as such a sequence of its lines (Grok's
//                   chat_history.jsonl, Cursor's agent transcripts).

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/ingest/adapter.hpp"

namespace origin::adapters {

/// The members `names` of `line`'s object (those it has), as an object of
/// their own: a generated line's cursor without its text
/// (SourceAdapter::CursorOf); "" when the line is no object or has none.
std::string CursorMembers(std::string_view line, std::initializer_list<const char*> names);

/// Where a generated stream of database rows goes on (ZCode's messages,
/// Cursor's bubbles), read from its last line alone: every row up to the
/// rowid `upto` is out, and so is each row in `after`.  A row still
/// changing holds `upto` back while later rows go out.
class RowCursor {
 public:
  /// From the "upto" and "after" of `last_line` (none for a new stream).
  static RowCursor FromLine(std::string_view last_line);
  /// Those members of `line` alone (SourceAdapter::CursorOf).
  static std::string CursorOf(std::string_view line) { return CursorMembers(line, {"upto", "after"}); }
  std::int64_t upto() const { return upto_; }
  /// Whether the row is out already (it is skipped); it then moves `upto`
  /// on when nothing before it is held.
  bool Done(std::int64_t rowid);
  /// The row is still changing: it stays for a later look.
  void Hold() { held_ = true; }
  /// The row goes out now.
  void Out(std::int64_t rowid);
  /// The row gives nothing, now or later: `upto` passes it when nothing
  /// before it is held.
  void Pass(std::int64_t rowid) {
    if (!held_) upto_ = rowid;
  }
  /// Writes "upto" and "after" (members of the line's object).
  void Write(rapidjson::Writer<rapidjson::StringBuffer>& w) const;

 private:
  std::int64_t upto_ = 0;
  std::set<std::int64_t> after_;
  bool held_ = false;
};

/// Every line says the index of its item in the sequence and a digest of
/// the ids of the items up to it.  The next look goes on after the last
/// item written while the sequence still begins with the items written;
/// otherwise (the sequence was replaced) it is written again from its
/// start, and items it shares with the old one, under the same ids, add no
/// event.
class SequenceCursor {
 public:
  /// From the "index" and "chain" of `last_line` (none for a new stream).
  static SequenceCursor FromLine(std::string_view last_line);
  /// Those members of `line` alone (SourceAdapter::CursorOf).
  static std::string CursorOf(std::string_view line) { return CursorMembers(line, {"index", "chain"}); }
  /// The index of the first item of `ids` (the sequence's item ids, in
  /// order) to write now.
  std::size_t Start(const std::vector<std::string>& ids);
  /// Item `index` (from Start on, in order) with id `id` goes out: writes
  /// its "index" and "chain".
  void Write(rapidjson::Writer<rapidjson::StringBuffer>& w, std::size_t index,
             const std::string& id);

 private:
  std::int64_t written_ = 0;  // items written so far
  std::string chain_;         // their ids' digest, as the last line says
  std::string digest_;        // the digest as this look goes
};

/// A JSONL file as a generated stream of its items, for a file an agent
/// appends to or rewrites as a whole (a compaction): each line is an item
/// (one that is not a JSON object is kept as a string, and does not parse),
/// and so is a last line without its newline once it is a whole object
/// (Cursor ends its transcripts so).  An item's id is a digest of its bytes and of how often
/// the same line came before, so the items a rewrite keeps are the same
/// items.  The items after those already out (SequenceCursor) are written
/// as {"item_id", <what `extra` writes for the item's index>, "index",
/// "chain", "source_line" (its line in the file), "item" (the line itself,
/// byte for byte when it is JSON)}, at most about `max_bytes`.  `plan`,
/// when given, first sees every item's text and the index of the first to
/// be written now.  Throws SourceBusy when the file cannot be read.
std::string GenerateItems(
    const std::string& path, std::string_view last_line, std::size_t max_bytes,
    const std::function<void(rapidjson::Writer<rapidjson::StringBuffer>&, std::size_t)>& extra,
    const std::function<void(const std::vector<std::string_view>&, std::size_t)>& plan = {});

/// The agent's own line a line of GenerateItems holds: its line number in
/// the agent's file and its bytes (SourceAdapter::Original); nullopt for a
/// line written before they were kept (no "source_line").
std::optional<OriginalLine> ItemOriginal(std::string_view line);

/// A line GenerateItems wrote: its item id, its "ts", the item itself.
struct ItemLine {
  std::string id;
  std::int64_t ts = 0;
  const rapidjson::Value* item = nullptr;
};
/// Reads `line` into `doc`; throws ParseError unless it is such a line.
ItemLine ParseItemLine(std::string_view line, rapidjson::Document& doc);

}  // namespace origin::adapters
