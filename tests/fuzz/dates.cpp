// SPDX-License-Identifier: MIT
// Harness: the date and time parsers.  The input is the text, given to
// the parser of what people and agents type (proto/time.hpp: ParseWhen,
// ParseDateTime) and to the parser of agents' timestamps
// (core/util/text.hpp: ParseIsoMs).  Besides not crashing, an instant
// either accepts, written back as ISO 8601 UTC (FormatIsoUtc, as Origin
// shows times), must read back as the same instant, in both.

#include <cstdlib>

#include "core/util/text.hpp"
#include "proto/time.hpp"
#include "tests/fuzz/fuzz.hpp"

namespace {

// Years 0000 to 9999, the ones ISO 8601's four digits write.
constexpr std::int64_t kFirst = -62167219200000, kLast = 253402300799999;

void RoundTrip(std::int64_t ms) {
  if (ms < kFirst || ms > kLast) return;
  const std::string iso = origin::FormatIsoUtc(ms);
  if (origin::proto::ParseDateTime(iso) != ms || origin::ParseIsoMs(iso) != ms) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view s = origin::fuzz::Text(data, size);
  if (auto at = origin::proto::ParseDateTime(s)) RoundTrip(*at);
  origin::proto::ParseWhen(s, 1767225600000);
  if (auto ms = origin::ParseIsoMs(s)) RoundTrip(*ms);
  return 0;
}
