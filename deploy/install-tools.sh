#!/usr/bin/env bash
# Installs the command-line tools pinned in modules of their own into $(go env GOPATH)/bin: grpcurl
# (deploy/tools: the README's examples), staticcheck and buf (deploy/lint: make check). Each is built from the Go module proxy once and
# cached by version in the user cache directory, where fresh clones on the same machine find it too.
# With arguments, only the tools named.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest="$(go env GOPATH)/bin"
mkdir -p "$dest"
# name, the folder of the module that pins it, its module, its package, how long a first build takes here
tools=(
  "grpcurl tools github.com/fullstorydev/grpcurl github.com/fullstorydev/grpcurl/cmd/grpcurl about-a-minute"
  "staticcheck lint honnef.co/go/tools honnef.co/go/tools/cmd/staticcheck about-30-s"
  "buf lint github.com/bufbuild/buf github.com/bufbuild/buf/cmd/buf about-2-minutes"
)
for t in "${tools[@]}"; do
  read -r name dir module pkg took <<<"$t"
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
    continue
  fi
  version=$(cd "$here/$dir" && go list -m -f '{{.Version}}' "$module")
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/polgraph/$name-$version"
  mkdir -p "$cache"
  if [ ! -x "$cache/$name" ]; then
    echo "$name $version: building it from the Go module proxy (${took//-/ }, once)"
    (cd "$here/$dir" && go build -o "$cache/$name.partial" "$pkg")
    mv "$cache/$name.partial" "$cache/$name"
  fi
  # A copy renamed into place: copying over a binary another make is running fails ("text file busy").
  cp "$cache/$name" "$dest/.$name.$$" && mv -f "$dest/.$name.$$" "$dest/$name"
  echo "$name $version: installed in $dest"
done
