// Package snapfile keeps the graph held in memory in a local file, so that a restarted polgraph reads it
// back and asks the store only for what changed since, instead of reading the whole graph again.
//
// A Feed stands between a memgraph.Topology and the store's change feed. It writes down every batch the
// store gives, the fill's and then each catch-up's, each followed by the version it brings the graph to.
// A fill of a later process replays the file instead of the store's whole graph, then catches up from the
// file's version through the store's own feed: the same catch-up that keeps a running topology in step,
// so the graph served is as fresh as one filled from the store. A file is read back only for the graph it
// was written from (Store.GraphID), by the code that wrote it, and never when it is ahead of the store.
//
// A store that keeps a shared copy (Shared) gets the file once a fill is over, and a fill whose own file
// cannot be read back fetches that copy, checks it as it would its own file, and uses it as its own.
package snapfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/polgraph/polgraph/graph"
)

// Store is the feed a file is kept from.
type Store interface {
	graph.ChangeFeed
	// GraphID names the graph: the same for as long as it lives, another for any other graph (a fresh
	// Dgraph, or one emptied and loaded again). "" for a graph with nothing in it yet.
	GraphID(ctx context.Context) (string, error)
	// Bulk says which N-Quads load the graph came from ("" for none; see WriteBulk) and how many
	// sources, entities, relations and claims it holds, deleted and retracted ones included.
	Bulk(ctx context.Context) (id string, counts graph.GraphCounts, err error)
}

// Feed is a graph.ChangeFeed over a Store that keeps what the store gives in a file.
type Feed struct {
	store Store
	path  string
	log   *slog.Logger

	mu   sync.Mutex
	lock *os.File // path+".lock", held (flock) while this Feed uses the file
	out  *logFile // the log being written; nil when none is
	last Fill
	id   string // the graph's id, as the last fill found it
	// sharedAt is where the file ended when it was last shared or fetched (0: never)
	sharedAt int64

	sharing   chan struct{} // closed when the share started by the last fill is over; nil when none was
	shareErr  error         // how it went
	lastShare Share
	// retryShareAt, when set, is when a share that failed, or that waited for an earlier one, is made
	// again (by the first catch-up after it).
	retryShareAt time.Time
}

// shareRetryAfter is how long after a failed share a running polgraph tries again.
const shareRetryAfter = time.Minute

// Shared is a Store that keeps a copy of a snapshot file for fills with no file of their own (a new
// replica, a container without a volume): dgraph.Store keeps it as a few large values, which read back in
// a fraction of the time a key per node takes. A Feed that fills from the store, or reads back a file
// newer than the copy, shares its file; a Feed whose own file cannot be read back fetches the copy
// instead, when it is this graph's and this code's, and then uses it as its own file.
type Shared interface {
	// SharedSnapshot says which copy the store holds (its label, "" for none) and its size.
	SharedSnapshot(ctx context.Context) (label string, size int64, err error)
	// ReadSharedSnapshot writes the copy labelled label to w; it fails when the store holds another.
	ReadSharedSnapshot(ctx context.Context, label string, w io.Writer) error
	// ShareSnapshot replaces the store's copy with what r gives, labelled label, once it is whole.
	ShareSnapshot(ctx context.Context, label string, r io.Reader) error
}

var _ graph.ChangeFeed = (*Feed)(nil)

// Fill says how the last fill went.
type Fill struct {
	// FromFile is set when the fill replayed the file; Version is then the version it held, and
	// Bytes its size.
	FromFile bool
	Version  int64
	Bytes    int64
	// Replay is how long reading the file back took.
	Replay time.Duration
	// Why says why the file was not read back, when it was not.
	Why string
	// FromShared is set when the file read back was first fetched from the store's shared copy (Shared),
	// because the local one could not be read back (Why); Fetch is how long that took, SharedBytes its
	// size. SharedWhy says why the copy was not fetched, when the local file could not be read back and it
	// was not.
	FromShared  bool
	Fetch       time.Duration
	SharedBytes int64
	SharedWhy   string
}

// New returns a Feed keeping store's changes in the file at path.
func New(store Store, path string, log *slog.Logger) *Feed {
	return &Feed{store: store, path: path, log: log}
}

// Version implements graph.ChangeFeed.
func (f *Feed) Version(ctx context.Context) (int64, error) { return f.store.Version(ctx) }

// Generation implements graph.Generations with the store's (0 for a store whose graph is never
// replaced). A topology that fills again after its graph was replaced asks Changes from 0, which starts
// the file again: the new graph has another identity.
func (f *Feed) Generation() int64 {
	if g, ok := f.store.(graph.Generations); ok {
		return g.Generation()
	}
	return 0
}

// LastFill says how the last fill (Changes from version 0) went.
func (f *Feed) LastFill() Fill {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// Changes implements graph.ChangeFeed. From version 0 it replays the file when the file can be used
// (then gives what changed since the file's version, from the store); else it gives the store's whole
// graph and starts a new file. After that, each call from the version the file holds adds to it.
func (f *Feed) Changes(ctx context.Context, since int64, each func(graph.Changed)) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fill := since == 0
	if fill {
		f.closeOut()
		f.sharedAt, f.retryShareAt = 0, time.Time{}
		v, out, err := f.begin(ctx, each)
		if err != nil {
			return 0, err
		}
		since, f.out = v, out
	}
	out := f.out
	if out != nil && out.version != since {
		out = nil // a sync from another version than the file's: the file stays as it is
	}
	v, err := f.store.Changes(ctx, since, func(c graph.Changed) {
		if out != nil {
			if err := out.rw.changes(c); err != nil {
				f.fail(out, err)
				out = nil
			}
		}
		each(c)
	})
	if err != nil {
		return 0, err // what was written since the last mark is never read back
	}
	if out != nil {
		switch {
		case v < since:
			f.fail(out, fmt.Errorf("the graph went back from version %d to %d", since, v))
		case v > since:
			if err := out.mark(since, v); err != nil {
				f.fail(out, err)
			} else if out.marked().outgrown() {
				// Not added to any more: the next start fills from the store and writes a new one.
				f.log.InfoContext(ctx, "the graph's snapshot file is no longer added to: its catch-ups outgrew its fill", "file", f.path)
				f.closeOut()
			}
		}
	}
	switch {
	case fill && f.last.FromShared:
		if f.out != nil {
			f.sharedAt = f.out.marked().end // the copy is this file as fetched
		}
	case fill:
		f.share(ctx)
	case f.out != nil && !f.retryShareAt.IsZero():
		// The last share failed (the store was busy or down), or waited for an earlier one: made a while
		// later, however little the file grew since, so that the store's copy does not stay older than it
		// need be.
		if time.Now().After(f.retryShareAt) {
			f.share(ctx)
		}
	case f.out != nil && f.sharedAt > 0:
		// A running polgraph shares again once its catch-ups since the last share grew past a quarter of
		// its fill, so that a new replica's catch-up from the copy stays short.
		if m := f.out.marked(); m.end-f.sharedAt > m.fillEnd/4 {
			f.share(ctx)
		}
	}
	return v, nil
}

// Close releases the file, once a share the last fill started is over.
func (f *Feed) Close() error {
	f.WaitShared()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closeOut()
	if f.lock != nil {
		err := f.lock.Close()
		f.lock = nil
		return err
	}
	return nil
}

// begin starts a fill: it replays the file when it can, and returns the version reached and the log to
// go on with (nil when the file cannot be kept). It fails only when a replay failed part way, after each
// had seen some of the file; the file is removed, so that the next fill reads the store.
func (f *Feed) begin(ctx context.Context, each func(graph.Changed)) (int64, *logFile, error) {
	f.last = Fill{}
	if err := f.takeLock(); err != nil {
		f.last.Why = err.Error()
		f.log.WarnContext(ctx, "the graph's snapshot file is not used", "file", f.path, "err", err)
		return 0, nil, nil
	}
	id, err := f.store.GraphID(ctx)
	if err != nil || id == "" {
		f.last.Why = "the graph has no identity yet"
		if err != nil {
			f.last.Why = err.Error()
			f.log.WarnContext(ctx, "the graph's snapshot file is not used: cannot tell which graph this is", "file", f.path, "err", err)
		}
		return 0, nil, nil
	}
	f.id = id
	want := header{Format: formatVersion, Shape: changedShape, Build: thisBuild, GraphID: id}
	s, why := f.survey(ctx, want)
	if why != "" {
		if fetched, sharedWhy := f.fetchShared(ctx, want); sharedWhy != "" {
			f.last.SharedWhy = sharedWhy
		} else if s2, why2 := f.survey(ctx, want); why2 != "" {
			f.last.SharedWhy = "the copy fetched cannot be read back: " + why2
			f.log.WarnContext(ctx, "the shared snapshot fetched from the store cannot be read back; filling from the store", "file", f.path, "why", why2)
			f.remove()
		} else {
			f.last.FromShared, f.last.Fetch, f.last.SharedBytes, f.last.Why = true, fetched.took, fetched.bytes, why
			s, why = s2, ""
		}
	}
	if why == "" {
		start := time.Now()
		if err := replay(ctx, f.path, s.end, each); err != nil {
			f.remove()
			return 0, nil, fmt.Errorf("snapfile: reading %s back: %w", f.path, err)
		}
		out, err := appendTo(f.path, s.end, s.fillEnd, s.version)
		if err == nil && s.bulk {
			// Written with the N-Quads the graph was loaded from: from now on it is this graph's, whatever is
			// written to it next.
			if err = out.adopt(id); err != nil {
				out.close()
				out = nil
			}
		}
		if err != nil {
			f.log.WarnContext(ctx, "the graph's snapshot file cannot be added to; it stays as read", "file", f.path, "err", err)
		}
		f.last.FromFile, f.last.Version, f.last.Bytes, f.last.Replay = true, s.version, s.end, time.Since(start)
		f.log.InfoContext(ctx, "graph read back from its snapshot file", "file", f.path, "version", s.version,
			"bytes", s.end, "took", f.last.Replay.Round(time.Millisecond), "fetched_from_store", f.last.FromShared)
		return s.version, out, nil
	}
	f.last.Why = why
	if !errors.Is(s.err, fs.ErrNotExist) {
		f.log.InfoContext(ctx, "the graph's snapshot file is not read back; filling from the store", "file", f.path, "why", why)
	}
	out, err := create(f.path, want)
	if err != nil {
		f.log.WarnContext(ctx, "cannot write the graph's snapshot file", "file", f.path, "err", err)
		return 0, nil, nil
	}
	return 0, out, nil
}

// survey is what a check of the file found.
type survey struct {
	version int64 // the version the file brings the graph to
	end     int64 // where its last mark ends: what follows is not read back
	fillEnd int64 // where its first mark (its fill's) ends
	err     error
	// bulk is set when the file was written with the N-Quads the graph was loaded from (header.fromBulk),
	// holds what they hold, and is not yet the graph's (see logFile.adopt).
	bulk bool
}

// outgrown says whether the catch-ups in the file are larger than its fill: replaying them all would
// cost more than a fill, and the file would only grow. A file is not added to past that, nor read back.
func (s survey) outgrown() bool { return s.end-s.fillEnd > s.fillEnd }

// survey checks the whole file (every record's checksum, the marks' versions) without decoding the
// changes, and says why it cannot be read back ("" when it can).
func (f *Feed) survey(ctx context.Context, want header) (survey, string) {
	var s survey
	file, err := os.Open(f.path)
	if err != nil {
		s.err = err
		return s, "no file"
	}
	defer file.Close()
	rr, err := openRecords(file)
	if err != nil {
		return s, err.Error()
	}
	kind, p, err := rr.next(nil)
	if err != nil || kind != kindHeader {
		return s, "no header"
	}
	h, err := decodeHeader(p)
	if err != nil {
		return s, "unreadable header"
	}
	if err := h.matches(want); err != nil {
		return s, err.Error()
	}
	version := int64(0)
	adopted := ""  // the graph a file written with N-Quads became the file of
	var buf []byte // the survey keeps no payload: one buffer serves them all
	for {
		kind, p, err := rr.next(buf)
		buf = p
		if err != nil {
			break // io.EOF or a torn tail: the file ends at its last mark
		}
		if kind == kindAdopt && h.fromBulk() && adopted == "" && s.fillEnd != 0 && s.end == rr.off-adoptLen(p) {
			adopted, s.end = string(p), rr.off // right after a mark: as good as marked
			continue
		}
		if kind != kindVersion {
			continue
		}
		since, v, err := decodeVersion(p)
		if err != nil || since != version || v <= since {
			break
		}
		version, s.end = v, rr.off
		if s.fillEnd == 0 {
			s.fillEnd = rr.off
		}
	}
	s.version = version
	if s.fillEnd == 0 {
		return s, "no fill was finished in it"
	}
	if s.outgrown() {
		return s, fmt.Sprintf("its catch-ups (%d bytes) outgrew its fill (%d bytes)", s.end-s.fillEnd, s.fillEnd)
	}
	current, err := f.store.Version(ctx)
	if err != nil {
		return s, fmt.Sprintf("cannot read the graph's version: %v", err)
	}
	if current < version {
		return s, fmt.Sprintf("it holds version %d of the graph, which is at %d (restored from a backup?)", version, current)
	}
	switch {
	case h.fromBulk() && adopted != "":
		if adopted != want.GraphID {
			return s, fmt.Sprintf("of graph %q, not %q", adopted, want.GraphID)
		}
	case h.fromBulk():
		// Written with N-Quads: read back only into the graph loaded from them, whole (not a load that
		// stopped part way), with nothing written since.
		id, counts, err := f.store.Bulk(ctx)
		switch {
		case err != nil:
			return s, fmt.Sprintf("cannot tell which load the graph came from: %v", err)
		case id != h.Bulk:
			return s, fmt.Sprintf("written with the N-Quads of load %q, and the graph came from %q", h.Bulk, id)
		case current != version:
			return s, fmt.Sprintf("written with the N-Quads the graph was loaded from, at version %d; the graph has been written to since (version %d)", version, current)
		case counts != h.Counts:
			return s, fmt.Sprintf("written with N-Quads holding %s; the graph holds %s", countsText(h.Counts), countsText(counts))
		}
		s.bulk = true
	}
	return s, ""
}

func countsText(c graph.GraphCounts) string {
	return fmt.Sprintf("%d sources, %d entities, %d relations, %d claims", c.Sources, c.Entities, c.Relations, c.Claims)
}

// WriteBulk writes, at path, the file a graph loaded from N-Quads is read back from at its first fill:
// fill gives each batch of what a fill of that graph from the store gives (dgraph.BulkFill), to bring it
// to version; id is the load's (dgraph.NQuadWriter.BulkID), counts how many nodes of each type the
// N-Quads hold. The file appears whole or not at all. A Feed reads it back only while the graph it fills
// came from that load, holds those counts, and is at that version: then it becomes the graph's file.
// It holds the file's lock while it writes: it fails at once, writing nothing, while a running polgraph
// (or another load) uses the file.
func WriteBulk(path, id string, counts graph.GraphCounts, version int64, fill func(each func(graph.Changed) error) error) error {
	if id == "" || version <= 0 {
		return fmt.Errorf("snapfile: a file written with N-Quads needs their load's id and a version (%q, %d)", id, version)
	}
	lock, err := lockFile(path)
	if err != nil {
		return fmt.Errorf("snapfile: %w", err)
	}
	defer lock.Close()
	out, err := create(path, header{Format: formatVersion, Shape: changedShape, Build: thisBuild, Bulk: id, Counts: counts})
	if err != nil {
		return err
	}
	err = fill(func(c graph.Changed) error { return out.rw.changes(c) })
	if err == nil {
		err = out.mark(0, version)
	}
	if err != nil {
		out.f.Close()
		os.Remove(path + ".tmp")
		return err
	}
	return out.f.Close()
}

func openRecords(r io.Reader) (*recordReader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	m := make([]byte, len(magic))
	if _, err := io.ReadFull(br, m); err != nil || string(m) != magic {
		return nil, errors.New("not a polgraph snapshot file")
	}
	return &recordReader{r: br, off: int64(len(magic))}, nil
}

// replay gives each the changes the file holds up to end, in order, decoding them on every core.
func replay(ctx context.Context, path string, end int64, each func(graph.Changed)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	rr, err := openRecords(file)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: the reader may wait to hand on a slot
	defer cancel()
	type slot struct {
		c    graph.Changed
		err  error
		done chan struct{}
	}
	type job struct {
		s *slot
		p []byte
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	work, order := make(chan job, workers), make(chan *slot, 2*workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				j.s.c, j.s.err = decodeChanges(j.p)
				close(j.s.done)
			}
		}()
	}
	wg.Add(1)
	go func() { // reads the records in order, hands the changes to the workers and their slots to the applier
		defer wg.Done()
		defer close(order)
		defer close(work)
		for rr.off < end {
			kind, p, err := rr.next(nil) // each payload goes to a worker
			s := &slot{done: make(chan struct{})}
			if err != nil {
				s.err = fmt.Errorf("at byte %d: %w", rr.off, err)
				close(s.done)
			} else if kind != kindChanges {
				close(s.done)
				s = nil
			}
			if s != nil && s.err == nil {
				select {
				case work <- job{s, p}:
				case <-ctx.Done():
					return
				}
			}
			if s != nil {
				select {
				case order <- s:
				case <-ctx.Done():
					return
				}
				if err != nil { // the file's, which the slot carries (a worker may be setting s.err)
					return
				}
			}
		}
	}()
	for s := range order {
		select {
		case <-s.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if s.err != nil {
			return s.err
		}
		each(s.c)
	}
	return ctx.Err()
}

// logFile is a file being written.
type logFile struct {
	f       *os.File
	rw      recordWriter
	path    string // where the file goes once its fill is marked: it is path+".tmp" until then
	tmp     bool
	version int64 // the version its last mark brings the graph to
	base    int64 // the file's size before rw wrote to it
	fillEnd int64 // where its fill's mark ends (0 before it)
}

// marked is the file as its last mark left it.
func (l *logFile) marked() survey {
	return survey{version: l.version, end: l.base + l.rw.written, fillEnd: l.fillEnd}
}

// create starts a new file beside path, holding only its header; its fill's mark moves it to path.
func create(path string, h header) (*logFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path+".tmp", os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	l := &logFile{f: f, path: path, tmp: true, base: int64(len(magic))}
	l.rw.w = bufio.NewWriterSize(f, 1<<20)
	h.Written = time.Now().UTC()
	err = func() error {
		if _, err := l.rw.w.WriteString(magic); err != nil {
			return err
		}
		return l.rw.header(h)
	}()
	if err != nil {
		l.close()
		os.Remove(path + ".tmp")
		return nil, err
	}
	return l, nil
}

// appendTo opens the file at path to add to it after end (cutting off what follows end).
func appendTo(path string, end, fillEnd, version int64) (*logFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(end); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	l := &logFile{f: f, path: path, version: version, base: end, fillEnd: fillEnd}
	l.rw.w = bufio.NewWriterSize(f, 1<<20)
	return l, nil
}

// adopt makes a file written with N-Quads (header.fromBulk), just read back into graph id, that graph's
// file: a record right after its last mark, synced, which a survey takes as the graph's id.
func (l *logFile) adopt(id string) error {
	if err := l.rw.record(kindAdopt, []byte(id)); err != nil {
		return err
	}
	if err := l.rw.w.Flush(); err != nil {
		return err
	}
	return l.f.Sync()
}

// mark closes the changes written since the last mark: they bring the graph from since to version. The
// first mark makes the file the one at path, synced to disk; later ones are only flushed (a crash may
// lose them, and a damaged tail is never read back).
func (l *logFile) mark(since, version int64) error {
	if err := l.rw.version(since, version); err != nil {
		return err
	}
	if err := l.rw.w.Flush(); err != nil {
		return err
	}
	if l.tmp {
		if err := l.f.Sync(); err != nil {
			return err
		}
		if err := os.Rename(l.path+".tmp", l.path); err != nil {
			return err
		}
		if d, err := os.Open(filepath.Dir(l.path)); err == nil {
			d.Sync()
			d.Close()
		}
		l.tmp = false
	}
	if l.fillEnd == 0 {
		l.fillEnd = l.base + l.rw.written
	}
	l.version = version
	return nil
}

func (l *logFile) close() {
	l.rw.w.Flush()
	l.f.Close()
}

// fail stops writing out after an error; an unfinished file is removed, a finished one stays as it was
// at its last mark.
func (f *Feed) fail(out *logFile, err error) {
	f.log.Warn("the graph's snapshot file is no longer added to", "file", f.path, "err", err)
	if out.tmp {
		os.Remove(out.path + ".tmp")
	}
	out.f.Close()
	if f.out == out {
		f.out = nil
	}
}

func (f *Feed) closeOut() {
	if f.out == nil {
		return
	}
	if f.out.tmp {
		f.out.f.Close()
		os.Remove(f.path + ".tmp")
	} else {
		f.out.close()
	}
	f.out = nil
}

func (f *Feed) remove() {
	if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.log.Warn("cannot remove the graph's snapshot file", "file", f.path, "err", err)
	}
}

// takeLock makes this Feed the file's only user: two processes writing one file would tear it.
func (f *Feed) takeLock() error {
	if f.lock != nil {
		return nil
	}
	l, err := lockFile(f.path)
	if err != nil {
		return err
	}
	f.lock = l
	return nil
}

// lockFile takes the lock of the file at path (path+".lock", held until the returned file is closed),
// or fails at once when another process holds it.
func lockFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	l, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(l.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		l.Close()
		return nil, fmt.Errorf("another process uses %s: %w", path, err)
	}
	return l, nil
}
