// SPDX-License-Identifier: MIT
#include "daemon/log.hpp"

#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace origin::log {

namespace {
std::mutex g_mu;
std::string g_path;
int g_fd = 2;
Level g_level = Level::kInfo;
}  // namespace

bool SetFile(const std::string& path) {
  std::lock_guard lock(g_mu);
  g_path = path;
  if (path.empty()) {
    if (g_fd > 2) ::close(g_fd);
    g_fd = 2;
    return true;
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  if (g_fd > 2) ::close(g_fd);
  g_fd = fd;
  return true;
}

void Reopen() {
  std::string path;
  {
    std::lock_guard lock(g_mu);
    path = g_path;
  }
  if (!path.empty()) SetFile(path);
}

void SetLevel(Level level) {
  std::lock_guard lock(g_mu);
  g_level = level;
}

void Write(Level level, const char* fmt, ...) noexcept {
  if (level < g_level) return;
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  tm t{};
  ::localtime_r(&tv.tv_sec, &t);
  static constexpr const char* kNames[] = {"debug", "info", "warn", "error"};
  char line[2200];
  int n = std::snprintf(line, sizeof line, "%04d-%02d-%02d %02d:%02d:%02d.%03d %s: %s\n",
                        t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                        static_cast<int>(tv.tv_usec / 1000), kNames[static_cast<int>(level)], msg);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) >= sizeof line) n = sizeof line - 1;
  std::lock_guard lock(g_mu);
  ssize_t w = ::write(g_fd, line, static_cast<std::size_t>(n));
  (void)w;
}

}  // namespace origin::log
