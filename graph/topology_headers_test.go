package graph

import (
	"context"
	"errors"
	"testing"
)

// headerFeed gives links with their headers, and fails its next Changes when told to.
type headerFeed struct {
	version int64
	links   []Link
	headers []RelationHeader
	fail    error
}

func (f *headerFeed) Version(context.Context) (int64, error) { return f.version, nil }

func (f *headerFeed) Changes(_ context.Context, _ int64, each func(Changed)) (int64, error) {
	each(Changed{Links: f.links, Headers: f.headers})
	return f.version, f.fail
}

// The headers a feed gives with its links serve answers once their snapshot is published, and only then:
// a sync that fails leaves none behind, and a later change replaces them.
func TestTopologyKeepsTheFeedsHeaders(t *testing.T) {
	link := func(name RelationName, support Support) Link {
		return Link{Name: name, Type: Endorses, From: "actors/a", To: "actors/b", Period: OpenPeriod, Life: OpenPeriod, Support: support}
	}
	header := func(l Link, claims int) RelationHeader {
		return RelationHeader{Relation: Relation{Name: l.Name, Type: l.Type, From: l.From, To: l.To, Role: "backer"}, ClaimCount: claims, Support: l.Support}
	}
	one, two, three := RelationName("relations/a.endorses.b"), RelationName("relations/a.endorses.b.again"), RelationName("relations/a.endorses.b.old")
	weak := Support{-1, 0.4, -1, -1}
	l1, l2, l3 := link(one, weak), link(two, weak), link(three, weak)
	// The third has no header from the feed (a zero one): answers read it from the store.
	feed := &headerFeed{version: 1, links: []Link{l1, l2, l3}, headers: []RelationHeader{header(l1, 1), header(l2, 2), {}}, fail: errors.New("cut")}
	topo := NewTopology(feed)
	if err := topo.Sync(context.Background()); err == nil {
		t.Fatal("the sync succeeded; the feed failed")
	}
	n := 0
	topo.headers.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Fatalf("a failed sync left %d headers", n)
	}

	feed.fail = nil
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := topologyReader{topo.snap.Load(), topo}
	got := r.cachedHeaders([]RelationName{one, two, three})
	if got[one].ClaimCount != 1 || got[two].ClaimCount != 2 || got[one].Relation.Role != "backer" || len(got) != 2 {
		t.Fatalf("after the fill, the cache holds %+v", got)
	}

	// A later version changes the first relation: its new header replaces the old one.
	strong := Support{0.9, 0.4, -1, -1}
	l1 = link(one, strong)
	feed.version, feed.links, feed.headers = 2, []Link{l1}, []RelationHeader{header(l1, 3)}
	if err := topo.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	r = topologyReader{topo.snap.Load(), topo}
	got = r.cachedHeaders([]RelationName{one, two})
	if got[one].ClaimCount != 3 || got[one].Support != strong || got[two].ClaimCount != 2 {
		t.Errorf("after the change, the cache holds %+v", got)
	}
}
