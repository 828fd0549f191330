package memgraph

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/walk"
)

// scriptFeed is a change feed whose versions are written by the test: version v holds the links of
// writes[v-1], each a replacement of the relations it names or a new relation.
type scriptFeed struct {
	mu     sync.Mutex
	writes []graph.Changed
}

func (f *scriptFeed) Version(context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(len(f.writes)), nil
}

func (f *scriptFeed) Changes(_ context.Context, since int64, each func(graph.Changed)) (int64, error) {
	f.mu.Lock()
	writes := slices.Clone(f.writes)
	f.mu.Unlock()
	for _, w := range writes[since:] {
		each(graph.Changed{Entities: slices.Clone(w.Entities), Links: slices.Clone(w.Links)})
	}
	return int64(len(writes)), nil
}

func (f *scriptFeed) write(ls []graph.Link) { f.writeChanged(graph.Changed{Links: ls}) }

func (f *scriptFeed) writeChanged(c graph.Changed) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = append(f.writes, c)
}

// model is what a topology at some version should hold: every relation's latest link.
type model map[graph.RelationName]graph.Link

// check compares what snapshot s reads of every entity with the model: the same links, each once.
func (m model) check(t *testing.T, s *topoSnapshot, version int64) {
	t.Helper()
	if s.version != version {
		t.Fatalf("snapshot of version %d says %d", version, s.version)
	}
	want := map[graph.EntityName][]graph.Link{}
	for _, l := range m {
		want[l.From] = append(want[l.From], l)
		if l.To != l.From {
			want[l.To] = append(want[l.To], l)
		}
	}
	if s.rels.len() != len(m) {
		t.Fatalf("version %d: %d relations, want %d", version, s.rels.len(), len(m))
	}
	if s.ents.len() != len(want) {
		t.Fatalf("version %d: %d entities, want %d", version, s.ents.len(), len(want))
	}
	names := make([]graph.EntityName, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	got := s.read(names)
	byName := func(a, b graph.Link) int { return compareStrings(string(a.Name), string(b.Name)) }
	for n, w := range want {
		g := slices.Clone(got[n])
		slices.SortFunc(g, byName)
		slices.SortFunc(w, byName)
		if !slices.Equal(g, w) {
			t.Fatalf("version %d: %s reads %v, want %v", version, n, g, w)
		}
		if d := s.degrees([]graph.EntityName{n})[n]; d != len(w) {
			t.Fatalf("version %d: %s has degree %d, want %d", version, n, d, len(w))
		}
	}
	for r := int32(0); int(r) < s.rels.len(); r++ {
		l, b := s.link(r), s.brief.get(r)
		if s.ents.key(b.ends[0]) != l.From || s.ents.key(b.ends[1]) != l.To {
			t.Fatalf("version %d: relation %s has ends %v", version, l.Name, b.ends)
		}
		if b.support != l.Support || b.dated != l.Dated || b.deleted != l.Deleted {
			t.Fatalf("version %d: relation %s has brief %+v, link %+v", version, l.Name, b, l)
		}
		if typ, sym := (snapshotGraph{s}).RelType(r); typ != l.Type || sym != l.Symmetric {
			t.Fatalf("version %d: relation %s has type %s (symmetric %v), link %+v", version, l.Name, typ, sym, l)
		}
		var dflt graph.RelationFilter
		if got, want := (snapshotGraph{s}).Counts(&dflt, r), dflt.Counts(l); got != want {
			t.Fatalf("version %d: relation %s counts %v under the default filter, its link %v", version, l.Name, got, want)
		}
	}
	// Each entity's list holds each of its relations with the relation's other end, type, direction and
	// strength under the default filter, where the relation says it stands.
	for u := int32(0); int(u) < s.ents.len(); u++ {
		for k, h := range s.adj.get(u) {
			e := s.brief.get(h.Rel).ends
			if e[0] != u && e[1] != u || walk.OtherEnd(e, u) != h.To {
				t.Fatalf("version %d: %s lists relation %s with other end %s", version, s.ents.key(u), s.link(h.Rel).Name, s.ents.key(h.To))
			}
			l := s.link(h.Rel)
			var dflt graph.RelationFilter
			typeOK := h.Type == 0 && !slices.Contains(graph.RelationTypes, l.Type) || h.Type != 0 && graph.RelationTypes[h.Type-1] == l.Type
			if !typeOK || h.Out != (e[0] == u) || h.Strength != dflt.Strength(l.Support) {
				t.Fatalf("version %d: %s lists relation %s as %+v; its link %+v", version, s.ents.key(u), l.Name, h, l)
			}
			if at := s.at.get(h.Rel); at[boolInt(e[0] != u)] != int32(k) {
				t.Fatalf("version %d: relation %s stands at %d in %s's list, and says %v", version, l.Name, k, s.ents.key(u), at)
			}
		}
	}
	// Each list of hubMin relations or more has an index, and it is the one built afresh from the list.
	g := snapshotGraph{s}
	for u := int32(0); int(u) < s.ents.len(); u++ {
		list := s.adj.get(u)
		x := g.HubOf(u)
		if len(list) < cmp.Or(s.hubMin, defaultHubMin) {
			if x != nil {
				t.Fatalf("version %d: %s's list of %d is indexed", version, s.ents.key(u), len(list))
			}
			continue
		}
		if want := walk.BuildHubIndex(g, u, list, nil, false); !reflect.DeepEqual(x, want) {
			t.Fatalf("version %d: %s's list of %d has the index\n%+v\nnot\n%+v", version, s.ents.key(u), len(list), x, want)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSnapshotsNeverChangeOnceTaken syncs a topology through many random writes (new entities, new
// relations, relations written again with another support), crossing chunk boundaries and the merge of
// the recent names into the frozen ones, and checks after each sync that the new snapshot holds the
// graph of its version and, at the end, that every snapshot taken on the way still holds the graph of its own.
func TestSnapshotsNeverChangeOnceTaken(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	feed := &scriptFeed{}
	topo := NewTopology(feed)
	topo.snap.Store(&topoSnapshot{hubMin: 3}) // lists indexed, appended to and strengthened anew
	current := model{}
	type taken struct {
		s       *topoSnapshot
		version int64
		m       model
	}
	var snaps []taken
	entities := 0
	for v := 1; v <= 40; v++ {
		var w []graph.Link
		n := 1 + r.IntN(20)
		if v == 1 || v == 20 {
			n = 3*chunkSize + 17 // a fill, and a large load later
		}
		for range n {
			if len(current) > 0 && r.IntN(4) == 0 { // a relation written again
				var l graph.Link
				for _, x := range current {
					l = x
					break
				}
				l.Support = graph.Support{r.Float64(), -1, -1, -1}
				switch r.IntN(3) {
				case 0:
					l.Support = graph.Support{-1, -1, -1, r.Float64()} // denied only: it no longer counts
				case 1:
					l.Deleted = !l.Deleted
				}
				l.Dated = !l.Dated
				l.Period, l.Life = randomPeriod(r), randomPeriod(r)
				w = append(w, l)
				continue
			}
			a := graph.EntityName(fmt.Sprintf("actors/e%d", r.IntN(entities+3)))
			if r.IntN(3) == 0 {
				a = graph.EntityName(fmt.Sprintf("actors/e%d", entities))
				entities++
			}
			b := graph.EntityName(fmt.Sprintf("actors/e%d", entities))
			entities++
			if r.IntN(10) == 0 {
				b = a // a relation of an entity with itself
			}
			// The snapshot makes links from what it holds apart: a type of the vocabulary or one outside it
			// (symmetric or not), and any period and life.
			typ, sym := graph.Endorses, false
			switch r.IntN(4) {
			case 0:
				typ, sym = graph.FormerlyWorkedWith, true
			case 1:
				typ, sym = graph.RelationType(fmt.Sprintf("TYPE_%d", r.IntN(3))), r.IntN(2) == 0
			}
			w = append(w, graph.Link{Name: graph.RelationNameFor(a, typ, b, fmt.Sprint(v)), Type: typ, From: a, To: b, Symmetric: sym,
				Period: randomPeriod(r), Life: randomPeriod(r), Support: graph.Support{r.Float64(), -1, -1, -1}})
		}
		feed.write(w)
		if err := topo.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, l := range w {
			current[l.Name] = l
		}
		m := model{}
		for k, l := range current {
			m[k] = l
		}
		snaps = append(snaps, taken{topo.snap.Load(), int64(v), m})
		m.check(t, topo.snap.Load(), int64(v))
	}
	for _, s := range snaps {
		s.m.check(t, s.s, s.version)
	}
	if last := topo.snap.Load(); last.ents.frozen.n == 0 || last.rels.frozen.n == 0 {
		t.Errorf("the recent names were never indexed with the frozen ones (%d and %d recent)", len(last.ents.recent), len(last.rels.recent))
	}
}

// TestSyncDoesNotWaitForSearches holds a search's view of the topology open while a write is synced:
// the sync ends without waiting for the search, the search still sees the graph it started with, and
// the next search sees the write.
func TestSyncDoesNotWaitForSearches(t *testing.T) {
	t.Parallel()
	feed := &scriptFeed{}
	a, b, c := graph.EntityName("actors/a"), graph.EntityName("actors/b"), graph.EntityName("actors/c")
	ab := graph.Link{Name: graph.RelationNameFor(a, graph.Endorses, b, ""), Type: graph.Endorses, From: a, To: b, Period: graph.OpenPeriod, Life: graph.OpenPeriod}
	feed.write([]graph.Link{ab})
	topo := NewTopology(feed)
	ctx := context.Background()
	g, release, err := topo.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer release()

	bc := graph.Link{Name: graph.RelationNameFor(b, graph.Endorses, c, ""), Type: graph.Endorses, From: b, To: c, Period: graph.OpenPeriod, Life: graph.OpenPeriod}
	feed.write([]graph.Link{bc})
	done := make(chan error, 1)
	go func() { done <- topo.Sync(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the sync waited for the search that holds a view")
	}

	if _, ok := g.Node(c); ok {
		t.Error("the search's view changed under it: it sees an entity written after it started")
	}
	if u, _ := g.Node(b); len(g.RelationsOf(u)) != 1 {
		t.Errorf("the search's view of %s has %d relations, want 1", b, len(g.RelationsOf(u)))
	}
	paths, err := walk.FindPaths(ctx, topo, graph.PathQuery{From: a, To: c, MaxPaths: 1, MaxDepth: 4}, graph.DefaultWorkBudget)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 1 || len(paths[0].Hops) != 2 {
		t.Errorf("the search after the sync: %+v, want one path of two hops", paths)
	}
}

// TestSearchesAndSyncsAtOnce runs searches against a topology that syncs a write after another; run
// with -race (make test does, for this package) it shows that no search reads what a sync writes. Every
// search must find the path that was there before the writes began.
func TestSearchesAndSyncsAtOnce(t *testing.T) {
	t.Parallel()
	feed := &scriptFeed{}
	var first []graph.Link
	for i := range 200 {
		a, b := graph.EntityName(fmt.Sprintf("actors/p%d", i)), graph.EntityName(fmt.Sprintf("actors/p%d", i+1))
		first = append(first, graph.Link{Name: graph.RelationNameFor(a, graph.Endorses, b, ""), Type: graph.Endorses, From: a, To: b, Period: graph.OpenPeriod, Life: graph.OpenPeriod})
	}
	feed.write(first)
	topo := NewTopology(feed)
	ctx := context.Background()
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				from := graph.EntityName(fmt.Sprintf("actors/p%d", (i+w)%190))
				to := graph.EntityName(fmt.Sprintf("actors/p%d", (i+w)%190+3))
				paths, err := walk.FindPaths(ctx, topo, graph.PathQuery{From: from, To: to, MaxPaths: 1, MaxDepth: 4}, graph.DefaultWorkBudget)
				if err != nil {
					errs <- err
					return
				}
				if len(paths) != 1 || len(paths[0].Hops) > 3 {
					errs <- fmt.Errorf("%s to %s: %+v", from, to, paths)
					return
				}
			}
		}()
	}
	for v := range 300 {
		a := graph.EntityName(fmt.Sprintf("actors/p%d", v%200))
		b := graph.EntityName(fmt.Sprintf("actors/q%d", v))
		feed.write([]graph.Link{{Name: graph.RelationNameFor(a, graph.Endorses, b, ""), Type: graph.Endorses, From: a, To: b, Period: graph.OpenPeriod, Life: graph.OpenPeriod},
			{Name: first[v%200].Name, Type: graph.Endorses, From: first[v%200].From, To: first[v%200].To, Period: graph.OpenPeriod, Life: graph.OpenPeriod, Dated: v%2 == 0}})
		if err := topo.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestSearchInMemoryFindsWhatMatches writes entities with names drawn from a small stock of words (so
// that many share words and near spellings), then renames, deletes and adds some, version after
// version; after each sync, searches with typos answered from memory must return exactly the entities
// an exhaustive scan finds: every live entity of the kinds asked with a name that MatchScore matches,
// ranked alike.
func TestSearchInMemoryFindsWhatMatches(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	stock := []string{"Lutfur", "Lutfor", "Rahman", "Rehman", "Rushanara", "Ali", "Alli", "Ajmal", "Masroor", "Mashroor",
		"Keir", "Kier", "Starmer", "John", "Jon", "Joan", "Biggs", "Zoë", "Zoe", "Tower", "Hamlets", "Bethnal", "Green",
		"Labour", "Labor", "Aspire", "Respect", "Party", "Mayor", "of", "O'Brien", "Obrien", "Ng", "Xu", "Abdul", "Abdal"}
	name := func() string {
		ws := make([]string, 1+r.IntN(3))
		for i := range ws {
			ws[i] = stock[r.IntN(len(stock))]
		}
		return strings.Join(ws, " ")
	}
	kinds := []graph.Kind{graph.KindActor, graph.KindParty, graph.KindSeat}
	current := map[graph.EntityName]graph.Entity{}
	feed := &scriptFeed{}
	topo := NewTopology(feed)
	for v := 1; v <= 12; v++ {
		var es []graph.Entity
		for range 40 + r.IntN(40) {
			var e graph.Entity
			if len(current) > 0 && r.IntN(3) == 0 {
				for _, x := range current { // an entity written again: renamed, given aliases, or deleted
					e = x
					break
				}
				switch r.IntN(3) {
				case 0:
					e.DisplayName = name()
				case 1:
					e.Aliases = []string{name(), name()}
				default:
					e.Deleted = graph.Tombstone{Time: time.Unix(int64(v), 0), By: "test", Reason: "gone"}
				}
			} else {
				e = graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/e%d-%d", v, len(es))), Kind: kinds[r.IntN(len(kinds))], DisplayName: name()}
				if r.IntN(4) == 0 {
					e.Aliases = []string{name()}
				}
			}
			current[e.Name] = e
			es = append(es, e)
		}
		feed.writeChanged(graph.Changed{Entities: es})
		if err := topo.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		snap := topo.snap.Load()
		for range 60 {
			q := graph.SearchQuery{Text: typo(r, name())}
			if r.IntN(3) == 0 { // a name being typed: cut in its last word
				n := []rune(name())
				q.Text = string(n[:1+r.IntN(len(n))])
			}
			if r.IntN(4) == 0 {
				q.Kinds = []graph.Kind{kinds[r.IntN(len(kinds))]}
			}
			got := snap.search(q)
			var want []graph.SearchResult
			for _, e := range current {
				if res, ok := graph.Rank(graph.NormalizeName(q.Text), e, q.Kinds); ok {
					want = append(want, res)
				}
			}
			graph.SortSearchResults(want)
			if len(want) > maxCandidates {
				continue // the caps may leave some out
			}
			if !sameResults(got, want) {
				t.Fatalf("version %d, search %q %v: got %s, want %s", v, q.Text, q.Kinds, showResults(got), showResults(want))
			}
		}
	}
}

// typo makes up to two random edits to s.
func typo(r *rand.Rand, s string) string {
	rs := []rune(s)
	for range r.IntN(3) {
		if len(rs) == 0 {
			break
		}
		i := r.IntN(len(rs))
		switch r.IntN(3) {
		case 0:
			rs[i] = rune('a' + r.IntN(26))
		case 1:
			rs = append(rs[:i], rs[i+1:]...)
		default:
			rs = append(rs[:i], append([]rune{rune('a' + r.IntN(26))}, rs[i:]...)...)
		}
	}
	return string(rs)
}

func sameResults(a, b []graph.SearchResult) bool {
	return slices.EqualFunc(a, b, func(x, y graph.SearchResult) bool {
		return x.Entity.Name == y.Entity.Name && x.Score == y.Score && x.Matched == y.Matched
	})
}

func showResults(rs []graph.SearchResult) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "[%s %q %.3f] ", r.Entity.Name, r.Matched, r.Score)
	}
	return b.String()
}

// randomPeriod is all of time, or a span of a few years around 2015 (open at either end or not).
func randomPeriod(r *rand.Rand) graph.Period {
	if r.IntN(3) == 0 {
		return graph.OpenPeriod
	}
	p := graph.PeriodOf(graph.FuzzyDate{Year: 2010 + r.IntN(10)})
	switch r.IntN(3) {
	case 0:
		p.Start = graph.OpenPeriod.Start
	case 1:
		p.End = graph.PeriodOf(graph.FuzzyDate{Year: 2015 + r.IntN(5)}).End
	}
	return p
}

// TestBriefCountsAsTheLinkDoes checks that what a walk reads of a relation from its brief gives every
// filter's verdict on the whole link, plain filters (read from the brief) and others alike.
func TestBriefCountsAsTheLinkDoes(t *testing.T) {
	asOf, err := graph.ParseFuzzyDate("2015")
	if err != nil {
		t.Fatal(err)
	}
	filters := []graph.RelationFilter{
		{},
		{Undated: graph.UndatedInclude},
		{MinConfidence: -1},
		{Undated: graph.UndatedExclude},
		{Undated: graph.UndatedInclude, AsOf: asOf},
		{Statuses: []graph.ClaimStatus{graph.StatusDenied}},
		{Statuses: []graph.ClaimStatus{graph.StatusConfirmed, graph.StatusReported}, MinConfidence: 0.5},
		{MinConfidence: 0.9},
		{AsOf: asOf},
		{ExcludeTypes: []graph.RelationType{"MEMBER_OF"}},
		{IncludeTypes: []graph.RelationType{"TYPE_0", "ENDORSES"}},
		{ExcludeTypes: []graph.RelationType{"TYPE_1"}, AsOf: asOf},
	}
	r := rand.New(rand.NewPCG(5, 6))
	confidence := func() float64 {
		if r.IntN(2) == 0 {
			return -1
		}
		return r.Float64()
	}
	var c graph.Changed
	for i := range 2000 {
		from, to := graph.EntityName(fmt.Sprintf("actors/a%d", r.IntN(50))), graph.EntityName(fmt.Sprintf("actors/a%d", r.IntN(50)))
		c.Links = append(c.Links, graph.Link{Name: graph.RelationName(fmt.Sprintf("relations/r%d", i)), Type: []graph.RelationType{"MEMBER_OF", "ENDORSES", "TYPE_0", "TYPE_1"}[r.IntN(4)],
			From: from, To: to, Period: randomPeriod(r), Dated: r.IntN(2) == 0, Life: randomPeriod(r), Deleted: r.IntN(9) == 0,
			Support: graph.Support{confidence(), confidence(), confidence(), confidence()}})
	}
	b := newSnapshotBuilder(&topoSnapshot{})
	b.apply(c)
	g := snapshotGraph{b.finish(1)}
	for i := int32(0); int(i) < g.s.rels.len(); i++ {
		l := g.s.link(i)
		for _, f := range filters {
			if got, want := g.Counts(&f, i), f.Counts(l); got != want {
				t.Fatalf("%+v under %+v: counts %v, the link %v", l, f, got, want)
			}
		}
	}
}

// slowFeed is a scriptFeed whose Version takes a while and counts its calls.
type slowFeed struct {
	scriptFeed
	calls, inFlight, most atomic.Int64
}

func (f *slowFeed) Version(ctx context.Context) (int64, error) {
	f.calls.Add(1)
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.most.Load()
		if n <= m || f.most.CompareAndSwap(m, n) {
			break
		}
	}
	v, err := f.scriptFeed.Version(ctx)
	time.Sleep(2 * time.Millisecond)
	return v, err
}

// TestSearchesShareVersionCalls runs 32 searchers against a writer: every search must see each write
// committed before it started, while the searchers together ask the feed for its version one call at a
// time, far fewer times than they search.
func TestSearchesShareVersionCalls(t *testing.T) {
	t.Parallel()
	feed := &slowFeed{}
	feed.write([]graph.Link{{Name: "relations/r0", Type: graph.Endorses, From: "actors/a", To: "actors/b", Period: graph.OpenPeriod, Life: graph.OpenPeriod}})
	topo := NewTopology(feed)
	ctx := context.Background()
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var searches atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				committed, _ := feed.scriptFeed.Version(ctx) // what was committed before this search started
				src, err := topo.Synced(ctx)
				if err != nil {
					if graph.KindOf(err) == graph.Unavailable { // catching up: the caller reads the store instead
						continue
					}
					errs <- err
					return
				}
				searches.Add(1)
				if got := src.(topologyReader).s.version; got < committed {
					errs <- fmt.Errorf("a search that started after version %d read version %d", committed, got)
					return
				}
			}
		}()
	}
	for v := 1; v <= 100; v++ {
		feed.write([]graph.Link{{Name: graph.RelationName(fmt.Sprintf("relations/r%d", v)), Type: graph.Endorses, From: "actors/a", To: graph.EntityName(fmt.Sprintf("actors/c%d", v)), Period: graph.OpenPeriod, Life: graph.OpenPeriod}})
		time.Sleep(time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if m := feed.most.Load(); m > 2 { // a search's own Sync may overlap the shared call
		t.Errorf("%d version calls at once; want the searches' calls one at a time", m)
	}
	if c, n := feed.calls.Load(), searches.Load(); c*4 > n {
		t.Errorf("%d version calls for %d searches: not shared", c, n)
	}
	t.Logf("%d searches, %d version calls", searches.Load(), feed.calls.Load())
}

// failingFeed fails its next fails version calls, then answers as its script does.
type failingFeed struct {
	slowFeed
	fails atomic.Int64
}

func (f *failingFeed) Version(ctx context.Context) (int64, error) {
	if f.fails.Add(-1) >= 0 {
		f.calls.Add(1)
		return 0, errors.New("the feed is unavailable")
	}
	return f.slowFeed.Version(ctx)
}

// TestCallsWaitingTogetherReadTheVersionOnce: calls that read the version ahead, as they wait for their
// turns, each see every write committed before they arrived, while together they ask the feed once or
// twice; a search whose read ahead failed reads again, and a context from another topology's read ahead
// is not taken for its own.
func TestCallsWaitingTogetherReadTheVersionOnce(t *testing.T) {
	t.Parallel()
	feed := &failingFeed{}
	feed.write([]graph.Link{{Name: "relations/r0", Type: graph.Endorses, From: "actors/a", To: "actors/b", Period: graph.OpenPeriod, Life: graph.OpenPeriod}})
	topo := NewTopology(feed)
	ctx := context.Background()
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	feed.write([]graph.Link{{Name: "relations/r1", Type: graph.Endorses, From: "actors/a", To: "actors/c", Period: graph.OpenPeriod, Life: graph.OpenPeriod}})
	committed, _ := feed.scriptFeed.Version(ctx)
	if err := topo.Sync(ctx); err != nil { // caught up: no catch-up of its own reads the version below
		t.Fatal(err)
	}
	before := feed.calls.Load()
	waiting := make([]context.Context, 16)
	for i := range waiting {
		waiting[i] = topo.VersionAhead(ctx)
	}
	for i, c := range waiting {
		src, err := topo.Synced(c)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := src.(topologyReader).s.version; got < committed {
			t.Fatalf("call %d, arrived after version %d, read version %d", i, committed, got)
		}
	}
	if n := feed.calls.Load() - before; n < 1 || n > 2 {
		t.Errorf("16 calls waiting together asked the feed %d times; want once or twice", n)
	}

	// A read ahead that failed is made again by the search.
	feed.fails.Store(1)
	failed := topo.VersionAhead(ctx)
	feed.write([]graph.Link{{Name: "relations/r2", Type: graph.Endorses, From: "actors/a", To: "actors/d", Period: graph.OpenPeriod, Life: graph.OpenPeriod}})
	committed, _ = feed.scriptFeed.Version(ctx)
	src, err := topo.Synced(failed)
	if err != nil {
		t.Fatalf("a search whose read ahead failed: %v", err)
	}
	if got := src.(topologyReader).s.version; got < committed {
		t.Errorf("a search whose read ahead failed read version %d, want at least %d", got, committed)
	}

	// Another topology's read ahead: this one reads for itself.
	other := NewTopology(&scriptFeed{})
	feed.write([]graph.Link{{Name: "relations/r3", Type: graph.Endorses, From: "actors/a", To: "actors/e", Period: graph.OpenPeriod, Life: graph.OpenPeriod}})
	committed, _ = feed.scriptFeed.Version(ctx)
	src, err = topo.Synced(other.VersionAhead(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if got := src.(topologyReader).s.version; got < committed {
		t.Errorf("a search with another topology's read ahead read version %d, want at least %d", got, committed)
	}
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
