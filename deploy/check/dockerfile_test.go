package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readDockerfile(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "deploy/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDockerfileMatchesImage holds deploy/Dockerfile to the image deploy/build-image.sh built.
func TestDockerfileMatchesImage(t *testing.T) {
	t.Parallel()
	d, err := ParseDockerfile([]byte(readDockerfile(t)))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range CompareDockerfile(d, image(t), PolgraphImage) {
		t.Error(err)
	}
}

// TestCompareDockerfileFindsProblems changes one line of deploy/Dockerfile at a time: each change must
// be refused, by the parser or by the comparison.
func TestCompareDockerfileFindsProblems(t *testing.T) {
	t.Parallel()
	src := readDockerfile(t)
	img := image(t)
	for _, tc := range []struct{ name, old, new string }{
		{"shell-form entrypoint", `ENTRYPOINT ["/polgraph"]`, `ENTRYPOINT /polgraph`},
		{"another entrypoint", `ENTRYPOINT ["/polgraph"]`, `ENTRYPOINT ["/bin/polgraph"]`},
		{"another command", `CMD ["serve"]`, `CMD ["run"]`},
		{"root", `USER 65532:65532`, `USER root`},
		{"no user", "USER 65532:65532\n", ""},
		{"a port less", `EXPOSE 50051/tcp 8080/tcp 9090/tcp`, `EXPOSE 50051/tcp 8080/tcp`},
		{"a label less", "      org.opencontainers.image.revision=\"${REVISION}\"", "      org.opencontainers.image.licenses=\"none\""},
		{"another source", `org.opencontainers.image.source="https://github.com/polgraph/polgraph"`, `org.opencontainers.image.source="https://example.org/fork"`},
		{"the probe not copied", "COPY --from=build /out/grpc_health_probe /grpc_health_probe\n", ""},
		{"a base with a shell", `FROM gcr.io/distroless/static-debian12:nonroot`, `FROM debian:bookworm-slim`},
		{"a root base", `FROM gcr.io/distroless/static-debian12:nonroot`, `FROM gcr.io/distroless/static-debian12:latest`},
		{"cgo on", `ENV CGO_ENABLED=0 GOOS=linux`, `ENV GOOS=linux`},
		{"a misspelt instruction", `WORKDIR /src`, `WORKDRI /src`},
		{"a stage that is not there", `COPY --from=build /out/polgraph /polgraph`, `COPY --from=builder /out/polgraph /polgraph`},
		{"lint: casing", `FROM golang:${GO_VERSION}-bookworm AS build`, `FROM golang:${GO_VERSION}-bookworm as build`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(src, tc.old) {
				t.Fatalf("deploy/Dockerfile has no %q to change", tc.old)
			}
			d, err := ParseDockerfile([]byte(strings.Replace(src, tc.old, tc.new, 1)))
			if err != nil {
				return // refused by the parser or the linter
			}
			if errs := CompareDockerfile(d, img, PolgraphImage); len(errs) == 0 {
				t.Errorf("%q → %q was not caught", tc.old, tc.new)
			}
		})
	}
}
