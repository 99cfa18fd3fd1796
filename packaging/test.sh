#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what is missing, builds with AddressSanitizer and
# UndefinedBehaviorSanitizer, and runs every test.  The README's second
# command, and all that .ci/run does.
set -eu
cd "$(dirname "$0")/.."
sh packaging/deps.sh
build=build-asan
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" --buildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false
fi
ninja -C "$build"
# Any sanitizer report fails the test that caused it.
export ASAN_OPTIONS="abort_on_error=0:halt_on_error=1:detect_leaks=1:strict_string_checks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
status=0
meson test -C "$build" --print-errorlogs --num-processes 2 || status=$?
# One closing line for people and CI: the doctest cases of every suite.
log="$build/meson-logs/testlog.txt"
if [ -f "$log" ]; then
  awk -F'|' '/\[doctest\] test cases:/ {
      split($2, p, " "); split($3, f, " "); passed += p[1]; failed += f[1] }
    END { printf "tests: %d passed, %d failed\n", passed, failed }' "$log"
fi
exit "$status"
