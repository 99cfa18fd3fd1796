// SPDX-License-Identifier: MIT
#pragma once
// The watcher over every agent root (loop thread only).  libuv does not
// watch recursively on Linux, so every directory a discovery walked gets a
// uv_fs_event of its own; each sync's discovery brings the set up to date
// (Update), so new directories are picked up and gone ones dropped.  An
// event names the source and the file: the scheduler syncs the source after
// a debounce, and a live file may be read at once during an import.  When
// inotify's watches run out, the scheduler's rescan still finds changes.

#include <uv.h>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemon/thread_check.hpp"
#include "daemon/uv.hpp"

namespace origin {

class DirWatcher {
 public:
  /// `changed(source, path)`: `path` is the file the event names, or the
  /// directory when it names none.
  using Changed = std::function<void(std::size_t source, const std::string& path)>;
  DirWatcher(uv_loop_t* loop, const ThreadRole& loop_thread, Changed changed)
      : loop_(loop), thread_(loop_thread), changed_(std::move(changed)) {}
  DirWatcher(const DirWatcher&) = delete;
  DirWatcher& operator=(const DirWatcher&) = delete;

  /// Watches exactly `dirs` of `source`; true when it added one (which may
  /// have changed between the discovery's look and its watch).
  bool Update(std::size_t source, const std::vector<std::string>& dirs);
  std::size_t size() const { return watches_.size(); }
  /// Stops every watch, and refuses new ones.
  void Close();

 private:
  struct Watch {
    DirWatcher* owner = nullptr;
    std::size_t source = 0;
    std::string path;
    UvHandle<uv_fs_event_t> handle;
  };
  static void OnEvent(uv_fs_event_t* h, const char* filename, int events, int status) noexcept;
  uv_loop_t* loop_;
  const ThreadRole& thread_;
  Changed changed_;
  std::map<std::string, std::unique_ptr<Watch>> watches_;
  bool closed_ = false;
};

}  // namespace origin
