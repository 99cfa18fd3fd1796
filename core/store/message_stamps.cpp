// SPDX-License-Identifier: MIT
#include "core/store/message_stamps.hpp"

#include <algorithm>
#include <bit>
#include <string>

namespace origin {

MessageStamps::MessageStamps()
    : stamps_(new std::atomic<StampChunk*>[kStampChunks]),
      blocks_(new std::atomic<BlockChunk*>[kBlockChunks]) {
  for (std::size_t i = 0; i < kStampChunks; ++i)
    stamps_[i].store(nullptr, std::memory_order_relaxed);
  for (std::size_t i = 0; i < kBlockChunks; ++i)
    blocks_[i].store(nullptr, std::memory_order_relaxed);
}

MessageStamps::~MessageStamps() {
  for (std::size_t i = 0; i < kStampChunks; ++i) delete stamps_[i].load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < kBlockChunks; ++i) delete blocks_[i].load(std::memory_order_relaxed);
}

void MessageStamps::StartBlocks(std::int64_t block) {
  constexpr std::int64_t mask = (std::int64_t{1} << kBlockBits) - 1;
  for (; next_block_ <= block; ++next_block_) {
    std::atomic<BlockChunk*>& entry = blocks_[next_block_ >> kBlockBits];
    BlockChunk* chunk = entry.load(std::memory_order_relaxed);
    if (chunk == nullptr) {
      chunk = new BlockChunk();  // every bit clear
      // Published to readers by the top that first covers it (Extend).
      entry.store(chunk, std::memory_order_relaxed);
    }
    chunk->bits[next_block_ & mask].store(0, std::memory_order_relaxed);
    chunk->base[next_block_ & mask] = static_cast<std::uint32_t>(appended_);
  }
}

void MessageStamps::Append(std::int64_t seq, std::int64_t ts, std::int64_t length) {
  const std::int64_t block = seq >> 6;
  StartBlocks(block);
  BlockChunk* blocks = blocks_[block >> kBlockBits].load(std::memory_order_relaxed);
  blocks->bits[block & ((std::int64_t{1} << kBlockBits) - 1)].fetch_or(
      std::uint64_t{1} << (seq & 63), std::memory_order_relaxed);
  std::atomic<StampChunk*>& entry = stamps_[appended_ >> kStampBits];
  StampChunk* chunk = entry.load(std::memory_order_relaxed);
  if (chunk == nullptr) {
    chunk = new StampChunk;
    entry.store(chunk, std::memory_order_relaxed);  // published by count_
  }
  std::uint64_t& stamp = chunk->stamp[appended_ & ((std::size_t{1} << kStampBits) - 1)];
  if (ts >= 0 && ts <= kMaxTs && length >= 0 && length <= kMaxLength) {
    stamp = (static_cast<std::uint64_t>(ts) << kLengthBits) | static_cast<std::uint64_t>(length);
  } else {
    std::lock_guard<std::mutex> lock(wide_mu_);
    wide_[seq] = {ts, length};
    stamp = kWide;
  }
  ++appended_;
}

void MessageStamps::Unappend(std::int64_t from) {
  // The bits above `from` in its block, and every block started after it:
  // no reader looks there (they are above top), and the next extension
  // appends them again.
  constexpr std::int64_t mask = (std::int64_t{1} << kBlockBits) - 1;
  const std::int64_t block = from >> 6;
  if (block < next_block_) {
    const std::uint64_t keep = (std::uint64_t{2} << (from & 63)) - 1;  // seqs up to `from`
    blocks_[block >> kBlockBits]
        .load(std::memory_order_relaxed)
        ->bits[block & mask]
        .fetch_and(keep, std::memory_order_relaxed);
    next_block_ = block + 1;
  }
  appended_ = count_.load(std::memory_order_relaxed);
}

bool MessageStamps::Cover(Db& db, std::int64_t upto) {
  if (upto <= top()) return true;
  if (upto > kMaxSeq) return false;
  std::unique_lock<std::mutex> lock(extend_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  const std::int64_t from = top();
  try {
    if (Extend(db, upto)) return true;
  } catch (const SqliteError&) {
    // The caller reads the store, and meets what is wrong there.
  } catch (...) {
    Unappend(from);  // out of memory: nothing of it stays
    throw;
  }
  Unappend(from);
  return false;
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
    if (appended_ == kStampChunks << kStampBits) return false;
    Append(seq, events.Int(1), events.Int(2));
  }
  StartBlocks(upto >> 6);  // the blocks up to the top, those without messages too
  count_.store(appended_, std::memory_order_release);
  top_.store(upto, std::memory_order_release);
  return true;
}

bool MessageStamps::Get(std::int64_t seq, std::int64_t* ts, std::int64_t* length) const {
  if (seq <= 0 || seq > top()) return false;
  // Every block up to the top's has its base, and its chunk (published
  // with the top, acquired above).
  const std::int64_t b = seq >> 6;
  const BlockChunk* blocks = blocks_[b >> kBlockBits].load(std::memory_order_relaxed);
  const std::size_t i = static_cast<std::size_t>(b) & ((std::size_t{1} << kBlockBits) - 1);
  const std::uint64_t bits = blocks->bits[i].load(std::memory_order_relaxed);
  const int bit = static_cast<int>(seq & 63);
  if (((bits >> bit) & 1) == 0) return false;
  const std::size_t at =
      blocks->base[i] +
      static_cast<std::size_t>(std::popcount(bits & ((std::uint64_t{1} << bit) - 1)));
  const std::uint64_t stamp = stamps_[at >> kStampBits]
                                  .load(std::memory_order_relaxed)
                                  ->stamp[at & ((std::size_t{1} << kStampBits) - 1)];
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
