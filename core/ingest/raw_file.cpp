// SPDX-License-Identifier: MIT
#include "core/ingest/raw_file.hpp"

namespace origin {

std::optional<RawRow> LoadLatest(Db& db, std::string_view source, std::string_view key) {
  return LoadGeneration(db, source, key, std::nullopt);
}

std::optional<RawRow> LoadGeneration(Db& db, std::string_view source, std::string_view key,
                                     std::optional<std::int64_t> generation) {
  auto st = db.Prepare(
      "SELECT id, generation, path, mirror, bytes_ingested, lines_ingested, tail_hash, "
      "tail_offset, tail_line, zst_bytes, file_size, file_mtime_ns, parse_state, broken "
      "FROM raw_file WHERE source = ?1 AND key = ?2 AND (?3 IS NULL OR generation = ?3) "
      "ORDER BY generation DESC LIMIT 1");
  st.Bind(1, source).Bind(2, key);
  if (generation)
    st.Bind(3, *generation);
  else
    st.Bind(3, nullptr);
  if (!st.Step()) return std::nullopt;
  RawRow r;
  r.id = st.Int(0);
  r.generation = st.Int(1);
  r.path = std::string(st.Text(2));
  r.mirror.file_id = r.id;
  r.mirror.mirror = std::string(st.Text(3));
  r.mirror.bytes = st.Int(4);
  r.mirror.lines = st.Int(5);
  r.tail_hash = std::string(st.Blob(6));
  r.mirror.tail_offset = st.Int(7);
  r.mirror.tail_line = st.Int(8);
  r.mirror.zst_bytes = st.Int(9);
  if (!st.IsNull(10)) r.file_size = st.Int(10);
  if (!st.IsNull(11)) r.mtime_ns = st.Int(11);
  r.parse_state = std::string(st.Text(12));
  r.broken = st.OptText(13);
  return r;
}

bool SafeKey(std::string_view key) {
  if (key.empty() || key.front() == '/' || key.front() == '@' ||
      key.find('\0') != std::string_view::npos)
    return false;
  std::size_t pos = 0;
  while (pos <= key.size()) {
    std::size_t end = key.find('/', pos);
    if (end == std::string_view::npos) end = key.size();
    std::string_view seg = key.substr(pos, end - pos);
    if (seg.empty() || seg == "." || seg == "..") return false;
    pos = end + 1;
  }
  return true;
}

bool LoadUnbroken(Db& db, std::string_view source, std::string_view key, std::optional<RawRow>& row,
                  std::string& error) {
  row = LoadLatest(db, source, key);
  if (row && row->broken) {
    error = *row->broken;
    return false;
  }
  return true;
}

RawRow CreateGeneration(Db& db, std::string_view source, const SourceFile& f,
                        std::int64_t generation, std::int64_t now) {
  return InsertGeneration(db, source, f.key, f.abs_path,
                          std::string(source) + "/" + f.key, generation, now);
}

RawRow InsertGeneration(Db& db, std::string_view source, std::string_view key,
                        std::string_view path, std::string mirror, std::int64_t generation,
                        std::int64_t now) {
  RawRow r;
  r.generation = generation;
  r.path = std::string(path);
  r.mirror.mirror = std::move(mirror);
  if (generation > 1) r.mirror.mirror += "~g" + std::to_string(generation);
  db.Prepare(
        "INSERT INTO raw_file(source, key, generation, path, mirror, created_at, grown_at) "
        "VALUES (?,?,?,?,?,?,?)")
      .Bind(1, source)
      .Bind(2, key)
      .Bind(3, generation)
      .Bind(4, path)
      .Bind(5, r.mirror.mirror)
      .Bind(6, now)
      .Bind(7, now)
      .Run();
  r.id = db.LastInsertRowid();
  r.mirror.file_id = r.id;
  return r;
}

}  // namespace origin
