package dgraph

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/dgraph-io/dgo/v230/protos/api"

	"github.com/polgraph/polgraph/graph"
)

// A shared snapshot is a copy of a snapshot file (internal/snapfile) kept in Dgraph, so that a polgraph
// with no file of its own (a new replica, a container without a volume) reads the graph back from a few
// large values instead of a key per node (docs/bench-changes.md, items 46 and 52), then catches up through
// the change feed like any snapshot file. Dgraph stays the store of record: the copy is a cache of what
// the feed gives, labelled by the file's writer (the graph's id, the version it holds), and is never read
// by anything but a fill.
//
// The file goes in parts of sharedPartBytes, each compressed (DEFLATE) and kept as base64 text on a node
// of its own (type SnapshotPart: pg.snapshot_set, pg.snapshot_seq, pg.snapshot_part, pg.snapshot_at).
// One node (type Snapshot, pg.snapshot_of = "graph") says which set is the copy, with its label, size,
// number of parts and SHA-256. A new copy is written beside the old one, then the head is pointed at it in
// one transaction, and only then are the old parts deleted: a reader sees one whole copy or the other,
// and checks the parts' count, size and hash against the head's.

// sharedPartBytes is how much of the file one part holds before compression. Dgraph's Badger keeps a
// value under 1 MB in its LSM tree, through memtables in the alpha's own memory, and a larger one in its
// value log, a file it maps. Parts of 4 MB of a snapshot file compressed to 0.7-1.4 MB of text, a
// quarter of them under that line; parts of 16 MB compress to 3-5 MB, all in the value log
// (docs/bench-changes.md, item 58).
const sharedPartBytes = 16 << 20

// sharedPartsPerRead is how many parts one query reads: a few MB of text an answer.
const sharedPartsPerRead = 2

// sharedOrphanAge is how old the parts of a set that no head names must be before a later share deletes
// them: a share that stopped part way, not one still being written.
const sharedOrphanAge = time.Hour

// sharedHeadName is the value of pg.snapshot_of on the head node.
const sharedHeadName = "graph"

type sharedHead struct {
	UID   string `json:"uid"`
	Label string `json:"pg.snapshot_label"`
	Set   string `json:"pg.snapshot_set"`
	Parts int    `json:"pg.snapshot_parts"`
	Bytes int64  `json:"pg.snapshot_bytes"`
	Sum   string `json:"pg.snapshot_sum"`
}

// readSharedHead reads the head; ok is false when there is none.
func (s *Store) readSharedHead(ctx context.Context, op string) (sharedHead, bool, error) {
	var res struct{ Q []sharedHead }
	err := s.query(ctx, op, `query q($h: string) {
  q(func: eq(pg.snapshot_of, $h)) { uid pg.snapshot_label pg.snapshot_set pg.snapshot_parts pg.snapshot_bytes pg.snapshot_sum }
}`, map[string]string{"$h": sharedHeadName}, &res)
	if err != nil || len(res.Q) == 0 || res.Q[0].Set == "" {
		return sharedHead{}, false, err
	}
	return res.Q[0], true, nil
}

// SharedSnapshot says which copy of a snapshot file Dgraph holds: its label as ShareSnapshot was given
// it, and its size; "" when it holds none.
func (s *Store) SharedSnapshot(ctx context.Context) (label string, size int64, err error) {
	h, ok, err := s.readSharedHead(ctx, "dgraph.SharedSnapshot")
	if !ok {
		return "", 0, err
	}
	return h.Label, h.Bytes, nil
}

// ReadSharedSnapshot writes the copy labelled label to w. It fails, having written part of it maybe,
// when the copy Dgraph holds has another label (a newer share replaced it) or does not check out (a part
// missing or damaged, a size or hash not the head's).
func (s *Store) ReadSharedSnapshot(ctx context.Context, label string, w io.Writer) error {
	const op = "dgraph.ReadSharedSnapshot"
	h, ok, err := s.readSharedHead(ctx, op)
	switch {
	case err != nil:
		return err
	case !ok || h.Label != label:
		return &graph.Error{Op: op, Kind: graph.NotFound, Message: "Dgraph no longer holds the shared snapshot asked for (another replaced it)"}
	}
	damaged := func(format string, args ...any) error {
		return &graph.Error{Op: op, Kind: graph.Internal, Message: "the shared snapshot in Dgraph is damaged: " + fmt.Sprintf(format, args...)}
	}

	// Pages of parts are read one ahead of their decompression, whose parts are inflated on every core.
	type page struct {
		parts [][]byte
		err   error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan page, 1)
	go func() {
		defer close(pages)
		for off := 0; off < h.Parts; off += sharedPartsPerRead {
			var res struct {
				Q []struct {
					Seq  int    `json:"pg.snapshot_seq"`
					Part string `json:"pg.snapshot_part"`
				}
			}
			err := s.query(ctx, op, `query q($s: string, $n: int, $o: int) {
  q(func: eq(pg.snapshot_set, $s), orderasc: pg.snapshot_seq, first: $n, offset: $o) @filter(has(pg.snapshot_seq)) { pg.snapshot_seq pg.snapshot_part }
}`, map[string]string{"$s": h.Set, "$n": strconv.Itoa(sharedPartsPerRead), "$o": strconv.Itoa(off)}, &res)
			var p page
			switch {
			case err != nil:
				p.err = err
			case len(res.Q) != min(sharedPartsPerRead, h.Parts-off):
				p.err = damaged("%d parts where %d were expected from part %d", len(res.Q), min(sharedPartsPerRead, h.Parts-off), off)
			}
			for i, q := range res.Q {
				if p.err != nil {
					break
				}
				if q.Seq != off+i {
					p.err = damaged("part %d where part %d was expected", q.Seq, off+i)
					break
				}
				b, err := base64.StdEncoding.DecodeString(q.Part)
				if err != nil {
					p.err = damaged("part %d: %v", q.Seq, err)
					break
				}
				p.parts = append(p.parts, b)
			}
			select {
			case pages <- p:
			case <-ctx.Done():
				return
			}
			if p.err != nil {
				return
			}
		}
	}()

	sum, size := sha256.New(), int64(0)
	out := make([]bytes.Buffer, sharedPartsPerRead)
	for p := range pages {
		if p.err != nil {
			return p.err
		}
		errs := make([]error, len(p.parts))
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for i, part := range p.parts {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				out[i].Reset()
				_, errs[i] = io.Copy(&out[i], flate.NewReader(bytes.NewReader(part)))
			}()
		}
		wg.Wait()
		for i := range p.parts {
			if errs[i] != nil {
				return damaged("a part does not inflate: %v", errs[i])
			}
			size += int64(out[i].Len())
			sum.Write(out[i].Bytes())
			if _, err := w.Write(out[i].Bytes()); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return s.wrap(op, err)
	}
	if got := hex.EncodeToString(sum.Sum(nil)); size != h.Bytes || got != h.Sum {
		return damaged("%d bytes with SHA-256 %s, where the head says %d bytes with %s", size, got, h.Bytes, h.Sum)
	}
	return nil
}

// ShareSnapshot replaces the copy Dgraph holds with what r gives, labelled label. The new copy takes the
// place of the old one only once it is whole; a share that fails leaves the old copy as it was.
func (s *Store) ShareSnapshot(ctx context.Context, label string, r io.Reader) error {
	const op = "dgraph.ShareSnapshot"
	set, now := rand.Text(), time.Now().UnixMilli()

	// Parts are read in order, then compressed and written on every core, each in a transaction of its
	// own (they are new nodes, nobody else writes).
	type part struct {
		seq int
		raw []byte
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	todo := make(chan part)
	errc := make(chan error, 1)
	fail := func(err error) {
		select {
		case errc <- err:
		default:
		}
		cancel()
	}
	var wg sync.WaitGroup
	var writtenMu sync.Mutex
	var written []string // the parts' uids, deleted by uid should the share fail
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var z bytes.Buffer
			fw, _ := flate.NewWriter(&z, flate.BestSpeed)
			for p := range todo {
				z.Reset()
				fw.Reset(&z)
				if _, err := fw.Write(p.raw); err != nil {
					fail(err)
					continue
				}
				if err := fw.Close(); err != nil {
					fail(err)
					continue
				}
				row, err := json.Marshal(map[string]any{
					"uid": "_:p", "dgraph.type": "SnapshotPart",
					"pg.snapshot_set": set, "pg.snapshot_seq": p.seq, "pg.snapshot_at": now,
					"pg.snapshot_part": base64.StdEncoding.EncodeToString(z.Bytes()),
				})
				var resp *api.Response
				if err == nil {
					resp, err = s.dg.NewTxn().Mutate(ctx, &api.Mutation{SetJson: row, CommitNow: true})
				}
				if err != nil {
					fail(err)
					continue
				}
				writtenMu.Lock()
				written = append(written, resp.Uids["p"])
				writtenMu.Unlock()
			}
		}()
	}
	sum, size, parts := sha256.New(), int64(0), 0
	var readErr error
	for ctx.Err() == nil {
		raw := make([]byte, sharedPartBytes)
		n, err := io.ReadFull(r, raw)
		if n > 0 {
			sum.Write(raw[:n])
			size += int64(n)
			select {
			case todo <- part{seq: parts, raw: raw[:n]}:
				parts++
			case <-ctx.Done():
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
	}
	close(todo)
	wg.Wait()
	select {
	case err := <-errc:
		s.dropSharedSets(context.WithoutCancel(ctx), nil, written, set)
		return s.wrap(op, err)
	default:
	}
	if readErr != nil || ctx.Err() != nil {
		s.dropSharedSets(context.WithoutCancel(ctx), nil, written, set)
		if readErr != nil {
			return readErr
		}
		return s.wrap(op, ctx.Err())
	}

	// The head names the new set, in one transaction (the head's key is @upsert: two first shares at
	// once conflict, and the one started again finds the other's head). Its lookup reads as a write's does
	// (lagging.go): an alpha showing an older graph could show no head, and a second one would be made.
	head := map[string]any{"uid": "_:h", "dgraph.type": "Snapshot", "pg.snapshot_of": sharedHeadName,
		"pg.snapshot_label": label, "pg.snapshot_set": set, "pg.snapshot_parts": parts,
		"pg.snapshot_bytes": size, "pg.snapshot_sum": hex.EncodeToString(sum.Sum(nil)), "pg.snapshot_at": now}
	old := ""
	err := s.keyTxn(ctx, op, func(txn writeTxn) error {
		resp, err := txn.query(ctx, `query q($h: string) { q(func: eq(pg.snapshot_of, $h)) { uid pg.snapshot_set } }`,
			map[string]string{"$h": sharedHeadName})
		if err != nil {
			return err
		}
		var res struct{ Q []sharedHead }
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return err
		}
		head["uid"], old = "_:h", ""
		if len(res.Q) > 0 {
			head["uid"], old = res.Q[0].UID, res.Q[0].Set
		}
		row, err := json.Marshal(head)
		if err != nil {
			return err
		}
		_, err = txn.Mutate(ctx, &api.Mutation{SetJson: row, CommitNow: true})
		return err
	})
	if err != nil {
		s.dropSharedSets(context.WithoutCancel(ctx), nil, written, set)
		return err
	}
	// The old copy, and what shares that stopped part way left long ago, go.
	cutoff := time.Now().Add(-sharedOrphanAge).UnixMilli()
	s.dropSharedSets(ctx, func(other string, at int64) bool { return other != set && at < cutoff }, nil, old)
	return nil
}

// dropSharedSets deletes the parts whose uids are given, those of the sets named, and those of any other
// set orphan (when not nil) says to (by its name and when its parts were written). Best effort: what is
// left is deleted by a later share. The parts found by set are those the alpha that answers shows: one that
// lags may show none of them, so a share that fails deletes the parts it wrote by their uids.
func (s *Store) dropSharedSets(ctx context.Context, orphan func(set string, at int64) bool, uids []string, sets ...string) {
	var res struct {
		Q []struct {
			UID string `json:"uid"`
			Set string `json:"pg.snapshot_set"`
			At  int64  `json:"pg.snapshot_at"`
		}
	}
	if err := s.query(ctx, "dgraph.ShareSnapshot", `{ q(func: has(pg.snapshot_seq)) { uid pg.snapshot_set pg.snapshot_at } }`, nil, &res); err != nil {
		s.log.WarnContext(ctx, "cannot list the shared snapshot's parts to delete the old ones", "err", err)
		res.Q = nil
	}
	named := set(sets)
	drop := set(uids)
	for _, p := range res.Q {
		if named[p.Set] || (orphan != nil && orphan(p.Set, p.At)) {
			drop[p.UID] = true
		}
	}
	var del bytes.Buffer
	n := 0
	flush := func() {
		if n == 0 {
			return
		}
		if _, err := s.dg.NewTxn().Mutate(ctx, &api.Mutation{DelNquads: del.Bytes(), CommitNow: true}); err != nil {
			s.log.WarnContext(ctx, "cannot delete an old shared snapshot's parts; a later share will", "err", err)
		}
		del.Reset()
		n = 0
	}
	for uid := range drop {
		if !uidPattern.MatchString(uid) {
			continue // every uid is Dgraph's own; nothing else goes into the deletion
		}
		fmt.Fprintf(&del, "<%s> * * .\n", uid)
		if n++; n == 16 {
			flush()
		}
	}
	flush()
}
