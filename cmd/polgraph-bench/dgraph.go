package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// dgraphNode is a fresh zero and alpha with data in a folder of their own.
type dgraphNode struct {
	cfg     dgraphlocal.Config
	cluster *dgraphlocal.Cluster
}

// started counts the Dgraphs this process started, so that each looks for free ports in a range of its own.
var started atomic.Int64

func startDgraph(ctx context.Context, bin, dir string, log *slog.Logger) (*dgraphNode, error) {
	// Offsets from 10000 put every port (15080 up) above the tests' and `make run`'s and below the
	// kernel's ephemeral ports.
	// Open: the benchmark compares polgraph with Dgraph as it comes out of the box, without ACL, on both
	// sides (an ACL check adds the same small cost to every Dgraph call of either).
	cfg := dgraphlocal.Config{Binary: bin, DataDir: dir, Logger: log, Open: true}
	c, cfg, err := dgraphlocal.StartOnFreePorts(ctx, cfg, 10000+os.Getpid()%100*7+int(started.Add(1)%10)*700)
	if err != nil {
		return nil, err
	}
	d := &dgraphNode{cfg: cfg, cluster: c}
	if err := d.waitReady(ctx); err != nil {
		d.stop()
		return nil, err
	}
	return d, nil
}

// waitReady waits until the alpha answers queries: it reports healthy a little before it does.
func (d *dgraphNode) waitReady(ctx context.Context) error {
	raw, err := dialRaw(d.cfg.AlphaAddr())
	if err != nil {
		return err
	}
	defer raw.close()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var out any
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := raw.query(qctx, `{ q(func: uid(0x1)) { uid } }`, nil, &out)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the Dgraph alpha at %s does not answer queries: %w", d.cfg.AlphaAddr(), err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (d *dgraphNode) alphaPID() int {
	_, pid := d.cluster.PIDs()
	return pid
}

func (d *dgraphNode) stop() error { return d.cluster.Stop() }

// restart stops zero and alpha and starts them again on the same data and ports.
func (d *dgraphNode) restart(ctx context.Context) error {
	if err := d.cluster.Stop(); err != nil {
		return err
	}
	c, err := dgraphlocal.Start(ctx, d.cfg)
	if err != nil {
		return err
	}
	d.cluster = c
	return d.waitReady(ctx)
}

// dgraphVersion asks the binary which release it is. A binary built from the module proxy (as
// deploy/build-dgraph.sh builds it) calls itself "dev"; then the module version it was built from is given.
func dgraphVersion(bin string) string {
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	m := regexp.MustCompile(`Dgraph version\s*:\s*(\S+)`).FindSubmatch(out)
	switch {
	case m == nil:
		return "unknown"
	case string(m[1]) == "dev" && bin == dgraphlocal.DefaultBinary():
		return dgraphlocal.Version + ", built from the Go module by deploy/build-dgraph.sh (the binary calls itself \"dev\")"
	}
	return string(m[1])
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// rawDgraph asks Dgraph directly through dgo what polgraph's queries ask, for comparison.
type rawDgraph struct {
	conn *grpc.ClientConn
	dg   *dgo.Dgraph
}

func dialRaw(addr string) (*rawDgraph, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(512<<20)))
	if err != nil {
		return nil, err
	}
	return &rawDgraph{conn: conn, dg: dgo.NewDgraphClient(api.NewDgraphClient(conn))}, nil
}

func (r *rawDgraph) close() { r.conn.Close() }

func (r *rawDgraph) query(ctx context.Context, q string, vars map[string]string, out any) error {
	resp, err := r.dg.NewReadOnlyTxn().QueryWithVars(ctx, q, vars)
	if err != nil {
		return err
	}
	return json.Unmarshal(resp.Json, out)
}

// uids looks up the uid of each named entity.
func (r *rawDgraph) uids(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]string, error) {
	out := make(map[graph.EntityName]string, len(names))
	for _, n := range names {
		if _, ok := out[n]; ok {
			continue
		}
		var res struct {
			Q []struct {
				UID string `json:"uid"`
			}
		}
		if err := r.query(ctx, `query q($n: string) { q(func: eq(pg.name, $n)) { uid } }`, map[string]string{"$n": string(n)}, &res); err != nil {
			return nil, err
		}
		if len(res.Q) != 1 {
			return nil, fmt.Errorf("%s: %d nodes have this name", n, len(res.Q))
		}
		out[n] = res.Q[0].UID
	}
	return out, nil
}

var uidRE = regexp.MustCompile(`^0x[0-9a-f]+$`)

// shortest asks Dgraph's k-shortest-path query for paths of at most depth hops. A hop is two edges in
// Dgraph (entity → relation node → entity), walked either way; claims are not looked at, so DENIED-only
// relations count as links here, unlike in polgraph. It returns the paths' lengths in hops.
func (r *rawDgraph) shortest(ctx context.Context, from, to string, k, depth int) ([]int, error) {
	if !uidRE.MatchString(from) || !uidRE.MatchString(to) {
		return nil, fmt.Errorf("bad uid %q or %q", from, to)
	}
	q := fmt.Sprintf(`{ shortest(from: %s, to: %s, numpaths: %d, depth: %d) { ~pg.from ~pg.to pg.from pg.to } }`,
		from, to, k, 2*depth)
	var res struct {
		Path []map[string]any `json:"_path_"`
	}
	if err := r.query(ctx, q, nil, &res); err != nil {
		return nil, err
	}
	lengths := make([]int, 0, len(res.Path))
	for _, p := range res.Path {
		w, _ := p["_weight_"].(float64)
		lengths = append(lengths, int(w)/2)
	}
	return lengths, nil
}

// recurse asks for the neighbourhood with @recurse, at most perNode relations of each direction per
// entity. It returns how many entities came back.
func (r *rawDgraph) recurse(ctx context.Context, center string, depth, perNode int) (int, error) {
	if !uidRE.MatchString(center) {
		return 0, fmt.Errorf("bad uid %q", center)
	}
	q := fmt.Sprintf(`{ q(func: uid(%s)) @recurse(depth: %d, loop: false) { uid pg.name ~pg.from (first: %d) ~pg.to (first: %d) pg.from pg.to } }`,
		center, 2*depth+1, perNode, perNode)
	var res struct {
		Q []json.RawMessage `json:"q"`
	}
	if err := r.query(ctx, q, nil, &res); err != nil {
		return 0, err
	}
	seen := map[string]bool{}
	for _, m := range res.Q {
		countNames(m, seen)
	}
	return len(seen), nil
}

// countNames collects the entity names in a nested answer (relation names are left out).
func countNames(raw json.RawMessage, seen map[string]bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if n, ok := x["pg.name"].(string); ok && !strings.HasPrefix(n, "relations/") {
				seen[n] = true
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
}

// bfs is the plain way to find a shortest path from a client: breadth first from one end, one query per
// level for the whole frontier, filtering relations by their claims' support as polgraph does (the
// default filter). It returns the distance in hops, or nothing beyond depth.
func (r *rawDgraph) bfs(ctx context.Context, from, to string, depth int) ([]int, error) {
	if from == to {
		return nil, nil
	}
	var filter graph.RelationFilter
	seen := map[string]bool{from: true}
	front := []string{from}
	for d := 1; d <= depth && len(front) > 0; d++ {
		for _, u := range front {
			if !uidRE.MatchString(u) {
				return nil, fmt.Errorf("bad uid %q", u)
			}
		}
		q := `{ q(func: uid(` + strings.Join(front, ",") + `)) {
  out: ~pg.from { pg.support pg.to { uid } }
  in: ~pg.to { pg.support pg.from { uid } } } }`
		type end struct {
			UID string `json:"uid"`
		}
		var res struct {
			Q []struct {
				Out []struct {
					Support string `json:"pg.support"`
					To      *end   `json:"pg.to"`
				} `json:"out"`
				In []struct {
					Support string `json:"pg.support"`
					From    *end   `json:"pg.from"`
				} `json:"in"`
			}
		}
		if err := r.query(ctx, q, nil, &res); err != nil {
			return nil, err
		}
		var next []string
		visit := func(support string, e *end) bool {
			if e == nil || seen[e.UID] || !filter.Counts(graph.Link{Period: graph.OpenPeriod, Support: dgraph.DecodeSupport(support)}) {
				return false
			}
			seen[e.UID] = true
			next = append(next, e.UID)
			return e.UID == to
		}
		for _, n := range res.Q {
			for _, l := range n.Out {
				if visit(l.Support, l.To) {
					return []int{d}, nil
				}
			}
			for _, l := range n.In {
				if visit(l.Support, l.From) {
					return []int{d}, nil
				}
			}
		}
		front = next
	}
	return nil, nil
}
