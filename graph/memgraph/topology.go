// Package memgraph holds the graph in memory: a Topology follows a graph.ChangeFeed and publishes
// immutable snapshots of entities, links, claims and sources, with the indexes that name searches and
// walks over hubs need. Its views (Topology.Reads) answer a service's reads without round trips.
package memgraph

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/walk"
)

// Topology is the graph's entities and links held in memory, so that path and neighbourhood searches
// read them without a round trip per level, and name searches and entity reads need none at all. Before
// every read it asks the feed for the graph's version and, when the graph has changed, reads what changed
// since the version it holds: a search never misses a write committed before it started. When the feed
// gives them, it also holds every relation's claims and every source, so that answers read their evidence
// from memory too.
//
// The links are published as immutable snapshots (snapshot.go): a search reads the one it started with
// and holds no lock, so a sync never waits for searches and no search waits for a sync.
type Topology struct {
	feed  graph.ChangeFeed
	ready atomic.Bool

	syncMu sync.Mutex // one sync at a time

	bgMu    sync.Mutex
	bg      chan struct{} // closed when the running background sync ends; nil when none runs
	feedAt  atomic.Int64  // the newest version the feed reported
	lastErr error         // how the last background sync ended

	snap atomic.Pointer[topoSnapshot] // the published snapshot

	versions versionCalls // the feed's version, asked once for searches that start together

	// headers holds relation headers read from the store for answers (RelationName → cachedHeader),
	// those of relations the feed gave without one (the snapshot keeps the headers it gave: see
	// linkDetail); each is read again only after its relation changed.
	headers sync.Map
}

// cachedHeader is a relation header read from the store while snapshot epoch was the published one: it
// holds every change that snapshot holds, and serves until a later snapshot changes the relation.
type cachedHeader struct {
	h     graph.RelationHeader
	epoch int64
}

var _ graph.LinkSource = (*Topology)(nil)

// NewTopology returns an empty topology over feed; Sync fills it.
func NewTopology(feed graph.ChangeFeed) *Topology {
	t := &Topology{feed: feed}
	t.snap.Store(&topoSnapshot{})
	return t
}

// Ready reports whether the topology has been filled once.
func (t *Topology) Ready() bool { return t.ready.Load() }

// Size returns how many entities and relations the topology holds, and its version.
func (t *Topology) Size() (entities, relations int, version int64) {
	s := t.snap.Load()
	return s.ents.len(), s.rels.len(), s.version
}

// Sync brings the topology up to the graph's current version. It builds the next snapshot beside the
// published one and publishes it whole, so a sync that fails publishes nothing.
//
// When the feed's graph was replaced (Generations), it fills again from nothing: nothing of the graph it
// held stays.
func (t *Topology) Sync(ctx context.Context) error {
	v, err := t.feed.Version(ctx)
	if err != nil {
		return err
	}
	t.sawFeed(v)
	if cur := t.snap.Load(); v <= cur.version && cur.gen == t.generation() && t.ready.Load() {
		return nil
	}
	t.syncMu.Lock()
	defer t.syncMu.Unlock()
	cur := t.snap.Load()
	gen := t.generation() // after the version: a replacement noticed while reading it is seen here
	if v <= cur.version && cur.gen == gen && t.ready.Load() {
		return nil // another sync got there first
	}
	from := cur
	if cur.gen != gen {
		from = t.replaced(cur)
	}
	b := newSnapshotBuilder(from)
	newVersion, err := t.feed.Changes(ctx, from.version, b.apply)
	if now := t.generation(); err == nil && now != gen && from.version > 0 {
		// Replaced while the catch-up read: what changed since a version of the old graph says nothing
		// of the new one.
		gen, from = now, t.replaced(cur)
		b = newSnapshotBuilder(from)
		newVersion, err = t.feed.Changes(ctx, 0, b.apply)
	}
	if err != nil {
		return err
	}
	next := b.finish(newVersion)
	next.gen = gen
	t.snap.Store(next)
	if from != cur {
		t.feedAt.Store(newVersion) // the old graph's versions say nothing of the new one's, which may be lower
	} else {
		t.sawFeed(newVersion)
	}
	t.ready.Store(true)
	return nil
}

// generation is the feed's generation (Generations), 0 for a feed whose graph is never replaced.
func (t *Topology) generation() int64 {
	if g, ok := t.feed.(graph.Generations); ok {
		return g.Generation()
	}
	return 0
}

// replaced starts a fill from nothing after the feed's graph was replaced: an empty snapshot that follows
// cur's epoch (so that no header cached in cur's time serves the new graph's relation of the same name),
// and the header cache emptied. Under syncMu.
func (t *Topology) replaced(cur *topoSnapshot) *topoSnapshot {
	t.headers.Clear()
	return &topoSnapshot{epoch: cur.epoch}
}

// Links implements LinkSource, after a Sync.
func (t *Topology) Links(ctx context.Context, entities []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
	if err := t.Sync(ctx); err != nil {
		return nil, err
	}
	return t.snap.Load().read(entities), nil
}

// Synced returns a LinkSource that reads the topology as it holds the graph's current version, without
// asking the feed again: one search, one round trip for the version, however many levels it reads.
//
// Catching up runs in the background, never within the caller's deadline: when the topology is behind,
// Synced starts a catch-up and waits for it at most a quarter of a second; if it is still behind then (a large load
// was just published), it returns an error of kind Unavailable with reason GRAPH_CATCHING_UP, and the
// caller reads the graph from the store meanwhile. Either way no search reads a graph older than the one
// committed when it started.
func (t *Topology) Synced(ctx context.Context) (graph.LinkSource, error) {
	r, err := t.synced(ctx)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (t *Topology) synced(ctx context.Context) (topologyReader, error) {
	v, err := t.searchVersion(ctx)
	if err != nil {
		return topologyReader{}, err
	}
	t.sawFeed(v)
	behind := func(err error) error {
		return &graph.Error{Op: "memgraph.Topology.Synced", Kind: graph.Unavailable, Reason: graph.ReasonCatchingUp,
			Message: fmt.Sprintf("the graph held in memory is catching up with version %d", v), Err: err}
	}
	wait := time.NewTimer(catchUpWait)
	defer wait.Stop()
	for {
		if s := t.snap.Load(); s.version >= v && s.gen == t.generation() && t.ready.Load() {
			return topologyReader{s, t}, nil
		}
		select {
		case <-t.background():
			t.bgMu.Lock()
			err := t.lastErr
			t.bgMu.Unlock()
			if err != nil {
				return topologyReader{}, behind(err) // the catch-up failed: no point starting another at once
			}
		case <-ctx.Done():
			return topologyReader{}, outOfTime(ctx.Err())
		case <-wait.C:
			return topologyReader{}, behind(nil)
		}
	}
}

// versionCalls shares the feed's version between searches: a search waits for a call of the feed that
// starts after it did, so it still sees every write committed before it started, but many searches at
// once make one call at a time instead of one each (at 64 clients, Dgraph answered 64 version queries at
// once for every round of answers). A search that finds no call running starts one at once; one that
// finds a call running joins the next, which starts when the running one ends.
type versionCalls struct {
	mu            sync.Mutex
	running, next *versionCall
}

type versionCall struct {
	done chan struct{}
	v    int64
	err  error
}

// versionCallTimeout bounds one shared call of the feed; each search waits for it within its own deadline.
const versionCallTimeout = 10 * time.Second

// VersionAhead starts reading the feed's version, shared as a search's read is, for a call that must wait
// before it runs (for a turn: graph/rpc.Limiter), and returns ctx carrying that read. When the call's
// search asks Synced, it takes the version from it: a read that began after the call arrived, so the
// search still sees every write committed before the call, and the calls that wait together share their
// reads instead of each making one when its turn comes, which is what a bound on the calls in flight
// otherwise costs (docs/bench-changes.md, items 49 and 57).
func (t *Topology) VersionAhead(ctx context.Context) context.Context {
	return context.WithValue(ctx, versionAheadKey{}, versionAhead{t: t, c: t.versions.join(ctx, t.feed)})
}

type versionAheadKey struct{}

// searchVersion is the feed's version for a search: the one read while its call waited for a turn
// (VersionAhead), or else, or when that read failed, one read shared with the searches starting now.
func (t *Topology) searchVersion(ctx context.Context) (int64, error) {
	if a, ok := ctx.Value(versionAheadKey{}).(versionAhead); ok && a.t == t {
		if v, err := a.c.wait(ctx); err == nil || ctx.Err() != nil {
			return v, err
		}
	}
	return t.versions.join(ctx, t.feed).wait(ctx)
}

type versionAhead struct {
	t *Topology
	c *versionCall
}

// join returns the call of the feed a search waits for: the running one when none runs yet (started
// now), else the next, which starts when the running one ends.
func (vc *versionCalls) join(ctx context.Context, feed graph.ChangeFeed) *versionCall {
	vc.mu.Lock()
	var c *versionCall
	switch {
	case vc.running == nil:
		c = &versionCall{done: make(chan struct{})}
		vc.running = c
		go vc.run(context.WithoutCancel(ctx), feed, c)
	case vc.next != nil:
		c = vc.next
	default:
		c = &versionCall{done: make(chan struct{})}
		vc.next = c
	}
	vc.mu.Unlock()
	return c
}

// wait waits for call c within ctx.
func (c *versionCall) wait(ctx context.Context) (int64, error) {
	select {
	case <-c.done:
		return c.v, c.err
	case <-ctx.Done():
		return 0, outOfTime(ctx.Err())
	}
}

// outOfTime is the error of a search whose context ended while it waited for the graph's version or for
// the topology to catch up.
func outOfTime(err error) error {
	return &graph.Error{Op: "memgraph.Topology.Synced", Kind: graph.DeadlineExceeded, Message: "the query ran out of time while the graph in memory caught up", Err: err}
}

// run makes call c, then the next one while searches wait for it.
func (vc *versionCalls) run(ctx context.Context, feed graph.ChangeFeed, c *versionCall) {
	for c != nil {
		cctx, cancel := context.WithTimeout(ctx, versionCallTimeout)
		c.v, c.err = feed.Version(cctx)
		cancel()
		close(c.done)
		vc.mu.Lock()
		c, vc.running, vc.next = vc.next, vc.next, nil
		vc.mu.Unlock()
	}
}

// catchUpWait is how long a search waits for the topology to catch up before it reads the graph from the
// store instead.
const catchUpWait = 250 * time.Millisecond

// catchUpTimeout bounds one background catch-up (a fill of a million relations takes minutes).
const catchUpTimeout = 30 * time.Minute

// FeedVersion returns the newest graph version the feed reported (at the last sync or search): with
// Version, how far behind the topology is, without asking the feed.
func (t *Topology) FeedVersion() int64 { return t.feedAt.Load() }

func (t *Topology) sawFeed(v int64) {
	for {
		old := t.feedAt.Load()
		if v <= old || t.feedAt.CompareAndSwap(old, v) {
			return
		}
	}
}

// Version returns the graph version the topology holds.
func (t *Topology) Version() int64 { return t.snap.Load().version }

// background starts a sync with a context of its own, unless one runs, and returns a channel closed when
// the running one ends.
func (t *Topology) background() <-chan struct{} {
	t.bgMu.Lock()
	defer t.bgMu.Unlock()
	if t.bg != nil {
		return t.bg
	}
	done := make(chan struct{})
	t.bg = done
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), catchUpTimeout)
		err := t.Sync(ctx)
		cancel()
		t.bgMu.Lock()
		t.bg, t.lastErr = nil, err
		t.bgMu.Unlock()
		close(done)
	}()
	return done
}

// Follow keeps the topology close to the graph until ctx is done: it asks the feed for the version every
// interval and catches up in the background when the graph has changed, so that searches seldom wait.
// OnSync, when set, is told each outcome.
func (t *Topology) Follow(ctx context.Context, interval time.Duration, onSync func(error)) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		select {
		case <-ctx.Done():
			return
		case <-t.background():
		}
		if onSync != nil {
			t.bgMu.Lock()
			err := t.lastErr
			t.bgMu.Unlock()
			onSync(err)
		}
	}
}

// Reads returns a service's read path over this topology: each answer reads one snapshot in place, and
// what the snapshot lacks (written during a bulk load, it is in store before it is in memory) from store.
// Before the topology is filled, and while it catches up with a large write (Synced), answers read store.
func (t *Topology) Reads(store graph.Store) graph.Reads { return memReads{t, store} }

type memReads struct {
	t     *Topology
	store graph.Store
}

func (m memReads) Open(ctx context.Context) (graph.View, error) {
	if !m.t.Ready() {
		return m.store, nil
	}
	r, err := m.t.synced(ctx)
	var ge *graph.Error
	if errors.As(err, &ge) && ge.Reason == graph.ReasonCatchingUp {
		return m.store, nil
	}
	if err != nil {
		return nil, err
	}
	return memView{r, m.store}, nil
}

// memView is a View of one snapshot, reading from the store what the snapshot does not hold.
type memView struct {
	topologyReader
	store graph.Store
}

func (v memView) GetEntity(ctx context.Context, n graph.EntityName) (graph.Entity, error) {
	if e, ok := v.s.entities([]graph.EntityName{n})[n]; ok {
		return e, nil
	}
	return v.store.GetEntity(ctx, n)
}

func (v memView) GetEntities(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]graph.Entity, error) {
	out := v.s.entities(names)
	_, err := readMissing(ctx, out, names, v.store.GetEntities)
	return out, err
}

func (v memView) FindByName(ctx context.Context, text string) ([]graph.Entity, error) {
	if found := v.s.byName(text); len(found) > 0 {
		return found, nil
	}
	return v.store.FindByName(ctx, text)
}

func (v memView) Search(_ context.Context, q graph.SearchQuery) ([]graph.SearchResult, error) {
	return v.s.search(q), nil
}

// GetRelations reads relations whole, their claims included, from the snapshot when it holds them.
func (v memView) GetRelations(ctx context.Context, names []graph.RelationName) (map[graph.RelationName]graph.Relation, error) {
	out := v.relations(names)
	_, err := readMissing(ctx, out, names, v.store.GetRelations)
	return out, err
}

// RelationHeaders reads relation headers through the topology's cache of them: a header read once serves
// every later answer until its relation changes.
func (v memView) RelationHeaders(ctx context.Context, names []graph.RelationName) (map[graph.RelationName]graph.RelationHeader, error) {
	out := v.cachedHeaders(names)
	more, err := readMissing(ctx, out, names, v.store.RelationHeaders)
	v.keepHeaders(more)
	return out, err
}

func (v memView) Degrees(_ context.Context, entities []graph.EntityName) (map[graph.EntityName]int, error) {
	return v.s.degrees(entities), nil
}

// readMissing reads with read the names that out lacks, adds them to out, and returns what it read.
func readMissing[K comparable, V any](ctx context.Context, out map[K]V, names []K, read func(context.Context, []K) (map[K]V, error)) (map[K]V, error) {
	var missing []K
	for _, n := range names {
		if _, ok := out[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	more, err := read(ctx, missing)
	if err != nil {
		return nil, err
	}
	for n, v := range more {
		out[n] = v
	}
	return more, nil
}

// topologyReader reads one snapshot: every read of one search sees the same graph.
type topologyReader struct {
	s *topoSnapshot
	t *Topology
}

// cachedHeaders returns the headers of names that the snapshot holds from the feed, or that the
// topology holds from the store and the snapshot's relations have not changed since.
func (r topologyReader) cachedHeaders(names []graph.RelationName) map[graph.RelationName]graph.RelationHeader {
	out := make(map[graph.RelationName]graph.RelationHeader, len(names))
	for _, n := range names {
		i, ok := r.s.rels.lookup(n)
		if !ok {
			continue
		}
		if h, ok := r.s.header(i); ok {
			out[n] = h
		} else if c, ok := r.t.headers.Load(n); ok && c.(cachedHeader).epoch >= r.s.changed.get(i) {
			out[n] = c.(cachedHeader).h
		}
	}
	return out
}

// keepHeaders holds headers just read from the store, as read under the reader's snapshot.
func (r topologyReader) keepHeaders(hs map[graph.RelationName]graph.RelationHeader) {
	for n, h := range hs {
		if _, ok := r.s.rels.lookup(n); ok {
			r.t.headers.Store(n, cachedHeader{h, r.s.epoch})
		}
	}
}

func (r topologyReader) Links(_ context.Context, entities []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
	return r.s.read(entities), nil
}

// Degrees returns how many relations each entity takes part in, as the snapshot holds them.
func (r topologyReader) Degrees(entities []graph.EntityName) map[graph.EntityName]int {
	return r.s.degrees(entities)
}

// Degrees returns how many relations each entity takes part in, as the topology holds them.
func (t *Topology) Degrees(entities []graph.EntityName) map[graph.EntityName]int {
	return t.snap.Load().degrees(entities)
}

// View implements Viewer: a search reads the published snapshot in place; there is nothing to release.
func (t *Topology) View(ctx context.Context) (walk.Graph, func(), error) {
	if err := t.Sync(ctx); err != nil {
		return nil, nil, err
	}
	return snapshotGraph{t.snap.Load()}, func() {}, nil
}

func (r topologyReader) View(context.Context) (walk.Graph, func(), error) {
	return snapshotGraph{r.s}, func() {}, nil
}

var (
	_ walk.Viewer  = (*Topology)(nil)
	_ walk.Viewer  = topologyReader{}
	_ walk.Sized   = snapshotGraph{}
	_ walk.Hubs    = snapshotGraph{}
	_ walk.Headers = snapshotGraph{}
)

var (
	_ graph.Reads = memReads{}
	_ graph.View  = memView{}
	_ graph.View  = graph.Store(nil)
)
