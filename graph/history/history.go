// Package history answers reads as the graph stood at a past instant ("as known on"): the graph now,
// every change the audit trail recorded after the instant undone, held in memory and read by the same
// service as the live graph. With as_of (when a relation held in the world) it makes answers bitemporal.
package history

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/memgraph"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/graph/service"
)

// MaxUndone bounds how many later changes one rebuild undoes: a question about the graph of long ago,
// on a graph written much since, is answered from an export and a load instead.
const MaxUndone = 1_000_000

// ReasonTooFarBack is the reason of the error for an instant more than MaxUndone changes back.
const ReasonTooFarBack = "HISTORY_TOO_FAR_BACK"

// Graph is the graph as known on an instant, and what it was rebuilt from.
type Graph struct {
	// Service reads the graph as it stood; it writes nothing.
	Service *service.Service
	// Through is when the newest change it holds was written (zero when the trail holds none by then);
	// Changes is how many changes the trail held by then, and Undone how many later ones were undone.
	Through         time.Time
	Changes, Undone int
	// Version is the graph version of the newest change it holds (0 when the trail records none).
	Version int64
}

// Graphs rebuilds the graph as known on past instants, keeping the last few it rebuilt: the same
// instant, or any instant with no change between, reads the same graph again at once.
type Graphs struct {
	live *service.Service
	// store is live's: its change feed gives the graph now, its trail the changes since an instant.
	store interface {
		graph.ChangeFeed
		graph.Trail
		graph.ChangeScanner
	}
	keep int

	mu     sync.Mutex
	recent []*entry // most recent use first
}

type entry struct {
	key   key
	ready chan struct{} // closed once g or err is set
	g     *Graph
	err   error
}

// key names a past graph: the newest change at or before the instant (its time and version), and how
// many there were.
type key struct {
	through time.Time
	version int64
	changes int
}

// New returns Graphs over the live graph's service, whose store must keep an audit trail; keep past
// graphs are held at once (at least 1).
func New(live *service.Service, keep int) (*Graphs, error) {
	store, ok := live.Store.(interface {
		graph.ChangeFeed
		graph.Trail
		graph.ChangeScanner
	})
	if !ok {
		return nil, &graph.Error{Op: "history.New", Kind: graph.FailedPrecondition, Message: "this store keeps no audit trail it can scan, so no past graph can be rebuilt"}
	}
	return &Graphs{live: live, store: store, keep: max(keep, 1)}, nil
}

// Until is the first instant after t that the trail tells apart from it: changes are kept to the
// millisecond, so those made at or before t are those made before Until(t).
func Until(t time.Time) time.Time { return t.Truncate(time.Millisecond).Add(time.Millisecond) }

// ParseInstant reads a known_on instant: an RFC 3339 time, or a day (YYYY-MM-DD), which means the end of
// that day (UTC): "what the graph said on Tuesday" is what it said once Tuesday's writes were in.
func ParseInstant(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d.Add(24*time.Hour - time.Millisecond).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time: want RFC 3339 (2026-12-01T09:30:00Z) or a day (2026-12-01)", s)
}

// At returns the graph as it stood at instant t: every change written after t undone. A caller asking
// about the future gets the graph as it is now.
func (gs *Graphs) At(ctx context.Context, t time.Time) (*Graph, error) {
	const op = "history.At"
	until := Until(t)
	last, total, err := gs.store.ListChanges(ctx, graph.ChangeQuery{Until: until, Limit: 1})
	if err != nil {
		return nil, err
	}
	k := key{changes: total}
	if len(last) > 0 {
		k.through, k.version = last[0].Time, last[0].Version
	}
	e, build := gs.entry(k)
	if build {
		e.g, e.err = gs.rebuild(ctx, until, k)
		if e.err != nil {
			gs.forget(e)
		}
		close(e.ready)
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, &graph.Error{Op: op, Kind: graph.DeadlineExceeded, Message: "rebuilding the past graph took longer than the deadline", Err: ctx.Err()}
	}
	return e.g, e.err
}

// entry finds the graph named k, or makes room for it and reports that the caller builds it.
func (gs *Graphs) entry(k key) (*entry, bool) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	for i, e := range gs.recent {
		if e.key == k {
			gs.recent = slices.Insert(slices.Delete(gs.recent, i, i+1), 0, e)
			return e, false
		}
	}
	e := &entry{key: k, ready: make(chan struct{})}
	gs.recent = slices.Insert(gs.recent, 0, e)
	if len(gs.recent) > gs.keep {
		gs.recent = gs.recent[:gs.keep]
	}
	return e, true
}

func (gs *Graphs) forget(e *entry) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	gs.recent = slices.DeleteFunc(gs.recent, func(x *entry) bool { return x == e })
}

// rebuild reads the whole graph now, then the changes written from until on, and undoes them: each
// resource they touched takes the record it had before the first of them (none, when it was created).
// The graph is read first, so that every change it shows is among those read after it.
func (gs *Graphs) rebuild(ctx context.Context, until time.Time, k key) (*Graph, error) {
	const op = "history.rebuild"
	recs, err := gs.current(ctx)
	if err != nil {
		return nil, err
	}
	first, undone, err := gs.later(ctx, until)
	if err != nil {
		return nil, err
	}
	for res, c := range first {
		recs.undo(res, c.Before)
	}
	store := memstore.New()
	ds, err := dataset.Read([]dataset.File{{Name: "known-on.jsonl", R: bytes.NewReader(recs.file())}})
	if err != nil {
		return nil, &graph.Error{Op: op, Kind: graph.Internal, Message: "the audit trail rebuilds a graph that does not read back", Err: err}
	}
	if err := dataset.Load(ctx, store, ds, 5000, nil); err != nil {
		return nil, err
	}
	topo := memgraph.NewTopology(store)
	if err := topo.Sync(ctx); err != nil {
		return nil, err
	}
	svc := &service.Service{Store: store, Reads: topo.Reads(store), Budget: gs.live.Budget, Timeout: gs.live.Timeout}
	return &Graph{Service: svc, Through: k.through, Changes: k.changes, Undone: undone, Version: k.version}, nil
}

// later reads the changes to the graph written from until on, and returns each resource's first (whose
// before it had at until), and how many there were.
func (gs *Graphs) later(ctx context.Context, until time.Time) (map[string]graph.Change, int, error) {
	const op = "history.later"
	first := map[string]graph.Change{}
	undone := 0
	take := func(c graph.Change) error {
		if !graphResource(c.Resource) {
			return nil
		}
		if undone++; undone > MaxUndone {
			return &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: ReasonTooFarBack,
				Message: fmt.Sprintf("more than %d changes were written since then, more than a past graph is rebuilt through: export the graph and load it into another polgraph, or ask about a later instant", MaxUndone)}
		}
		if f, ok := first[c.Resource]; !ok || c.Time.Before(f.Time) {
			first[c.Resource] = c
		}
		return nil
	}
	err := gs.store.ScanChanges(ctx, until, func(page []graph.Change) error {
		for _, c := range page {
			if err := take(c); err != nil {
				return err
			}
		}
		return nil
	})
	return first, undone, err
}

// current reads every source, live entity and live relation (with its claims) as records, from the
// store's change feed (the Dgraph store reads claims from packs, ten times faster than an export's
// queries).
func (gs *Graphs) current(ctx context.Context) (records, error) {
	const op = "history.current"
	recs := records{}
	var bad error
	_, err := gs.store.Changes(ctx, 0, func(c graph.Changed) {
		for _, s := range c.Sources {
			recs[string(s.Name)] = graph.RecordJSON(graph.SourceRecord(s))
		}
		for _, e := range c.Entities {
			if e.Deleted.IsZero() {
				recs[string(e.Name)] = graph.RecordJSON(graph.EntityRecord(e))
			}
		}
		for i, l := range c.Links {
			if l.Deleted || bad != nil {
				continue
			}
			if !c.Evidence || i >= len(c.Headers) || c.Headers[i].Relation.Name != l.Name {
				bad = &graph.Error{Op: op, Kind: graph.Internal, Message: fmt.Sprintf("the change feed gave %s without its claims", l.Name)}
				continue
			}
			r := c.Headers[i].Relation
			if len(r.Claims) == 0 {
				continue
			}
			rec, err := graph.RelationRecord(r)
			if err != nil {
				bad = &graph.Error{Op: op, Kind: graph.Internal, Message: "a relation of the graph cannot be written as a record", Err: err}
				continue
			}
			recs[string(r.Name)] = graph.RecordJSON(rec)
		}
	})
	if err != nil {
		return nil, err
	}
	return recs, bad
}

// graphResource reports whether a change's resource is part of the graph (a source, an entity or a
// relation), not a key, a judgement or the review queue.
func graphResource(name string) bool {
	if strings.HasPrefix(name, "relations/") || strings.HasPrefix(name, "sources/") {
		return true
	}
	_, err := graph.ParseEntityName(name)
	return err == nil
}

// records are the graph's records by resource name, each as a dataset record (JSON).
type records map[string]string

// undo sets a resource's record to what it was before a change: "" (it did not exist) or a deleted
// resource's record leaves it out, as an export does.
func (r records) undo(name, rec string) {
	if rec == "" || tombstoned(rec) {
		delete(r, name)
		return
	}
	r[name] = rec
}

// tombstoned reports whether a record is of a deleted or merged resource, or a relation with no claim.
func tombstoned(rec string) bool {
	var f struct {
		Deleted    json.RawMessage `json:"deleted"`
		MergedInto string          `json:"merged_into"`
		Record     string          `json:"record"`
		Claims     []json.RawMessage
	}
	if json.Unmarshal([]byte(rec), &f) != nil {
		return true
	}
	return f.Deleted != nil || f.MergedInto != "" || f.Record == "relation" && len(f.Claims) == 0
}

// file writes the records as an exported dataset file: sources, entities, relations, each by name.
func (r records) file() []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"record":"dataset","format":"polgraph/v2","name":"known-on","exported":true}` + "\n")
	stage := func(name string) int {
		switch {
		case strings.HasPrefix(name, "sources/"):
			return 0
		case strings.HasPrefix(name, "relations/"):
			return 2
		}
		return 1
	}
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if sa, sb := stage(a), stage(b); sa != sb {
			return sa - sb
		}
		return strings.Compare(a, b)
	})
	for _, n := range names {
		buf.WriteString(r[n])
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}
