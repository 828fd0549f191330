package dgraph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/dgraph-io/dgo/v230/protos/api"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// TestFillChecksPackStamps changes relations, an entity and a source by hand, as a write that does not
// know of packs would, leaving their packs as they were: each time, a fill (which reads no node's
// pg.changed) finds it by counting the packs' stamps, reads every node of that type again and gives each
// as the reads give it, and drops the stale pack, so that the next fill reads each node once again.
func TestFillChecksPackStamps(t *testing.T) {
	ctx := context.Background()
	dg, dctx := serviceClient(t)
	ents, rels := graphtest.RandomGraph(8121, 8, 16)
	load(t, ents, rels)
	// A newer pack: rels[3] written again, with a claim more.
	newer := rels[3]
	newer.Claims = append(newer.Claims, graph.Claim{Name: graph.ClaimNameFor(newer.Name, "sources/stamps", ""),
		Source: graph.Source{Name: "sources/stamps"}, Excerpt: "said again", Confidence: 0.7, Status: graph.StatusReported})
	if err := store.UpsertSources(ctx, []graph.Source{{Name: "sources/stamps", Title: "Stamps", Kind: graph.SourceArticle}}); err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertRelations(ctx, []graph.Relation{newer}); err != nil {
		t.Fatal(err)
	}
	node := func(name string) (uid string, changed int64) {
		t.Helper()
		resp, err := dg.NewReadOnlyTxn().QueryWithVars(dctx, `query q($n: string) { q(func: eq(pg.name, $n)) { uid pg.changed } }`,
			map[string]string{"$n": name})
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Q []struct {
				UID     string `json:"uid"`
				Changed int64  `json:"pg.changed"`
			}
		}
		if err := json.Unmarshal(resp.Json, &res); err != nil || len(res.Q) != 1 {
			t.Fatalf("%s: %s (%v)", name, resp.Json, err)
		}
		return res.Q[0].UID, res.Q[0].Changed
	}
	mutate := func(m *api.Mutation) {
		t.Helper()
		m.CommitNow = true
		if _, err := dg.NewTxn().Mutate(dctx, m); err != nil {
			t.Fatal(err)
		}
	}
	_, newerStamp := node(string(newer.Name))
	version, err := store.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// fill reads the graph from version 0 and checks what it gives of rels and ents against the reads; it
	// returns the sources it gives.
	fill := func(when string) map[graph.SourceName]graph.Source {
		t.Helper()
		got := map[graph.RelationName]graph.RelationHeader{}
		gotEnts := map[graph.EntityName]graph.Entity{}
		gotSrcs := map[graph.SourceName]graph.Source{}
		if _, err := store.Changes(ctx, 0, func(c graph.Changed) {
			for _, h := range c.Headers {
				got[h.Relation.Name] = h
			}
			for _, e := range c.Entities {
				gotEnts[e.Name] = e
			}
			for _, src := range c.Sources {
				gotSrcs[src.Name] = src
			}
		}); err != nil {
			t.Fatal(err)
		}
		entNames := make([]graph.EntityName, len(ents))
		for i, e := range ents {
			entNames[i] = e.Name
		}
		wantEnts, err := store.GetEntities(ctx, entNames)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range entNames {
			if !reflect.DeepEqual(gotEnts[n], wantEnts[n]) {
				t.Errorf("%s: %s: the fill gives\n%+v\nGetEntities reads\n%+v", when, n, gotEnts[n], wantEnts[n])
			}
		}
		names := make([]graph.RelationName, len(rels))
		for i, r := range rels {
			names[i] = r.Name
		}
		want, err := store.RelationHeaders(ctx, names)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			h := got[n]
			h.Relation.Claims = nil
			if !reflect.DeepEqual(h, want[n]) {
				t.Errorf("%s: %s: the fill gives\n%+v\nRelationHeaders reads\n%+v", when, n, h, want[n])
			}
		}
		return gotSrcs
	}

	newerAt := func(uid string) (string, string) {
		return fmt.Sprintf("<%s> <pg.changed> \"%d\"^^<xs:int> .\n", uid, version+1), ""
	}
	cases := []struct {
		name string
		node string // a relation's, an entity's or a source's name
		pred string // what the hand-made write changes: a relation's role, an entity's or a source's name shown
		// by is what the hand-made write sets or deletes besides, given the node's uid.
		by func(uid string) (set, del string)
	}{
		{"a relation marked changed at a newer version", string(rels[0].Name), "pg.role", newerAt},
		{"a relation marked changed at the version of a newer pack", string(rels[1].Name), "pg.role", func(uid string) (string, string) {
			return fmt.Sprintf("<%s> <pg.changed> \"%d\"^^<xs:int> .\n", uid, newerStamp), ""
		}},
		{"a relation's pg.changed deleted", string(rels[2].Name), "pg.role", func(uid string) (string, string) {
			return "", fmt.Sprintf("<%s> <pg.changed> * .\n", uid)
		}},
		{"an entity marked changed at a newer version", string(ents[2].Name), "pg.display_name", newerAt},
		{"a source marked changed at a newer version", "sources/stamps", "pg.title", newerAt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			uid, stamp := node(c.node)
			if stamp >= newerStamp {
				t.Fatalf("%s is stamped %d, not older than the newer pack's %d: the case tests nothing", c.node, stamp, newerStamp)
			}
			set, del := c.by(uid)
			mutate(&api.Mutation{SetNquads: []byte(set + fmt.Sprintf("<%s> <%s> \"changed by hand\" .\n", uid, c.pred)), DelNquads: []byte(del)})
			if h, err := store.RelationHeaders(ctx, []graph.RelationName{graph.RelationName(c.node)}); c.pred == "pg.role" && (err != nil || h[graph.RelationName(c.node)].Relation.Role != "changed by hand") {
				t.Fatalf("the reads give %+v (%v): the hand-made write did not take", h, err)
			}
			stale := dgraph.StaleFills(store)
			srcs := fill(c.name)
			if got := dgraph.StaleFills(store) - stale; got != 1 {
				t.Errorf("%d fills read every node of its type again, want 1", got)
			}
			if c.pred == "pg.title" && srcs[graph.SourceName(c.node)].Title != "changed by hand" {
				t.Errorf("the fill gives the source %+v, want it titled as changed by hand", srcs[graph.SourceName(c.node)])
			}
			// The fill dropped the stale pack: the node is read from its predicates, and the next fill reads
			// its type once.
			resp, err := dg.NewReadOnlyTxn().Query(dctx, fmt.Sprintf(`{ q(func: uid(%s)) { pg.pack } }`, uid))
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.Json) != `{"q":[]}` {
				t.Errorf("after the fill, the node holds %s, want no pack", resp.Json)
			}
			stale = dgraph.StaleFills(store)
			fill(c.name + ", filled again")
			if got := dgraph.StaleFills(store) - stale; got != 0 {
				t.Errorf("filled again, %d fills read every node of a type again, want none", got)
			}
		})
	}
	// polgraph's own writes that change an entity's lifetime (a merge that gains a birth date, its undoing,
	// a new end) mark its relations changed and drop their packs.
	born := graph.Entity{Name: "actors/stamps-born", Kind: graph.KindActor, DisplayName: "Stamps Born",
		Attributes: graph.Attributes{BirthDate: graph.FuzzyDate{Year: 1961, Month: 4}}}
	host := graph.Entity{Name: "actors/stamps-host", Kind: graph.KindActor, DisplayName: "Stamps Host"}
	hosted := graph.Relation{Name: graph.RelationNameFor(host.Name, rels[5].Type, rels[5].To, ""), Type: rels[5].Type, From: host.Name, To: rels[5].To}
	hosted.Claims = []graph.Claim{{Name: graph.ClaimNameFor(hosted.Name, "sources/stamps", ""), Source: graph.Source{Name: "sources/stamps"},
		Excerpt: "hosted", Confidence: 0.6, Status: graph.StatusReported}}
	load(t, []graph.Entity{born, host}, []graph.Relation{hosted})
	rels = append(rels, hosted)
	if _, err := store.MergeEntity(ctx, born.Name, host.Name, "the same person"); err != nil {
		t.Fatal(err)
	}
	stale := dgraph.StaleFills(store)
	fill("merged")
	if _, err := store.UnmergeEntity(ctx, born.Name, "not the same after all"); err != nil {
		t.Fatal(err)
	}
	ended := host
	ended.ValidTo = graph.FuzzyDate{Year: 2022}
	if err := store.UpsertEntities(ctx, []graph.Entity{ended}); err != nil {
		t.Fatal(err)
	}
	fill("mended, unmerged and ended")
	if got := dgraph.StaleFills(store) - stale; got != 0 {
		t.Errorf("%d fills read every relation again, want none", got)
	}
}
