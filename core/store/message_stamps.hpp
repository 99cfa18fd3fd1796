// SPDX-License-Identifier: MIT
#pragma once
// Each message's timestamp and text length, by seq, in memory: what a
// ranked search reads of every candidate message_fts gives it (the
// timestamp to keep the newest matches, the length for origin_bm25), which
// would otherwise cost a seek in event_seq_ts a candidate (about 1.6 us at
// two million events, a third of a common word's search;
// docs/performance.md).
//
// An event's kind, timestamp and text never change once written
// (invariant 3), so what is read once stays true; the one exception, an
// erasure, takes its events out of every index (core/erase), so that no
// search asks for them again.  Events are only ever added, at seqs above
// every committed one, so the stamps cover the seqs from 1 up to a point,
// and are extended up to what a search's snapshot has reached before it
// reads (Cover).
//
// One per store, shared by a process's readers: Cover extends under a
// mutex that readers never wait for (a reader that finds it taken reads
// the store instead), and what a reader looks up was published before it
// looked (release/acquire on the top), so lookups take no lock, and find
// a seq in constant time (a bit per seq, blocks of 64 with a count).
// Eight bytes a message and twelve per 64 seqs (5 MiB for the 575,000
// messages of two million real-shaped events).
//
// On a connection (RegisterMessageStamps): origin_ts(?, seq) and
// origin_len(?, seq), the stamps bound as a pointer of type
// "origin_stamps": the message's timestamp and text length in characters,
// or NULL for a seq that is no message.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "core/c/sqlite.hpp"

namespace origin {

class MessageStamps {
 public:
  MessageStamps();
  ~MessageStamps();
  MessageStamps(const MessageStamps&) = delete;
  MessageStamps& operator=(const MessageStamps&) = delete;

  /// Makes the stamps cover every message up to seq `upto`, reading those
  /// they lack from `db` (as far as db's snapshot holds events: an index
  /// ahead of the store is not believed).  False when another thread is
  /// extending them, `upto` is beyond what they can hold, or reading
  /// failed: the caller reads the store instead.
  bool Cover(Db& db, std::int64_t upto);
  /// The highest seq covered.
  std::int64_t top() const noexcept { return top_.load(std::memory_order_acquire); }
  /// Message `seq`'s timestamp (ms) and text length (characters); false
  /// for a seq that is no message, or one not covered.  Constant time: a
  /// search asks it of every candidate message_fts gives.
  bool Get(std::int64_t seq, std::int64_t* ts, std::int64_t* length) const;

  static constexpr const char* kPointerType = "origin_stamps";

 private:
  // A stamp: the timestamp in the high 42 bits (ms since 1970, to the
  // year 2109), the length in the low 22; values that do not fit are kept
  // in wide_, their stamp kWide.
  static constexpr int kLengthBits = 22;
  static constexpr std::uint64_t kWide = ~std::uint64_t{0};
  static constexpr std::int64_t kMaxLength = (std::int64_t{1} << kLengthBits) - 2;
  static constexpr std::int64_t kMaxTs = (std::int64_t{1} << (64 - kLengthBits)) - 1;
  static constexpr std::int64_t kMaxSeq = UINT32_MAX;
  // The stamps of the messages in seq order, in chunks of 2^16 (512 KiB)
  // allocated as the store grows and never moved, under a table of 2^15
  // of them.
  static constexpr int kStampBits = 16;
  static constexpr std::size_t kStampChunks = std::size_t{1} << 15;
  struct StampChunk {
    std::uint64_t stamp[std::size_t{1} << kStampBits];
  };
  // Where a seq's stamp is: the seqs in blocks of 64, each with a bit per
  // seq that is a message and how many messages come before the block (the
  // stamp of a message is at its block's base plus the messages before it
  // in the block).  Twelve bytes a block, in chunks of 2^12 blocks (256 Ki
  // seqs, 48 KiB), under a table of 2^14 reaching kMaxSeq.  A block's base
  // is written once, before the stamps cover any seq of it; its bits are
  // set as the messages are appended (atomic: a reader may read the block
  // while the next extension sets bits above what it covers).
  static constexpr int kBlockBits = 12;
  static constexpr std::size_t kBlockChunks = std::size_t{1} << 14;
  struct BlockChunk {
    std::atomic<std::uint64_t> bits[std::size_t{1} << kBlockBits];
    std::uint32_t base[std::size_t{1} << kBlockBits];
  };

  // Cover's work, with the mutex held.
  bool Extend(Db& db, std::int64_t upto);
  // Appends message `seq` (above every one held); published by count_.
  void Append(std::int64_t seq, std::int64_t ts, std::int64_t length);
  // Gives every block up to `block` (a seq's, seq >> 6) its base.
  void StartBlocks(std::int64_t block);
  // Takes back what a failed extension appended above seq `from`.
  void Unappend(std::int64_t from);

  std::unique_ptr<std::atomic<StampChunk*>[]> stamps_;
  std::unique_ptr<std::atomic<BlockChunk*>[]> blocks_;
  // By the thread extending; count_ and top_ publish them.
  std::size_t appended_ = 0;
  std::int64_t next_block_ = 0;  // the first block without its base
  std::atomic<std::size_t> count_{0};
  std::atomic<std::int64_t> top_{0};
  std::mutex extend_mu_;  // held by the one thread extending
  mutable std::mutex wide_mu_;
  std::unordered_map<std::int64_t, std::pair<std::int64_t, std::int64_t>> wide_;
};

/// Registers origin_ts and origin_len on the connection.
void RegisterMessageStamps(Db& db);

}  // namespace origin
