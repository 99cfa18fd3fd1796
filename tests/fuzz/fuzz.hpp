// SPDX-License-Identifier: MIT
#pragma once
// What the fuzz harnesses share (docs/fuzzing.md).  Each harness is one
// file defining libFuzzer's entry point; the fuzz build (-Dfuzz=true, clang)
// links it with libFuzzer, every other build with replay_main.cpp, which
// runs the files given (the regression inputs under tests/fuzz/regressions)
// through it once, under the build's sanitizers.

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace origin::fuzz {

inline std::string_view Text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Calls fn(line) for each line of `text` (split at \n; the last one may be
/// unterminated).
template <class Fn>
void ForEachLine(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    fn(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

}  // namespace origin::fuzz
