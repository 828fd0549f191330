package history_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/polgraph/polgraph/data"
	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/graph/history"
	"github.com/polgraph/polgraph/graph/intake"
	"github.com/polgraph/polgraph/graph/service"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
	"github.com/polgraph/polgraph/internal/formats"
)

var (
	store     *dgraph.Store
	testGraph dgraphlocal.TestDgraph
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		fmt.Println("skipping tests that need Dgraph under -short")
		return 0
	}
	ctx := context.Background()
	d, stop, err := dgraphlocal.ForTests(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	testGraph = d
	if err := d.Reset(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if store, err = dgraph.Open(ctx, d.Service, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer store.Close()
	if err := store.ApplySchema(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// exportOf is the whole-graph export a service gives, in polgraph's format.
func exportOf(t *testing.T, svc *service.Service) string {
	t.Helper()
	sub, err := svc.Export(context.Background(), graph.ExportQuery{Unfiltered: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := formats.Write(&b, "polgraph", sub); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestKnownOnGivesTheGraphAsItStood writes the default graph and then, one write at a time, an upsert, a
// retraction, a merge and a deletion, taking a whole-graph export between each: the graph rebuilt as known
// on each of those instants exports the same bytes, and each instant between two writes, however many
// times asked, reads the one graph of that instant.
func TestKnownOnGivesTheGraphAsItStood(t *testing.T) {
	ctx := context.Background()
	writes := &intake.Service{Store: store}
	live := &service.Service{Store: store, Budget: graph.DefaultWorkBudget, Timeout: time.Minute}
	past, err := history.New(live, 2)
	if err != nil {
		t.Fatal(err)
	}
	meta := func(method, reason string) graph.WriteMeta {
		return graph.WriteMeta{Principal: "test", Method: method, Reason: reason}
	}
	type point struct {
		name   string
		at     time.Time
		export string
	}
	var points []point
	mark := func(name string) {
		time.Sleep(5 * time.Millisecond) // the trail keeps milliseconds: the instant falls between writes
		at := time.Now()
		time.Sleep(5 * time.Millisecond)
		points = append(points, point{name, at, exportOf(t, live)})
	}
	mark("before anything")
	if _, err := writes.Load(ctx, meta("LoadDataset", ""), []dataset.File{data.Default()}); err != nil {
		t.Fatal(err)
	}
	mark("the default graph")
	if _, err := writes.Upsert(ctx, meta("UpsertEntities", ""), intake.Batch{Field: "entities",
		Lines: []string{`{"record":"entity","name":"actors/known-on-probe","display_name":"Known On Probe"}`}}); err != nil {
		t.Fatal(err)
	}
	if _, err := writes.Upsert(ctx, meta("UpsertRelations", ""), intake.Batch{Field: "relations", Lines: []string{
		`{"record":"relation","type":"ENDORSES","from":"actors/known-on-probe","to":"actors/lutfur-rahman","date":"2024",` +
			`"claims":[{"source":"sources/tower-hamlets-general-election-2024","excerpt":"A probe.","confidence":0.5,"status":"ALLEGED"}]}`}}); err != nil {
		t.Fatal(err)
	}
	mark("after an upsert")
	rel, err := store.GetRelations(ctx, []graph.RelationName{"relations/lutfur-rahman.member-of.aspire"})
	if err != nil || len(rel) != 1 {
		t.Fatalf("the relation to retract a claim of: %v %v", rel, err)
	}
	claim := string(rel["relations/lutfur-rahman.member-of.aspire"].Claims[0].Name)
	if _, err := writes.RetractClaim(ctx, meta("RetractClaim", "a test retraction"), claim, "a test retraction"); err != nil {
		t.Fatal(err)
	}
	mark("after a retraction")
	if _, err := writes.MergeEntities(ctx, meta("MergeEntities", "a test merge"), "actors/known-on-probe", "actors/ajmal-masroor", "a test merge"); err != nil {
		t.Fatal(err)
	}
	mark("after a merge")
	if _, err := writes.DeleteRelation(ctx, meta("DeleteRelation", "a test deletion"), "relations/lutfur-rahman.founded.aspire", "a test deletion"); err != nil {
		t.Fatal(err)
	}
	mark("after a deletion")

	for i, p := range points {
		g, err := past.At(ctx, p.at)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if got := exportOf(t, g.Service); got != p.export {
			t.Errorf("%s: the graph as known on %s exports\n%s\nwant\n%s", p.name, p.at.Format(time.RFC3339Nano), firstDifference(got, p.export), "")
		}
		t.Logf("%s: %d changes held, %d undone, %d bytes exported", p.name, g.Changes, g.Undone, len(p.export))
		if last := i == len(points)-1; (g.Undone == 0) != last {
			t.Errorf("%s: %d changes undone", p.name, g.Undone)
		}
		if (i > 0) != (g.Version > 0) {
			t.Errorf("%s: version %d", p.name, g.Version)
		}
		if i > 0 && g.Through.IsZero() || g.Through.After(p.at) {
			t.Errorf("%s: holds changes through %s", p.name, g.Through)
		}
		// Any instant between the same two writes reads the same graph, already rebuilt.
		again, err := past.At(ctx, p.at.Add(time.Millisecond))
		if err != nil || again != g {
			t.Errorf("%s: a millisecond later, another graph (%v)", p.name, err)
		}
	}
	if points[0].export == points[1].export || points[3].export == points[4].export {
		t.Fatal("the writes changed nothing the export shows: the test proves nothing")
	}
}

// firstDifference shows where two exports part: the first line that differs in each.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d (of %d, want %d):\n  got  %s\n  want %s", i+1, len(g), len(w), gl, wl)
		}
	}
	return "the same"
}

func TestParseInstant(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
	}{
		{"2026-12-01T09:30:00Z", "2026-12-01T09:30:00Z"},
		{"2026-12-01T09:30:00+01:00", "2026-12-01T08:30:00Z"},
		{"2026-12-01", "2026-12-01T23:59:59.999Z"},
		{" 2026-12-01 ", "2026-12-01T23:59:59.999Z"},
		{"yesterday", ""},
		{"2026-13-01", ""},
	} {
		got, err := history.ParseInstant(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%q: %s, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got.Format(time.RFC3339Nano) != tc.want {
			t.Errorf("%q: %s, %v; want %s", tc.in, got.Format(time.RFC3339Nano), err, tc.want)
		}
	}
}
