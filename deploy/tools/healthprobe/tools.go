//go:build tools

// Package healthprobe pins grpc_health_probe, which polgraph's container image carries so that a
// container runtime without native gRPC probes (Docker Compose's healthcheck) can ask polgraph's
// grpc.health.v1 service whether it serves. It is its own module so that its dependencies stay out of
// polgraph's go.mod and of the other tools' builds.
package healthprobe

import _ "github.com/grpc-ecosystem/grpc-health-probe"
