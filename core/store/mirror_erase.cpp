// SPDX-License-Identifier: MIT
// Erasure's part of the raw mirrors (MirrorStore::EraseLines): lines
// replaced by fillers of the same length, in the tail in place, in sealed
// frames by a replacement frame appended to .zst, the old frame's bytes then
// zeroed.  The steps, in order, each leaving the old or the new state:
//   1. the replacement frame written past raw_file.zst_bytes and synced (a
//      crash here leaves bytes past what the store records, which the next
//      append drops, as for any write that never committed);
//   2. frame_erasure and raw_file.zst_bytes recorded, committed (readers
//      now read the replacement);
//   3. the bytes of every frame it replaces zeroed and synced (again on a
//      resumed erasure: zeroing zeros is harmless).
// The tail's lines are written in place and synced; writing the same filler
// twice is harmless too.
#include <fcntl.h>

#include <map>

#include "core/c/faults.hpp"
#include "core/c/fd.hpp"
#include "core/c/zstd.hpp"
#include "core/store/mirror.hpp"

namespace origin {

std::string ErasedFiller(const std::string& erasure_id, std::size_t length) {
  std::string json = "{\"origin_erased\":\"" + erasure_id + "\"}";
  if (json.size() > length) return std::string(length, ' ');
  json.resize(length, ' ');
  return json;
}

namespace {

// Where line `n` (1-based) of `data` starts, and its length without the
// line break; nullopt past the end.
std::optional<std::pair<std::size_t, std::size_t>> LineRange(std::string_view data,
                                                            std::int64_t n) {
  std::size_t pos = 0;
  for (std::int64_t i = 1; i < n; ++i) {
    pos = data.find('\n', pos);
    if (pos == std::string_view::npos) return std::nullopt;
    ++pos;
  }
  std::size_t end = data.find('\n', pos);
  if (pos >= data.size() || end == std::string_view::npos) return std::nullopt;
  return std::make_pair(pos, end - pos);
}

// Puts fillers in place of `lines` (numbered from `first`) of `data`;
// whether anything changed.
bool FillLines(std::string& data, std::int64_t first, const std::vector<std::int64_t>& lines,
               const std::string& erasure_id, std::vector<std::pair<std::size_t, std::size_t>>* at) {
  bool changed = false;
  for (std::int64_t line : lines) {
    auto r = LineRange(data, line - first + 1);
    if (!r) throw MirrorBroken("erase: line " + std::to_string(line) + " is not in its mirror");
    std::string filler = ErasedFiller(erasure_id, r->second);
    if (data.compare(r->first, r->second, filler) != 0) {
      data.replace(r->first, r->second, filler);
      changed = true;
    }
    if (at != nullptr) at->push_back(*r);
  }
  return changed;
}

void ZeroRange(int fd, std::int64_t offset, std::int64_t length, const std::string& path) {
  const std::string zeros(static_cast<std::size_t>(length), '\0');
  StorePwrite(fd, zeros, offset, path);
}

}  // namespace

std::int64_t MirrorStore::EraseLines(Db& db, std::int64_t file_id,
                                     const std::vector<std::int64_t>& lines,
                                     std::int64_t erasure_seq, const std::string& erasure_id) {
  MirrorState m = Load(db, file_id);
  // Lines by the frame holding them (its content offset), and the tail's.
  std::map<std::int64_t, std::vector<std::int64_t>> by_frame;
  std::vector<std::int64_t> tail_lines;
  for (std::int64_t line : lines) {
    if (line < 1 || line > m.lines)
      throw MirrorBroken("erase: mirror " + m.mirror + " has no line " + std::to_string(line));
    if (line > m.tail_line) {
      tail_lines.push_back(line);
      continue;
    }
    auto st = db.Prepare(
        "SELECT content_offset FROM raw_chunk WHERE file_id = ? AND first_line <= ? "
        "ORDER BY content_offset DESC LIMIT 1");
    st.Bind(1, file_id).Bind(2, line);
    if (!st.Step()) throw MirrorBroken("erase: no frame of " + m.mirror + " holds line " +
                                       std::to_string(line));
    by_frame[st.Int(0)].push_back(line);
  }

  std::int64_t written = 0;
  const std::string zst_path = PathOf(m.mirror, ".zst");
  for (const auto& [offset, frame_lines] : by_frame) {
    Frame now = FrameAt(db, file_id, offset);
    std::string data = ReadFrame(m.mirror, now);
    if (FillLines(data, now.first_line, frame_lines, erasure_id, nullptr)) {
      // Step 1: the replacement, past what the store records.
      std::string frame = CompressFrame(data, 3);
      {
        UniqueFd zst = OpenFile(zst_path, O_RDWR);
        if (FileSize(zst.get(), zst_path) < m.zst_bytes)
          throw MirrorBroken("mirror " + zst_path + " is shorter than the store records");
        Ftruncate(zst.get(), m.zst_bytes, zst_path);
        StorePwrite(zst.get(), frame, m.zst_bytes, zst_path);
        StoreFdatasync(zst.get(), zst_path);
      }
      // Step 2: recorded; readers read it from now on.
      const auto length = static_cast<std::int64_t>(frame.size());
      Transaction tx(db);
      db.Prepare(
            "INSERT INTO frame_erasure(file_id, content_offset, file_offset, file_length, erasure) "
            "VALUES (?,?,?,?,?)")
          .Bind(1, file_id)
          .Bind(2, offset)
          .Bind(3, m.zst_bytes)
          .Bind(4, length)
          .Bind(5, erasure_seq)
          .Run();
      db.Prepare("UPDATE raw_file SET zst_bytes = ? WHERE id = ?")
          .Bind(1, m.zst_bytes + length)
          .Bind(2, file_id)
          .Run();
      tx.Commit();
      m.zst_bytes += length;
      ++written;
    }
    // Step 3: every earlier form of the frame zeroed: the sealed one and any
    // replacement before the latest.
    Frame latest = FrameAt(db, file_id, offset);
    std::vector<std::pair<std::int64_t, std::int64_t>> old;
    {
      auto st = db.Prepare(
          "SELECT file_offset, file_length FROM raw_chunk WHERE file_id = ?1 AND "
          "content_offset = ?2 UNION ALL SELECT file_offset, file_length FROM frame_erasure "
          "WHERE file_id = ?1 AND content_offset = ?2");
      st.Bind(1, file_id).Bind(2, offset);
      while (st.Step())
        if (st.Int(0) != latest.file_offset) old.emplace_back(st.Int(0), st.Int(1));
    }
    UniqueFd zst = OpenFile(zst_path, O_RDWR);
    for (const auto& [off, len] : old) ZeroRange(zst.get(), off, len, zst_path);
    StoreFdatasync(zst.get(), zst_path);
  }

  if (!tail_lines.empty()) {
    const std::string path = PathOf(m.mirror, ".tail");
    auto len = static_cast<std::size_t>(m.bytes - m.tail_offset);
    UniqueFd fd = OpenFile(path, O_RDWR);
    std::string data(len, '\0');
    if (PreadFull(fd.get(), data.data(), len, 0, path) != len)
      throw MirrorBroken("mirror " + path + " is shorter than the store records");
    std::vector<std::pair<std::size_t, std::size_t>> at;
    FillLines(data, m.tail_line + 1, tail_lines, erasure_id, &at);
    for (const auto& [pos, n] : at)
      StorePwrite(fd.get(), std::string_view(data).substr(pos, n), static_cast<off_t>(pos), path);
    StoreFdatasync(fd.get(), path);
  }
  return written;
}

}  // namespace origin
