// SPDX-License-Identifier: MIT
#include "core/ingest/content.hpp"

#include <fcntl.h>

#include <algorithm>
#include <stdexcept>

#include "core/c/fd.hpp"
#include "core/c/zstd.hpp"

namespace origin {

namespace {

class PlainContent final : public Content {
 public:
  PlainContent(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  std::size_t ReadAt(std::int64_t offset, char* buf, std::size_t n) override {
    return PreadFull(fd_.get(), buf, n, offset, path_);
  }

 private:
  UniqueFd fd_;
  std::string path_;
};

class ZstdContent final : public Content {
 public:
  ZstdContent(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {
    Restart();
  }
  std::size_t ReadAt(std::int64_t offset, char* buf, std::size_t n) override {
    if (offset < pos_) Restart();
    char scratch[65536];
    while (pos_ < offset) {
      std::size_t want = static_cast<std::size_t>(
          std::min<std::int64_t>(offset - pos_, static_cast<std::int64_t>(sizeof scratch)));
      std::size_t got = reader_->Read(scratch, want);
      if (got == 0) return 0;
      pos_ += static_cast<std::int64_t>(got);
    }
    std::size_t done = 0;
    while (done < n) {
      std::size_t got = reader_->Read(buf + done, n - done);
      if (got == 0) break;
      done += got;
    }
    pos_ += static_cast<std::int64_t>(done);
    return done;
  }

 private:
  void Restart() {
    reader_ = std::make_unique<ZstdFileReader>(fd_.get(), path_);
    pos_ = 0;
  }
  UniqueFd fd_;
  std::string path_;
  std::unique_ptr<ZstdFileReader> reader_;
  std::int64_t pos_ = 0;
};

}  // namespace

std::unique_ptr<Content> OpenContent(const std::string& path, bool zstd) {
  UniqueFd fd = TryOpenFile(path, O_RDONLY);
  if (!fd) return nullptr;
  if (zstd) return std::make_unique<ZstdContent>(std::move(fd), path);
  return std::make_unique<PlainContent>(std::move(fd), path);
}

Chunk ReadChunk(Content& content, std::int64_t start, std::size_t max_bytes, std::size_t max_line) {
  Chunk c;
  std::string buf(max_bytes, '\0');
  std::size_t got = content.ReadAt(start, buf.data(), buf.size());
  buf.resize(got);
  std::size_t nl = buf.rfind('\n');
  if (nl != std::string::npos) {
    c.at_eof = got < max_bytes;
    buf.resize(nl + 1);
  } else if (got < max_bytes) {
    c.at_eof = true;  // only a partial line: it waits
    buf.clear();
  } else {
    // One line longer than a transaction: it takes a transaction of its own.
    std::int64_t off = start + static_cast<std::int64_t>(got);
    std::string block(max_bytes, '\0');
    for (;;) {
      if (buf.size() > max_line)
        throw std::runtime_error("a line of more than " + std::to_string(max_line >> 20) +
                                 " MiB at byte " + std::to_string(start) +
                                 ": not ingested, and nothing after it");
      std::size_t n = content.ReadAt(off, block.data(), block.size());
      std::size_t p = std::string_view(block.data(), n).find('\n');
      if (p != std::string_view::npos) {
        buf.append(block.data(), p + 1);
        break;
      }
      if (n < block.size()) {
        buf.clear();
        c.at_eof = true;
        break;
      }
      buf.append(block.data(), n);
      off += static_cast<std::int64_t>(n);
    }
  }
  c.data = std::move(buf);
  for (char ch : c.data) c.lines += ch == '\n';
  return c;
}

}  // namespace origin
