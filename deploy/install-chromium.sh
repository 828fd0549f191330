#!/usr/bin/env bash
# Installs Debian's Chromium for the explorer's browser tests, when it is missing. Needs root (or sudo).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
echo "chromium: not installed; installing Debian's package for the explorer's browser tests"
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then
    sudo=sudo
  else
    echo "chromium: run as root, or install it yourself: apt-get install chromium" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq chromium
