package snapfile

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memgraph"
)

// scriptStore is a Store whose versions the test writes: version v is writes[v-1]. Changes gives every
// write after since as a batch of its own, as a store's feed may (later batches replace what earlier
// ones gave).
type scriptStore struct {
	mu     sync.Mutex
	id     string
	writes []graph.Changed
	asked  []int64 // the since of every Changes call
	fail   error   // when set, Changes gives one batch and then fails
	// bulk and counts are what Bulk says.
	bulk   string
	counts graph.GraphCounts
}

func (s *scriptStore) Bulk(context.Context) (string, graph.GraphCounts, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bulk, s.counts, nil
}

func (s *scriptStore) Version(context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int64(len(s.writes)), nil
}

func (s *scriptStore) GraphID(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.writes) == 0 {
		return "", nil
	}
	return s.id, nil
}

func (s *scriptStore) Changes(_ context.Context, since int64, each func(graph.Changed)) (int64, error) {
	s.mu.Lock()
	writes, fail := slices.Clone(s.writes), s.fail
	s.asked = append(s.asked, since)
	s.mu.Unlock()
	if since > int64(len(writes)) {
		return int64(len(writes)), nil
	}
	for i, w := range writes[since:] {
		each(w)
		if fail != nil && i == 0 {
			return 0, fail
		}
	}
	return int64(len(writes)), nil
}

func (s *scriptStore) write(c graph.Changed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, c)
}

// rewind drops the writes after version v, as a restore of an older backup does.
func (s *scriptStore) rewind(v int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = s.writes[:v]
}

func (s *scriptStore) calls() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asked)
}

// state is what a feed's batches amount to: each source, entity and relation as last given.
type state struct {
	Sources   map[graph.SourceName]graph.Source
	Entities  map[graph.EntityName]graph.Entity
	Relations map[graph.RelationName]relationState
}

type relationState struct {
	Link   graph.Link
	Header graph.RelationHeader
}

func (st *state) apply(c graph.Changed) {
	if st.Sources == nil {
		st.Sources, st.Entities, st.Relations = map[graph.SourceName]graph.Source{}, map[graph.EntityName]graph.Entity{}, map[graph.RelationName]relationState{}
	}
	for _, s := range c.Sources {
		st.Sources[s.Name] = s
	}
	for _, e := range c.Entities {
		st.Entities[e.Name] = e
	}
	for i, l := range c.Links {
		st.Relations[l.Name] = relationState{Link: l, Header: c.Headers[i]}
	}
}

// fill asks feed for everything from version 0 and returns what it gave and the version.
func fill(t *testing.T, feed graph.ChangeFeed) (state, int64) {
	t.Helper()
	var st state
	v, err := feed.Changes(t.Context(), 0, st.apply)
	if err != nil {
		t.Fatal(err)
	}
	return st, v
}

// sameAsStore fails unless got is the store's whole graph.
func sameAsStore(t *testing.T, store *scriptStore, got state, what string) {
	t.Helper()
	want, _ := fill(t, store)
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("%s gives another graph than the store's (-store +fill):\n%s", what, diff)
	}
}

// catchUp asks feed for what changed since version since, on top of st.
func catchUp(t *testing.T, feed graph.ChangeFeed, st *state, since int64) int64 {
	t.Helper()
	v, err := feed.Changes(t.Context(), since, st.apply)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// richWrite is a write of n entities, a source and n relations (between them and the entities of the
// write before), each with claims; every field of the records is set somewhere, so that a field the file
// would lose shows.
func richWrite(r *rand.Rand, version, n int) graph.Changed {
	var c graph.Changed
	src := graph.Source{Name: graph.SourceName(fmt.Sprintf("sources/s%d", version)), Title: fmt.Sprintf("Report %d", version),
		Kind: graph.SourceArticle, Outlet: "Outlet", Author: "A. Writer", Published: graph.FuzzyDate{Year: 2015, Month: 3},
		URL: "https://example.org/" + fmt.Sprint(version), Retrieved: graph.FuzzyDate{Year: 2020, Month: 1, Day: 2}, Licence: "CC-BY-4.0"}
	c.Sources = append(c.Sources, src)
	ent := func(i int) graph.EntityName { return graph.EntityName(fmt.Sprintf("actors/e%d", i)) }
	for i := range n {
		name := ent(version*n + i)
		c.Entities = append(c.Entities, graph.Entity{Name: name, Kind: graph.Kind("ACTOR"), DisplayName: fmt.Sprintf("Entity %d", version*n+i),
			Aliases: []string{"alias"}, Description: "described", Identifiers: graph.Identifiers{"wikidata": {fmt.Sprintf("Q%d", i)}},
			ValidFrom: graph.FuzzyDate{Year: 1990}, Attributes: graph.Attributes{Gender: "female", BirthDate: graph.FuzzyDate{Year: 1970},
				Links: []graph.WebLink{{URL: "https://example.org", Note: "home"}}, ContactDetails: []graph.ContactDetail{{Type: "email", Value: "a@example.org"}},
				OtherNames: []graph.Alias{{Name: "alias", Lang: "en"}}}})
		if version == 0 {
			continue
		}
		other := ent(r.IntN(version * n))
		rel := graph.Relation{Name: graph.RelationNameFor(name, graph.RelationType("ENDORSES"), other, ""), Type: graph.RelationType("ENDORSES"),
			From: name, To: other, Role: "role", ValidFrom: graph.FuzzyDate{Year: 2000 + r.IntN(20)}}
		rel.Claims = []graph.Claim{{Name: graph.ClaimNameFor(rel.Name, src.Name, ""), Source: graph.Source{Name: src.Name}, Excerpt: "said so",
			Record: "rec", Confidence: r.Float64(), Status: graph.StatusReported, SaidBy: other}}
		if r.IntN(3) == 0 {
			rel.Claims[0].Retracted = graph.Tombstone{Time: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), By: "editor", Reason: "wrong"}
		}
		l := rel.Link()
		c.Links = append(c.Links, l)
		c.Headers = append(c.Headers, graph.RelationHeader{Relation: rel, ClaimCount: 1, Support: graph.SupportOf(rel.Claims), Verdict: graph.VerdictOf(rel.Claims)})
	}
	c.Evidence = true
	return c
}

// newStore is a store with versions writes of n entities and relations each.
func newStore(t *testing.T, writes, n int) (*scriptStore, *rand.Rand) {
	r := rand.New(rand.NewPCG(uint64(writes), uint64(n)))
	s := &scriptStore{id: "graph-" + t.Name()}
	for v := range writes {
		s.write(richWrite(r, v, n))
	}
	return s, r
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestRestartReadsTheFileBackAndCatchesUp(t *testing.T) {
	store, r := newStore(t, 4, 50)
	path := filepath.Join(t.TempDir(), "graph.snapshot")

	first := New(store, path, quietLog())
	st, v := fill(t, first)
	if first.LastFill().FromFile {
		t.Fatal("the first fill says it read a file back")
	}
	store.write(richWrite(r, 4, 50))
	if v = catchUp(t, first, &st, v); v != 5 {
		t.Fatalf("caught up to %d, want 5", v)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	// While no polgraph runs: new records, and records of the file changed (an entity renamed, a relation
	// deleted, a source retitled).
	store.write(richWrite(r, 5, 50))
	changed := store.writes[2]
	e := changed.Entities[0]
	e.DisplayName = "Renamed"
	rel := changed.Headers[0]
	rel.Relation.Deleted = graph.Tombstone{Time: time.Now().UTC(), By: "editor", Reason: "duplicate"}
	l := changed.Links[0]
	l.Deleted = true
	src := changed.Sources[0]
	src.Title = "Retitled"
	store.write(graph.Changed{Sources: []graph.Source{src}, Entities: []graph.Entity{e}, Links: []graph.Link{l}, Headers: []graph.RelationHeader{rel}, Evidence: true})

	store.asked = nil
	second := New(store, path, quietLog())
	defer second.Close()
	got, v := fill(t, second)
	if v != 7 {
		t.Fatalf("filled to version %d, want 7", v)
	}
	if f := second.LastFill(); !f.FromFile || f.Version != 5 {
		t.Fatalf("fill %+v: want the file read back at version 5", f)
	}
	if diff := cmp.Diff([]int64{5}, store.calls()); diff != "" {
		t.Fatalf("the store was asked from other versions than the file's (-want +got):\n%s", diff)
	}
	sameAsStore(t, store, got, "the fill read back")

	// The catch-ups of the second process go on into the file, and a third process reads them back.
	store.write(richWrite(r, 7, 50))
	catchUp(t, second, &got, v)
	second.Close()
	store.asked = nil
	third := New(store, path, quietLog())
	defer third.Close()
	again, v := fill(t, third)
	if f := third.LastFill(); !f.FromFile || f.Version != 8 || v != 8 {
		t.Fatalf("fill %+v to %d: want the file read back at version 8", f, v)
	}
	sameAsStore(t, store, again, "the third fill")
}

// TestTopologyFromTheFileIsTheStores fills a topology from the file and one from the store, and compares
// every entity's links.
func TestTopologyFromTheFileIsTheStores(t *testing.T) {
	store, r := newStore(t, 6, 200)
	path := filepath.Join(t.TempDir(), "graph.snapshot")
	first := New(store, path, quietLog())
	if err := memgraph.NewTopology(first).Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	first.Close()
	store.write(richWrite(r, 6, 200))

	fromFile := New(store, path, quietLog())
	defer fromFile.Close()
	got, want := memgraph.NewTopology(fromFile), memgraph.NewTopology(store)
	for _, topo := range []*memgraph.Topology{got, want} {
		if err := topo.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if !fromFile.LastFill().FromFile {
		t.Fatalf("the file was not read back: %s", fromFile.LastFill().Why)
	}
	ge, gr, gv := got.Size()
	we, wr, wv := want.Size()
	if ge != we || gr != wr || gv != wv {
		t.Fatalf("from the file: %d entities, %d relations at version %d; from the store %d, %d at %d", ge, gr, gv, we, wr, wv)
	}
	var names []graph.EntityName
	for _, w := range store.writes {
		for _, e := range w.Entities {
			names = append(names, e.Name)
		}
	}
	gl, err := got.Links(t.Context(), names)
	if err != nil {
		t.Fatal(err)
	}
	wl, err := want.Links(t.Context(), names)
	if err != nil {
		t.Fatal(err)
	}
	byName := func(a, b graph.Link) int { return strings.Compare(string(a.Name), string(b.Name)) }
	for _, n := range names {
		slices.SortFunc(gl[n], byName)
		slices.SortFunc(wl[n], byName)
	}
	if diff := cmp.Diff(wl, gl, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("links (-from the store +from the file):\n%s", diff)
	}
}

// TestFilesNotReadBack: a file that is not the graph's as the store has it now is never read back; the
// fill reads the store whole, and writes a new file, which the next fill reads back.
func TestFilesNotReadBack(t *testing.T) {
	for _, tc := range []struct {
		name string
		// spoil changes the file (or the store) after a first process wrote it at version 3 and
		// caught up to 4.
		spoil func(t *testing.T, store *scriptStore, path string)
		// partly: the file is read back, up to an earlier version
		partly int64
	}{
		{name: "no file", spoil: func(t *testing.T, _ *scriptStore, path string) { remove(t, path) }},
		{name: "another graph's", spoil: func(t *testing.T, store *scriptStore, _ string) { store.id = "another" }},
		{name: "ahead of the store (restored from a backup)", spoil: func(t *testing.T, store *scriptStore, _ string) { store.rewind(2) }},
		{name: "not a snapshot file", spoil: func(t *testing.T, _ *scriptStore, path string) { rewrite(t, path, []byte("polgraph graph\n{}")) }},
		{name: "written by other code", spoil: func(t *testing.T, store *scriptStore, path string) {
			rewriteHeader(t, path, func(h *header) { h.Build = "someone else" })
		}},
		{name: "records of another shape", spoil: func(t *testing.T, store *scriptStore, path string) {
			rewriteHeader(t, path, func(h *header) { h.Shape = "older" })
		}},
		{name: "damaged within its fill", spoil: func(t *testing.T, _ *scriptStore, path string) {
			b := read(t, path)
			b[len(b)/4] ^= 0xff
			rewrite(t, path, b)
		}},
		{name: "cut within its fill", spoil: func(t *testing.T, _ *scriptStore, path string) { rewrite(t, path, read(t, path)[:300]) }},
		{name: "its catch-ups outgrew its fill", spoil: func(t *testing.T, store *scriptStore, path string) {
			f := New(store, path, quietLog())
			defer f.Close()
			st, v := fill(t, f)
			r := rand.New(rand.NewPCG(9, 9))
			for range 6 {
				store.write(richWrite(r, int(v), 50))
				v = catchUp(t, f, &st, v)
			}
		}},
		{name: "a torn tail", partly: 4, spoil: func(t *testing.T, store *scriptStore, path string) {
			f := New(store, path, quietLog())
			st, v := fill(t, f)
			store.write(richWrite(rand.New(rand.NewPCG(1, 2)), int(v), 50))
			catchUp(t, f, &st, v)
			f.Close()
			b := read(t, path)
			rewrite(t, path, b[:len(b)-10])
		}},
		{name: "garbage after its last mark", partly: 4, spoil: func(t *testing.T, _ *scriptStore, path string) {
			rewrite(t, path, append(read(t, path), kindChanges, 3, 'a', 'b', 'c', 0, 0, 0, 0))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, r := newStore(t, 3, 50)
			path := filepath.Join(t.TempDir(), "graph.snapshot")
			first := New(store, path, quietLog())
			st, v := fill(t, first)
			store.write(richWrite(r, 3, 50))
			catchUp(t, first, &st, v)
			first.Close()
			tc.spoil(t, store, path)
			if len(store.writes) < 5 {
				store.write(richWrite(r, len(store.writes), 50))
			}

			store.asked = nil
			f := New(store, path, quietLog())
			got, v := fill(t, f)
			want, wv := fill(t, store)
			if v != wv {
				t.Fatalf("filled to version %d, want %d", v, wv)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("(-store +fill):\n%s", diff)
			}
			lf := f.LastFill()
			if tc.partly != 0 {
				if !lf.FromFile || lf.Version != tc.partly {
					t.Fatalf("fill %+v: want the file read back up to version %d", lf, tc.partly)
				}
			} else if lf.FromFile || store.calls()[0] != 0 {
				t.Fatalf("fill %+v, the store asked from %v: want the store read whole", lf, store.calls())
			}
			f.Close()
			// The file the fill wrote (or added to) is read back next time.
			next := New(store, path, quietLog())
			defer next.Close()
			again, _ := fill(t, next)
			if f := next.LastFill(); !f.FromFile || f.Version != wv {
				t.Fatalf("the next fill %+v: want the file read back at version %d", f, wv)
			}
			if diff := cmp.Diff(want, again, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("next fill (-store +fill):\n%s", diff)
			}
		})
	}
}

// TestTheFileStopsGrowing: a process that keeps catching up stops adding to its file once the catch-ups
// outgrow the fill, and the next start fills from the store.
func TestTheFileStopsGrowing(t *testing.T) {
	store, r := newStore(t, 3, 50)
	path := filepath.Join(t.TempDir(), "graph.snapshot")
	f := New(store, path, quietLog())
	st, v := fill(t, f)
	fi, err := os.Stat(path)
	must(t, err)
	filled := fi.Size()
	for range 20 {
		store.write(richWrite(r, int(v), 50))
		v = catchUp(t, f, &st, v)
	}
	f.Close()
	fi, err = os.Stat(path)
	must(t, err)
	// One catch-up's worth past twice the fill at most (a catch-up here is as large as a third of it).
	if fi.Size() > 2*filled+filled/2 {
		t.Fatalf("the file grew to %d bytes from a fill of %d", fi.Size(), filled)
	}
	next := New(store, path, quietLog())
	defer next.Close()
	got, _ := fill(t, next)
	if lf := next.LastFill(); lf.FromFile {
		t.Fatalf("an outgrown file was read back: %+v", lf)
	}
	sameAsStore(t, store, got, "the fill after an outgrown file")
}

func TestAFileInUseIsLeftAlone(t *testing.T) {
	store, _ := newStore(t, 3, 20)
	path := filepath.Join(t.TempDir(), "graph.snapshot")
	first := New(store, path, quietLog())
	defer first.Close()
	want, _ := fill(t, first)
	second := New(store, path, quietLog())
	defer second.Close()
	got, _ := fill(t, second)
	if f := second.LastFill(); f.FromFile || f.Why == "" {
		t.Fatalf("a second process used the first's file: %+v", f)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("(-first +second):\n%s", diff)
	}
}

// TestABulkWriteLeavesAFileInUseAlone: the N-Quads path's file is not written over a file a running
// polgraph uses, nor while another load writes it: WriteBulk fails at once, naming the file, and
// changes nothing; once the file is free it is written.
func TestABulkWriteLeavesAFileInUseAlone(t *testing.T) {
	counts := graph.GraphCounts{Sources: 1}
	write := func(path string, during func()) error {
		return WriteBulk(path, "bulk-1", counts, 1, func(give func(graph.Changed) error) error {
			if during != nil {
				during()
			}
			return give(graph.Changed{Sources: []graph.Source{{Name: "sources/a"}}})
		})
	}
	refused := func(t *testing.T, err error, path string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "another process uses "+path) {
			t.Fatalf("WriteBulk over a file in use returned %v, want a refusal naming %s", err, path)
		}
	}

	t.Run("a running polgraph's file", func(t *testing.T) {
		store, _ := newStore(t, 3, 20)
		path := filepath.Join(t.TempDir(), "graph.snapshot")
		running := New(store, path, quietLog())
		fill(t, running)
		before := read(t, path)
		refused(t, write(path, nil), path)
		if !bytes.Equal(read(t, path), before) {
			t.Fatal("the refused write changed the running polgraph's file")
		}
		if _, err := os.Stat(path + ".tmp"); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the refused write left %s.tmp: %v", path, err)
		}
		must(t, running.Close())
		must(t, write(path, nil))
	})
	t.Run("another load's", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "graph.snapshot")
		var second error
		must(t, write(path, func() { second = write(path, nil) }))
		refused(t, second, path)
		must(t, write(path, nil)) // the first released it
	})
}

// TestAFailedFillLeavesNoFile: a fill that fails part way leaves no file, and so does a file whose
// records pass their checks but do not decode (the fill fails, the file is removed, the next reads the
// store).
func TestAFailedFillLeavesNoFile(t *testing.T) {
	store, _ := newStore(t, 3, 20)
	path := filepath.Join(t.TempDir(), "graph.snapshot")
	store.fail = errors.New("the store went away")
	f := New(store, path, quietLog())
	var st state
	if _, err := f.Changes(t.Context(), 0, st.apply); err == nil {
		t.Fatal("the failing fill succeeded")
	}
	f.Close()
	for _, p := range []string{path, path + ".tmp"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s is there after a failed fill: %v", p, err)
		}
	}
	store.fail = nil

	// A file whose one record of changes is not a gob of graph.Changed.
	var buf bytes.Buffer
	rw := recordWriter{w: bufioWriter(&buf)}
	buf.WriteString(magic)
	must(t, rw.header(header{Format: formatVersion, Shape: changedShape, Build: thisBuild, GraphID: store.id}))
	must(t, rw.record(kindChanges, []byte("not a gob")))
	must(t, rw.version(0, 3))
	must(t, rw.w.Flush())
	rewrite(t, path, buf.Bytes())
	f = New(store, path, quietLog())
	if _, err := f.Changes(t.Context(), 0, st.apply); err == nil {
		t.Fatal("a file that does not decode was read back")
	}
	f.Close()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the file that did not decode is still there: %v", err)
	}
	f = New(store, path, quietLog())
	defer f.Close()
	got, _ := fill(t, f)
	sameAsStore(t, store, got, "the fill after a file that did not decode")
}

// TestRecordsKeepEveryField sets every field of a graph.Changed (reflectively, so that a field added
// later is covered) and reads it back from a record.
func TestRecordsKeepEveryField(t *testing.T) {
	var c graph.Changed
	fillAll(reflect.ValueOf(&c).Elem(), 1)
	var buf bytes.Buffer
	rw := recordWriter{w: bufioWriter(&buf)}
	must(t, rw.changes(c))
	must(t, rw.w.Flush())
	rr := recordReader{r: bufioReader(&buf)}
	kind, p, err := rr.next(nil)
	if err != nil || kind != kindChanges {
		t.Fatalf("read %q, %v", kind, err)
	}
	got, err := decodeChanges(p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, got); diff != "" {
		t.Fatalf("(-written +read):\n%s", diff)
	}
}

func TestShapes(t *testing.T) {
	if _, err := typeShape(reflect.TypeFor[graph.Changed]()); err != nil {
		t.Fatal(err)
	}
	type hidden struct {
		Name string
		note string
	}
	_ = hidden{}.note // the unexported field is the point: typeShape must refuse it
	type withInterface struct{ Any any }
	for _, typ := range []reflect.Type{reflect.TypeFor[hidden](), reflect.TypeFor[withInterface]()} {
		if _, err := typeShape(typ); err == nil {
			t.Errorf("%s: want an error", typ)
		}
	}
	a, _ := typeShape(reflect.TypeFor[struct{ A, B int }]())
	b, _ := typeShape(reflect.TypeFor[struct{ A, C int }]())
	if a == b {
		t.Errorf("two shapes read alike: %s", a)
	}
}

// fillAll sets every field v holds to a value other than its zero (slices and maps get two elements).
func fillAll(v reflect.Value, seed int) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Date(2020, 1, seed%28+1, 3, 4, 5, 0, time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", seed))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(seed))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(seed))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(seed) + 0.5)
	case reflect.Struct:
		for i := range v.NumField() {
			fillAll(v.Field(i), seed+i+1)
		}
	case reflect.Array:
		for i := range v.Len() {
			fillAll(v.Index(i), seed+i)
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fillAll(s.Index(i), seed+10*i)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fillAll(k, seed+i)
			fillAll(e, seed+i)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillAll(p.Elem(), seed)
		v.Set(p)
	}
}

func bufioWriter(w io.Writer) *bufio.Writer { return bufio.NewWriter(w) }
func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return b
}

func rewrite(t *testing.T, path string, b []byte) {
	t.Helper()
	must(t, os.WriteFile(path, b, 0o600))
}

func remove(t *testing.T, path string) {
	t.Helper()
	must(t, os.Remove(path))
}

// rewriteHeader changes a file's header, keeping its records.
func rewriteHeader(t *testing.T, path string, change func(*header)) {
	t.Helper()
	b := read(t, path)
	rr, err := openRecords(bytes.NewReader(b))
	must(t, err)
	_, p, err := rr.next(nil)
	must(t, err)
	h, err := decodeHeader(p)
	must(t, err)
	change(&h)
	var buf bytes.Buffer
	buf.WriteString(magic)
	rw := recordWriter{w: bufioWriter(&buf)}
	must(t, rw.header(h))
	must(t, rw.w.Flush())
	buf.Write(b[rr.off:])
	rewrite(t, path, buf.Bytes())
}

// TestABulkFileIsReadBackOnlyIntoItsLoad writes a file as the N-Quads path does (WriteBulk) and checks
// that a fill reads it back only into the graph loaded from those N-Quads, with nothing written since,
// that it then becomes that graph's file (read back after later writes, and caught up), and that
// otherwise the fill reads the store and leaves a file of its own.
func TestABulkFileIsReadBackOnlyIntoItsLoad(t *testing.T) {
	counts := graph.GraphCounts{Sources: 1, Entities: 40, Relations: 40, Claims: 40}
	loaded := func(t *testing.T) (*scriptStore, *rand.Rand, string) {
		store, r := newStore(t, 2, 40)
		store.bulk, store.counts = "bulk-1", counts
		// The load's version is 1: one write holding both.
		var both graph.Changed
		for _, w := range store.writes {
			both.Sources = append(both.Sources, w.Sources...)
			both.Entities = append(both.Entities, w.Entities...)
			both.Links = append(both.Links, w.Links...)
			both.Headers = append(both.Headers, w.Headers...)
		}
		both.Evidence = true
		store.writes = []graph.Changed{both}
		path := filepath.Join(t.TempDir(), "graph.snapshot")
		err := WriteBulk(path, "bulk-1", counts, 1, func(give func(graph.Changed) error) error {
			// As a fill gives them: sources, entities, then relations, in batches.
			for _, c := range []graph.Changed{{Sources: both.Sources}, {Entities: both.Entities[:15]}, {Entities: both.Entities[15:]},
				{Links: both.Links, Headers: both.Headers, Evidence: true}} {
				if err := give(c); err != nil {
					return err
				}
			}
			return nil
		})
		must(t, err)
		return store, r, path
	}
	// marks reads a file's header, and the graph it was adopted by ("" for none).
	marks := func(t *testing.T, path string) (h header, adopted string) {
		t.Helper()
		f, err := os.Open(path)
		must(t, err)
		defer f.Close()
		rr, err := openRecords(f)
		must(t, err)
		_, p, err := rr.next(nil)
		must(t, err)
		h, err = decodeHeader(p)
		must(t, err)
		for {
			kind, p, err := rr.next(nil)
			if err != nil {
				return h, adopted
			}
			if kind == kindAdopt {
				adopted = string(p)
			}
		}
	}

	t.Run("read back, then the graph's", func(t *testing.T) {
		store, r, path := loaded(t)
		first := New(store, path, quietLog())
		got, v := fill(t, first)
		if f := first.LastFill(); !f.FromFile || f.Version != 1 || v != 1 {
			t.Fatalf("fill %+v to %d: want the file read back at version 1", f, v)
		}
		sameAsStore(t, store, got, "the fill read back from the N-Quads' file")
		if _, id := marks(t, path); id != store.id {
			t.Fatalf("after the fill the file is adopted by %q, want the graph's id %q", id, store.id)
		}
		store.write(richWrite(r, 2, 40))
		catchUp(t, first, &got, v)
		first.Close()
		store.write(richWrite(r, 3, 40)) // the graph moves on while no polgraph runs
		store.asked = nil
		second := New(store, path, quietLog())
		defer second.Close()
		again, v := fill(t, second)
		if f := second.LastFill(); !f.FromFile || f.Version != 2 || v != 3 {
			t.Fatalf("fill %+v to %d: want the file read back at version 2, and caught up to 3", f, v)
		}
		if diff := cmp.Diff([]int64{2}, store.calls()); diff != "" {
			t.Fatalf("the store was asked from other versions than the file's (-want +got):\n%s", diff)
		}
		sameAsStore(t, store, again, "the second fill")
	})

	t.Run("the graph loaded anew", func(t *testing.T) {
		store, _, path := loaded(t)
		first := New(store, path, quietLog())
		fill(t, first)
		first.Close()
		// The graph emptied and loaded anew from the same N-Quads is another graph: the file, now the first
		// graph's, is not read back.
		store.id = "graph-reloaded"
		again := New(store, path, quietLog())
		defer again.Close()
		fill(t, again)
		if f := again.LastFill(); f.FromFile || !strings.Contains(f.Why, `of graph "graph-`) {
			t.Fatalf("fill %+v: want the store read, the file being another graph's", f)
		}
	})

	for _, tt := range []struct {
		name   string
		change func(*scriptStore, *rand.Rand)
		why    string
	}{
		{"another load", func(s *scriptStore, _ *rand.Rand) { s.bulk = "bulk-2" }, `load "bulk-1", and the graph came from "bulk-2"`},
		{"not loaded so", func(s *scriptStore, _ *rand.Rand) { s.bulk = "" }, `the graph came from ""`},
		{"written to since", func(s *scriptStore, r *rand.Rand) { s.write(richWrite(r, 2, 40)) }, "has been written to since (version 2)"},
		{"loaded in part", func(s *scriptStore, _ *rand.Rand) { s.counts.Relations-- }, "the graph holds 1 sources, 40 entities, 39 relations"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store, r, path := loaded(t)
			tt.change(store, r)
			feed := New(store, path, quietLog())
			got, _ := fill(t, feed)
			if f := feed.LastFill(); f.FromFile || !strings.Contains(f.Why, tt.why) {
				t.Fatalf("fill %+v: want the store read, because %s", f, tt.why)
			}
			sameAsStore(t, store, got, "the fill")
			feed.Close()
			// The fill wrote a file of its own, the graph's, which the next start reads back.
			if h, _ := marks(t, path); h.GraphID != store.id {
				t.Fatalf("after the fill the file's header is %+v", h)
			}
			next := New(store, path, quietLog())
			defer next.Close()
			fill(t, next)
			if f := next.LastFill(); !f.FromFile {
				t.Fatalf("the next fill did not read the fill's file back: %s", f.Why)
			}
		})
	}

	t.Run("no id", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "graph.snapshot")
		if err := WriteBulk(path, "", counts, 1, func(func(graph.Changed) error) error { return nil }); err == nil {
			t.Fatal("a file without its load's id was written")
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a failed write left %s: %v", path, err)
		}
	})
	t.Run("a failed fill leaves nothing", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "graph.snapshot")
		boom := errors.New("boom")
		if err := WriteBulk(path, "bulk-1", counts, 1, func(give func(graph.Changed) error) error {
			must(t, give(graph.Changed{Sources: []graph.Source{{Name: "sources/a"}}}))
			return boom
		}); !errors.Is(err, boom) {
			t.Fatalf("WriteBulk returned %v, want the fill's error", err)
		}
		for _, p := range []string{path, path + ".tmp"} {
			if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a failed write left %s: %v", p, err)
			}
		}
	})
}
