#!/usr/bin/env bash
# Installs Debian's PostgreSQL server programs, when they are missing, for the benchmark's PostgreSQL peer
# and its test. Only the programs are needed: the harness creates and starts a server of its own, on
# loopback, in a temporary folder. Needs root (or sudo).
set -euo pipefail
if [ -n "${POLGRAPH_PG_BIN:-}" ] || compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || command -v initdb >/dev/null; then
  exit 0
fi
echo "postgresql: not installed; installing Debian's package for the benchmark's PostgreSQL peer"
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then
    sudo=sudo
  else
    echo "postgresql: run as root, or install it yourself: apt-get install postgresql" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends postgresql postgresql-contrib
# Debian's package starts a cluster of its own; the harness needs only the programs.
if command -v pg_lsclusters >/dev/null; then
  pg_lsclusters -h | while read -r version name _; do $sudo pg_ctlcluster "$version" "$name" stop || true; done
fi
