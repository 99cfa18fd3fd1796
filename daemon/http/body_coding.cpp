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

DecodeStatus Gunzip(std::string_view body, std::size_t limit, std::string* out) {
  out->clear();
  if (body.size() > UINT_MAX) return DecodeStatus::kTooLarge;
  Inflater inf;
  if (!inf.ok()) return DecodeStatus::kMalformed;
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
    if (out->size() > limit) return DecodeStatus::kTooLarge;
    if (rc == Z_STREAM_END) return z->avail_in == 0 ? DecodeStatus::kOk : DecodeStatus::kMalformed;
    if (rc != Z_OK) return DecodeStatus::kMalformed;  // Z_BUF_ERROR: truncated
    if (z->avail_in == 0 && z->avail_out != 0) return DecodeStatus::kMalformed;
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

DecodeStatus Unzstd(std::string_view body, std::size_t limit, std::string* out) {
  out->clear();
  // One frame of the format RFC 8878 names, nothing else: not the legacy
  // formats libzstd still reads (which ignore the window limit), not
  // skippable frames, not a second frame.
  if (body.size() < 4) return DecodeStatus::kMalformed;
  for (int k = 0; k < 4; ++k)  // the magic number, little-endian
    if (static_cast<unsigned char>(body[k]) != ((ZSTD_MAGICNUMBER >> (8 * k)) & 0xff))
      return DecodeStatus::kMalformed;
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> d(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!d || ZSTD_isError(ZSTD_DCtx_setParameter(d.get(), ZSTD_d_windowLogMax, kZstdWindowLogMax)))
    return DecodeStatus::kMalformed;
  ZSTD_inBuffer in{body.data(), body.size(), 0};
  constexpr std::size_t kStep = 64 * 1024;
  std::string step(kStep, '\0');
  for (;;) {
    ZSTD_outBuffer o{step.data(), step.size(), 0};
    const std::size_t was_in = in.pos;
    const std::size_t left = ZSTD_decompressStream(d.get(), &o, &in);
    if (ZSTD_isError(left)) return DecodeStatus::kMalformed;
    // Output that passes the limit is too large.
    if (o.pos > limit - out->size()) return DecodeStatus::kTooLarge;
    out->append(step.data(), o.pos);
    if (left == 0)  // the frame is whole: nothing may follow it
      return in.pos == in.size ? DecodeStatus::kOk : DecodeStatus::kMalformed;
    // No input left, none taken and room to spare, the frame not done:
    // it was cut short.
    if (in.pos == in.size && in.pos == was_in && o.pos < o.size) return DecodeStatus::kMalformed;
  }
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
