package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
)

// composeEnv is the environment the Compose file is read with: the image `make image` built is the
// user's to name.
var composeEnv = map[string]string{"POLGRAPH_IMAGE": "polgraph:1a2b3c4"}

func readCompose(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "deploy/compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCompose(t *testing.T) {
	t.Parallel()
	p, err := LoadCompose(context.Background(), filepath.Join(root, "deploy/compose.yaml"), readCompose(t), composeEnv)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range CheckCompose(p) {
		t.Error(err)
	}
}

// TestComposeNeedsTheImage: without POLGRAPH_IMAGE the file does not load (no default image).
func TestComposeNeedsTheImage(t *testing.T) {
	t.Parallel()
	_, err := LoadCompose(context.Background(), filepath.Join(root, "deploy/compose.yaml"), readCompose(t), nil)
	if err == nil || !strings.Contains(err.Error(), "POLGRAPH_IMAGE") {
		t.Errorf("loaded without POLGRAPH_IMAGE: %v", err)
	}
}

// TestComposeSchema breaks the file where only the Compose specification's schema, or the loader's
// consistency checks, can tell.
func TestComposeSchema(t *testing.T) {
	t.Parallel()
	src := string(readCompose(t))
	for _, tc := range []struct{ name, old, new string }{
		{"an unknown service key", "    volumes: [\"alpha1:/dgraph\"]\n", "    volumes: [\"alpha1:/dgraph\"]\n    replica: 3\n"},
		{"a healthcheck retries that is no number", "  retries: 3\n", "  retries: three\n"},
		{"an undeclared volume", `volumes: ["alpha2:/dgraph"]`, `volumes: ["alpha9:/dgraph"]`},
		{"an undeclared network", "  networks: [dgraph, front]\n", "  networks: [dgraph, back]\n"},
		{"a dependency on no service", "    alpha3: {condition: service_healthy}\n", "    alpha4: {condition: service_healthy}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(src, tc.old) {
				t.Fatalf("deploy/compose.yaml has no %q to change", tc.old)
			}
			changed := strings.Replace(src, tc.old, tc.new, 1)
			_, err := LoadCompose(context.Background(), filepath.Join(root, "deploy/compose.yaml"), []byte(changed), composeEnv)
			if err == nil {
				t.Fatalf("%q → %q loaded without an error", tc.old, tc.new)
			}
			t.Log(err)
		})
	}
}

// TestCheckComposeFindsProblems changes the loaded project one way at a time.
func TestCheckComposeFindsProblems(t *testing.T) {
	t.Parallel()
	setCommand := func(service string, f func([]string) []string) func(*types.Project) {
		return func(p *types.Project) {
			s := p.Services[service]
			s.Command = f(append([]string(nil), s.Command...))
			p.Services[service] = s
		}
	}
	replaceArg := func(service, old, new string) func(*types.Project) {
		return setCommand(service, func(args []string) []string {
			for i, a := range args {
				if a == old || strings.HasPrefix(a, old+"=") {
					args[i] = new
				}
			}
			return args
		})
	}
	change := func(service string, f func(*types.ServiceConfig)) func(*types.Project) {
		return func(p *types.Project) {
			s := p.Services[service]
			f(&s)
			p.Services[service] = s
		}
	}
	for _, tc := range []struct {
		name   string
		change func(*types.Project)
		want   string
	}{
		{"polgraph missing an alpha", replaceArg("polgraph-2", "--dgraph", "--dgraph=alpha1:9080,alpha2:9080"), "polgraph-2: --dgraph"},
		{"polgraph naming a stranger", replaceArg("polgraph-1", "--dgraph", "--dgraph=alpha1:9080,alpha2:9080,alpha3:9080,db:9080"), "polgraph-1: --dgraph"},
		{"polgraph on loopback", replaceArg("polgraph-1", "--addr", "--addr=127.0.0.1:50051"), "--addr"},
		{"one polgraph", func(p *types.Project) { delete(p.Services, "polgraph-2") }, "1 polgraph services"},
		{"two alphas", func(p *types.Project) { delete(p.Services, "alpha3") }, "2 Dgraph alphas"},
		{"replicas 1", setCommand("zero", func(a []string) []string {
			for i := range a {
				if a[i] == "--replicas" {
					a[i+1] = "1"
				}
			}
			return a
		}), "--replicas"},
		{"an alpha on another zero", replaceArg("alpha2", "--zero", "--zero=zero2:5080"), "alpha2: --zero"},
		{"an open whitelist", replaceArg("alpha1", "--security", "--security=whitelist=0.0.0.0/0;"), "whitelist"},
		{"Dgraph latest", change("alpha1", func(s *types.ServiceConfig) { s.Image = "dgraph/dgraph:latest" }), "alpha1: image"},
		{"Dgraph unpinned", change("zero", func(s *types.ServiceConfig) { s.Image = "dgraph/dgraph" }), "zero: image"},
		{"polgraph latest", change("polgraph-1", func(s *types.ServiceConfig) { s.Image = "polgraph:latest" }), "is not pinned"},
		{"polgraph untagged", change("polgraph-1", func(s *types.ServiceConfig) { s.Image = "polgraph" }), "is not pinned"},
		{"an alpha published", change("alpha3", func(s *types.ServiceConfig) {
			s.Ports = []types.ServicePortConfig{{Target: 9080, Published: "9080"}}
		}), "alpha3 publishes"},
		{"Dgraph's network open", func(p *types.Project) { n := p.Networks["dgraph"]; n.Internal = false; p.Networks["dgraph"] = n }, "not internal"},
		{"no healthcheck", change("alpha2", func(s *types.ServiceConfig) { s.HealthCheck = nil }), "alpha2 has no healthcheck"},
		{"a healthcheck turned off", change("zero", func(s *types.ServiceConfig) { s.HealthCheck.Test = types.HealthCheckTest{"NONE"} }), "zero has no healthcheck"},
		{"the liveness service", change("polgraph-1", func(s *types.ServiceConfig) {
			s.HealthCheck.Test = types.HealthCheckTest{"CMD", "/grpc_health_probe", "-addr=127.0.0.1:50051"}
		}), "healthcheck"},
		{"a healthcheck on another port", change("polgraph-2", func(s *types.ServiceConfig) {
			s.HealthCheck.Test = types.HealthCheckTest{"CMD", "/grpc_health_probe", "-addr=127.0.0.1:9090", "-service=polgraph.v1.GraphService"}
		}), "healthcheck"},
		{"not waiting for an alpha", change("polgraph-1", func(s *types.ServiceConfig) { delete(s.DependsOn, "alpha3") }), "alpha alpha3"},
		{"waiting for an alpha to start only", change("polgraph-1", func(s *types.ServiceConfig) {
			s.DependsOn["alpha1"] = types.ServiceDependency{Condition: types.ServiceConditionStarted}
		}), "alpha alpha1"},
		{"root", change("polgraph-2", func(s *types.ServiceConfig) { s.User = "0" }), "user"},
		{"writable", change("polgraph-2", func(s *types.ServiceConfig) { s.ReadOnly = false }), "read-only"},
		{"capabilities", change("polgraph-2", func(s *types.ServiceConfig) { s.CapDrop = nil }), "capabilities"},
		{"published on every interface", change("polgraph-1", func(s *types.ServiceConfig) { s.Ports[0].HostIP = "0.0.0.0" }), "not on loopback"},
		{"a stranger", func(p *types.Project) {
			shell := types.ServiceConfig{Name: "shell"}
			shell.Image, shell.Command = "debian:12", types.ShellCommand{"sleep", "infinity"}
			p.Services["shell"] = shell
		}, "service shell is neither"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := LoadCompose(context.Background(), filepath.Join(root, "deploy/compose.yaml"), readCompose(t), composeEnv)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(p)
			if errs := CheckCompose(p); !anyContains(errs, tc.want) {
				t.Errorf("want a problem with %q; got %v", tc.want, errs)
			}
		})
	}
}
