package synth_test

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/internal/synth"
)

// generate writes a graph as a dataset file.
func generate(t *testing.T, n int, seed uint64) ([]byte, synth.Stats) {
	t.Helper()
	var buf bytes.Buffer
	w := dataset.NewWriter(&buf, "synthetic", "")
	stats, err := synth.Generate(synth.Config{Relations: n, Seed: seed}, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), stats
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	a, _ := generate(t, 3000, 7)
	b, _ := generate(t, 3000, 7)
	c, _ := generate(t, 3000, 8)
	if sha256.Sum256(a) != sha256.Sum256(b) {
		t.Error("two runs with the same seed wrote different files")
	}
	if sha256.Sum256(a) == sha256.Sum256(c) {
		t.Error("two seeds wrote the same file")
	}
}

func TestValidAndShaped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		relations int
		seed      uint64
	}{
		{"smallest", synth.MinRelations, 1},
		{"small", 2000, 2},
		{"benchmark size", 10_000, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data, stats := generate(t, tc.relations, tc.seed)
			ds, err := dataset.Read([]dataset.File{{Name: "synthetic.jsonl", R: bytes.NewReader(data)}})
			if err != nil {
				t.Fatalf("dataset.Read rejects the generated file: %v", err)
			}
			if len(ds.Relations) != tc.relations || stats.Relations != tc.relations {
				t.Errorf("%d relations read, %d counted; want %d", len(ds.Relations), stats.Relations, tc.relations)
			}
			if len(ds.Entities) != stats.Entities || len(ds.Sources) != stats.Sources {
				t.Errorf("read %d entities and %d sources; stats say %d and %d", len(ds.Entities), len(ds.Sources), stats.Entities, stats.Sources)
			}
			claims, denied, multi := 0, 0, 0
			for _, r := range ds.Relations {
				claims += len(r.Claims)
				if len(r.Claims) > 1 {
					multi++
				}
				for _, c := range r.Claims {
					if c.Status == graph.StatusDenied {
						denied++
					}
				}
				p := r.Period()
				for _, d := range []graph.FuzzyDate{r.ValidFrom, r.ValidTo, r.Date} {
					if !d.IsZero() && (d.Year < synth.FirstYear || d.Year > synth.LastYear) {
						t.Fatalf("%s has a date %s outside %d-%d", r.Name, d, synth.FirstYear, synth.LastYear)
					}
				}
				if p.Start > p.End {
					t.Fatalf("%s ends before it starts", r.Name)
				}
			}
			if claims != stats.Claims || denied != stats.DeniedClaims || multi != stats.MultiClaimRelations {
				t.Errorf("read %d claims, %d denied, %d relations with several; stats say %d, %d, %d",
					claims, denied, multi, stats.Claims, stats.DeniedClaims, stats.MultiClaimRelations)
			}
			if tc.relations >= 2000 && (denied == 0 || stats.DisputedRelations == 0 || stats.OnlyDeniedRelations == 0) {
				t.Errorf("want denied claims, disputed relations and relations only denied; got %d, %d, %d",
					denied, stats.DisputedRelations, stats.OnlyDeniedRelations)
			}
			if multi < tc.relations/5 {
				t.Errorf("only %d of %d relations have several claims", multi, tc.relations)
			}
			for _, k := range []graph.Kind{graph.KindActor, graph.KindParty, graph.KindSeat, graph.KindOrganisation} {
				if stats.ByKind[k] == 0 {
					t.Errorf("no entity of kind %s", k)
				}
			}
			if tc.relations >= 10_000 {
				for _, rt := range graph.RelationTypes {
					if stats.ByType[rt] == 0 {
						t.Errorf("no relation of type %s", rt)
					}
				}
			}
		})
	}
}

// TestDegreeSkew checks the shape benchmarks depend on: a few hubs (parties and prominent figures) with a
// large share of the links, while most entities have a handful.
func TestDegreeSkew(t *testing.T) {
	t.Parallel()
	data, stats := generate(t, 10_000, 1)
	degrees := slices.Clone(stats.Degrees)
	slices.Sort(degrees)
	slices.Reverse(degrees)
	n := len(degrees)
	median := degrees[n/2]
	top := degrees[0]
	topPercent := 0
	for _, d := range degrees[:n/100] {
		topPercent += int(d)
	}
	ends := 2 * stats.Relations
	t.Logf("%d entities; degree max %d, median %d; the top 1%% hold %.0f%% of link ends", n, top, median, 100*float64(topPercent)/float64(ends))
	if median < 1 || median > 10 {
		t.Errorf("median degree %d; want a handful (1-10)", median)
	}
	if top < 50*median {
		t.Errorf("max degree %d is not far above the median %d: no hubs", top, median)
	}
	if share := float64(topPercent) / float64(ends); share < 0.15 {
		t.Errorf("the top 1%% of entities hold %.0f%% of link ends; want a skewed graph (at least 15%%)", 100*share)
	}
	// Parties are hubs: the biggest has far more members than a typical actor has links.
	ds, err := dataset.Read([]dataset.File{{Name: "synthetic.jsonl", R: bytes.NewReader(data)}})
	if err != nil {
		t.Fatal(err)
	}
	members := map[graph.EntityName]int{}
	for _, r := range ds.Relations {
		if r.Type == graph.MemberOf && r.To[:8] == "parties/" {
			members[r.To]++
		}
	}
	biggest := 0
	for _, m := range members {
		biggest = max(biggest, m)
	}
	if biggest < 200 {
		t.Errorf("the biggest party has %d direct members; want a hub of hundreds at 10k relations", biggest)
	}
}

// TestTypo checks that a typo changes a name of a word of five letters or more, by one edit.
func TestTypo(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"Amina Khan", "Siobhán Pemberton", "Zoë Ali", "Mayor of Ashford"} {
		got := synth.Typo(r, name)
		if got == name && name != "Zoë Ali" {
			t.Errorf("Typo(%q) changed nothing", name)
		}
		if d := len([]rune(got)) - len([]rune(name)); d < -1 || d > 1 {
			t.Errorf("Typo(%q) = %q: more than one edit", name, got)
		}
	}
}
