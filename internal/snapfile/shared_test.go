package snapfile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sharingStore is a scriptStore that keeps a shared copy in memory, as dgraph.Store keeps one in Dgraph
// (whose own tests check its copy against a real Dgraph).
type sharingStore struct {
	*scriptStore
	mu       sync.Mutex
	label    string
	data     []byte
	shares   int           // how many shares were made
	block    chan struct{} // ShareSnapshot waits for it to close, when set
	attempts int           // how many were tried, failed ones included
	readErr, // what ReadSharedSnapshot fails with, when set
	shareErr error // what ShareSnapshot fails with, when set
}

func (s *sharingStore) SharedSnapshot(context.Context) (string, int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.label, int64(len(s.data)), nil
}

func (s *sharingStore) ReadSharedSnapshot(_ context.Context, label string, w io.Writer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if label != s.label {
		return errors.New("another copy")
	}
	if s.readErr != nil {
		w.Write(s.data[:len(s.data)/2])
		return s.readErr
	}
	_, err := w.Write(s.data)
	return err
}

func (s *sharingStore) ShareSnapshot(_ context.Context, label string, r io.Reader) error {
	if s.block != nil {
		<-s.block
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts++
	if s.shareErr != nil {
		return s.shareErr
	}
	s.label, s.data = label, data
	s.shares++
	return nil
}

func (s *sharingStore) held(t *testing.T) (sharedLabel, int) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := parseLabel(s.label)
	if err != nil {
		t.Fatalf("the copy's label %q: %v", s.label, err)
	}
	return l, s.shares
}

// TestANewReplicaFetchesTheSharedCopy: a fill from the store shares its file; a fill with no file fetches
// that copy, reads it back and catches up from its version; a restart whose own file is newer than the
// copy shares again, and one whose file is not newer does not.
func TestANewReplicaFetchesTheSharedCopy(t *testing.T) {
	script, r := newStore(t, 4, 50)
	store := &sharingStore{scriptStore: script}
	pathA, pathB := filepath.Join(t.TempDir(), "graph.snapshot"), filepath.Join(t.TempDir(), "graph.snapshot")

	first := New(store, pathA, quietLog())
	fill(t, first)
	if f := first.LastFill(); f.FromFile || f.FromShared || f.SharedWhy != "the store holds no shared copy" {
		t.Fatalf("the first fill: %+v", f)
	}
	if err := first.WaitShared(); err != nil {
		t.Fatal(err)
	}
	first.Close()
	if l, n := store.held(t); n != 1 || l.Version != 4 || l.GraphID != script.id {
		t.Fatalf("after the first fill the store holds %+v (%d shares)", l, n)
	}
	if !bytes.Equal(store.data, read(t, pathA)) {
		t.Fatal("the copy shared is not the file the fill wrote")
	}

	script.write(richWrite(r, 4, 50))
	script.asked = nil
	replica := New(store, pathB, quietLog())
	got, v := fill(t, replica)
	if f := replica.LastFill(); !f.FromFile || !f.FromShared || f.Version != 4 || v != 5 || f.SharedBytes != int64(len(store.data)) {
		t.Fatalf("a fill with no file: %+v to version %d", f, v)
	}
	if diff := cmp.Diff([]int64{4}, script.calls()); diff != "" {
		t.Fatalf("the store was asked from other versions than the copy's (-want +got):\n%s", diff)
	}
	sameAsStore(t, script, got, "the fill from the shared copy")
	if _, err := os.Stat(pathB + ".fetch"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the fetch left %s.fetch behind (%v)", pathB, err)
	}
	if err := replica.WaitShared(); err != nil {
		t.Fatal(err)
	}
	if _, n := store.held(t); n != 1 {
		t.Fatal("a fill from the shared copy shared it again")
	}

	// The fetched file is the replica's own: its catch-ups go on into it, and its restart reads it back
	// at version 6, newer than the copy, which it then replaces.
	script.write(richWrite(r, 5, 50))
	catchUp(t, replica, &got, v)
	replica.Close()
	restarted := New(store, pathB, quietLog())
	sameAsStoreFill(t, script, restarted, "the replica's restart")
	if f := restarted.LastFill(); !f.FromFile || f.FromShared || f.Version != 6 {
		t.Fatalf("the replica's restart: %+v", f)
	}
	if err := restarted.WaitShared(); err != nil {
		t.Fatal(err)
	}
	restarted.Close()
	if l, n := store.held(t); n != 2 || l.Version != 6 {
		t.Fatalf("after a restart from a newer file the store holds version %d (%d shares)", l.Version, n)
	}

	// The first process's file is older than the copy: it is read back, and not shared.
	again := New(store, pathA, quietLog())
	sameAsStoreFill(t, script, again, "the first process's restart")
	if f := again.LastFill(); !f.FromFile || f.Version != 4 {
		t.Fatalf("the first process's restart: %+v", f)
	}
	again.Close()
	if _, n := store.held(t); n != 2 {
		t.Fatal("a restart from a file older than the copy shared it")
	}
}

func sameAsStoreFill(t *testing.T, script *scriptStore, feed *Feed, what string) {
	t.Helper()
	got, _ := fill(t, feed)
	sameAsStore(t, script, got, what)
}

// TestSharedCopiesNotFetched: a copy another graph's, another code's, ahead of the store, damaged, or
// whose fetch fails, is not read back: the fill reads the store whole and leaves no fetched file behind.
func TestSharedCopiesNotFetched(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(s *sharingStore)
		why   string
	}{
		{"another graph's", func(s *sharingStore) { s.scriptStore.id = "another" }, `the store's shared copy is of graph`},
		{"another build's", func(s *sharingStore) {
			l, _ := parseLabel(s.label)
			l.Build = "0123abc"
			s.label = l.text()
		}, `written by build "0123abc"`},
		{"ahead of the store", func(s *sharingStore) { s.scriptStore.rewind(2) }, "holds version 3 of the graph, which is at 2"},
		{"damaged", func(s *sharingStore) { s.data[len(s.data)/2] ^= 0xff }, "the copy fetched cannot be read back"},
		{"not a snapshot file", func(s *sharingStore) { s.data = []byte("{}") }, "the copy fetched cannot be read back: not a polgraph snapshot file"},
		{"a fetch that fails", func(s *sharingStore) { s.readErr = errors.New("the alpha went away") }, "fetching it failed: the alpha went away"},
		{"a label this code cannot read", func(s *sharingStore) { s.label = "{" }, "has a label this code cannot read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script, _ := newStore(t, 3, 20)
			store := &sharingStore{scriptStore: script}
			first := New(store, filepath.Join(t.TempDir(), "graph.snapshot"), quietLog())
			fill(t, first)
			first.Close()
			store.mu.Lock()
			tc.spoil(store)
			store.mu.Unlock()

			path := filepath.Join(t.TempDir(), "graph.snapshot")
			replica := New(store, path, quietLog())
			defer replica.Close()
			got, _ := fill(t, replica)
			f := replica.LastFill()
			if f.FromFile || f.FromShared || !strings.Contains(f.SharedWhy, tc.why) {
				t.Fatalf("fill %+v: want the store read whole, the copy refused with %q", f, tc.why)
			}
			sameAsStore(t, script, got, "the fill")
			entries, _ := os.ReadDir(filepath.Dir(path))
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if want := []string{"graph.snapshot", "graph.snapshot.lock"}; !slices.Equal(names, want) {
				t.Fatalf("the folder holds %v, want %v", names, want)
			}
		})
	}
}

// TestAFailedShareLeavesTheFillAlone: a store that refuses the copy costs the fill nothing.
func TestAFailedShareLeavesTheFillAlone(t *testing.T) {
	script, _ := newStore(t, 3, 20)
	refused := errors.New("permission denied")
	store := &sharingStore{scriptStore: script, shareErr: refused}
	feed := New(store, filepath.Join(t.TempDir(), "graph.snapshot"), quietLog())
	got, _ := fill(t, feed)
	sameAsStore(t, script, got, "the fill")
	if err := feed.WaitShared(); !errors.Is(err, refused) {
		t.Fatalf("the share: %v", err)
	}
	if err := feed.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAFailedShareIsTriedAgain: a running polgraph whose share failed tries again with the first catch-up
// a while later, however little its file grew, and not before.
func TestAFailedShareIsTriedAgain(t *testing.T) {
	script, r := newStore(t, 8, 50)
	busy := errors.New("the store is busy")
	store := &sharingStore{scriptStore: script, shareErr: busy}
	feed := New(store, filepath.Join(t.TempDir(), "graph.snapshot"), quietLog())
	defer feed.Close()
	st, v := fill(t, feed)
	if err := feed.WaitShared(); !errors.Is(err, busy) {
		t.Fatalf("the fill's share: %v", err)
	}
	attempts := func() int {
		store.mu.Lock()
		defer store.mu.Unlock()
		return store.attempts
	}
	store.mu.Lock()
	store.shareErr = nil
	store.mu.Unlock()

	// A catch-up right after the failure: not tried again yet.
	script.write(richWrite(r, 8, 50))
	v = catchUp(t, feed, &st, v)
	feed.WaitShared()
	if n := attempts(); n != 1 {
		t.Fatalf("a catch-up right after a failed share made %d attempts in all", n)
	}
	// Once the wait is over, the next catch-up shares, though the file grew by an eighth of its fill only.
	feed.mu.Lock()
	if feed.retryShareAt.IsZero() {
		t.Fatal("a failed share set no time to try again")
	}
	feed.retryShareAt = time.Now().Add(-time.Millisecond)
	feed.mu.Unlock()
	script.write(richWrite(r, 9, 50))
	catchUp(t, feed, &st, v)
	must(t, feed.WaitShared())
	if l, n := store.held(t); n != 1 || l.Version != 10 || attempts() != 2 {
		t.Fatalf("after the wait the store holds version %d (%d shares, %d attempts)", l.Version, n, attempts())
	}
	sameAsStore(t, script, st, "the fill caught up")
}

// TestAShareThatWaitedIsMade: a fill that ends while an earlier fill's share is still going shares its
// own file at the first catch-up after that share, though its file grew by nothing since.
func TestAShareThatWaitedIsMade(t *testing.T) {
	script, r := newStore(t, 8, 50)
	store := &sharingStore{scriptStore: script, block: make(chan struct{})}
	feed := New(store, filepath.Join(t.TempDir(), "graph.snapshot"), quietLog())
	defer feed.Close()
	fill(t, feed) // its share waits for the store
	script.write(richWrite(r, 8, 50))
	st, v := fill(t, feed) // reads the file back and catches up: a file newer than the copy to share
	close(store.block)
	must(t, feed.WaitShared())
	if l, n := store.held(t); n != 1 || l.Version != 8 {
		t.Fatalf("after the first fill's share the store holds version %d (%d shares)", l.Version, n)
	}
	catchUp(t, feed, &st, v)
	must(t, feed.WaitShared())
	if l, n := store.held(t); n != 2 || l.Version != 9 {
		t.Fatalf("after a catch-up the store holds version %d (%d shares), not the second fill's 9", l.Version, n)
	}
	// Once made, it is not made again.
	catchUp(t, feed, &st, v)
	must(t, feed.WaitShared())
	if _, n := store.held(t); n != 2 {
		t.Fatalf("a share made twice (%d shares)", n)
	}
}

// TestARunningPolgraphSharesAgain: once the catch-ups added to its file since the last share pass a
// quarter of its fill, a running polgraph shares its file again; not before, and not when the store's
// copy is already as new (another replica shared it).
func TestARunningPolgraphSharesAgain(t *testing.T) {
	script, r := newStore(t, 8, 50)
	store := &sharingStore{scriptStore: script}
	feed := New(store, filepath.Join(t.TempDir(), "graph.snapshot"), quietLog())
	defer feed.Close()
	st, v := fill(t, feed)
	must(t, feed.WaitShared())
	if l, n := store.held(t); n != 1 || l.Version != 8 {
		t.Fatalf("after the fill the store holds version %d (%d shares)", l.Version, n)
	}
	// One write is an eighth of the fill: no share.
	script.write(richWrite(r, 8, 50))
	v = catchUp(t, feed, &st, v)
	must(t, feed.WaitShared())
	if _, n := store.held(t); n != 1 {
		t.Fatalf("a catch-up of an eighth of the fill shared the file (%d shares)", n)
	}
	// Two more: past a quarter.
	script.write(richWrite(r, 9, 50))
	script.write(richWrite(r, 10, 50))
	v = catchUp(t, feed, &st, v)
	must(t, feed.WaitShared())
	if l, n := store.held(t); n != 2 || l.Version != 11 {
		t.Fatalf("after catch-ups past a quarter of the fill the store holds version %d (%d shares)", l.Version, n)
	}
	sameAsStore(t, script, st, "the fill caught up")

	// Another replica shared a newer copy meanwhile: past a quarter again, this one does not share.
	store.mu.Lock()
	l, _ := parseLabel(store.label)
	l.Version = 100
	store.label = l.text()
	store.mu.Unlock()
	for i := range 3 {
		script.write(richWrite(r, 11+i, 50))
	}
	catchUp(t, feed, &st, v)
	must(t, feed.WaitShared())
	if _, n := store.held(t); n != 2 {
		t.Fatalf("a copy newer than the file was replaced (%d shares)", n)
	}
}
