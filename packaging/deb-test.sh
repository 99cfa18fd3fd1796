#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian package, end to end: builds it (packaging/deb.sh), checks it
# with lintian (an error fails; warnings are shown),
# installs it with dpkg -i, runs the installed origin against a fixture home
# (it starts the installed originsd), then removes and purges it and checks
# that its files are gone.  Run by packaging/test.sh.
#
# Safe on a developer's machine: it needs root and skips, saying so, without
# it; it skips when a package named origin is installed already (it would
# replace it); it touches nothing under /usr/local (an origin installed from
# source stays); whatever happens, the package is purged and the daemon it
# started is stopped before it exits.
set -eu
cd "$(dirname "$0")/.."
started=$(date +%s)
say() { echo "package: $*" >&2; }
if [ "$(id -u)" -ne 0 ]; then
  say "SKIPPED: installing a package needs root (sudo sh packaging/deb-test.sh)"
  exit 0
fi
if dpkg-query -W -f='${Status}' origin 2>/dev/null | grep -q 'installed'; then
  say "SKIPPED: a package named origin is installed here already, and this test would replace it"
  exit 0
fi

sh packaging/deps.sh lintian systemd
deb=$(sh packaging/deb.sh) || { say "FAILED: the package did not build"; exit 1; }
work=$(dirname "$deb")
version=$(dpkg-deb -f "$deb" Version)
built=$(date +%s)
if ! lintian --fail-on error "$work"/origin_"$version"_*.changes >"$work/lintian.log" 2>&1; then
  cat "$work/lintian.log" >&2
  say "FAILED: lintian reports an error"
  exit 1
fi
# Its warnings, if any (not the note that it runs as root).
grep -v '^running with root privileges' "$work/lintian.log" | sed 's/^/lintian: /' >&2 || true

# What the package must hold, and what must be gone after a purge.
files="/usr/bin/origin /usr/bin/originsd /usr/bin/origin-mcp /usr/share/man/man1/origin.1.gz
/usr/share/man/man1/originsd.1.gz /usr/share/man/man1/origin-mcp.1.gz
/usr/share/bash-completion/completions/origin /usr/share/zsh/vendor-completions/_origin
/usr/share/fish/vendor_completions.d/origin.fish /usr/lib/systemd/user/originsd.service
/usr/share/doc/origin/copyright"
dpkg-deb -c "$deb" >"$work/contents"
for f in $files; do
  if ! grep -q " \.$f\$" "$work/contents"; then
    say "FAILED: $deb has no $f"
    exit 1
  fi
done

tmp=$(mktemp -d /tmp/origin-deb.XXXXXX)
installed=""
daemon=""
cleanup() {
  if [ -n "$daemon" ] && kill -0 "$daemon" 2>/dev/null; then kill -TERM "$daemon" || true; fi
  if [ -n "$installed" ]; then dpkg --purge origin >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

installed=1
dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; say "FAILED: dpkg -i"; exit 1; }
if [ "$(/usr/bin/origin --version)" != "origin $version" ]; then
  say "FAILED: /usr/bin/origin --version says $(/usr/bin/origin --version)"
  exit 1
fi
# systemd's own parser finds nothing wrong with the unit.
if ! systemd-analyze verify /usr/lib/systemd/user/originsd.service >"$work/verify.log" 2>&1 ||
   [ -s "$work/verify.log" ]; then
  cat "$work/verify.log" >&2
  say "FAILED: systemd-analyze verify /usr/lib/systemd/user/originsd.service"
  exit 1
fi

# A fixture home with one Claude Code session; nothing of
# this machine's environment (its ORIGIN_HOME, ORIGINSD, the agents' roots).
home="$tmp/home"
mkdir -p "$home/.claude/projects/-home-old-cli"
cp tests/fixtures/claude-code/projects/-home-old-cli/1e0b2c3d-0000-4000-8000-000000000001.jsonl \
  "$home/.claude/projects/-home-old-cli/"
run() { env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 /usr/bin/origin "$@"; }
# The packaged unit is the one `origin service install` would enable for
# the default store: the installed origin recognises it as its own.
if ! run service install --print | head -n 1 |
    grep -qx "would enable /usr/lib/systemd/user/originsd.service (installed with origin; nothing is written):"; then
  run service install --print >&2 || true
  say "FAILED: origin service install --print does not take the packaged unit"
  exit 1
fi
run sync >"$work/sync.log" 2>&1 || { cat "$work/sync.log" >&2; say "FAILED: origin sync"; exit 1; }
daemon=$(cut -d' ' -f1 "$home/.origin/run/originsd.lock")
if [ "$(readlink "/proc/$daemon/exe")" != /usr/bin/originsd ]; then
  say "FAILED: origin started $(readlink "/proc/$daemon/exe"), not /usr/bin/originsd"
  exit 1
fi
# As tests/fixtures/claude-code/sessions.expected has it.
if ! run timeline claude-code:1e0b2c3d-0000-4000-8000-000000000001 --json >"$work/timeline.json" ||
   ! grep -q '"title":"Refactor the CLI argument parser",.*"events":5,"messages":3}' "$work/timeline.json"; then
  cat "$work/timeline.json" >&2
  say "FAILED: the fixture session is not in the store as it should be"
  exit 1
fi
kill -TERM "$daemon"
i=0
while kill -0 "$daemon" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$daemon" 2>/dev/null; then say "FAILED: originsd did not stop on SIGTERM"; exit 1; fi
daemon=""

dpkg -r origin >/dev/null
dpkg --purge origin >/dev/null
installed=""
for f in $files; do
  if [ -e "$f" ]; then say "FAILED: $f is still there after dpkg --purge"; exit 1; fi
done
if dpkg-query -W -f='${Status}' origin 2>/dev/null | grep -q 'installed'; then
  say "FAILED: dpkg still lists origin after the purge"
  exit 1
fi
say "ok: built in $((built - started)) s, installed, synced, removed in $(($(date +%s) - built)) s"
