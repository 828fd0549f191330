// Package bulkpath writes dataset files as the N-Quads `dgraph bulk` fills a new cluster from
// (dgraph.NQuadWriter), and, when asked, the snapshot file (internal/snapfile) that the first polgraph to
// serve that cluster reads its graph back from, instead of reading every node of it from Dgraph.
package bulkpath

import (
	"fmt"
	"io"
	"sync"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/snapfile"
)

// Written is what Write wrote.
type Written struct {
	Checked *dataset.Checked
	Quads   int64
	// BulkID names the load (dgraph.NQuadWriter.BulkID).
	BulkID string
	// NoSnapshot says why no snapshot file was written, when one was asked for and the files hold a
	// record that a fill reads from its predicates rather than its pack (an entity with an alias given
	// twice, which Dgraph keeps once): the first start then reads the graph from Dgraph.
	NoSnapshot string
}

// Write checks the files open gives (nothing is written unless all are valid), then writes them to w as
// N-Quads, record by record. With snapshot set it also writes there the file a fill of the loaded graph
// reads back (snapfile.WriteBulk), whole or not at all, built on other goroutines while the N-Quads are
// written; files not in stage order are then read once per stage.
func Write(open func() ([]dataset.File, func(), error), w io.Writer, snapshot string) (Written, error) {
	checked, err := dataset.CheckOpened(open)
	if err != nil {
		return Written{}, err
	}
	return WriteChecked(checked, open, w, snapshot)
}

// WriteChecked is Write of files checked already (dataset.CheckOpened gave checked).
func WriteChecked(checked *dataset.Checked, open func() ([]dataset.File, func(), error), w io.Writer, snapshot string) (Written, error) {
	q := dgraph.NewNQuadWriter(w)
	out := Written{Checked: checked, BulkID: q.BulkID()}
	if snapshot == "" {
		files, closeFiles, err := open()
		if err != nil {
			return out, err
		}
		defer closeFiles()
		if err := checked.Each(files, q); err != nil {
			return out, err
		}
		out.Quads = q.Quads()
		return out, q.Flush()
	}
	counts := graph.GraphCounts{Sources: checked.Sources, Entities: checked.Entities, Relations: checked.Relations, Claims: checked.Claims}
	var cannot error // why the fill cannot be written (the N-Quads are, all the same)
	err := snapfile.WriteBulk(snapshot, q.BulkID(), counts, dgraph.BulkVersion, func(give func(graph.Changed) error) error {
		// Three steps overlap: the files read and written as N-Quads, their packs read back as a fill reads
		// them, and the batches that gives written to the file.
		batches := newPipe(func(c graph.Changed) error { return give(c) }, 1, 2) // a batch is a page of thousands
		defer batches.close()
		fill := dgraph.NewBulkFill(batches.add)
		// The fill needs every source, then every entity, then every relation: files in another order
		// are read once per stage, and their N-Quads written in that order.
		packs := newPipe(fill.AddPack, 256, 16)
		q.OnPack(func(p dgraph.Pack) { packs.add(p) })
		err := checked.EachStaged(open, q)
		q.OnPack(nil)
		packs.close() // the fill's error, if any, is fill.Close's
		if err != nil {
			return err
		}
		if err := q.Flush(); err != nil {
			return err
		}
		out.Quads = q.Quads()
		fillErr := fill.Close()
		if err := batches.close(); err != nil {
			return err // writing the snapshot file
		}
		if fillErr != nil {
			cannot = fillErr
			return fillErr
		}
		if got := fill.Counts(); got != counts {
			return fmt.Errorf("the snapshot file would hold %+v, the files %+v", got, counts)
		}
		return nil
	})
	if cannot != nil {
		out.NoSnapshot = cannot.Error()
		return out, nil
	}
	return out, err
}

// pipe hands items, in batches, to a function on a goroutine of its own, in order; add waits while depth
// batches wait. Once the function fails, items are dropped; add reports the error from then on, and close
// reports it too.
type pipe[T any] struct {
	size   int
	batch  []T
	ch     chan<- []T
	closed bool
	done   chan struct{}
	mu     sync.Mutex
	err    error
}

func newPipe[T any](fn func(T) error, size, depth int) *pipe[T] {
	ch := make(chan []T, depth)
	p := &pipe[T]{size: size, ch: ch, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for batch := range ch {
			for _, x := range batch {
				if p.failed() != nil {
					break
				}
				if err := fn(x); err != nil {
					p.mu.Lock()
					p.err = err
					p.mu.Unlock()
				}
			}
		}
	}()
	return p
}

func (p *pipe[T]) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *pipe[T]) add(x T) error {
	p.batch = append(p.batch, x)
	if len(p.batch) == p.size {
		p.ch <- p.batch
		p.batch = make([]T, 0, p.size)
	}
	return p.failed()
}

// close hands on what is left, waits for it, and returns the function's error. Only the first call
// closes.
func (p *pipe[T]) close() error {
	if !p.closed {
		p.closed = true
		if len(p.batch) > 0 {
			p.ch <- p.batch
			p.batch = nil
		}
		close(p.ch)
		<-p.done
	}
	return p.failed()
}
