package graph

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
)

// scriptFeed is a change feed whose versions are written by the test: version v holds the links of
// writes[v-1], each a replacement of the relations it names or a new relation.
type scriptFeed struct {
	mu     sync.Mutex
	writes []Changed
}

func (f *scriptFeed) Version(context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(len(f.writes)), nil
}

func (f *scriptFeed) Changes(_ context.Context, since int64, each func(Changed)) (int64, error) {
	f.mu.Lock()
	writes := slices.Clone(f.writes)
	f.mu.Unlock()
	for _, w := range writes[since:] {
		each(Changed{Entities: slices.Clone(w.Entities), Links: slices.Clone(w.Links)})
	}
	return int64(len(writes)), nil
}

func (f *scriptFeed) write(ls []Link) { f.writeChanged(Changed{Links: ls}) }

func (f *scriptFeed) writeChanged(c Changed) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = append(f.writes, c)
}

// model is what a topology at some version should hold: every relation's latest link.
type model map[RelationName]Link

// check compares what snapshot s reads of every entity with the model: the same links, each once.
func (m model) check(t *testing.T, s *topoSnapshot, version int64) {
	t.Helper()
	if s.version != version {
		t.Fatalf("snapshot of version %d says %d", version, s.version)
	}
	want := map[EntityName][]Link{}
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
	names := make([]EntityName, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	got := s.read(names)
	byName := func(a, b Link) int { return compareStrings(string(a.Name), string(b.Name)) }
	for n, w := range want {
		g := slices.Clone(got[n])
		slices.SortFunc(g, byName)
		slices.SortFunc(w, byName)
		if !slices.Equal(g, w) {
			t.Fatalf("version %d: %s reads %v, want %v", version, n, g, w)
		}
		if d := s.degrees([]EntityName{n})[n]; d != len(w) {
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
		if typ, sym := (snapshotGraph{s}).relType(r); typ != l.Type || sym != l.Symmetric {
			t.Fatalf("version %d: relation %s has type %s (symmetric %v), link %+v", version, l.Name, typ, sym, l)
		}
		var dflt RelationFilter
		if got, want := (snapshotGraph{s}).counts(&dflt, r), dflt.Counts(l); got != want {
			t.Fatalf("version %d: relation %s counts %v under the default filter, its link %v", version, l.Name, got, want)
		}
	}
	// Each entity's list holds each of its relations with the relation's other end, type, direction and
	// strength under the default filter, where the relation says it stands.
	for u := int32(0); int(u) < s.ents.len(); u++ {
		for k, h := range s.adj.get(u) {
			e := s.brief.get(h.rel).ends
			if e[0] != u && e[1] != u || otherEnd(e, u) != h.to {
				t.Fatalf("version %d: %s lists relation %s with other end %s", version, s.ents.key(u), s.link(h.rel).Name, s.ents.key(h.to))
			}
			l := s.link(h.rel)
			var dflt RelationFilter
			typeOK := h.typ == 0 && !slices.Contains(RelationTypes, l.Type) || h.typ != 0 && RelationTypes[h.typ-1] == l.Type
			if !typeOK || h.out != (e[0] == u) || h.strength != dflt.Strength(l.Support) {
				t.Fatalf("version %d: %s lists relation %s as %+v; its link %+v", version, s.ents.key(u), l.Name, h, l)
			}
			if at := s.at.get(h.rel); at[boolInt(e[0] != u)] != int32(k) {
				t.Fatalf("version %d: relation %s stands at %d in %s's list, and says %v", version, l.Name, k, s.ents.key(u), at)
			}
		}
	}
	// Each list of hubMin relations or more has an index, and it is the one built afresh from the list.
	g := snapshotGraph{s}
	for u := int32(0); int(u) < s.ents.len(); u++ {
		list := s.adj.get(u)
		x := g.hubOf(u)
		if len(list) < cmp.Or(s.hubMin, defaultHubMin) {
			if x != nil {
				t.Fatalf("version %d: %s's list of %d is indexed", version, s.ents.key(u), len(list))
			}
			continue
		}
		if want := buildHubIndex(g, u, list, nil, false); !reflect.DeepEqual(x, want) {
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

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
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
		var w []Link
		n := 1 + r.IntN(20)
		if v == 1 || v == 20 {
			n = 3*chunkSize + 17 // a fill, and a large load later
		}
		for range n {
			if len(current) > 0 && r.IntN(4) == 0 { // a relation written again
				var l Link
				for _, x := range current {
					l = x
					break
				}
				l.Support = Support{r.Float64(), -1, -1, -1}
				switch r.IntN(3) {
				case 0:
					l.Support = Support{-1, -1, -1, r.Float64()} // denied only: it no longer counts
				case 1:
					l.Deleted = !l.Deleted
				}
				l.Dated = !l.Dated
				l.Period, l.Life = randomPeriod(r), randomPeriod(r)
				w = append(w, l)
				continue
			}
			a := EntityName(fmt.Sprintf("actors/e%d", r.IntN(entities+3)))
			if r.IntN(3) == 0 {
				a = EntityName(fmt.Sprintf("actors/e%d", entities))
				entities++
			}
			b := EntityName(fmt.Sprintf("actors/e%d", entities))
			entities++
			if r.IntN(10) == 0 {
				b = a // a relation of an entity with itself
			}
			// The snapshot makes links from what it holds apart: a type of the vocabulary or one outside it
			// (symmetric or not), and any period and life.
			typ, sym := Endorses, false
			switch r.IntN(4) {
			case 0:
				typ, sym = FormerlyWorkedWith, true
			case 1:
				typ, sym = RelationType(fmt.Sprintf("TYPE_%d", r.IntN(3))), r.IntN(2) == 0
			}
			w = append(w, Link{Name: RelationNameFor(a, typ, b, fmt.Sprint(v)), Type: typ, From: a, To: b, Symmetric: sym,
				Period: randomPeriod(r), Life: randomPeriod(r), Support: Support{r.Float64(), -1, -1, -1}})
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
	a, b, c := EntityName("actors/a"), EntityName("actors/b"), EntityName("actors/c")
	ab := Link{Name: RelationNameFor(a, Endorses, b, ""), Type: Endorses, From: a, To: b, Period: OpenPeriod, Life: OpenPeriod}
	feed.write([]Link{ab})
	topo := NewTopology(feed)
	ctx := context.Background()
	g, release, err := topo.view(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer release()

	bc := Link{Name: RelationNameFor(b, Endorses, c, ""), Type: Endorses, From: b, To: c, Period: OpenPeriod, Life: OpenPeriod}
	feed.write([]Link{bc})
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

	if _, ok := g.node(c); ok {
		t.Error("the search's view changed under it: it sees an entity written after it started")
	}
	if u, _ := g.node(b); len(g.relationsOf(u)) != 1 {
		t.Errorf("the search's view of %s has %d relations, want 1", b, len(g.relationsOf(u)))
	}
	paths, err := FindPaths(ctx, topo, PathQuery{From: a, To: c, MaxPaths: 1, MaxDepth: 4}, DefaultWorkBudget)
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
	var first []Link
	for i := range 200 {
		a, b := EntityName(fmt.Sprintf("actors/p%d", i)), EntityName(fmt.Sprintf("actors/p%d", i+1))
		first = append(first, Link{Name: RelationNameFor(a, Endorses, b, ""), Type: Endorses, From: a, To: b, Period: OpenPeriod, Life: OpenPeriod})
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
				from := EntityName(fmt.Sprintf("actors/p%d", (i+w)%190))
				to := EntityName(fmt.Sprintf("actors/p%d", (i+w)%190+3))
				paths, err := FindPaths(ctx, topo, PathQuery{From: from, To: to, MaxPaths: 1, MaxDepth: 4}, DefaultWorkBudget)
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
		a := EntityName(fmt.Sprintf("actors/p%d", v%200))
		b := EntityName(fmt.Sprintf("actors/q%d", v))
		feed.write([]Link{{Name: RelationNameFor(a, Endorses, b, ""), Type: Endorses, From: a, To: b, Period: OpenPeriod, Life: OpenPeriod},
			{Name: first[v%200].Name, Type: Endorses, From: first[v%200].From, To: first[v%200].To, Period: OpenPeriod, Life: OpenPeriod, Dated: v%2 == 0}})
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
	kinds := []Kind{KindActor, KindParty, KindSeat}
	current := map[EntityName]Entity{}
	feed := &scriptFeed{}
	topo := NewTopology(feed)
	for v := 1; v <= 12; v++ {
		var es []Entity
		for range 40 + r.IntN(40) {
			var e Entity
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
					e.Deleted = Tombstone{Time: time.Unix(int64(v), 0), By: "test", Reason: "gone"}
				}
			} else {
				e = Entity{Name: EntityName(fmt.Sprintf("actors/e%d-%d", v, len(es))), Kind: kinds[r.IntN(len(kinds))], DisplayName: name()}
				if r.IntN(4) == 0 {
					e.Aliases = []string{name()}
				}
			}
			current[e.Name] = e
			es = append(es, e)
		}
		feed.writeChanged(Changed{Entities: es})
		if err := topo.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		snap := topo.snap.Load()
		for range 60 {
			q := SearchQuery{Text: typo(r, name())}
			if r.IntN(4) == 0 {
				q.Kinds = []Kind{kinds[r.IntN(len(kinds))]}
			}
			got := snap.search(q)
			var want []SearchResult
			for _, e := range current {
				if res, ok := Rank(NormalizeName(q.Text), e, q.Kinds); ok {
					want = append(want, res)
				}
			}
			SortSearchResults(want)
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

func sameResults(a, b []SearchResult) bool {
	return slices.EqualFunc(a, b, func(x, y SearchResult) bool {
		return x.Entity.Name == y.Entity.Name && x.Score == y.Score && x.Matched == y.Matched
	})
}

func showResults(rs []SearchResult) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "[%s %q %.3f] ", r.Entity.Name, r.Matched, r.Score)
	}
	return b.String()
}

// TestEditsWithin compares the bounded edit distance with the plain one on random pairs.
func TestEditsWithin(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		a := []rune(typo(r, typo(r, "abcdefghij"[:r.IntN(11)])))
		b := []rune(typo(r, typo(r, string(a))))
		if r.IntN(5) == 0 {
			b = []rune(strings.Repeat("x", r.IntN(60)))
		}
		d := r.IntN(4)
		full := levenshtein(a, b)
		want := full
		if full > d {
			want = -1
		}
		if got := editsWithin(a, b, d); got != want {
			t.Fatalf("editsWithin(%q, %q, %d) = %d; distance %d", string(a), string(b), d, got, full)
		}
		ha, hb := countLetters(a), countLetters(b)
		if full <= d && !ha.within(&hb, d) {
			t.Fatalf("the letter counts of %q and %q rule out %d edits, but the distance is %d", string(a), string(b), d, full)
		}
	}
}

// randomPeriod is all of time, or a span of a few years around 2015 (open at either end or not).
func randomPeriod(r *rand.Rand) Period {
	if r.IntN(3) == 0 {
		return OpenPeriod
	}
	p := PeriodOf(FuzzyDate{Year: 2010 + r.IntN(10)})
	switch r.IntN(3) {
	case 0:
		p.Start = OpenPeriod.Start
	case 1:
		p.End = PeriodOf(FuzzyDate{Year: 2015 + r.IntN(5)}).End
	}
	return p
}

// TestBriefCountsAsTheLinkDoes checks that what a walk reads of a relation from its brief gives every
// filter's verdict on the whole link, plain filters (read from the brief) and others alike.
func TestBriefCountsAsTheLinkDoes(t *testing.T) {
	asOf, err := ParseFuzzyDate("2015")
	if err != nil {
		t.Fatal(err)
	}
	filters := []RelationFilter{
		{},
		{Undated: UndatedInclude},
		{MinConfidence: -1},
		{Undated: UndatedExclude},
		{Undated: UndatedInclude, AsOf: asOf},
		{Statuses: []ClaimStatus{StatusDenied}},
		{Statuses: []ClaimStatus{StatusConfirmed, StatusReported}, MinConfidence: 0.5},
		{MinConfidence: 0.9},
		{AsOf: asOf},
		{ExcludeTypes: []RelationType{"MEMBER_OF"}},
		{IncludeTypes: []RelationType{"TYPE_0", "ENDORSES"}},
		{ExcludeTypes: []RelationType{"TYPE_1"}, AsOf: asOf},
	}
	r := rand.New(rand.NewPCG(5, 6))
	confidence := func() float64 {
		if r.IntN(2) == 0 {
			return -1
		}
		return r.Float64()
	}
	var c Changed
	for i := range 2000 {
		from, to := EntityName(fmt.Sprintf("actors/a%d", r.IntN(50))), EntityName(fmt.Sprintf("actors/a%d", r.IntN(50)))
		c.Links = append(c.Links, Link{Name: RelationName(fmt.Sprintf("relations/r%d", i)), Type: []RelationType{"MEMBER_OF", "ENDORSES", "TYPE_0", "TYPE_1"}[r.IntN(4)],
			From: from, To: to, Period: randomPeriod(r), Dated: r.IntN(2) == 0, Life: randomPeriod(r), Deleted: r.IntN(9) == 0,
			Support: Support{confidence(), confidence(), confidence(), confidence()}})
	}
	b := newSnapshotBuilder(&topoSnapshot{})
	b.apply(c)
	g := snapshotGraph{b.finish(1)}
	for i := int32(0); int(i) < g.s.rels.len(); i++ {
		l := g.s.link(i)
		for _, f := range filters {
			if got, want := g.counts(&f, i), f.Counts(l); got != want {
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
	feed.write([]Link{{Name: "relations/r0", Type: Endorses, From: "actors/a", To: "actors/b", Period: OpenPeriod, Life: OpenPeriod}})
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
					if KindOf(err) == Unavailable { // catching up: the caller reads the store instead
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
		feed.write([]Link{{Name: RelationName(fmt.Sprintf("relations/r%d", v)), Type: Endorses, From: "actors/a", To: EntityName(fmt.Sprintf("actors/c%d", v)), Period: OpenPeriod, Life: OpenPeriod}})
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

// strongest gives the walk the same entities, in the same order, as sorting every candidate would: hubs'
// candidates with tied strengths and entities joined several times included.
func TestStrongestAgreesWithSortingAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	firstDistinct := func(cs []candidate, n int) []int32 {
		var out []int32
		seen := map[int32]bool{}
		for _, c := range cs {
			if len(out) == n {
				break
			}
			if !seen[c.to] {
				seen[c.to] = true
				out = append(out, c.to)
			}
		}
		return out
	}
	nameOf := func(to int32) EntityName { return EntityName(fmt.Sprintf("actors/e%04d", to)) }
	levels := []float64{-1, 0, 0.25, 0.5, 0.5, 0.75, 0.9, 1}
	large := 0
	for trial := 0; trial < 2000; trial++ {
		entities := 1 + r.IntN(300)
		items := make([]candidate, r.IntN(2000))
		for i := range items {
			to := int32(r.IntN(entities))
			s := levels[r.IntN(len(levels))]
			if trial%3 == 0 {
				s = r.Float64() // few ties
			}
			items[i] = candidate{to: to, strength: s}
		}
		n := 1 + r.IntN(40)
		all := slices.Clone(items)
		for i := range all {
			all[i].name = nameOf(all[i].to)
		}
		slices.SortFunc(all, byStrength)
		if len(items) > 4*n {
			large++
		}
		got := strongest(slices.Clone(items), n, nameOf)
		if want, have := firstDistinct(all, n), firstDistinct(got, n); !slices.Equal(want, have) {
			t.Fatalf("trial %d (%d candidates, %d wanted): strongest shows %v, sorting all %v", trial, len(items), n, have, want)
		}
	}
	if large < 1000 {
		t.Fatalf("only %d of 2000 trials had more candidates than strongest sorts whole", large)
	}
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
	feed.write([]Link{{Name: "relations/r0", Type: Endorses, From: "actors/a", To: "actors/b", Period: OpenPeriod, Life: OpenPeriod}})
	topo := NewTopology(feed)
	ctx := context.Background()
	if err := topo.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	feed.write([]Link{{Name: "relations/r1", Type: Endorses, From: "actors/a", To: "actors/c", Period: OpenPeriod, Life: OpenPeriod}})
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
	feed.write([]Link{{Name: "relations/r2", Type: Endorses, From: "actors/a", To: "actors/d", Period: OpenPeriod, Life: OpenPeriod}})
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
	feed.write([]Link{{Name: "relations/r3", Type: Endorses, From: "actors/a", To: "actors/e", Period: OpenPeriod, Life: OpenPeriod}})
	committed, _ = feed.scriptFeed.Version(ctx)
	src, err = topo.Synced(other.VersionAhead(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if got := src.(topologyReader).s.version; got < committed {
		t.Errorf("a search with another topology's read ahead read version %d, want at least %d", got, committed)
	}
}
