// SPDX-License-Identifier: MIT
#pragma once
// zstd frames for the raw mirrors: one-shot compression of a frame (level 3,
// with a content checksum and the content size in its header) and one-shot
// decompression of a frame whose size raw_chunk records.  A streaming reader
// serves compressed agent logs (Codex .jsonl.zst), whose size is unknown.

#include <zstd.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace origin {

class ZstdError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <auto FreeFn>
struct FreeWith {
  template <typename T>
  void operator()(T* p) const noexcept {
    if (p != nullptr) FreeFn(p);
  }
};
using ZstdCCtx = std::unique_ptr<ZSTD_CCtx, FreeWith<&ZSTD_freeCCtx>>;
using ZstdDCtx = std::unique_ptr<ZSTD_DCtx, FreeWith<&ZSTD_freeDCtx>>;

/// Compresses `content` into one frame at `level`, with checksum.
std::string CompressFrame(std::string_view content, int level = 3);
/// Decompresses one frame that must hold exactly `expected_size` bytes.
std::string DecompressFrame(std::string_view frame, std::size_t expected_size);

/// Reads the decompressed content of a zstd file sequentially.
class ZstdFileReader {
 public:
  explicit ZstdFileReader(int fd, std::string path);
  /// Fills up to `n` bytes; 0 at the end.  Throws ZstdError on corrupt data.
  std::size_t Read(char* out, std::size_t n);

 private:
  int fd_;
  std::string path_;
  ZstdDCtx dctx_;
  std::string in_;
  ZSTD_inBuffer inbuf_{nullptr, 0, 0};
  off_t file_off_ = 0;
  bool eof_ = false;
};

}  // namespace origin
