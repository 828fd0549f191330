package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// TestHealthChecksAgainstTheImage runs the polgraph binary taken out of the image (`polgraph run`, with a
// local Dgraph on free loopback ports) and asks it for its health as deploy/compose.yaml's healthcheck
// does, with the image's grpc_health_probe and the healthcheck's own arguments, and for the service
// deploy/k8s's readiness probe names: both must answer SERVING, and a service polgraph does not serve
// must not. It needs the Dgraph binary that `make dgraph` builds (`make deploy-check` does); without it
// the test is skipped, unless POLGRAPH_REQUIRE_DGRAPH is set.
func TestHealthChecksAgainstTheImage(t *testing.T) {
	image(t)
	dgraphBin := os.Getenv("POLGRAPH_DGRAPH_BIN")
	if dgraphBin == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		dgraphBin = filepath.Join(cache, "polgraph", "dgraph-v25.0.0", "dgraph")
	}
	if _, err := os.Stat(dgraphBin); err != nil {
		if os.Getenv("POLGRAPH_REQUIRE_DGRAPH") != "" {
			t.Fatalf("%v: build Dgraph with `make dgraph`", err)
		}
		t.Skipf("%v: `make dgraph` builds it; `make deploy-check` runs this test", err)
	}

	// The healthcheck compose.yaml gives polgraph, and the service the Kubernetes readiness probe asks.
	p, err := LoadCompose(context.Background(), filepath.Join(root, "deploy/compose.yaml"), readCompose(t), composeEnv)
	if err != nil {
		t.Fatal(err)
	}
	hc := p.Services["polgraph-1"].HealthCheck
	if hc == nil || len(hc.Test) < 2 || hc.Test[0] != "CMD" {
		t.Fatalf("polgraph-1's healthcheck %v is not CMD ...", hc)
	}
	readiness := ""
	for _, o := range renderedKube(t) {
		if d, ok := o.(*appsv1.Deployment); ok {
			if r := d.Spec.Template.Spec.Containers[0].ReadinessProbe; r != nil && r.GRPC != nil && r.GRPC.Service != nil {
				readiness = *r.GRPC.Service
			}
		}
	}
	if readiness == "" {
		t.Fatal("deploy/k8s has no gRPC readiness probe")
	}

	port := freePort(t)
	offset := freeDgraphOffset(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var logs bytes.Buffer
	polgraph := exec.Command(filepath.Join(builtImageDir, "rootfs", "polgraph"), "run",
		"--addr=127.0.0.1:"+strconv.Itoa(port), "--http=", "--data-dir="+t.TempDir(),
		"--dgraph-port-offset="+strconv.Itoa(offset), "--dgraph-bin="+dgraphBin)
	polgraph.Stdout, polgraph.Stderr = &logs, &logs
	polgraph.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := polgraph.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- polgraph.Wait() }()
	defer func() {
		// polgraph stops its Dgraph on SIGINT; what is left of the group it leads goes after 30 s.
		polgraph.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			syscall.Kill(-polgraph.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if t.Failed() {
			t.Logf("polgraph run's output:\n%s", logs.String())
		}
	}()

	probe := func(args ...string) (int, string) {
		bin := filepath.Join(builtImageDir, "rootfs", strings.TrimPrefix(args[0], "/"))
		args = args[1:]
		for i, a := range args {
			if strings.HasPrefix(a, "-addr=") {
				args[i] = "-addr=127.0.0.1:" + strconv.Itoa(port)
			}
		}
		out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &exit):
			return exit.ExitCode(), string(out)
		}
		t.Fatalf("%s: %v", bin, err)
		return -1, ""
	}
	composeProbe := append([]string(nil), hc.Test[1:]...)
	for {
		code, out := probe(composeProbe...)
		if code == 0 {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("polgraph run exited before it served: %v", err)
		case <-ctx.Done():
			t.Fatalf("compose's healthcheck %q never passed: exit %d, %s", composeProbe, code, out)
		case <-time.After(time.Second):
		}
	}
	if code, out := probe("/grpc_health_probe", "-addr=", "-service="+readiness); code != 0 {
		t.Errorf("the readiness probe's service %s: exit %d, %s", readiness, code, out)
	}
	if code, _ := probe("/grpc_health_probe", "-addr=", "-service=polgraph.v1.NoSuchService"); code == 0 {
		t.Error("grpc_health_probe passed for a service polgraph does not serve: the healthcheck proves nothing")
	}
}

// freePort is a TCP port on loopback that nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// freeDgraphOffset is a port offset at which Dgraph's five ports are free on loopback.
func freeDgraphOffset(t *testing.T) int {
	t.Helper()
	for range 100 {
		o := 10000 + rand.IntN(40000)
		free := true
		for _, p := range []int{5080, 6080, 7080, 8080, 9080} {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p+o))
			if err != nil {
				free = false
				break
			}
			l.Close()
		}
		if free {
			return o
		}
	}
	t.Fatal("no free port offset for Dgraph")
	return 0
}
