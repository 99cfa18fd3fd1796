// SPDX-License-Identifier: MIT
#include "proto/paths.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace origin::proto {

std::string UserHome() {
  const char* h = std::getenv("HOME");
  if (h != nullptr && *h != '\0') return h;
  if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_dir != nullptr)
    return pw->pw_dir;
  throw std::runtime_error("neither ORIGIN_HOME nor HOME is set");
}

Paths ResolvePaths(const std::string& home_override) {
  Paths p;
  if (!home_override.empty()) {
    p.home = home_override;
  } else if (const char* h = std::getenv("ORIGIN_HOME"); h != nullptr && *h != '\0') {
    p.home = h;
  } else {
    p.home = UserHome() + "/.origin";
  }
  while (p.home.size() > 1 && p.home.back() == '/') p.home.pop_back();
  if (!p.home.empty() && p.home.front() != '/') {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) != nullptr) p.home = std::string(cwd) + "/" + p.home;
  }
  p.run = p.home + "/run";
  p.lock = p.run + "/originsd.lock";
  p.db = p.home + "/origin.db";
  p.index = p.home + "/index.db";
  p.raw = p.home + "/raw";
  p.socket = p.run + "/originsd.sock";
  if (p.socket.size() >= 100) {
    // FNV-1a of the home: a short, stable name for the socket.
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : p.home) h = (h ^ c) * 1099511628211ULL;
    char name[40];
    std::snprintf(name, sizeof name, "origin-%016llx.sock", static_cast<unsigned long long>(h));
    const char* xdg = std::getenv("XDG_RUNTIME_DIR");
    std::string dir = xdg != nullptr && *xdg != '\0' ? std::string(xdg)
                                                     : "/tmp/origin-" + std::to_string(::geteuid());
    p.socket = dir + "/" + name;
  }
  return p;
}

}  // namespace origin::proto
