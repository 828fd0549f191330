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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
)

// TestAgainstTheImagesPolgraph runs the polgraph binary taken out of the image (`polgraph run`, with a
// local Dgraph, ACL on, on free loopback ports) and, against it:
//   - asks for its health as deploy/compose.yaml's healthcheck does, with the image's grpc_health_probe
//     and the healthcheck's own arguments, and for the service deploy/k8s's readiness probe names: both
//     must answer SERVING, and a service polgraph does not serve must not;
//   - runs deploy/dgraph-acl.sh to make a Dgraph user of its own (twice: it must be idempotent), serves
//     the same graph as that user, and must see what the local Dgraph's own user sees.
//
// It needs the Dgraph binary that `make dgraph` builds (`make deploy-check` does); without it the test
// is skipped, unless POLGRAPH_REQUIRE_DGRAPH is set.
func TestAgainstTheImagesPolgraph(t *testing.T) {
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

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	port, offset, dataDir := freePort(t), freeDgraphOffset(t), t.TempDir()
	run := startImagePolgraph(t, nil, "run", "--addr=127.0.0.1:"+strconv.Itoa(port), "--http=", "--data-dir="+dataDir,
		"--dgraph-port-offset="+strconv.Itoa(offset), "--dgraph-bin="+dgraphBin)

	// probe runs one of the image's binaries with args, -addr= pointed at addrPort; it returns the exit code.
	probe := func(addrPort int, args ...string) (int, string) {
		bin := filepath.Join(builtImageDir, "rootfs", strings.TrimPrefix(args[0], "/"))
		args = slices.Clone(args[1:])
		for i, a := range args {
			if strings.HasPrefix(a, "-addr=") {
				args[i] = "-addr=127.0.0.1:" + strconv.Itoa(addrPort)
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
	composeProbe := hc.Test[1:]
	waitServing := func(p *imagePolgraph, port int) {
		for {
			code, out := probe(port, composeProbe...)
			if code == 0 {
				return
			}
			select {
			case <-p.exited:
				t.Fatalf("polgraph exited before it served:\n%s", p.logs.String())
			case <-ctx.Done():
				t.Fatalf("compose's healthcheck %q never passed: exit %d, %s\n%s", composeProbe, code, out, p.logs.String())
			case <-time.After(time.Second):
			}
		}
	}
	waitServing(run, port)

	t.Run("healthchecks", func(t *testing.T) {
		if code, out := probe(port, "/grpc_health_probe", "-addr=", "-service="+readiness); code != 0 {
			t.Errorf("the readiness probe's service %s: exit %d, %s", readiness, code, out)
		}
		if code, _ := probe(port, "/grpc_health_probe", "-addr=", "-service=polgraph.v1.NoSuchService"); code == 0 {
			t.Error("grpc_health_probe passed for a service polgraph does not serve: the healthcheck proves nothing")
		}
	})

	t.Run("dgraph-acl.sh", func(t *testing.T) {
		secret := func(name string) string {
			b, err := os.ReadFile(filepath.Join(dataDir, "secrets", name))
			if err != nil {
				t.Fatal(err)
			}
			return strings.TrimSpace(string(b))
		}
		token := secret("auth-token")
		env := append(os.Environ(),
			fmt.Sprintf("DGRAPH_HTTP=http://127.0.0.1:%d", 8080+offset),
			"DGRAPH_AUTH_TOKEN="+token,
			"GROOT_PASSWORD="+secret("groot-password"),
			"POLGRAPH_DGRAPH_USER=analysts",
			"POLGRAPH_DGRAPH_PASSWORD=a-password-for-the-test")
		rules := aclRuleCount(t)
		for range 2 {
			cmd := exec.CommandContext(ctx, filepath.Join(root, "deploy/dgraph-acl.sh"))
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), fmt.Sprintf("with %d rules", rules)) {
				t.Fatalf("deploy/dgraph-acl.sh: %v\n%s", err, out)
			}
		}

		// The same graph, served as the new user, must look the same as through run's own user. It
		// reads its links from Dgraph, not from memory, so that the walks along reverse edges (~pg.from)
		// need their rules too.
		port2 := freePort(t)
		serve := startImagePolgraph(t, []string{"POLGRAPH_DGRAPH_PASSWORD=a-password-for-the-test", "POLGRAPH_DGRAPH_AUTH_TOKEN=" + token},
			"serve", "--addr=127.0.0.1:"+strconv.Itoa(port2), "--http=", fmt.Sprintf("--dgraph=127.0.0.1:%d", 9080+offset), "--dgraph-user=analysts",
			"--in-memory=false")
		waitServing(serve, port2)
		for _, q := range [][]string{{"stats"}, {"around", "Lutfur Rahman"}, {"path", "Ajmal Masroor", "Keir Starmer"}} {
			ask := func(port int) string {
				args := append(slices.Clone(q), "--server=127.0.0.1:"+strconv.Itoa(port))
				out, err := exec.CommandContext(ctx, filepath.Join(builtImageDir, "rootfs", "polgraph"), args...).CombinedOutput()
				if err != nil {
					t.Fatalf("polgraph %q: %v\n%s", args, err, out)
				}
				return string(out)
			}
			want, got := ask(port), ask(port2)
			if !strings.Contains(want, "Lutfur Rahman") && q[0] != "stats" {
				t.Fatalf("polgraph %q through run's own user shows no Lutfur Rahman:\n%s", q, want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("polgraph %q as the user dgraph-acl.sh made (-run's user +dgraph-acl.sh's):\n%s", q, diff)
			}
		}
	})
}

// aclRuleCount is how many rules polgraph's Dgraph user needs: one for each predicate of the schema, one
// for the reverse of each @reverse predicate, and dgraph.type (as schema.Predicates and schema.Reverses
// read the schema).
func aclRuleCount(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "schema/schema.dql"))
	if err != nil {
		t.Fatal(err)
	}
	preds := regexp.MustCompile(`(?m)^(p[gq]\.[a-z_]+):`).FindAll(b, -1)
	reverses := regexp.MustCompile(`(?m)^(p[gq]\.[a-z_]+):.*@reverse`).FindAll(b, -1)
	if len(preds) < 10 || len(reverses) == 0 {
		t.Fatalf("schema/schema.dql: %d predicates, %d reverses", len(preds), len(reverses))
	}
	return len(preds) + len(reverses) + 1
}

// imagePolgraph is the image's polgraph binary, running.
type imagePolgraph struct {
	cmd    *exec.Cmd
	logs   *bytes.Buffer
	exited chan error
}

// startImagePolgraph starts the image's polgraph with args (and env added to the test's environment),
// and stops it when the test ends: SIGINT (run then stops its Dgraph), then, after 30 s, SIGKILL to
// the whole process group it leads.
func startImagePolgraph(t *testing.T, env []string, args ...string) *imagePolgraph {
	t.Helper()
	p := &imagePolgraph{logs: &bytes.Buffer{}, exited: make(chan error, 1)}
	p.cmd = exec.Command(filepath.Join(builtImageDir, "rootfs", "polgraph"), args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.exited
		}
		if t.Failed() {
			t.Logf("polgraph %s's output:\n%s", args[0], p.logs.String())
		}
	})
	return p
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
