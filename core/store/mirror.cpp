// SPDX-License-Identifier: MIT
#include "core/store/mirror.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "core/c/faults.hpp"
#include "core/c/fd.hpp"
#include "core/c/zstd.hpp"

namespace origin {

std::vector<std::size_t> CutFrames(std::string_view data) {
  std::vector<std::size_t> out;
  std::size_t start = 0;
  std::size_t cur = 0;  // end of the current frame
  while (cur < data.size()) {
    std::size_t nl = data.find('\n', cur);
    std::size_t line_end = nl == std::string_view::npos ? data.size() : nl + 1;
    std::size_t line_len = line_end - cur;
    if (line_len >= kFrameTarget && cur > start) {
      out.push_back(cur - start);  // a longer line fills a frame of its own
      start = cur;
    }
    cur = line_end;
    if (cur - start >= kFrameTarget) {
      out.push_back(cur - start);
      start = cur;
    }
  }
  if (cur > start) {
    if (cur - start < kFrameMinLast && !out.empty()) {
      out.back() += cur - start;  // a last piece under half a MiB joins the frame before
    } else {
      out.push_back(cur - start);
    }
  }
  return out;
}

MirrorStore::MirrorStore(std::string raw_dir) : raw_dir_(std::move(raw_dir)) {}

std::string MirrorStore::PathOf(const std::string& mirror, const char* ext) const {
  return raw_dir_ + "/" + mirror + ext;
}

namespace {

std::int64_t CountLines(std::string_view s) {
  std::int64_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// Opens one of a mirror's files for appending after `recorded` bytes: drops
// bytes past them (left by a write that never committed: a crash, a full
// disk, a failed sync) and refuses a file shorter than recorded.  Creating
// the file can fail as a write does (a full disk): a StoreWriteError.
UniqueFd OpenForAppend(const std::string& path, std::int64_t recorded) {
  UniqueFd fd;
  try {
    fd = OpenFile(path, O_RDWR | O_CREAT, 0600);
  } catch (const std::system_error& e) {
    throw StoreWriteError(e);
  }
  off_t size = FileSize(fd.get(), path);
  if (size < recorded)
    throw MirrorBroken("mirror " + path + " holds " + std::to_string(size) +
                       " bytes but the store records " + std::to_string(recorded) +
                       ": refusing to append (invariant 1)");
  if (size > recorded) StoreFtruncate(fd.get(), recorded, path);
  return fd;
}

}  // namespace

AppendResult MirrorStore::Append(const MirrorState& state, std::string_view lines,
                                 std::int64_t line_count, bool seal, std::size_t tail_limit) {
  AppendResult r;
  r.after = state;
  std::int64_t tail_len = state.bytes - state.tail_offset;
  if (lines.empty() && !(seal && tail_len > 0)) return r;

  std::string dir = PathOf(state.mirror, "");
  dir = dir.substr(0, dir.rfind('/'));
  try {
    MakeDirs(dir, 0700);
  } catch (const std::system_error& e) {
    throw StoreWriteError(e);
  }
  const std::string tail_path = PathOf(state.mirror, ".tail");
  const std::string zst_path = PathOf(state.mirror, ".zst");
  UniqueFd tail = OpenForAppend(tail_path, tail_len);

  r.after.bytes += static_cast<std::int64_t>(lines.size());
  r.after.lines += line_count;
  if (!seal &&
      tail_len + static_cast<std::int64_t>(lines.size()) < static_cast<std::int64_t>(tail_limit)) {
    StorePwrite(tail.get(), lines, tail_len, tail_path);
    StoreFdatasync(tail.get(), tail_path);
    return r;
  }

  // Seal: the tail and the new lines become frames.
  std::string data(static_cast<std::size_t>(tail_len), '\0');
  if (PreadFull(tail.get(), data.data(), data.size(), 0, tail_path) != data.size())
    throw MirrorBroken("mirror " + tail_path + " changed while it was sealed");
  data.append(lines);
  UniqueFd zst = OpenForAppend(zst_path, state.zst_bytes);
  std::int64_t content_off = state.tail_offset;
  std::int64_t line_no = state.tail_line + 1;
  std::int64_t file_off = state.zst_bytes;
  std::size_t pos = 0;
  for (std::size_t len : CutFrames(data)) {
    std::string_view piece(data.data() + pos, len);
    std::string frame = CompressFrame(piece, 3);
    StorePwrite(zst.get(), frame, file_off, zst_path);
    std::int64_t n = CountLines(piece);
    r.frames.push_back(Frame{line_no, n, content_off, static_cast<std::int64_t>(len), file_off,
                             static_cast<std::int64_t>(frame.size())});
    line_no += n;
    content_off += static_cast<std::int64_t>(len);
    file_off += static_cast<std::int64_t>(frame.size());
    pos += len;
  }
  StoreFdatasync(zst.get(), zst_path);
  r.after.tail_offset = r.after.bytes;
  r.after.tail_line = r.after.lines;
  r.after.zst_bytes = file_off;
  r.sealed = true;
  return r;
}

void MirrorStore::RecordAppend(Db& db, const AppendResult& r) {
  auto ins = db.Prepare(
      "INSERT INTO raw_chunk(file_id, first_line, line_count, content_offset, content_length, "
      "file_offset, file_length) VALUES (?,?,?,?,?,?,?)");
  for (const Frame& f : r.frames) {
    ins.Reset();
    ins.Bind(1, r.after.file_id)
        .Bind(2, f.first_line)
        .Bind(3, f.line_count)
        .Bind(4, f.content_offset)
        .Bind(5, f.content_length)
        .Bind(6, f.file_offset)
        .Bind(7, f.file_length)
        .Run();
  }
  db.Prepare(
        "UPDATE raw_file SET bytes_ingested = ?, lines_ingested = ?, tail_offset = ?, "
        "tail_line = ?, zst_bytes = ? WHERE id = ?")
      .Bind(1, r.after.bytes)
      .Bind(2, r.after.lines)
      .Bind(3, r.after.tail_offset)
      .Bind(4, r.after.tail_line)
      .Bind(5, r.after.zst_bytes)
      .Bind(6, r.after.file_id)
      .Run();
}

void MirrorStore::AfterCommit(const AppendResult& r) noexcept {
  if (!r.sealed) return;
  // The database now says the tail is empty; its bytes are also in frames.
  // A failure here leaves bytes that the next append drops.
  const std::string path = PathOf(r.after.mirror, ".tail");
  UniqueFd fd = TryOpenFile(path, O_RDWR);
  if (!fd) return;
  try {
    StoreFtruncate(fd.get(), 0, path);
  } catch (const StoreWriteError&) {
  }
}

MirrorState MirrorStore::Load(Db& db, std::int64_t file_id) {
  auto st = db.Prepare(
      "SELECT mirror, bytes_ingested, lines_ingested, tail_offset, tail_line, zst_bytes "
      "FROM raw_file WHERE id = ?");
  st.Bind(1, file_id);
  if (!st.Step()) throw std::runtime_error("no raw_file " + std::to_string(file_id));
  MirrorState m;
  m.file_id = file_id;
  m.mirror = std::string(st.Text(0));
  m.bytes = st.Int(1);
  m.lines = st.Int(2);
  m.tail_offset = st.Int(3);
  m.tail_line = st.Int(4);
  m.zst_bytes = st.Int(5);
  return m;
}

Frame MirrorStore::FrameAt(Db& db, std::int64_t file_id, std::int64_t content_offset) {
  auto st = db.Prepare(
      "SELECT c.first_line, c.line_count, c.content_length, "
      "coalesce(x.file_offset, c.file_offset), coalesce(x.file_length, c.file_length) "
      "FROM raw_chunk c LEFT JOIN (SELECT file_offset, file_length FROM frame_erasure "
      "WHERE file_id = ?1 AND content_offset = ?2 ORDER BY file_offset DESC LIMIT 1) x "
      "WHERE c.file_id = ?1 AND c.content_offset = ?2");
  st.Bind(1, file_id).Bind(2, content_offset);
  if (!st.Step()) throw std::runtime_error("no frame at " + std::to_string(content_offset));
  return Frame{st.Int(0), st.Int(1), content_offset, st.Int(2), st.Int(3), st.Int(4)};
}

std::string MirrorStore::ReadFrame(const std::string& mirror, const Frame& f) const {
  const std::string path = PathOf(mirror, ".zst");
  UniqueFd fd = OpenFile(path, O_RDONLY);
  auto flen = static_cast<std::size_t>(f.file_length);
  std::string frame(flen, '\0');
  if (PreadFull(fd.get(), frame.data(), flen, f.file_offset, path) != flen)
    throw MirrorBroken("mirror " + path + " is shorter than the store records");
  return DecompressFrame(frame, static_cast<std::size_t>(f.content_length));
}

namespace {

// A frame's content.  An erasure may rewrite the frame between the lookup
// and the read, and zero the old bytes: then it is looked up again.
std::string ReadFrameAt(Db& db, const MirrorStore& store, const std::string& mirror,
                        std::int64_t file_id, std::int64_t content_offset,
                        std::int64_t* first_line) {
  Frame f = MirrorStore::FrameAt(db, file_id, content_offset);
  *first_line = f.first_line;
  try {
    return store.ReadFrame(mirror, f);
  } catch (const MirrorBroken&) {
    throw;
  } catch (const std::exception&) {
    Frame again = MirrorStore::FrameAt(db, file_id, content_offset);
    if (again.file_offset == f.file_offset) throw;
    return store.ReadFrame(mirror, again);
  }
}

std::optional<std::string> NthLine(std::string_view data, std::int64_t n) {
  std::size_t pos = 0;
  for (std::int64_t i = 1; i < n; ++i) {
    pos = data.find('\n', pos);
    if (pos == std::string_view::npos) return std::nullopt;
    ++pos;
  }
  if (pos >= data.size()) return std::nullopt;
  std::size_t end = data.find('\n', pos);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(data.substr(pos, end - pos));
}

}  // namespace

std::optional<std::string> MirrorStore::ReadLine(Db& db, std::int64_t file_id, std::int64_t line) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    MirrorState m = Load(db, file_id);
    if (line < 1 || line > m.lines) return std::nullopt;
    if (line <= m.tail_line) {
      auto st = db.Prepare(
          "SELECT content_offset FROM raw_chunk WHERE file_id = ? AND first_line <= ? "
          "ORDER BY content_offset DESC LIMIT 1");
      st.Bind(1, file_id).Bind(2, line);
      if (!st.Step()) return std::nullopt;
      std::int64_t off = st.Int(0);
      std::int64_t first = 0;
      std::string data = ReadFrameAt(db, *this, m.mirror, file_id, off, &first);
      return NthLine(data, line - first + 1);
    }
    const std::string path = PathOf(m.mirror, ".tail");
    auto len = static_cast<std::size_t>(m.bytes - m.tail_offset);
    UniqueFd fd = TryOpenFile(path, O_RDONLY);
    std::string data(len, '\0');
    if (fd && PreadFull(fd.get(), data.data(), len, 0, path) == len)
      return NthLine(data, line - m.tail_line);
    // The tail was emptied by a seal since we read the state: read again.
  }
  throw MirrorBroken("mirror of raw_file " + std::to_string(file_id) +
                     " is shorter than the store records");
}

std::string MirrorStore::ReadContent(Db& db, std::int64_t file_id) {
  MirrorState m = Load(db, file_id);
  std::string out;
  std::vector<std::int64_t> offsets;
  {
    auto st = db.Prepare(
        "SELECT content_offset FROM raw_chunk WHERE file_id = ? ORDER BY content_offset");
    st.Bind(1, file_id);
    while (st.Step()) offsets.push_back(st.Int(0));
  }
  for (std::int64_t off : offsets) {
    std::int64_t first = 0;
    out += ReadFrameAt(db, *this, m.mirror, file_id, off, &first);
  }
  if (static_cast<std::int64_t>(out.size()) != m.tail_offset)
    throw MirrorBroken("frames of " + m.mirror + " do not add up to the recorded tail offset");
  const std::string path = PathOf(m.mirror, ".tail");
  auto len = static_cast<std::size_t>(m.bytes - m.tail_offset);
  if (len > 0) {
    UniqueFd fd = OpenFile(path, O_RDONLY);
    std::string tail(len, '\0');
    if (PreadFull(fd.get(), tail.data(), len, 0, path) != len)
      throw MirrorBroken("mirror " + path + " is shorter than the store records");
    out += tail;
  }
  return out;
}

std::string MirrorStore::ReadRange(Db& db, std::int64_t file_id, std::int64_t from,
                                   std::int64_t to) {
  if (from >= to) return {};
  for (int attempt = 0; attempt < 5; ++attempt) {
    const MirrorState m = Load(db, file_id);
    if (to > m.bytes)
      throw MirrorBroken("mirror " + m.mirror + " holds " + std::to_string(m.bytes) +
                         " bytes, not " + std::to_string(to));
    std::string out;
    // The part in frames: each frame that overlaps [from, min(to, tail_offset)).
    if (from < m.tail_offset) {
      auto st = db.Prepare(
          "SELECT content_offset, content_length FROM raw_chunk WHERE file_id = ? "
          "AND content_offset < ? AND content_offset + content_length > ? ORDER BY content_offset");
      st.Bind(1, file_id).Bind(2, std::min(to, m.tail_offset)).Bind(3, from);
      std::vector<std::pair<std::int64_t, std::int64_t>> frames;
      while (st.Step()) frames.emplace_back(st.Int(0), st.Int(1));
      st.Reset();
      for (const auto& [off, len] : frames) {
        std::int64_t first = 0;
        std::string data = ReadFrameAt(db, *this, m.mirror, file_id, off, &first);
        const std::int64_t a = std::max(from, off), b = std::min(to, off + len);
        out.append(data, static_cast<std::size_t>(a - off), static_cast<std::size_t>(b - a));
      }
      if (static_cast<std::int64_t>(out.size()) != std::min(to, m.tail_offset) - from)
        throw MirrorBroken("frames of " + m.mirror + " do not cover the content they record");
    }
    if (to <= m.tail_offset) return out;
    const std::int64_t a = std::max(from, m.tail_offset);
    const auto len = static_cast<std::size_t>(to - a);
    const std::string path = PathOf(m.mirror, ".tail");
    UniqueFd fd = TryOpenFile(path, O_RDONLY);
    std::string tail(len, '\0');
    const bool whole = fd && PreadFull(fd.get(), tail.data(), len, a - m.tail_offset, path) == len;
    // A seal commits the new tail offset before it empties the tail: when
    // the offset is still the same after the read, the read saw this tail.
    if (whole && Load(db, file_id).tail_offset == m.tail_offset) return out + tail;
    if (!whole && Load(db, file_id).tail_offset == m.tail_offset)
      throw MirrorBroken("mirror " + path + " is shorter than the store records");
  }
  throw MirrorBroken("mirror of raw_file " + std::to_string(file_id) +
                     " kept changing while it was read");
}

}  // namespace origin
