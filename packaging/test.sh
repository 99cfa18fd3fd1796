#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what is missing, builds with AddressSanitizer and
# UndefinedBehaviorSanitizer, and runs every test.  The README's second
# command, and all that .ci/run does.
set -eu
cd "$(dirname "$0")/.."
# systemd-analyze checks the service unit `origin service install` writes.
# clang and its libFuzzer build the fuzz harnesses (docs/fuzzing.md); ccache
# shares the compiler's work between builds.  Chromium runs the web UI's
# browser test (tests/browser), driven by playwright-core from npm.
sh packaging/deps.sh systemd clang libclang-rt-14-dev ccache chromium openssl
# nginx is the TLS reverse proxy of the hub's https test, which starts its
# own; installing it starts no service of its own here (policy-rc.d), so
# that the test command opens no port 80.
if ! dpkg-query -W -f='${Status}' nginx 2>/dev/null | grep -q 'install ok installed'; then
  if [ "$(id -u)" -eq 0 ] && [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    sh packaging/deps.sh nginx || { rm -f /usr/sbin/policy-rc.d; exit 1; }
    rm -f /usr/sbin/policy-rc.d
  else
    sh packaging/deps.sh nginx
  fi
fi
# The real MCP clients (tests/clients) run on Node.js, from the npm registry,
# pinned by the lock file.  Debian's nodejs and npm unless a Node.js is
# already there.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  sh packaging/deps.sh nodejs npm
fi
# The agents' own CLIs (claude, codex) check what `origin mcp install` writes;
# claude's install script puts its native binary in place (no download).  A
# second run with the same lock file installs nothing.  tests/browser:
# playwright-core (it drives Debian's Chromium; it downloads no browser) and
# axe-core.
for dir in tests/clients tests/browser; do
  lock=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$dir/node_modules/.origin-lock" 2>/dev/null)" != "$lock" ]; then
    (cd "$dir" &&
      npm ci --no-audit --no-fund --prefer-offline --loglevel=error)
    echo "$lock" >"$dir/node_modules/.origin-lock"
  fi
done
# ccache (which meson uses when it is there) leaves the directory out of
# what it hashes, so that a checkout elsewhere (a CI's fresh clone) reuses
# the objects of an earlier one; their debug information may then name it.
export CCACHE_NOHASHDIR=true
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
# The fuzz harnesses (docs/fuzzing.md), a few seconds each: a clang build of
# the libraries with libFuzzer's instrumentation, through ccache as well
# (meson puts ccache before a compiler it finds, not before one CC and CXX
# name: without it, this build took 6 of a CI run's 33 minutes every run).
fuzz=build-fuzz
if [ ! -f "$fuzz/build.ninja" ]; then
  cc=clang cxx=clang++
  if command -v ccache >/dev/null; then cc="ccache clang" cxx="ccache clang++"; fi
  CC=$cc CXX=$cxx meson setup "$fuzz" -Dfuzz=true --buildtype=debugoptimized \
    -Db_sanitize=address,undefined -Db_lundef=false
fi
ninja -C "$fuzz" fuzz
sh packaging/fuzz.sh "$fuzz" 5 || status=$?
# The Debian package: built, checked by lintian, installed, used, purged
# (as root; otherwise it says that it skipped).
sh packaging/deb-test.sh || status=$?
# One closing line for people and CI: the doctest cases of every suite and
# the Node.js tests of the real MCP clients.
log="$build/meson-logs/testlog.txt"
if [ -f "$log" ]; then
  awk -F'|' '/\[doctest\] test cases:/ {
      split($2, p, " "); split($3, f, " "); passed += p[1]; failed += f[1] }
    /^# pass [0-9]+$/ { split($0, w, " "); passed += w[3] }
    /^# fail [0-9]+$/ { split($0, w, " "); failed += w[3] }
    END { printf "tests: %d passed, %d failed\n", passed, failed }' "$log"
fi
exit "$status"
