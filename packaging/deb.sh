#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the Debian package origin_<version>_<arch>.deb in build-deb/ from
# this tree: a copy of it as git sees it (tracked and new files, no build
# output), with packaging/debian as its debian/, so the tree itself stays
# clean.  Prints the .deb's path.  Install it with dpkg -i; see README.md.
set -eu
cd "$(dirname "$0")/.."
say() { echo "package: $*" >&2; }
# The package's version is the project's.
version=$(sed -n "s/^  version: '\(.*\)',$/\1/p" meson.build)
deb_version=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
if [ "$version" != "$deb_version" ]; then
  say "packaging/debian/changelog says $deb_version, meson.build $version: add a changelog entry"
  exit 1
fi
sh packaging/deps.sh debhelper dpkg-dev build-essential
# At a fixed place, so that ccache hits from one build to the next.
work=build-deb
rm -rf "$work"
mkdir -p "$work/origin-$version"
if git rev-parse --show-toplevel >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard |
    tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$work/origin-$version"
else
  tar --exclude='./build*' --exclude=node_modules -cf - . | tar -xf - -C "$work/origin-$version"
fi
cp -r packaging/debian "$work/origin-$version/debian"
# debhelper gives the build a HOME of its own, so ccache (which meson uses
# when it is there) is told where its cache is.
if command -v ccache >/dev/null && [ -z "${CCACHE_DIR:-}" ]; then
  CCACHE_DIR=$(ccache -k cache_dir)
  export CCACHE_DIR
fi
say "building (dpkg-buildpackage -b; log in $work/build.log)"
if ! (cd "$work/origin-$version" &&
      DEB_BUILD_OPTIONS="nocheck parallel=${PARALLEL:-2} ${DEB_BUILD_OPTIONS:-}" \
      dpkg-buildpackage -b -us -uc) >"$work/build.log" 2>&1; then
  tail -n 40 "$work/build.log" >&2
  say "dpkg-buildpackage failed (whole log: $work/build.log)"
  exit 1
fi
rm -rf "$work/origin-$version"
ls "$PWD/$work"/origin_"$version"_*.deb
