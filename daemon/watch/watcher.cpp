// SPDX-License-Identifier: MIT
#include "daemon/watch/watcher.hpp"

#include <set>

#include "daemon/log.hpp"

namespace origin {

bool DirWatcher::Update(std::size_t source, const std::vector<std::string>& dirs) {
  ORIGIN_ASSERT_INSIDE(thread_);
  if (closed_) return false;
  bool added = false;
  const std::set<std::string> want(dirs.begin(), dirs.end());
  std::erase_if(watches_, [&](const auto& w) {
    return w.second->source == source && want.count(w.first) == 0;
  });
  for (const std::string& dir : want) {
    if (watches_.count(dir) != 0) continue;
    auto w = std::make_unique<Watch>();
    w->owner = this;
    w->source = source;
    w->path = dir;
    try {
      w->handle = UvHandle<uv_fs_event_t>::Make(
          [&](uv_fs_event_t* h) { return uv_fs_event_init(loop_, h); });
    } catch (const std::exception& e) {
      LOG_WARN("watch %s: %s", dir.c_str(), e.what());
      continue;
    }
    w->handle.get()->data = w.get();
    if (int rc = uv_fs_event_start(w->handle.get(), &DirWatcher::OnEvent, dir.c_str(), 0); rc < 0) {
      // Typically ENOSPC (inotify watches exhausted): the rescan still finds changes.
      LOG_WARN("watch %s: %s (the rescan covers it)", dir.c_str(), uv_strerror(rc));
      continue;
    }
    watches_[dir] = std::move(w);
    added = true;
  }
  return added;
}

void DirWatcher::Close() {
  ORIGIN_ASSERT_INSIDE(thread_);
  closed_ = true;
  watches_.clear();
}

void DirWatcher::OnEvent(uv_fs_event_t* h, const char* filename, int, int status) noexcept {
  auto* w = static_cast<Watch*>(h->data);
  if (w == nullptr || status < 0) return;
  try {
    const bool named = filename != nullptr && *filename != '\0';
    w->owner->changed_(w->source, named ? w->path + "/" + filename : w->path);
  } catch (const std::exception& e) {
    LOG_ERROR("watch %s: %s", w->path.c_str(), e.what());
  } catch (...) {
    LOG_ERROR("watch %s: unknown exception", w->path.c_str());
  }
}

}  // namespace origin
