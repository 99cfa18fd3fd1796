// SPDX-License-Identifier: MIT
#include "core/store/verify.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <zstd.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "core/c/fd.hpp"
#include "core/c/zstd.hpp"
#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "core/util/text.hpp"

namespace origin {

void VerifyCheck::Add(std::string problem) {
  ++problem_count;
  if (problems.size() < kMaxListed) problems.push_back(std::move(problem));
}

VerifyCheck VerifySchema(Db& db) {
  VerifyCheck c{"schema"};
  const std::int64_t store = db.QueryInt("PRAGMA main.user_version");
  ++c.checked;
  if (store != kSchemaVersion)
    c.Add("origin.db is format " + std::to_string(store) + ", not " +
          std::to_string(kSchemaVersion) + " (the latest)");
  const std::int64_t index = db.QueryInt("PRAGMA idx.user_version");
  ++c.checked;
  // 0: index.db not made yet (the indexer makes it); any other version is
  // built again by the indexer, but until then it is not this build's.
  if (index != kIndexVersion)
    c.Add("index.db is format " + std::to_string(index) + ", not " + std::to_string(kIndexVersion) +
          " (the indexer builds it again)");
  return c;
}

VerifyCheck VerifyDatabase(Db& db) {
  VerifyCheck c{"database"};
  for (const char* schema : {"main", "idx"}) {
    ++c.checked;
    for (const std::string& row : QuickCheck(db, schema, 20))
      c.Add(std::string(schema[0] == 'm' ? "origin.db" : "index.db") + ": " + row);
  }
  return c;
}

namespace {

std::int64_t CountLines(std::string_view s) { return std::count(s.begin(), s.end(), '\n'); }

std::vector<std::string> CheckOnce(Db& db, MirrorStore& mirrors, std::int64_t file_id,
                                   std::int64_t* checked, std::int64_t* tail_offset) {
  ReadSnapshot tx(db);
  std::vector<std::string> out;
  const MirrorState m = MirrorStore::Load(db, file_id);
  *tail_offset = m.tail_offset;
  const std::string& name = m.mirror;
  const std::string zst = mirrors.PathOf(name, ".zst");
  UniqueFd fd = TryOpenFile(zst, O_RDONLY);
  std::int64_t zst_size = 0;
  if (fd) {
    zst_size = FileSize(fd.get(), zst);
  } else if (m.zst_bytes > 0) {
    out.push_back("mirror " + name + ": " + name + ".zst is missing (" +
                  std::to_string(m.zst_bytes) + " bytes of frames recorded)");
  }
  if (fd && zst_size < m.zst_bytes)
    out.push_back("mirror " + name + ": " + name + ".zst holds " + std::to_string(zst_size) +
                  " bytes, the store records " + std::to_string(m.zst_bytes));
  // A frame an erasure rewrote (core/erase) is read from its replacement,
  // appended to the .zst (the old bytes are zeroed); the frames and the
  // replacements together fill the .zst's recorded bytes, in file order.
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> replaced;  // by content offset
  std::vector<std::pair<std::int64_t, std::int64_t>> pieces;               // file offset, length
  {
    auto x = db.Prepare(
        "SELECT content_offset, file_offset, file_length FROM frame_erasure WHERE file_id = ? "
        "ORDER BY file_offset");
    x.Bind(1, file_id);
    while (x.Step()) {
      replaced[x.Int(0)] = {x.Int(1), x.Int(2)};  // the latest replacement wins
      pieces.emplace_back(x.Int(1), x.Int(2));
    }
  }
  auto st = db.Prepare(
      "SELECT first_line, line_count, content_offset, content_length, file_offset, file_length "
      "FROM raw_chunk WHERE file_id = ? ORDER BY content_offset");
  st.Bind(1, file_id);
  std::int64_t content = 0, line = 1;
  std::string frame;
  while (st.Step()) {
    Frame f{st.Int(0), st.Int(1), st.Int(2), st.Int(3), st.Int(4), st.Int(5)};
    ++*checked;
    pieces.emplace_back(f.file_offset, f.file_length);
    if (auto r = replaced.find(f.content_offset); r != replaced.end())
      std::tie(f.file_offset, f.file_length) = r->second;
    const std::string at = "mirror " + name + ": frame at content offset " +
                           std::to_string(f.content_offset) + " (file offset " +
                           std::to_string(f.file_offset) + ")";
    if (f.content_offset != content || f.first_line != line)
      out.push_back(at + " does not follow the frame before (expected content offset " +
                    std::to_string(content) + ", line " + std::to_string(line) + ")");
    content = f.content_offset + f.content_length;
    line = f.first_line + f.line_count;
    if (!fd || f.file_offset + f.file_length > zst_size) continue;  // said above
    frame.resize(static_cast<std::size_t>(f.file_length));
    PreadFull(fd.get(), frame.data(), frame.size(), f.file_offset, zst);
    if (ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size()) {
      out.push_back(at + " is not one zstd frame of " + std::to_string(f.file_length) + " bytes");
      continue;
    }
    try {
      const std::string data = DecompressFrame(frame, static_cast<std::size_t>(f.content_length));
      if (CountLines(data) != f.line_count || data.empty() || data.back() != '\n')
        out.push_back(at + " holds " + std::to_string(CountLines(data)) +
                      " complete lines, the store records " + std::to_string(f.line_count));
    } catch (const ZstdError& e) {
      out.push_back(at + " does not decompress to the " + std::to_string(f.content_length) +
                    " bytes recorded: " + e.what());
    }
  }
  std::sort(pieces.begin(), pieces.end());
  std::int64_t file = 0;
  for (const auto& [offset, length] : pieces) {
    if (offset != file)
      out.push_back("mirror " + name + ": " + name + ".zst has " +
                    (offset > file ? "a gap" : "an overlap") + " at file offset " +
                    std::to_string(std::min(offset, file)) +
                    " between the frames the store records");
    file = std::max(file, offset + length);
  }
  if (content != m.tail_offset || file != m.zst_bytes || line - 1 != m.tail_line)
    out.push_back("mirror " + name + ": its frames end at content offset " +
                  std::to_string(content) + ", file offset " + std::to_string(file) + ", line " +
                  std::to_string(line - 1) + "; the store records the tail at " +
                  std::to_string(m.tail_offset) + ", " + std::to_string(m.zst_bytes) + ", " +
                  std::to_string(m.tail_line));
  const std::int64_t len = m.bytes - m.tail_offset;
  const std::string tail = mirrors.PathOf(name, ".tail");
  ++*checked;
  UniqueFd tfd = TryOpenFile(tail, O_RDONLY);
  if (!tfd) {
    if (len > 0)
      out.push_back("mirror " + name + ": " + name + ".tail is missing (" + std::to_string(len) +
                    " bytes recorded)");
    return out;
  }
  const std::int64_t size = FileSize(tfd.get(), tail);
  if (size < len) {
    out.push_back("mirror " + name + ": " + name + ".tail is truncated: it holds " +
                  std::to_string(size) + " bytes, the store records " + std::to_string(len));
    return out;
  }
  std::string data(static_cast<std::size_t>(len), '\0');
  PreadFull(tfd.get(), data.data(), data.size(), 0, tail);
  if (CountLines(data) != m.lines - m.tail_line || (len > 0 && data.back() != '\n'))
    out.push_back("mirror " + name + ": " + name + ".tail holds " +
                  std::to_string(CountLines(data)) + " complete lines, the store records " +
                  std::to_string(m.lines - m.tail_line));
  return out;
}

}  // namespace

std::vector<std::string> VerifyMirror(Db& db, MirrorStore& mirrors, std::int64_t file_id,
                                      std::int64_t* checked) {
  std::vector<std::string> out;
  std::int64_t last_tail = -1;
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::int64_t n = 0, tail_offset = 0;
    out = CheckOnce(db, mirrors, file_id, &n, &tail_offset);
    if (attempt == 0) *checked += n;
    // A problem seen twice with the tail where it was is no race with a seal.
    if (out.empty() || tail_offset == last_tail) break;
    last_tail = tail_offset;
  }
  return out;
}

VerifyCheck VerifyMirrors(Db& db, MirrorStore& mirrors) {
  VerifyCheck c{"mirrors"};
  std::vector<std::int64_t> ids;
  {
    auto st = db.Prepare("SELECT id FROM raw_file ORDER BY id");
    while (st.Step()) ids.push_back(st.Int(0));
  }
  for (std::int64_t id : ids)
    for (std::string& p : VerifyMirror(db, mirrors, id, &c.checked)) c.Add(std::move(p));
  return c;
}

VerifyCheck VerifyIndex(Db& db) {
  VerifyCheck c{"index"};
  ReadSnapshot tx(db);
  const std::int64_t upto = IndexedUpto(db);
  // The rows each table holds: a contentless FTS5 table keeps one row of
  // <table>_docsize per document, keyed by its rowid (event.seq).
  std::vector<std::int64_t> rows[3];
  const char* const names[3] = {"message_fts", "event_fts", "event_cjk"};
  for (int t = 0; t < 3; ++t) {
    auto st = db.Prepare(std::string("SELECT id FROM idx.") + names[t] + "_docsize ORDER BY id");
    while (st.Step()) rows[t].push_back(st.Int(0));
  }
  std::size_t at[3] = {0, 0, 0};
  // An erased event (core/erase) has no text left: its rows were deleted,
  // and a rebuilt index holds it as an empty document; either is right.
  auto st = db.Prepare(
      "SELECT seq, id, kind = 'message', text, seq IN (SELECT seq FROM erased_event) "
      "FROM event WHERE seq <= ? ORDER BY seq");
  st.Bind(1, upto);
  while (st.Step()) {
    const std::int64_t seq = st.Int(0);
    ++c.checked;
    const bool erased = st.Int(4) != 0;
    const bool in[3] = {st.Int(2) != 0, st.Int(2) == 0, !CjkTokens(st.Text(3)).empty()};
    for (int t = 0; t < 3; ++t) {
      std::vector<std::int64_t>& r = rows[t];
      for (; at[t] < r.size() && r[at[t]] < seq; ++at[t])
        c.Add(std::string(names[t]) + " holds row " + std::to_string(r[at[t]]) +
              ", which is no event");
      const bool has = at[t] < r.size() && r[at[t]] == seq;
      if (has) ++at[t];
      if (has != in[t] && !erased)
        c.Add(std::string(names[t]) + (has ? " holds" : " lacks") + " event " +
              std::string(st.Text(1)) + " (seq " + std::to_string(seq) + ")");
    }
  }
  for (int t = 0; t < 3; ++t)
    for (; at[t] < rows[t].size(); ++at[t])
      c.Add(std::string(names[t]) + " holds row " + std::to_string(rows[t][at[t]]) +
            ", past what it says it indexed (" + std::to_string(upto) + ")");
  return c;
}

VerifyCheck VerifyNoInterruptedBackup(const std::string& home) {
  VerifyCheck c{"backup"};
  ++c.checked;
  struct stat st;
  if (::stat((home + "/backup.swap").c_str(), &st) == 0)
    c.Add("a backup into this directory did not finish: run the same origin backup again");
  return c;
}

}  // namespace origin
