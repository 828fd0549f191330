// Package live serves the change feed: watchers, each following a graph.ChangeLog from a cursor through
// its filter into a bounded buffer that its stream drains. Watchers wake when the graph's version goes up
// (told by the process's own writes and reads, and by a poll, so writes through other replicas are seen
// too), and watchers at the same place share their reads of the log.
package live

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// Config is what a Hub follows and its bounds; zero values take the defaults.
type Config struct {
	Log graph.ChangeLog
	// Version reads the graph's version (polled while anyone watches).
	Version func(context.Context) (int64, error)
	// Links gives the links of entities, for neighbourhood filters (the graph held in memory, or the
	// store); nil refuses them.
	Links graph.LinkSource
	// Generation, when set, counts the graphs the store has seen replaced: a watcher of a replaced graph is
	// ended (graph.ReasonGraphReplaced).
	Generation func() int64
	// Poll is how often the version is read while anyone watches (default 500 ms).
	Poll time.Duration
	// Buffer is how many changes a watcher may have waiting to be sent (default 1024); StallAfter is how
	// long a full buffer may stay full before the watcher is ended with where to resume (default 10 s).
	Buffer     int
	StallAfter time.Duration
	// Page is how many changes one read of the log asks for (default 256).
	Page int
	// MaxWatchers bounds the watchers running at once (default 1000); more are refused.
	MaxWatchers int
	Logger      *slog.Logger
}

// Limits of filters.
const (
	MaxDepth        = 3     // hops of a neighbourhood filter
	MaxNeighborhood = 20000 // entities a neighbourhood filter holds at most (the nearest first)
	MaxEntities     = 100   // entities an entity filter names
)

// Hub runs the watchers of one change log.
type Hub struct {
	cfg      Config
	head     atomic.Int64 // the newest graph version known
	watchers atomic.Int64

	stopping chan struct{} // closed when Run ends: watchers end with where to resume
	stopOnce sync.Once

	mu     sync.Mutex
	wake   chan struct{} // closed when head goes up
	reads  map[graph.ChangeCursor]*read
	recent []*read // the last pages read, for watchers at the same place a little later
}

// read is one read of the log, shared by the watchers asking for the same place.
type read struct {
	at   graph.ChangeCursor
	gen  int64 // the store's generation when the read began: a page of a graph since replaced is not shared
	done chan struct{}
	page graph.ChangePage
	err  error
}

// New returns a Hub; Run polls for it.
func New(cfg Config) *Hub {
	if cfg.Poll <= 0 {
		cfg.Poll = 500 * time.Millisecond
	}
	if cfg.Buffer <= 0 {
		cfg.Buffer = 1024
	}
	if cfg.StallAfter <= 0 {
		cfg.StallAfter = 10 * time.Second
	}
	if cfg.Page <= 0 {
		cfg.Page = 256
	}
	if cfg.MaxWatchers <= 0 {
		cfg.MaxWatchers = 1000
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Hub{cfg: cfg, wake: make(chan struct{}), reads: map[graph.ChangeCursor]*read{}, stopping: make(chan struct{})}
}

// Notify tells the hub the graph is at version v (or later): watchers waiting for a newer version than
// they read wake.
func (h *Hub) Notify(v int64) {
	for {
		old := h.head.Load()
		if v <= old {
			return
		}
		if h.head.CompareAndSwap(old, v) {
			break
		}
	}
	h.mu.Lock()
	close(h.wake)
	h.wake = make(chan struct{})
	h.mu.Unlock()
}

// Watchers is how many watchers are running.
func (h *Hub) Watchers() int { return int(h.watchers.Load()) }

// Run polls the graph's version while anyone watches, until ctx is done; then it ends every watcher
// (Unavailable, with where to resume), so that a server stopping does not wait for them.
func (h *Hub) Run(ctx context.Context) {
	tick := time.NewTicker(h.cfg.Poll)
	defer tick.Stop()
	defer h.stopOnce.Do(func() { close(h.stopping) })
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if h.watchers.Load() == 0 || h.cfg.Version == nil {
			continue
		}
		vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		v, err := h.cfg.Version(vctx)
		cancel()
		if err != nil {
			h.cfg.Logger.DebugContext(ctx, "change feed: cannot read the graph's version", "err", err)
			continue
		}
		h.Notify(v)
	}
}

// Batch is what a watcher sends at once: changes that passed its filter, in commit order, and where to
// resume after them (Next, which also moves past changes the filter left out). Version is the graph's
// version the watcher has read up to.
type Batch struct {
	Changes []graph.Change
	Next    graph.ChangeCursor
	Version int64
}

// errCaughtUp ends a watcher that was to stop once caught up.
var errCaughtUp = errors.New("caught up")

// item is one entry of a watcher's buffer: a change, or (change nil) progress past changes left out.
type item struct {
	change  *graph.Change
	next    graph.ChangeCursor
	version int64
}

// Watch follows the log from after, sending what passes f to send, until ctx is done or send fails (its
// error is returned), or the watcher is ended: FailedPrecondition for a cursor older than the log holds
// (graph.ReasonVersionTooOld) or a graph replaced; ResourceExhausted (graph.ReasonWatcherTooSlow) when
// send took nothing for StallAfter while the buffer was full, with where to resume in its Metadata
// ("resume_token", "resume_version"); the log's own errors.
//
// After nil means from the graph's current version. With f.UntilCaughtUp, Watch returns nil once it has
// sent every change up to the graph's version when it began.
func (h *Hub) Watch(ctx context.Context, after *graph.ChangeCursor, f Filter, send func(Batch) error) error {
	if h.watchers.Add(1) > int64(h.cfg.MaxWatchers) {
		h.watchers.Add(-1)
		return &graph.Error{Op: "live.Watch", Kind: graph.ResourceExhausted, Reason: "TOO_MANY_WATCHERS", RetryAfter: 10 * time.Second,
			Message: "this server has " + strconv.Itoa(h.cfg.MaxWatchers) + " watchers already"}
	}
	defer h.watchers.Add(-1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if after == nil || f.UntilCaughtUp {
		v, err := h.cfg.Version(ctx)
		if err != nil {
			return err
		}
		h.Notify(v)
		if after == nil {
			after = &graph.ChangeCursor{Version: v}
		}
		f.stopAt = v
	}
	if f.Center != "" && h.cfg.Links == nil {
		return &graph.Error{Op: "live.Watch", Kind: graph.FailedPrecondition, Message: "this server cannot filter by neighbourhood"}
	}
	buf := make(chan item, h.cfg.Buffer)
	ended := make(chan error, 1)
	go func() { ended <- h.follow(ctx, *after, f, buf) }()
	const maxBatch = 256
	sent := *after // where the last batch sent ends
	send = func(send func(Batch) error) func(Batch) error {
		return func(b Batch) error {
			if err := send(b); err != nil {
				return err
			}
			sent = b.Next
			return nil
		}
	}(send)
	for {
		var first item
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-h.stopping:
			return &graph.Error{Op: "live.Watch", Kind: graph.Unavailable, Reason: "SERVER_STOPPING",
				Metadata: map[string]string{"resume_token": sent.Token(), "resume_version": strconv.FormatInt(sent.Version, 10)},
				Message:  "this server is stopping: watch again, through another, from resume_token " + sent.Token()}
		case first = <-buf:
		case err := <-ended:
			// Whatever was buffered before the end goes out first: the resume point counts it as sent.
			if serr := drain(buf, maxBatch, send); serr != nil {
				return serr
			}
			if err == errCaughtUp {
				return nil
			}
			return err
		}
		b := Batch{}
		add := func(it item) {
			if it.change != nil {
				b.Changes = append(b.Changes, *it.change)
			}
			b.Next, b.Version = it.next, it.version
		}
		add(first)
	more:
		for len(b.Changes) < maxBatch {
			select {
			case it := <-buf:
				add(it)
			default:
				break more
			}
		}
		if err := send(b); err != nil {
			return err
		}
	}
}

// drain sends what buf holds, in batches.
func drain(buf chan item, maxBatch int, send func(Batch) error) error {
	for {
		b := Batch{}
		for len(b.Changes) < maxBatch {
			select {
			case it := <-buf:
				if it.change != nil {
					b.Changes = append(b.Changes, *it.change)
				}
				b.Next, b.Version = it.next, it.version
				continue
			default:
			}
			break
		}
		if b.Next == (graph.ChangeCursor{}) && len(b.Changes) == 0 {
			return nil
		}
		if err := send(b); err != nil {
			return err
		}
		if len(buf) == 0 {
			return nil
		}
	}
}

// follow reads the log from at into buf until ctx is done or the watcher is ended, and returns why.
func (h *Hub) follow(ctx context.Context, at graph.ChangeCursor, f Filter, buf chan<- item) error {
	gen := h.generation()
	sent := at // the place after the last item put in buf
	stall := time.NewTimer(h.cfg.StallAfter)
	stall.Stop()
	put := func(it item) error {
		select {
		case buf <- it:
			sent = it.next
			return nil
		default:
		}
		stall.Reset(h.cfg.StallAfter)
		defer stall.Stop()
		select {
		case buf <- it:
			sent = it.next
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-stall.C:
			return &graph.Error{Op: "live.Watch", Kind: graph.ResourceExhausted, Reason: graph.ReasonWatcherTooSlow,
				Metadata: map[string]string{"resume_token": sent.Token(), "resume_version": strconv.FormatInt(sent.Version, 10)},
				Message: "the watcher took nothing for " + h.cfg.StallAfter.String() + " while " + strconv.Itoa(h.cfg.Buffer) +
					" changes waited for it; resume with resume_token " + sent.Token()}
		}
	}
	var hood *neighbourhood
	if f.Center != "" {
		hood = &neighbourhood{center: f.Center, depth: f.Depth, links: h.cfg.Links}
	}
	for {
		h.mu.Lock()
		wake := h.wake
		h.mu.Unlock()
		page, err := h.read(ctx, at)
		if err != nil {
			return err
		}
		if h.generation() != gen {
			return &graph.Error{Op: "live.Watch", Kind: graph.FailedPrecondition, Reason: graph.ReasonGraphReplaced,
				Message: "the graph was replaced (dropped and written again): read it whole and watch from its version"}
		}
		h.Notify(page.Version)
		if hood != nil && len(page.Changes) > 0 {
			if err := hood.refresh(ctx); err != nil {
				return err
			}
		}
		for i := range page.Changes {
			c := &page.Changes[i]
			next := graph.After(*c)
			if i == len(page.Changes)-1 {
				next = page.Next
			}
			if !f.match(*c, hood) {
				continue
			}
			if err := put(item{change: c, next: next, version: page.Version}); err != nil {
				return err
			}
		}
		if page.Next != sent {
			// Progress past changes the filter left out (dropped when the buffer is full: later progress
			// says as much).
			select {
			case buf <- item{next: page.Next, version: page.Version}:
				sent = page.Next
			default:
			}
		}
		if f.UntilCaughtUp && page.Next.Version >= f.stopAt {
			return errCaughtUp
		}
		if page.Next.Version >= page.Version {
			// Caught up: wait for a newer version.
			at = page.Next
			for h.head.Load() <= page.Version {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-wake:
				}
				h.mu.Lock()
				wake = h.wake
				h.mu.Unlock()
			}
			continue
		}
		at = page.Next
	}
}

// read reads the page of the log after at, sharing the read with every watcher asking for the same
// place meanwhile, and with those that ask a little later (the last pages read are kept).
func (h *Hub) read(ctx context.Context, at graph.ChangeCursor) (graph.ChangePage, error) {
	gen := h.generation()
	h.mu.Lock()
	r, ok := h.reads[at]
	if ok && r.gen != gen {
		ok = false // a read of a graph since replaced: this one reads the new graph
	}
	if !ok {
		for _, p := range h.recent {
			if p.at == at && p.gen == gen && len(p.page.Changes) > 0 && p.err == nil {
				h.mu.Unlock()
				return p.page, nil
			}
		}
		r = &read{at: at, gen: gen, done: make(chan struct{})}
		h.reads[at] = r
		go h.run(r)
	}
	h.mu.Unlock()
	select {
	case <-r.done:
		return r.page, r.err
	case <-ctx.Done():
		return graph.ChangePage{}, ctx.Err()
	}
}

// generation is the store's generation (Config.Generation), or 0.
func (h *Hub) generation() int64 {
	if h.cfg.Generation == nil {
		return 0
	}
	return h.cfg.Generation()
}

// recentPages is how many pages read are kept for watchers that ask for them a little later.
const recentPages = 8

func (h *Hub) run(r *read) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	r.page, r.err = h.cfg.Log.ReadChangeLog(ctx, r.at, h.cfg.Page)
	cancel()
	h.mu.Lock()
	if h.reads[r.at] == r {
		delete(h.reads, r.at)
	}
	if r.err == nil && len(r.page.Changes) > 0 {
		h.recent = append(h.recent, r)
		if len(h.recent) > recentPages {
			h.recent = h.recent[1:]
		}
	}
	h.mu.Unlock()
	close(r.done)
}

// neighbourhood is the entities within depth hops of center, as the graph stands when it is refreshed.
type neighbourhood struct {
	center graph.EntityName
	depth  int
	links  graph.LinkSource
	in     map[graph.EntityName]bool
}

func (n *neighbourhood) refresh(ctx context.Context) error {
	in := map[graph.EntityName]bool{n.center: true}
	frontier := []graph.EntityName{n.center}
	for d := 0; d < n.depth && len(frontier) > 0 && len(in) < MaxNeighborhood; d++ {
		links, err := n.links.Links(ctx, frontier)
		if err != nil {
			var ge *graph.Error
			if errors.As(err, &ge) {
				return err
			}
			return &graph.Error{Op: "live.Watch", Kind: graph.Internal, Message: "cannot read the neighbourhood", Err: err}
		}
		var next []graph.EntityName
		for _, e := range frontier {
			for _, l := range links[e] {
				if l.Deleted {
					continue
				}
				for _, o := range []graph.EntityName{l.From, l.To} {
					if !in[o] && len(in) < MaxNeighborhood {
						in[o] = true
						next = append(next, o)
					}
				}
			}
		}
		frontier = next
	}
	n.in = in
	return nil
}

// LinksFunc is a function that gives links: a graph.LinkSource.
type LinksFunc func(ctx context.Context, entities []graph.EntityName) (map[graph.EntityName][]graph.Link, error)

// Links implements graph.LinkSource.
func (f LinksFunc) Links(ctx context.Context, entities []graph.EntityName) (map[graph.EntityName][]graph.Link, error) {
	return f(ctx, entities)
}
