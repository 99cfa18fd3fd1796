// SPDX-License-Identifier: MIT
#include "daemon/http/body_coding.hpp"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <stdexcept>

namespace origin::http {

namespace {

// zlib's stream, ended however the inflation ends.
class Inflater {
 public:
  Inflater() { ok_ = inflateInit2(&z_, 16 + MAX_WBITS) == Z_OK; }  // 16: gzip only
  ~Inflater() {
    if (ok_) inflateEnd(&z_);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  bool ok() const { return ok_; }
  z_stream* get() { return &z_; }

 private:
  z_stream z_{};
  bool ok_ = false;
};

}  // namespace

InflateStatus Gunzip(std::string_view body, std::size_t limit, std::string* out) {
  out->clear();
  if (body.size() > UINT_MAX) return InflateStatus::kTooLarge;
  Inflater inf;
  if (!inf.ok()) return InflateStatus::kMalformed;
  z_stream* z = inf.get();
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  z->avail_in = static_cast<uInt>(body.size());
  constexpr std::size_t kStep = 64 * 1024;
  for (;;) {
    // Room for one more step, and one byte past the limit: output that
    // reaches it is too large.
    const std::size_t room = std::min(kStep, limit + 1 - out->size());
    const std::size_t had = out->size();
    out->resize(had + room);
    z->next_out = reinterpret_cast<Bytef*>(out->data() + had);
    z->avail_out = static_cast<uInt>(room);
    const int rc = inflate(z, Z_NO_FLUSH);
    out->resize(had + (room - z->avail_out));
    if (out->size() > limit) return InflateStatus::kTooLarge;
    if (rc == Z_STREAM_END)
      return z->avail_in == 0 ? InflateStatus::kOk : InflateStatus::kMalformed;
    if (rc != Z_OK) return InflateStatus::kMalformed;  // Z_BUF_ERROR: truncated
    if (z->avail_in == 0 && z->avail_out != 0) return InflateStatus::kMalformed;
  }
}

std::string Gzip(std::string_view data, int level) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib: deflateInit2 failed");
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib: deflate failed");
  return out;
}

InflateStatus Unzstd(std::string_view body, std::size_t limit, std::string* out) {
  out->clear();
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> d(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!d || ZSTD_isError(ZSTD_DCtx_setParameter(d.get(), ZSTD_d_windowLogMax, kZstdWindowLogMax)))
    return InflateStatus::kMalformed;
  if (body.empty()) return InflateStatus::kMalformed;
  ZSTD_inBuffer in{body.data(), body.size(), 0};
  constexpr std::size_t kStep = 64 * 1024;
  std::size_t pending = 1;  // ZSTD_decompressStream's: 0 once a frame is whole
  while (in.pos < in.size || pending != 0) {
    // Room for one more step, and one byte past the limit: output that
    // reaches it is too large.
    const std::size_t room = std::min(kStep, limit + 1 - out->size());
    const std::size_t had = out->size();
    out->resize(had + room);
    ZSTD_outBuffer o{out->data() + had, room, 0};
    const std::size_t was_in = in.pos;
    pending = ZSTD_decompressStream(d.get(), &o, &in);
    out->resize(had + o.pos);
    if (ZSTD_isError(pending)) return InflateStatus::kMalformed;
    if (out->size() > limit) return InflateStatus::kTooLarge;
    // No input left and none taken, output room to spare, and the frame
    // not done: it was cut short.
    if (pending != 0 && in.pos == in.size && in.pos == was_in && o.pos < room)
      return InflateStatus::kMalformed;
  }
  return InflateStatus::kOk;
}

std::string Zstd(std::string_view data, int level) {
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> c(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!c || ZSTD_isError(ZSTD_CCtx_setParameter(c.get(), ZSTD_c_compressionLevel, level)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(c.get(), ZSTD_c_checksumFlag, 1)))
    throw std::runtime_error("zstd: cannot set up compression");
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const std::size_t n = ZSTD_compress2(c.get(), out.data(), out.size(), data.data(), data.size());
  if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

}  // namespace origin::http
