// SPDX-License-Identifier: MIT
#include "core/c/zstd.hpp"

#include "core/c/fd.hpp"

namespace origin {

std::string CompressFrame(std::string_view content, int level) {
  ZstdCCtx cctx(ZSTD_createCCtx());
  if (!cctx) throw ZstdError("zstd: out of memory");
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1);
  std::string out(ZSTD_compressBound(content.size()), '\0');
  std::size_t n =
      ZSTD_compress2(cctx.get(), out.data(), out.size(), content.data(), content.size());
  if (ZSTD_isError(n)) throw ZstdError(std::string("zstd compress: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

std::string DecompressFrame(std::string_view frame, std::size_t expected_size) {
  std::string out(expected_size, '\0');
  std::size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n)) throw ZstdError(std::string("zstd decompress: ") + ZSTD_getErrorName(n));
  if (n != expected_size) throw ZstdError("zstd decompress: frame holds a different size");
  return out;
}

ZstdFileReader::ZstdFileReader(int fd, std::string path)
    : fd_(fd), path_(std::move(path)), dctx_(ZSTD_createDCtx()), in_(ZSTD_DStreamInSize(), '\0') {
  if (!dctx_) throw ZstdError("zstd: out of memory");
}

std::size_t ZstdFileReader::Read(char* out, std::size_t n) {
  ZSTD_outBuffer outbuf{out, n, 0};
  while (outbuf.pos == 0) {
    if (inbuf_.pos == inbuf_.size) {
      if (eof_) return 0;
      std::size_t got = PreadFull(fd_, in_.data(), in_.size(), file_off_, path_);
      file_off_ += static_cast<off_t>(got);
      if (got == 0) {
        eof_ = true;
        return 0;
      }
      inbuf_ = {in_.data(), got, 0};
    }
    std::size_t rc = ZSTD_decompressStream(dctx_.get(), &outbuf, &inbuf_);
    if (ZSTD_isError(rc))
      throw ZstdError("zstd decompress " + path_ + ": " + ZSTD_getErrorName(rc));
  }
  return outbuf.pos;
}

}  // namespace origin
