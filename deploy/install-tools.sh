#!/usr/bin/env bash
# Installs grpcurl (pinned in deploy/tools/go.mod) into $(go env GOPATH)/bin, building it from the Go
# module proxy once and caching the binary by version in the user cache directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=v1.9.3
cache="${XDG_CACHE_HOME:-$HOME/.cache}/polgraph/grpcurl-$version"
dest="$(go env GOPATH)/bin"
mkdir -p "$cache" "$dest"
if [ ! -x "$cache/grpcurl" ]; then
  echo "grpcurl $version: building it from the Go module proxy (about a minute, once)"
  (cd "$here/tools" && go build -o "$cache/grpcurl" github.com/fullstorydev/grpcurl/cmd/grpcurl)
fi
cp "$cache/grpcurl" "$dest/grpcurl"
echo "grpcurl $version: installed in $dest (add it to PATH if it is not there)"
