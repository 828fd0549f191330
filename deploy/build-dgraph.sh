#!/usr/bin/env bash
# Builds the Dgraph server polgraph runs against from the Go module proxy, once, and caches the binary by
# version in the user cache directory, where a fresh clone on the same machine finds it too.
# The build uses deploy/dgraph/, a small module of its own, so Dgraph's large dependency graph stays out
# of polgraph's go.mod.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=v25.0.0
cache="${XDG_CACHE_HOME:-$HOME/.cache}/polgraph/dgraph-$version"
bin="${POLGRAPH_DGRAPH_BIN:-$cache/dgraph}"
if [ -x "$bin" ]; then
  echo "dgraph $version: using $bin"
  exit 0
fi
echo "dgraph $version: not built yet; building it from the Go module proxy into $bin"
echo "dgraph $version: Dgraph is a large Go program, so this first build takes about 5 minutes on 2 cores;"
echo "dgraph $version: later runs, and fresh clones on this machine, reuse the binary."
mkdir -p "$(dirname "$bin")"
cd "$here/dgraph"
start=$(date +%s)
go build -o "$bin.partial" github.com/hypermodeinc/dgraph/v25/dgraph
mv "$bin.partial" "$bin"
echo "dgraph $version: built in $(( $(date +%s) - start ))s"
