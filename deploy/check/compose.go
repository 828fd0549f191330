package check

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// DgraphImage is the Dgraph image polgraph is tested with: the release deploy/build-dgraph.sh builds.
const DgraphImage = "dgraph/dgraph:v25.0.0"

// GraphServiceHealth is the grpc.health.v1 service name that reports whether polgraph serves reads: it
// turns NOT_SERVING while Dgraph does not answer.
const GraphServiceHealth = "polgraph.v1.GraphService"

// LoadCompose reads a Compose file as Docker Compose does: interpolated with env, checked against the
// Compose specification's JSON schema, and for consistency (services' networks, volumes and dependencies
// exist).
func LoadCompose(ctx context.Context, file string, content []byte, env map[string]string) (*types.Project, error) {
	details := types.ConfigDetails{
		WorkingDir:  filepath.Dir(file),
		ConfigFiles: []types.ConfigFile{{Filename: file, Content: content}},
		Environment: env,
	}
	return loader.LoadWithContext(ctx, details, func(o *loader.Options) {
		o.SetProjectName("polgraph", true)
		o.ResolvePaths = false
	})
}

// CheckCompose returns every way the project is not a replicated Dgraph cluster with polgraph replicas
// on it:
//   - one zero (`dgraph zero`) with --replicas 3, and three alphas (`dgraph alpha`) that it therefore puts
//     in one group, each naming the zero and itself by its service name;
//   - the Dgraph services on one internal network, none publishing a port, each alpha's admin whitelist
//     that network's subnet;
//   - at least two polgraph services (command `serve`) that each list every alpha's gRPC address in
//     --dgraph and nothing else, listen on all interfaces, wait for every alpha to be healthy, have a
//     healthcheck asking grpc.health.v1 for polgraph.v1.GraphService on their gRPC port, run as a
//     non-root user on a read-only filesystem without capabilities, and publish ports on loopback only;
//   - every service with a healthcheck, and every image pinned: Dgraph's to DgraphImage, polgraph's to a
//     tag that is not latest.
func CheckCompose(p *types.Project) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	var zeros, alphas, polgraphs []types.ServiceConfig
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range p.Services {
			if !yield(n) {
				return
			}
		}
	}) {
		s := p.Services[name]
		switch {
		case len(s.Command) >= 2 && s.Command[0] == "dgraph" && s.Command[1] == "zero":
			zeros = append(zeros, s)
		case len(s.Command) >= 2 && s.Command[0] == "dgraph" && s.Command[1] == "alpha":
			alphas = append(alphas, s)
		case len(s.Command) >= 1 && s.Command[0] == "serve":
			polgraphs = append(polgraphs, s)
		default:
			bad("service %s is neither a Dgraph zero or alpha nor polgraph serve: command %q", name, s.Command)
		}
		if s.HealthCheck == nil || s.HealthCheck.Disable || len(s.HealthCheck.Test) == 0 || s.HealthCheck.Test[0] == "NONE" {
			bad("service %s has no healthcheck", name)
		}
	}

	if len(zeros) != 1 {
		bad("%d Dgraph zeros, want 1", len(zeros))
	}
	if len(alphas) != 3 {
		bad("%d Dgraph alphas, want 3 (one group of 3 replicas)", len(alphas))
	}
	zeroAddr := ""
	for _, z := range zeros {
		args := z.Command[2:]
		if r, _ := flagValue(args, "replicas"); r != "3" {
			bad("zero %s: --replicas %q, want 3 (every tablet on 3 alphas)", z.Name, r)
		}
		zeroAddr, _ = flagValue(args, "my")
		if host, _, err := net.SplitHostPort(zeroAddr); err != nil || host != z.Name {
			bad("zero %s: --my=%q, want its service name and a port", z.Name, zeroAddr)
		}
	}

	// Dgraph's network: the one every Dgraph service is on.
	dgraphNets := map[string]int{}
	for _, s := range append(slices.Clone(zeros), alphas...) {
		if s.Image != DgraphImage {
			bad("service %s: image %q, want %q (the release polgraph is tested with)", s.Name, s.Image, DgraphImage)
		}
		if len(s.Ports) > 0 {
			bad("service %s publishes ports %v; Dgraph must be reachable only on its internal network", s.Name, s.Ports)
		}
		for n := range s.Networks {
			dgraphNets[n]++
		}
	}
	var dgraphNet string
	for n, count := range dgraphNets {
		if count == len(zeros)+len(alphas) {
			dgraphNet = n
		}
	}
	subnet := ""
	if dgraphNet == "" {
		bad("the Dgraph services share no network")
	} else {
		nc := p.Networks[dgraphNet]
		if !nc.Internal {
			bad("network %s, Dgraph's, is not internal", dgraphNet)
		}
		if len(nc.Ipam.Config) == 1 {
			subnet = nc.Ipam.Config[0].Subnet
		}
		if _, _, err := net.ParseCIDR(subnet); err != nil {
			bad("network %s, Dgraph's, has no single subnet (%q) for the alphas' whitelist", dgraphNet, subnet)
		}
	}

	var alphaAddrs []string
	for _, a := range alphas {
		args := a.Command[2:]
		if z, _ := flagValue(args, "zero"); z != zeroAddr {
			bad("alpha %s: --zero=%q, want the zero's address %q", a.Name, z, zeroAddr)
		}
		if my, _ := flagValue(args, "my"); !strings.HasPrefix(my, a.Name+":") {
			bad("alpha %s: --my=%q, want its service name and a port", a.Name, my)
		}
		sec, _ := flagValue(args, "security")
		if wl := superflag(sec)["whitelist"]; wl != subnet {
			bad("alpha %s: --security whitelist %q, want Dgraph's network's subnet %q", a.Name, wl, subnet)
		}
		alphaAddrs = append(alphaAddrs, a.Name+":9080")
	}

	if len(polgraphs) < 2 {
		bad("%d polgraph services, want at least 2", len(polgraphs))
	}
	for _, s := range polgraphs {
		errs = append(errs, checkPolgraphService(s, alphaAddrs, alphas, dgraphNet)...)
	}
	return errs
}

// checkPolgraphService holds one polgraph service to CheckCompose's rules.
func checkPolgraphService(s types.ServiceConfig, alphaAddrs []string, alphas []types.ServiceConfig, dgraphNet string) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("service %s: "+format, append([]any{s.Name}, args...)...))
	}
	args := s.Command[1:]
	if !pinnedImage(s.Image) {
		bad("image %q is not pinned to a tag or a digest", s.Image)
	}
	dg, _ := flagValue(args, "dgraph")
	got := strings.Split(dg, ",")
	sort.Strings(got)
	if want := slices.Sorted(slices.Values(alphaAddrs)); !slices.Equal(got, want) {
		bad("--dgraph=%q, want every alpha and only them: %q", dg, strings.Join(want, ","))
	}
	addr, _ := flagValue(args, "addr")
	host, port, err := net.SplitHostPort(addr)
	if err != nil || (host != "0.0.0.0" && host != "" && host != "::") {
		bad("--addr=%q, want all interfaces (0.0.0.0:PORT), or other containers cannot reach it", addr)
	}
	var test []string
	if s.HealthCheck != nil {
		test = s.HealthCheck.Test
	}
	if len(test) < 2 || test[0] != "CMD" || test[1] != "/grpc_health_probe" ||
		!slices.Contains(test, "-addr=127.0.0.1:"+port) || !slices.Contains(test, "-service="+GraphServiceHealth) {
		bad("healthcheck %q, want /grpc_health_probe -addr=127.0.0.1:%s -service=%s", test, port, GraphServiceHealth)
	}
	for _, a := range alphas {
		if d, ok := s.DependsOn[a.Name]; !ok || d.Condition != types.ServiceConditionHealthy {
			bad("does not wait for alpha %s to be healthy", a.Name)
		}
	}
	if _, ok := s.Networks[dgraphNet]; !ok {
		bad("is not on Dgraph's network %s", dgraphNet)
	}
	if uid, err := numericUser(s.User); err != nil || uid == 0 {
		bad("user %q: want a numeric non-root UID", s.User)
	}
	if !s.ReadOnly {
		bad("root filesystem is not read-only")
	}
	if !slices.Contains(s.CapDrop, "ALL") {
		bad("capabilities are not dropped (cap_drop: [ALL])")
	}
	for _, p := range s.Ports {
		if ip := net.ParseIP(p.HostIP); ip == nil || !ip.IsLoopback() {
			bad("port %d is published on %q, not on loopback", p.Target, p.HostIP)
		}
	}
	return errs
}

// flagValue finds a command-line flag's value, given as --name=value, --name value or -name value.
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		for _, prefix := range []string{"--", "-"} {
			if v, ok := strings.CutPrefix(a, prefix+name+"="); ok {
				return v, true
			}
			if a == prefix+name && i+1 < len(args) {
				return args[i+1], true
			}
		}
	}
	return "", false
}

// superflag reads one of Dgraph's superflags, "key=value; key=value;", into a map.
func superflag(v string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(v, ";") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}
