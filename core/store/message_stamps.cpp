// SPDX-License-Identifier: MIT
#include "core/store/message_stamps.hpp"

#include <algorithm>
#include <string>

namespace origin {

namespace {
std::atomic<std::uint64_t> next_id{1};
}  // namespace

MessageStamps::MessageStamps()
    : id_(next_id.fetch_add(1, std::memory_order_relaxed)),
      chunks_(new std::atomic<Chunk*>[kChunks]) {
  for (std::size_t i = 0; i < kChunks; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
}

MessageStamps::~MessageStamps() {
  for (std::size_t i = 0; i < kChunks; ++i) delete chunks_[i].load(std::memory_order_relaxed);
}

void MessageStamps::Append(std::int64_t seq, std::int64_t ts, std::int64_t length) {
  std::atomic<Chunk*>& entry = chunks_[appended_ >> kChunkBits];
  Chunk* chunk = entry.load(std::memory_order_relaxed);
  if (chunk == nullptr) {
    chunk = new Chunk;
    // Published to readers by the count that first covers it (Cover).
    entry.store(chunk, std::memory_order_relaxed);
  }
  const std::size_t i = appended_ & (kChunkSize - 1);
  chunk->seq[i] = static_cast<std::uint32_t>(seq);
  if (ts >= 0 && ts <= kMaxTs && length >= 0 && length <= kMaxLength) {
    chunk->stamp[i] =
        (static_cast<std::uint64_t>(ts) << kLengthBits) | static_cast<std::uint64_t>(length);
  } else {
    std::lock_guard<std::mutex> lock(wide_mu_);
    wide_[seq] = {ts, length};
    chunk->stamp[i] = kWide;
  }
  ++appended_;
}

bool MessageStamps::Cover(Db& db, std::int64_t upto) {
  if (upto <= top()) return true;
  if (upto > kMaxSeq) return false;
  std::unique_lock<std::mutex> lock(extend_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  try {
    return Extend(db, upto);
  } catch (const SqliteError&) {
    return false;  // the caller reads the store, and meets what is wrong there
  }
}

bool MessageStamps::Extend(Db& db, std::int64_t upto) {
  const std::int64_t from = top();
  if (upto <= from) return true;
  // Covered only up to the last event of db's snapshot: an index that is
  // ahead of the store (origin.db put back from a backup, before the
  // indexer has checked it) names seqs that later events will take.
  {
    auto last = db.Prepare("SELECT coalesce(max(seq), 0) FROM event WHERE seq <= ?");
    last.Bind(1, upto);
    if (last.Step()) upto = std::max(from, last.Int(0));
  }
  if (upto <= from) return true;
  // The messages' seqs, and every event's timestamp and length, both in
  // seq order from their indexes, merged (one read of each index, where a
  // seek a message would cost as much as the searches it saves).
  auto messages = db.Prepare(
      "SELECT seq FROM event INDEXED BY event_message_seq_ts "
      "WHERE kind = 'message' AND seq > ? AND seq <= ? ORDER BY seq");
  auto events = db.Prepare(
      "SELECT seq, ts, length(text) FROM event INDEXED BY event_seq_ts "
      "WHERE seq > ? AND seq <= ? ORDER BY seq");
  messages.Bind(1, from).Bind(2, upto);
  events.Bind(1, from).Bind(2, upto);
  appended_ = count_.load(std::memory_order_relaxed);
  while (messages.Step()) {
    const std::int64_t seq = messages.Int(0);
    bool found = false;
    while (!found && events.Step()) found = events.Int(0) == seq;
    if (!found) return false;  // the two indexes disagree: read the store
    if (appended_ == kChunks * kChunkSize) return false;
    Append(seq, events.Int(1), events.Int(2));
  }
  count_.store(appended_, std::memory_order_release);
  top_.store(upto, std::memory_order_release);
  return true;
}

bool MessageStamps::Get(std::int64_t seq, std::int64_t* ts, std::int64_t* length) const {
  struct Last {
    std::uint64_t stamps = 0;  // id_ of the stamps that answered, 0 for none
    std::int64_t seq = 0, ts = 0, length = 0;
  };
  thread_local Last last;
  if (last.stamps == id_ && last.seq == seq) {
    *ts = last.ts;
    *length = last.length;
    return true;
  }
  if (!Find(seq, ts, length)) return false;
  last = {id_, seq, *ts, *length};
  return true;
}

bool MessageStamps::Find(std::int64_t seq, std::int64_t* ts, std::int64_t* length) const {
  if (seq <= 0 || seq > top()) return false;
  const std::size_t n = count_.load(std::memory_order_acquire);
  if (n == 0) return false;
  // The last chunk whose first seq is at most `seq`, then `seq` in it.
  const std::size_t chunks = ((n - 1) >> kChunkBits) + 1;
  std::size_t lo = 0, hi = chunks;  // the answer is in [lo, hi)
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (chunks_[mid].load(std::memory_order_relaxed)->seq[0] <= seq)
      lo = mid;
    else
      hi = mid;
  }
  const Chunk* chunk = chunks_[lo].load(std::memory_order_relaxed);
  const std::size_t size = lo + 1 < chunks ? kChunkSize : n - (lo << kChunkBits);
  const std::uint32_t* end = chunk->seq + size;
  const std::uint32_t* at = std::lower_bound(chunk->seq, end, static_cast<std::uint32_t>(seq));
  if (at == end || *at != seq) return false;
  const std::uint64_t stamp = chunk->stamp[at - chunk->seq];
  if (stamp == kWide) {
    std::lock_guard<std::mutex> lock(wide_mu_);
    const auto& [t, len] = wide_.at(seq);
    *ts = t;
    *length = len;
    return true;
  }
  *ts = static_cast<std::int64_t>(stamp >> kLengthBits);
  *length = static_cast<std::int64_t>(stamp & ((std::uint64_t{1} << kLengthBits) - 1));
  return true;
}

namespace {

// origin_ts(?, seq) when `column` is 0, origin_len(?, seq) when 1.
template <int column>
void Stamp(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  const auto* stamps = argc == 2 ? static_cast<const MessageStamps*>(
                                       sqlite3_value_pointer(argv[0], MessageStamps::kPointerType))
                                 : nullptr;
  std::int64_t ts = 0, length = 0;
  if (stamps == nullptr) {
    sqlite3_result_error(ctx, "origin_ts and origin_len need the stamps bound", -1);
  } else if (!stamps->Get(sqlite3_value_int64(argv[1]), &ts, &length)) {
    sqlite3_result_null(ctx);
  } else {
    sqlite3_result_int64(ctx, column == 0 ? ts : length);
  }
}

}  // namespace

void RegisterMessageStamps(Db& db) {
  // Deterministic within a statement: the stamps are extended between
  // statements, never for seqs already covered.
  for (auto [name, fn] : {std::pair{"origin_ts", &Stamp<0>}, std::pair{"origin_len", &Stamp<1>}}) {
    const int rc = sqlite3_create_function_v2(db.get(), name, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                              nullptr, fn, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) throw SqliteError(rc, std::string("register ") + name);
  }
}

}  // namespace origin
