// SPDX-License-Identifier: MIT
#include "core/hub/replicate.hpp"

#include "core/ingest/ingester.hpp"

namespace origin {

std::vector<RemoteCursor> DeviceCursors(Db& db, std::string_view device) {
  // The keys "@<device>:..." sort between "@<device>:" and "@<device>;"
  // (';' follows ':'), a range of raw_file's (source, key, generation)
  // index for each source.
  const std::string from = RemoteKey(device, "");
  const std::string to = from.substr(0, from.size() - 1) + ";";
  auto st = db.Prepare(
      "SELECT r.source, substr(r.key, ?3), r.path, r.generation, r.bytes_ingested, "
      "r.lines_ingested FROM (SELECT DISTINCT source FROM raw_file) s "
      "JOIN raw_file r ON r.source = s.source AND r.key >= ?1 AND r.key < ?2 "
      "ORDER BY r.source, r.key, r.generation");
  st.Bind(1, from).Bind(2, to).Bind(3, static_cast<std::int64_t>(from.size()) + 1);
  std::vector<RemoteCursor> out;
  while (st.Step()) {
    RemoteCursor c;
    c.source = std::string(st.Text(0));
    c.rel_path = std::string(st.Text(1));
    c.path = std::string(st.Text(2));
    c.generation = st.Int(3);
    c.bytes = st.Int(4);
    c.lines = st.Int(5);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace origin
