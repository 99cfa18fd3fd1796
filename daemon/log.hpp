// SPDX-License-Identifier: MIT
#pragma once
// Leveled logging to stderr or a file (--log-file), reopened on SIGHUP.
// Safe from any thread; never throws.  printf-style, one line per call.

#include <string>

namespace origin::log {

enum class Level { kDebug, kInfo, kWarn, kError };

/// Sends the log to `path` ("" for stderr).  Returns false if it cannot be opened.
bool SetFile(const std::string& path);
/// Reopens the log file (after rotation).
void Reopen();
void SetLevel(Level level);
void Write(Level level, const char* fmt, ...) noexcept __attribute__((format(printf, 2, 3)));

}  // namespace origin::log

#define LOG_DEBUG(...) ::origin::log::Write(::origin::log::Level::kDebug, __VA_ARGS__)
#define LOG_INFO(...) ::origin::log::Write(::origin::log::Level::kInfo, __VA_ARGS__)
#define LOG_WARN(...) ::origin::log::Write(::origin::log::Level::kWarn, __VA_ARGS__)
#define LOG_ERROR(...) ::origin::log::Write(::origin::log::Level::kError, __VA_ARGS__)
