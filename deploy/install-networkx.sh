#!/usr/bin/env bash
# Installs Debian's python3-networkx, which the export tests use to read GraphML and GEXF files back,
# when no Python on the machine has networkx. Needs root (or sudo).
set -euo pipefail
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c 'import networkx' 2>/dev/null; then
    exit 0
  fi
done
echo "networkx: not installed; installing Debian's python3-networkx for the export tests"
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then
    sudo=sudo
  else
    echo "networkx: run as root, or install it yourself: apt-get install python3-networkx" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends python3-networkx
