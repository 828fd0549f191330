package main

import (
	"bufio"
	"context"
	"encoding/json"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph/dgraph"
)

// attackerPage tries everything a page on another origin could try against the local Dgraph and
// polgraph, and records what each attempt could read. Requests the browser cannot read the answer of
// (no-cors) are checked from Go afterwards, by their effect.
var attackerPage = template.Must(template.New("attack").Parse(`<!doctype html>
<title>another site</title>
<script>
const t = {{.}};
window.__results = {};
async function attempt(name, url, init) {
  try {
    const r = await fetch(url, init);
    window.__results[name] = { status: r.status, type: r.type, body: r.type === "opaque" ? "" : (await r.text()).slice(0, 500) };
  } catch (e) {
    window.__results[name] = { blocked: String(e) };
  }
}
(async () => {
  await attempt("dgraph read", t.alpha + "/query", { method: "POST", headers: { "Content-Type": "application/dql" },
    body: "{ q(func: has(pg.name), first: 5) { pg.name pg.display_name } }" });
  await attempt("dgraph write", t.alpha + "/mutate?commitNow=true", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ set: [{ "pg.name": "actors/injected-by-a-page", "pg.display_name": "Injected" }] }) });
  await attempt("dgraph alter", t.alpha + "/alter", { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" },
    body: "injected_by_a_page: string ." });
  await attempt("dgraph drop", t.alpha + "/alter", { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" },
    body: JSON.stringify({ drop_all: true }) });
  await attempt("dgraph login with the default password", t.alpha + "/login", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ userid: "groot", password: "password" }) });
  await attempt("dgraph admin", t.alpha + "/admin", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query: "{ getGQLSchema { schema } }" }) });
  await attempt("dgraph state", t.alpha + "/state", {});
  await attempt("zero remove node", t.zero + "/removeNode?id=1&group=1", { mode: "no-cors" });
  await attempt("zero state", t.zero + "/state", {});
  await attempt("polgraph API", t.polgraph + "/polgraph.v1.GraphService/SearchEntities", { method: "POST",
    headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" }, body: JSON.stringify({ query: "Lutfur" }) });
  await attempt("polgraph API, simple request", t.polgraph + "/polgraph.v1.GraphService/SearchEntities", { method: "POST", mode: "no-cors",
    headers: { "Content-Type": "text/plain" }, body: JSON.stringify({ query: "Lutfur" }) });
  await attempt("polgraph health", t.polgraph + "/healthz", {});
  window.__done = true;
})();
</script>`))

// TestCrossOriginPagesAreShutOut serves a page on another origin that tries to read, write, alter and drop
// the test Dgraph (started closed, as `polgraph run` starts it) and to call polgraph's API, opens it in
// headless Chromium, and checks that no attempt read anything and that the graph is as it was.
func TestCrossOriginPagesAreShutOut(t *testing.T) {
	node, web := browserTest(t)
	if testDgraph.AlphaHTTP == "" {
		t.Skip("the test Dgraph's HTTP ports are unknown")
	}
	ctx := context.Background()
	before := counts(t)

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{"alpha": testDgraph.AlphaHTTP, "zero": testDgraph.ZeroHTTP, "polgraph": "http://" + explorerAddr}
	attacker := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		attackerPage.Execute(w, targets)
	})}
	go attacker.Serve(lis)
	defer attacker.Close()

	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, node, "e2e/cross-origin.mjs")
	cmd.Dir = web
	cmd.Env = append(os.Environ(), "POLGRAPH_ATTACKER_URL=http://"+lis.Addr().String()+"/", "POLGRAPH_CHROMIUM="+chromiumPath())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("web/e2e/cross-origin.mjs: %v\n%s", err, out)
	}
	type result struct {
		Status  int
		Type    string
		Body    string
		Blocked string
	}
	var results map[string]result
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "RESULTS "); ok {
			if err := json.Unmarshal([]byte(rest), &results); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(results) == 0 {
		t.Fatalf("no results from the page:\n%s", out)
	}
	for name, r := range results {
		t.Logf("%-40s %d %s %.120s%s", name, r.Status, r.Type, r.Body, r.Blocked)
		switch {
		case strings.HasPrefix(name, "polgraph"):
			// polgraph sends no CORS header: the browser lets the page read nothing.
			if r.Blocked == "" && r.Type != "opaque" {
				t.Errorf("%s: the page read polgraph's answer: %d %s", name, r.Status, r.Body)
			}
		case r.Blocked != "" || r.Type == "opaque":
			// Nothing to read; the effect is checked below.
		default:
			// Dgraph lets any origin read its answers: they must be refusals.
			if strings.Contains(r.Body, `"data":{"q"`) || strings.Contains(r.Body, "accessJWT") || strings.Contains(r.Body, "pg.display_name") ||
				strings.Contains(r.Body, "schema") && !strings.Contains(r.Body, "error") {
				t.Errorf("%s: the page read %s", name, r.Body)
			}
			if !strings.Contains(r.Body, "error") && r.Status < 400 {
				t.Errorf("%s: not a refusal: %d %s", name, r.Status, r.Body)
			}
		}
	}

	// The graph is as it was: nothing written, no predicate added, nothing dropped, the cluster whole.
	if after := counts(t); after != before {
		t.Errorf("counts changed: %+v, then %+v", before, after)
	}
	admin, err := dgraph.Open(ctx, testDgraph.Admin, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := client.GetEntity(ctx, &pb.GetEntityRequest{Name: "actors/injected-by-a-page"}); err == nil {
		t.Error("the page wrote an entity")
	}
	if has, err := admin.HasPredicates(ctx, []string{"injected_by_a_page", "pg.name"}); err != nil || has["injected_by_a_page"] || !has["pg.name"] {
		t.Errorf("the page added a predicate, or the schema was dropped (%v, %v)", has, err)
	}
	if _, err := client.FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer"}); err != nil {
		t.Errorf("after the attempts polgraph does not answer: %v", err)
	}
}
