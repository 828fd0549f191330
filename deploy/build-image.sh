#!/usr/bin/env bash
# Builds polgraph's container image without a container engine, with crane (pinned in
# deploy/tools/crane/go.mod), into bin/polgraph-image.tar (or $POLGRAPH_IMAGE_TAR).
#
# The image: no base (an empty OCI image), one layer holding
#   /polgraph                        the service, static (CGO_ENABLED=0)
#   /grpc_health_probe               a gRPC health client for Docker Compose's healthcheck (pinned in
#                                    deploy/tools/healthprobe/go.mod)
#   /etc/ssl/certs/ca-certificates.crt  Debian's CA bundle, for TLS to a Dgraph whose certificate a public
#                                    CA signed (--dgraph-tls-ca needs none of it)
#   /etc/passwd, /etc/group          root and nonroot (65532), as in distroless
#   /tmp                             mode 1777
# and the configuration: entrypoint ["/polgraph"], cmd ["serve"], user 65532:65532, ports 50051/tcp (gRPC),
# 8080/tcp (explorer, /healthz) and 9090/tcp (metrics), OCI labels (source, version, revision, title).
# deploy/Dockerfile builds the same image for those who have an engine; deploy/check compares the two.
#
# The tarball is an OCI image layout (oci-layout, index.json, blobs/) that also carries Docker's
# manifest.json, so `docker load`, `podman load`, `skopeo copy oci-archive:…` and `crane push FILE REF`
# all take it. Files carry the commit's time, so a rebuild of a clean commit gives the same layer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
crane_version=v0.22.1
probe_version=v0.4.62
cache="${XDG_CACHE_HOME:-$HOME/.cache}/polgraph"
out=${POLGRAPH_IMAGE_TAR:-$root/bin/polgraph-image.tar}
image=${IMAGE:-polgraph}
version=${VERSION:-$(git -C "$root" describe --tags --always --dirty 2>/dev/null || echo dev)}
revision=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}
arch=${GOARCH:-$(go env GOARCH)}
ca_bundle=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}

crane="$cache/crane-$crane_version/crane"
if [ ! -x "$crane" ]; then
  echo "crane $crane_version: building it from the Go module proxy (about a minute, once)"
  mkdir -p "$(dirname "$crane")"
  (cd "$root/deploy/tools/crane" && CGO_ENABLED=0 go build -trimpath -o "$crane.partial" github.com/google/go-containerregistry/cmd/crane)
  mv "$crane.partial" "$crane"
fi
probe="$cache/grpc-health-probe-$probe_version-$arch/grpc_health_probe"
if [ ! -x "$probe" ]; then
  echo "grpc_health_probe $probe_version: building it from the Go module proxy (about a minute, once)"
  mkdir -p "$(dirname "$probe")"
  (cd "$root/deploy/tools/healthprobe" && CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath \
    -ldflags "-s -w -X main.versionTag=$probe_version" -o "$probe.partial" github.com/grpc-ecosystem/grpc-health-probe)
  mv "$probe.partial" "$probe"
fi
if [ ! -r "$ca_bundle" ]; then
  echo "build-image: no CA bundle at $ca_bundle; install Debian's ca-certificates (apt-get install ca-certificates) or set CA_BUNDLE" >&2
  exit 1
fi

work=$(mktemp -d)
registry_pid=
cleanup() {
  if [ -n "$registry_pid" ]; then kill "$registry_pid" 2>/dev/null || true; wait "$registry_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "image $image:$version: building polgraph (static, linux/$arch)"
rootfs="$work/rootfs"
mkdir -p "$rootfs/etc/ssl/certs" "$rootfs/tmp"
(cd "$root" && CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath -ldflags "-s -w" -o "$rootfs/polgraph" ./cmd/polgraph)
install -m 0755 "$probe" "$rootfs/grpc_health_probe"
install -m 0644 "$ca_bundle" "$rootfs/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$rootfs/etc/group"
chmod 0644 "$rootfs/etc/passwd" "$rootfs/etc/group"
chmod 0755 "$rootfs/etc" "$rootfs/etc/ssl" "$rootfs/etc/ssl/certs"
chmod 1777 "$rootfs/tmp"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
  -C "$rootfs" -cf "$work/layer.tar" etc grpc_health_probe polgraph tmp

# crane changes an image's configuration only in a registry: it gets one of its own, in memory, on
# loopback, for the length of this script.
"$crane" registry serve --address 127.0.0.1:0 2>"$work/registry.log" &
registry_pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's/.*serving on port \([0-9][0-9]*\).*/\1/p' "$work/registry.log")
  [ -n "$port" ] && break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "build-image: crane's registry did not start:" >&2
  cat "$work/registry.log" >&2
  exit 1
fi
ref="127.0.0.1:$port/$image"
# crane logs every blob it moves: kept in $work/crane.log, shown when a step fails.
crane() {
  if ! "$crane" "$@" 2>>"$work/crane.log"; then
    cat "$work/crane.log" >&2
    echo "build-image: crane $1 failed" >&2
    return 1
  fi
}
crane append --oci-empty-base -f "$work/layer.tar" -t "$ref:layer" >/dev/null
crane mutate "$ref:layer" -t "$ref:$version" --set-platform "linux/$arch" \
  --entrypoint /polgraph --cmd serve --user 65532:65532 --workdir / \
  --exposed-ports 50051/tcp,8080/tcp,9090/tcp \
  -l org.opencontainers.image.title=polgraph \
  -l "org.opencontainers.image.description=A political knowledge graph on Dgraph, served over gRPC" \
  -l org.opencontainers.image.source=https://github.com/polgraph/polgraph \
  -l "org.opencontainers.image.version=$version" \
  -l "org.opencontainers.image.revision=$revision" >/dev/null

# The OCI layout, named $image:$version, and beside it Docker's manifest.json for the same blobs.
layout="$work/oci"
crane pull --format oci --annotate-ref "$ref:$version" "$layout"
sed -i "s#127\.0\.0\.1:$port/##g" "$layout/index.json"
crane pull --format tarball "$ref:$version" "$work/docker.tar"
tar -xOf "$work/docker.tar" manifest.json |
  sed -e "s#127\.0\.0\.1:$port/##g" \
    -e 's#"sha256:\([0-9a-f]\{64\}\)"#"blobs/sha256/\1"#g' \
    -e 's#"\([0-9a-f]\{64\}\)\.tar\.gz"#"blobs/sha256/\1"#g' >"$layout/manifest.json"
find "$layout" -type d -exec chmod 0755 {} + && find "$layout" -type f -exec chmod 0644 {} +
mkdir -p "$(dirname "$out")"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$layout" -cf "$out.partial" oci-layout index.json manifest.json blobs
mv "$out.partial" "$out"
echo "image $image:$version: $out ($(du -h "$out" | cut -f1)); load it with: docker load -i $out"
