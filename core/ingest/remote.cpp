// SPDX-License-Identifier: MIT
// A device's raw mirrors on a hub (spec: Personal hub, Replication step 1).
// The device pushes the content of its mirrors, not events: the hub keeps
// the bytes as mirrors of its own and parses them with the same adapters,
// so provenance (invariant 1) holds on the hub and event ids are those of
// the device.  Each generation of a device's file is its own raw_file row,
// keyed (source, "@<device>:<key>", generation): local keys never start
// with '@' (SafeKey), so no local file and no other device's share a row or
// a mirror.
#include <stdexcept>

#include "core/ingest/ingester.hpp"
#include "core/ingest/raw_file.hpp"

namespace origin {

namespace {

// Where a device's mirror lives under raw/: devices/<device>/<source>/<key>.
std::string RemoteMirror(std::string_view device, std::string_view source,
                         std::string_view rel_path) {
  return "devices/" + std::string(device) + "/" + std::string(source) + "/" +
         std::string(rel_path);
}

// A device name that is one safe path segment (the hub checks the spec's
// rule for names before this; this is what keeps raw/ whole whatever it is).
bool SafeSegment(std::string_view name) {
  return SafeKey(name) && name.find('/') == std::string_view::npos &&
         name.find(':') == std::string_view::npos;
}

}  // namespace

std::string RemoteKey(std::string_view device, std::string_view rel_path) {
  return "@" + std::string(device) + ":" + std::string(rel_path);
}

std::string_view AdapterKey(std::string_view raw_key) {
  // A device's name holds no ':' (SafeSegment), so the first one ends it.
  if (!raw_key.starts_with('@')) return raw_key;
  const std::size_t colon = raw_key.find(':');
  return colon == std::string_view::npos ? raw_key : raw_key.substr(colon + 1);
}

RemoteOutcome Ingester::IngestRemote(const SourceAdapter& adapter, const RemoteChunk& c) {
  if (!SafeSegment(c.device)) throw std::invalid_argument("unsafe device name: " + c.device);
  if (!SafeKey(c.rel_path))
    throw std::invalid_argument("relPath must be relative, without '..', '.' or empty segments: " +
                                c.rel_path);
  if (c.generation < 1) throw std::invalid_argument("generation starts at 1");
  if (c.offset < 0) throw std::invalid_argument("offset is a byte count");
  if (!c.data.empty() && c.data.back() != '\n')
    throw std::invalid_argument("a chunk holds complete lines: it ends with a line break");
  if (c.data.size() > max_line_)
    throw std::invalid_argument("a chunk is longer than the longest line taken");
  const std::string_view source = adapter.id();
  const std::string key = RemoteKey(c.device, c.rel_path);
  RemoteOutcome out;
  Transaction tx(db_);
  const std::int64_t now = clock_.NowMs();
  std::optional<RawRow> row = LoadGeneration(db_, source, key, c.generation);
  if (row && row->broken) throw MirrorBroken(*row->broken);
  out.bytes = row ? row->mirror.bytes : 0;
  if (out.bytes != c.offset) return out;  // the device resumes from out.bytes
  if (c.data.empty()) {
    out.appended = true;
    return out;
  }
  if (!row)
    row = InsertGeneration(db_, source, key, c.path,
                           RemoteMirror(c.device, source, c.rel_path), c.generation, now);
  std::unique_ptr<FileState> state = adapter.LoadState(c.rel_path, row->parse_state);
  std::int64_t lines = 0;
  for (char ch : c.data) lines += ch == '\n';
  // The adapter sees the file as the device did (its key), so the ids it
  // makes are the device's.
  SourceFile f;
  f.abs_path = c.path;
  f.key = c.rel_path;
  FileOutcome parsed;
  std::vector<ErasedLine> erased;
  out.parse_errors =
      InsertLines(adapter, f, c.data, row->mirror.lines, row->id, state.get(), parsed, &erased);
  AppendResult appended =
      erased.empty()
          ? mirrors_.Append(row->mirror, c.data, lines, /*seal=*/false)
          : mirrors_.Append(row->mirror, WithFillers(c.data, erased), lines, /*seal=*/false);
  MirrorStore::RecordAppend(db_, appended);
  auto cur = db_.Prepare(
      "UPDATE raw_file SET path = ?, grown_at = ?, parse_state = ?, "
      "parse_errors = parse_errors + ?, file_size = ?, file_mtime_ns = ? WHERE id = ?");
  cur.Bind(1, c.path).Bind(2, now).Bind(3, SavedState(state.get()));
  cur.Bind(4, out.parse_errors).Bind(5, appended.after.bytes);
  if (c.mtime_ms)
    cur.Bind(6, *c.mtime_ms * 1000000);
  else
    cur.Bind(6, nullptr);
  cur.Bind(7, row->id).Run();
  tx.Commit();
  mirrors_.AfterCommit(appended);
  out.appended = true;
  out.bytes = appended.after.bytes;
  out.lines = lines;
  out.events = parsed.events;
  return out;
}

}  // namespace origin
