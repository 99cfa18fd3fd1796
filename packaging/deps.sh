#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages that building and testing Origin need, and
# only those that are missing, so a second run is quick and offline.  Extra
# package names on the command line are added (the search benchmark's
# reference needs ripgrep: packaging/deps.sh ripgrep).
set -eu
pkgs="meson ninja-build pkg-config g++ libsqlite3-dev libzstd-dev zstd rapidjson-dev \
libuv1-dev node-llhttp libssl-dev libcurl4-openssl-dev zlib1g-dev doctest-dev help2man $*"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "origin: missing packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
    exit 1
  fi
  echo "origin: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
