#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what is missing, builds a release, installs origin and originsd
# (to /usr/local unless PREFIX says otherwise), starts the daemon, ingests
# this machine's agent logs and shows what it found.  The README's first
# command.
set -eu
cd "$(dirname "$0")/.."
sh packaging/deps.sh
prefix="${PREFIX:-/usr/local}"
build=build-release
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" --buildtype=release -Dtests=false --prefix="$prefix"
fi
ninja -C "$build"
meson install -C "$build" --quiet
"$prefix/bin/origin" sync
"$prefix/bin/origin" status
