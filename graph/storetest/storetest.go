// Package storetest is the contract of a graph store: one suite of tests that every store passes, run
// against the Store on Dgraph (graph/dgraph) and the one in memory (graph/memstore). Each test writes a
// small graph through the store's Writer and checks what the reads, the change feed, the entity lister,
// the via links, the tombstones, the judgements and the saved views give back against values worked out from what it wrote; one writes
// random graphs and compares every relation read with the relation written.
package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/polgraph/polgraph/graph"
)

// Subject is a store under test: what a store gives the service, the feed a graph in memory follows, the
// lister a whole-graph export reads, the via links of neighbourhoods, and the tombstones.
type Subject interface {
	graph.Store
	graph.Writer
	graph.ChangeFeed
	graph.EntityLister
	graph.ViaLinker
	graph.Tombstones
	graph.Judgements
	graph.Views
}

// Run runs every test of the contract as a subtest of t. open is called once by each subtest, with the
// subtest's t, and must return a store holding an empty graph (at version 0), nothing else in it; it may
// skip the subtest (t.Skip) where the store is known to differ, saying how.
func Run(t *testing.T, open func(t *testing.T) Subject) {
	tests := []struct {
		name string
		test func(t *testing.T, s Subject)
	}{
		{"UpsertTwiceKeepsOneCopyWithTheLaterValues", testUpsertTwice},
		{"GetEntityOfNoEntityIsNotFound", testGetEntityNotFound},
		{"MissingNamesAreAbsent", testMissingNamesAbsent},
		{"GetRelationsGivesClaimsWithTheirSources", testGetRelations},
		{"RelationHeaders", testRelationHeaders},
		{"LinksFromEitherEnd", testLinks},
		{"Degrees", testDegrees},
		{"RelationCounts", testRelationCounts},
		{"Counts", testCounts},
		{"FindByNameIgnoresCaseAccentsAndPunctuation", testFindByName},
		{"SearchFindsByNameAndAliasWithKinds", testSearch},
		{"SearchMatchesGivenNamesByTheirShortForms", testSearchGivenNameForms},
		{"EntitiesByIdentifier", testEntitiesByIdentifier},
		{"GetSourcePagesItsClaims", testGetSource},
		{"ListSources", testListSources},
		{"ClaimSources", testClaimSources},
		{"Stats", testStats},
		{"ChangeFeedRaisesTheVersionByOnePerWrite", testChangeFeed},
		{"EntityNamesPages", testEntityNames},
		{"ViaLinks", testViaLinks},
		{"WritesRefuseMissingReferences", testMissingReferences},
		{"TombstonesKeepWhatTheyHide", testTombstones},
		{"WritesIgnoreTombstonesTheyAreGiven", testWritesIgnoreTombstones},
		{"FeedGivesWritesGivenTombstonesAsReadsDo", testFeedIgnoresTombstones},
		{"RandomGraphsReadBackAsWritten", testRandomGraphs},
		{"JudgementsKeepPairsApart", testJudgements},
		{"SavedViewsReadBackAsWritten", testSavedViews},
		{"SavedViewIDsFromTitles", testViewIDs},
		{"SavedViewEtagsRefuseStaleChanges", testViewEtags},
		{"ListViewsByStoryAndNewestFirst", testListViews},
		{"SavedViewsRefuseBadFields", testViewsRefuseBadFields},
		{"SavedViewsCreatedAndUpdatedAtOnce", testConcurrentViews},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.test(t, open(t))
		})
	}
}

// --- helpers -------------------------------------------------------------------------------------------

// opts compare graph values: an empty list or map is no list or map.
var opts = []cmp.Option{cmpopts.EquateEmpty()}

// diffWith is cmp.Diff of want and got with opts and more.
func diffWith(want, got any, more ...any) string {
	o := append([]cmp.Option{}, opts...)
	for _, m := range more {
		o = append(o, m.(cmp.Option))
	}
	return cmp.Diff(want, got, o...)
}

// diff fails t, saying what, when got is not want.
func diff(t *testing.T, what string, want, got any) {
	t.Helper()
	if d := cmp.Diff(want, got, opts...); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// write writes sources, then entities, then relations, each in one write when there are any.
func write(t *testing.T, s Subject, sources []graph.Source, entities []graph.Entity, relations []graph.Relation) {
	t.Helper()
	ctx := t.Context()
	if len(sources) > 0 {
		must(t, s.UpsertSources(ctx, sources))
	}
	if len(entities) > 0 {
		must(t, s.UpsertEntities(ctx, entities))
	}
	if len(relations) > 0 {
		must(t, s.UpsertRelations(ctx, relations))
	}
}

// version reads the graph's version.
func version(t *testing.T, s Subject) int64 {
	t.Helper()
	v, err := s.Version(t.Context())
	must(t, err)
	return v
}

// reasonOf is the reason of err's *graph.Error, or "".
func reasonOf(err error) string {
	var ge *graph.Error
	if errors.As(err, &ge) {
		return ge.Reason
	}
	return ""
}

// byName sorts links by their relation's name, for comparison.
func byName(ls []graph.Link) []graph.Link {
	ls = slices.Clone(ls)
	slices.SortFunc(ls, func(a, b graph.Link) int { return strings.Compare(string(a.Name), string(b.Name)) })
	return ls
}

// linksOf reads the links of one entity, sorted by name.
func linksOf(t *testing.T, s Subject, e graph.EntityName) []graph.Link {
	t.Helper()
	m, err := s.Links(t.Context(), []graph.EntityName{e})
	must(t, err)
	return byName(m[e])
}

// relation reads one relation, failing t when there is none.
func relation(t *testing.T, s Subject, n graph.RelationName) graph.Relation {
	t.Helper()
	m, err := s.GetRelations(t.Context(), []graph.RelationName{n})
	must(t, err)
	r, ok := m[n]
	if !ok {
		t.Fatalf("GetRelations: no %s", n)
	}
	return r
}

// headerOf reads one relation's header, failing t when there is none.
func headerOf(t *testing.T, s Subject, n graph.RelationName) graph.RelationHeader {
	t.Helper()
	m, err := s.RelationHeaders(t.Context(), []graph.RelationName{n})
	must(t, err)
	h, ok := m[n]
	if !ok {
		t.Fatalf("RelationHeaders: no %s", n)
	}
	return h
}

// counts reads the graph's counts.
func counts(t *testing.T, s Subject) graph.GraphCounts {
	t.Helper()
	c, err := s.Counts(t.Context())
	must(t, err)
	return c
}

// names lists entities' names.
func names(es []graph.Entity) []graph.EntityName {
	out := []graph.EntityName{}
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

// feed is what Changes gave from one version: the names of what changed, each list sorted, and the
// links and headers by name.
type feed struct {
	version  int64
	calls    int
	sources  []graph.SourceName
	entities []graph.EntityName
	links    []graph.RelationName
	src      map[graph.SourceName]graph.Source
	ent      map[graph.EntityName]graph.Entity
	link     map[graph.RelationName]graph.Link
	header   map[graph.RelationName]graph.RelationHeader
	evidence bool // every batch of links came with its evidence
}

// changes reads the feed from version since.
func changes(t *testing.T, s Subject, since int64) feed {
	t.Helper()
	f := feed{src: map[graph.SourceName]graph.Source{}, ent: map[graph.EntityName]graph.Entity{},
		link: map[graph.RelationName]graph.Link{}, header: map[graph.RelationName]graph.RelationHeader{}, evidence: true}
	v, err := s.Changes(t.Context(), since, func(c graph.Changed) {
		f.calls++
		for _, x := range c.Sources {
			f.sources = append(f.sources, x.Name)
			f.src[x.Name] = x
		}
		for _, x := range c.Entities {
			f.entities = append(f.entities, x.Name)
			f.ent[x.Name] = x
		}
		if len(c.Links) > 0 && (!c.Evidence || len(c.Headers) != len(c.Links)) {
			f.evidence = false
		}
		for i, l := range c.Links {
			f.links = append(f.links, l.Name)
			f.link[l.Name] = l
			if i < len(c.Headers) {
				f.header[l.Name] = c.Headers[i]
			}
		}
	})
	must(t, err)
	f.version = v
	slices.Sort(f.sources)
	slices.Sort(f.entities)
	slices.Sort(f.links)
	return f
}

// sortedNames returns names sorted, never nil.
func sortedNames[N ~string](ns ...N) []N {
	out := append([]N{}, ns...)
	slices.Sort(out)
	return out
}

// withSources is a relation as GetRelations reads it: its claims in name order, each with its source
// whole, as sources holds it.
func withSources(r graph.Relation, sources map[graph.SourceName]graph.Source) graph.Relation {
	r.Claims = slices.Clone(r.Claims)
	for i, c := range r.Claims {
		r.Claims[i].Source = sources[c.Source.Name]
	}
	slices.SortFunc(r.Claims, func(a, b graph.Claim) int { return strings.Compare(a.Name, b.Name) })
	return r
}

// bare is a relation without its claims, as a header holds it.
func bare(r graph.Relation) graph.Relation {
	r.Claims = nil
	return r
}

// evidence is a relation as a feed's header holds it: its claims in name order, each naming its source
// by name only.
func evidence(r graph.Relation) graph.Relation {
	r.Claims = slices.Clone(r.Claims)
	for i, c := range r.Claims {
		r.Claims[i].Source = graph.Source{Name: c.Source.Name}
	}
	slices.SortFunc(r.Claims, func(a, b graph.Claim) int { return strings.Compare(a.Name, b.Name) })
	return r
}
