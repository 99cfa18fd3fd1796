// SPDX-License-Identifier: MIT
#pragma once
// libuv glue: an owned handle freed only in its close callback, and the
// poster that lets other threads run a function on the loop thread.

#include <uv.h>

#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace origin {

class UvError : public std::runtime_error {
 public:
  UvError(int rc, const std::string& what)
      : std::runtime_error(what + ": " + uv_strerror(rc)), rc_(rc) {}
  int rc() const noexcept { return rc_; }

 private:
  int rc_;
};

/// Owns one heap-allocated libuv handle.  The destructor only requests the
/// close; memory is freed in the close callback, since libuv may touch the
/// handle until then (uv_close(3)).  Run the loop once more afterwards.
template <typename T>
class UvHandle {
 public:
  UvHandle() = default;
  template <typename Init>
  static UvHandle Make(Init&& init) {
    auto raw = std::make_unique<T>();
    if (int rc = init(raw.get()); rc < 0) throw UvError(rc, "uv init");
    return UvHandle(raw.release());
  }
  ~UvHandle() { Close(); }
  UvHandle(UvHandle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  UvHandle& operator=(UvHandle&& o) noexcept {
    if (this != &o) {
      Close();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  T* get() const noexcept { return h_; }
  explicit operator bool() const noexcept { return h_ != nullptr; }
  void Close() noexcept {
    T* h = std::exchange(h_, nullptr);
    if (h == nullptr) return;
    h->data = nullptr;  // late callbacks see no owner
    auto* base = reinterpret_cast<uv_handle_t*>(h);
    if (!uv_is_closing(base))
      uv_close(base, [](uv_handle_t* p) { delete reinterpret_cast<T*>(p); });
  }

 private:
  explicit UvHandle(T* h) noexcept : h_(h) {}
  T* h_ = nullptr;
};

/// Runs functions on the loop thread, posted from any thread.
class LoopPoster {
 public:
  explicit LoopPoster(uv_loop_t* loop);
  LoopPoster(const LoopPoster&) = delete;
  LoopPoster& operator=(const LoopPoster&) = delete;
  /// Thread-safe.  Functions posted after Close() are dropped.
  void Post(std::function<void()> fn);
  void Close();

 private:
  static void OnAsync(uv_async_t* h) noexcept;
  UvHandle<uv_async_t> async_;
  std::mutex mu_;
  std::vector<std::function<void()>> pending_;
  bool closed_ = false;
};

}  // namespace origin
