// SPDX-License-Identifier: MIT
// Harness: the socket protocol's line decoder, as the daemon reads a client
// (daemon/server.cpp).  The input's first byte sets the size of the reads
// (1 to 64 bytes) the rest arrives in; the lines the LineBuffer gives are a
// hello (decoded as the client's and as the daemon's) and then requests
// (DecodeRequestLine), whose params are decoded as every request of
// proto/requests.hpp.  What decodes must encode (as the clients send it)
// into params that decode again, read exactly, to the same encoding.

#include <cstdlib>
#include <string>

#include "daemon/server.hpp"
#include "proto/protocol.hpp"
#include "proto/requests.hpp"
#include "tests/fuzz/fuzz.hpp"

namespace {

using namespace origin;

template <class Request, class... Extra>
void Check(const rapidjson::Value* params, Extra... extra) {
  Request r;
  std::string error;
  if (!proto::Decode(params, &r, &error, extra...)) return;
  const std::string sent = proto::Encode(r, extra...);
  rapidjson::Document d;
  // The daemon's own encoding, read exactly (a default parse can miss a
  // long number by an ulp: proto::kJsonParseFlags).
  d.Parse<rapidjson::kParseFullPrecisionFlag>(sent.data(), sent.size());
  Request again;
  if (d.HasParseError() || !proto::Decode(&d, &again, &error, extra...) ||
      proto::Encode(again, extra...) != sent)
    std::abort();
}

void Request(std::string_view line) {
  RequestLine r;
  DecodeRequestLine(line, &r);
  if (r.error) return;
  proto::NoRequest none;
  std::string error;
  proto::Decode(r.params, &none, &error);
  Check<proto::SyncRequest>(r.params);
  Check<proto::TimelineRequest>(r.params);
  Check<proto::SearchRequest>(r.params);
  Check<proto::EntriesRequest>(r.params);
  Check<proto::ForgottenRequest>(r.params);
  Check<proto::IdRequest>(r.params);
  Check<proto::EntryRequest>(r.params, false);
  Check<proto::EntryRequest>(r.params, true);
  Check<proto::TombstoneRequest>(r.params, "target");
  Check<proto::TombstoneRequest>(r.params, "id");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 64;
  proto::LineBuffer buf;
  bool hello = true;
  for (std::size_t at = 1; at < size; at += chunk) {
    buf.Append(reinterpret_cast<const char*>(data) + at, std::min(chunk, size - at));
    while (auto line = buf.Next()) {
      if (hello) {
        std::string error;
        if (auto h = proto::DecodeClientHello(*line, &error))
          proto::CompareVersions(h->version, "0.1.0");
        proto::DecodeDaemonHello(*line, &error);
        hello = false;
      } else {
        Request(*line);
      }
    }
  }
  return 0;
}
