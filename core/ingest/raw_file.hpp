// SPDX-License-Identifier: MIT
#pragma once
// The raw_file cursor of ingestion (spec: Ingestion, Raw mirrors): each
// generation of a mirrored file is a raw_file row holding how far it was
// ingested (bytes_ingested, lines_ingested), the SHA-256 of the last
// kHashWindow bytes before that (tail_hash; a generated stream's token
// instead), where its open tail starts, the stat of the last look, the
// adapter's carried state, and why appends are refused when its mirror is
// broken.  A rewritten file gets a new generation with a mirror of its own
// (invariant 3).  Read under the write lock, in the caller's transaction.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/c/sqlite.hpp"
#include "core/ingest/adapter.hpp"
#include "core/store/mirror.hpp"

namespace origin {

/// How much content before the cursor tail_hash covers.
inline constexpr std::size_t kHashWindow = 4096;

/// The cursor and mirror of a file's latest generation.
struct RawRow {
  std::int64_t id = 0;
  std::int64_t generation = 0;
  std::string path;
  MirrorState mirror;
  std::string tail_hash;
  std::optional<std::int64_t> file_size, mtime_ns;
  std::string parse_state;
  std::optional<std::string> broken;
};

/// What raw_file.parse_state keeps of `state`: its Save(), or NULL for an
/// adapter that keeps none.
inline std::optional<std::string> SavedState(const FileState* state) {
  return state != nullptr ? std::optional<std::string>(state->Save()) : std::nullopt;
}
/// The latest generation of `key`; nothing for a file never mirrored.
std::optional<RawRow> LoadLatest(Db& db, std::string_view source, std::string_view key);
/// Generation `generation` of `key` (the latest, given none).
std::optional<RawRow> LoadGeneration(Db& db, std::string_view source, std::string_view key,
                                     std::optional<std::int64_t> generation);
/// A mirror name must stay under raw/: no absolute path, no '..', no empty
/// segment, no NUL, whatever a log directory contains.  Nor a leading '@':
/// such keys name a device's files on a hub (core/ingest/remote.cpp).
bool SafeKey(std::string_view key);
/// The latest generation's row, into `row` (nothing for a new file); false,
/// with the reason in `error`, when its mirror is broken (no append, ever).
bool LoadUnbroken(Db& db, std::string_view source, std::string_view key, std::optional<RawRow>& row,
                  std::string& error);
/// Opens generation `generation` of `f`: a raw_file row and the name of its
/// mirror (<source>/<key>, then ~g<generation> after the first).
RawRow CreateGeneration(Db& db, std::string_view source, const SourceFile& f,
                        std::int64_t generation, std::int64_t now);
/// The row of generation `generation` of (`source`, `key`), whose mirror is
/// `mirror` (then ~g<generation> after the first).
RawRow InsertGeneration(Db& db, std::string_view source, std::string_view key,
                        std::string_view path, std::string mirror, std::int64_t generation,
                        std::int64_t now);

}  // namespace origin
