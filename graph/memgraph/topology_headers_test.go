package memgraph

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// headerFeed gives links with their headers, and fails its next Changes when told to.
type headerFeed struct {
	version int64
	links   []graph.Link
	headers []graph.RelationHeader
	fail    error
}

func (f *headerFeed) Version(context.Context) (int64, error) { return f.version, nil }

func (f *headerFeed) Changes(_ context.Context, _ int64, each func(graph.Changed)) (int64, error) {
	each(graph.Changed{Links: f.links, Headers: f.headers})
	return f.version, f.fail
}

// The headers a feed gives with its links serve answers once their snapshot is published, and only then:
// a sync that fails leaves none behind, and a later change replaces them.
func TestTopologyKeepsTheFeedsHeaders(t *testing.T) {
	link := func(name graph.RelationName, support graph.Support) graph.Link {
		return graph.Link{Name: name, Type: graph.Endorses, From: "actors/a", To: "actors/b", Period: graph.OpenPeriod, Life: graph.OpenPeriod, Support: support}
	}
	header := func(l graph.Link, claims int) graph.RelationHeader {
		return graph.RelationHeader{Relation: graph.Relation{Name: l.Name, Type: l.Type, From: l.From, To: l.To, Role: "backer"}, ClaimCount: claims, Support: l.Support}
	}
	one, two, three := graph.RelationName("relations/a.endorses.b"), graph.RelationName("relations/a.endorses.b.again"), graph.RelationName("relations/a.endorses.b.old")
	weak := graph.Support{-1, 0.4, -1, -1}
	l1, l2, l3 := link(one, weak), link(two, weak), link(three, weak)
	// The third has no header from the feed (a zero one): answers read it from the store.
	feed := &headerFeed{version: 1, links: []graph.Link{l1, l2, l3}, headers: []graph.RelationHeader{header(l1, 1), header(l2, 2), {}}, fail: errors.New("cut")}
	topo := NewTopology(feed)
	if err := topo.Sync(context.Background()); err == nil {
		t.Fatal("the sync succeeded; the feed failed")
	}
	if got := (topologyReader{topo.snap.Load(), topo}).cachedHeaders([]graph.RelationName{one, two}); len(got) != 0 {
		t.Fatalf("a failed sync left headers: %+v", got)
	}

	feed.fail = nil
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := topologyReader{topo.snap.Load(), topo}
	got := r.cachedHeaders([]graph.RelationName{one, two, three})
	if got[one].ClaimCount != 1 || got[two].ClaimCount != 2 || got[one].Relation.Role != "backer" || len(got) != 2 {
		t.Fatalf("after the fill, the cache holds %+v", got)
	}

	// A later version changes the first relation: its new header replaces the old one.
	strong := graph.Support{0.9, 0.4, -1, -1}
	l1 = link(one, strong)
	feed.version, feed.links, feed.headers = 2, []graph.Link{l1}, []graph.RelationHeader{header(l1, 3)}
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	r = topologyReader{topo.snap.Load(), topo}
	got = r.cachedHeaders([]graph.RelationName{one, two})
	if got[one].ClaimCount != 3 || got[one].Support != strong || got[two].ClaimCount != 2 {
		t.Errorf("after the change, the cache holds %+v", got)
	}

	// A later change without a header: the one kept before no longer serves.
	feed.version, feed.links, feed.headers = 3, []graph.Link{link(two, strong)}, nil
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	r = topologyReader{topo.snap.Load(), topo}
	if got = r.cachedHeaders([]graph.RelationName{one, two}); got[one].ClaimCount != 3 || len(got) != 1 {
		t.Errorf("after a change without a header, the cache holds %+v", got)
	}
}

// The snapshot keeps what a header holds besides its link, and gives the header back as the feed gave
// it; one that does not agree with its link, or does not fit, is not kept (answers read it from the
// store).
func TestLinkDetailGivesTheHeaderBack(t *testing.T) {
	l := graph.Link{Name: "relations/a.member-of.p", Type: graph.MemberOf, From: "actors/a", To: "parties/p", Period: graph.OpenPeriod, Life: graph.OpenPeriod,
		Support: graph.Support{0.9, -1, 0.5, -1}}
	plain := graph.RelationHeader{Relation: graph.Relation{Name: l.Name, Type: l.Type, From: l.From, To: l.To}, Support: l.Support}
	full := graph.RelationHeader{
		Relation: graph.Relation{Name: l.Name, Type: l.Type, From: l.From, To: l.To, Role: "treasurer", Via: "seats/x", Term: "terms/t",
			ValidFrom: graph.FuzzyDate{Year: 2010, Month: 5, Day: 0}, ValidTo: graph.FuzzyDate{Year: 2015, Month: 12, Day: 31}, Date: graph.FuzzyDate{Year: 2012, Month: 0, Day: 0},
			Deleted:    graph.Tombstone{Time: time.Date(2020, 1, 2, 3, 4, 5, 6, time.UTC), By: "editor", Reason: "duplicate"},
			MergedInto: "relations/b.member-of.p"},
		ClaimCount: 7, Support: l.Support,
		Verdict: graph.Verdict{Claims: [4]int{3, 0, 2, 1}, SupportingSources: 4, DenyingSources: 1},
	}
	same := func(s string) string { return s }
	for _, h := range []graph.RelationHeader{plain, full} {
		d, rest := detailOf(h, &l, same)
		if !d.known {
			t.Fatalf("%+v was not kept", h)
		}
		if got := d.header(&l, rest); !reflect.DeepEqual(got, h) {
			t.Errorf("kept %+v, gave back %+v", h, got)
		}
	}
	if _, rest := detailOf(plain, &l, same); rest != nil {
		t.Error("a header with no role, via, term, tombstone or merge took a record apart")
	}
	for name, change := range map[string]func(*graph.RelationHeader){
		"another support":  func(h *graph.RelationHeader) { h.Support = graph.NoSupport },
		"another type":     func(h *graph.RelationHeader) { h.Relation.Type = graph.Endorses },
		"another end":      func(h *graph.RelationHeader) { h.Relation.To = "parties/q" },
		"a year too far":   func(h *graph.RelationHeader) { h.Relation.ValidTo = graph.FuzzyDate{Year: 1 << 24, Month: 1, Day: 1} },
		"a negative year":  func(h *graph.RelationHeader) { h.Relation.Date = graph.FuzzyDate{Year: -1, Month: 0, Day: 0} },
		"a month too far":  func(h *graph.RelationHeader) { h.Relation.ValidFrom = graph.FuzzyDate{Year: 2000, Month: 16, Day: 1} },
		"a negative count": func(h *graph.RelationHeader) { h.ClaimCount = -1 },
		"too many claims":  func(h *graph.RelationHeader) { h.Verdict.Claims[2] = 1 << 33 },
	} {
		h := full
		change(&h)
		if d, _ := detailOf(h, &l, same); d.known {
			t.Errorf("%s: kept %+v", name, h)
		}
	}
}
