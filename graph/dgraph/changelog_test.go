package dgraph_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dgraph"
	"github.com/polgraph/polgraph/internal/graphtest"
)

// audited is ctx carrying who writes, so that writes record their changes.
func audited(ctx context.Context, method string) context.Context {
	return graph.WithWriteMeta(ctx, graph.WriteMeta{Principal: "tester", Method: method})
}

// readLog reads the whole change log after cur, limit changes a read, checking that each read starts
// where the one before ended, and returns every change in order.
func readLog(t *testing.T, s *dgraph.Store, cur graph.ChangeCursor, limit int) []graph.Change {
	t.Helper()
	var out []graph.Change
	for range 100000 {
		page, err := s.ReadChangeLog(context.Background(), cur, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Changes) > limit {
			t.Fatalf("a read of at most %d changes gave %d", limit, len(page.Changes))
		}
		out = append(out, page.Changes...)
		if len(page.Changes) == 0 && page.Next == cur {
			if page.Next.Version != page.Version {
				t.Fatalf("a read that moved nowhere ends at %+v, not at the graph's version %d", page.Next, page.Version)
			}
			return out
		}
		cur = page.Next
	}
	t.Fatal("the change log never ended")
	return nil
}

// checkOrder checks that changes are in commit order: versions never go down, and the changes of a
// version are numbered 0, 1, 2, …
func checkOrder(t *testing.T, changes []graph.Change) {
	t.Helper()
	for i, c := range changes {
		if c.Version <= 0 {
			t.Fatalf("change %d (%s %s) has no version", i, c.Action, c.Resource)
		}
		want := 0
		if i > 0 && changes[i-1].Version == c.Version {
			want = changes[i-1].Index + 1
		} else if i > 0 && changes[i-1].Version > c.Version {
			t.Fatalf("change %d is at version %d, after one at %d", i, c.Version, changes[i-1].Version)
		}
		if c.Index != want {
			t.Fatalf("change %d (version %d) has index %d, want %d", i, c.Version, c.Index, want)
		}
	}
}

// TestChangeLogHoldsEveryWriteInOrder: sixteen writers at once, then a bulk load whose one version holds
// more changes than a read takes: the log read in small pages holds every change the trail holds, once,
// each with the version its write committed at, in version order; and a read resumed from a token (no
// mark) gives what the paged read gave.
func TestChangeLogHoldsEveryWriteInOrder(t *testing.T) {
	s := freshStore(t)
	ctx := context.Background()
	if err := s.UpsertSources(audited(ctx, "UpsertSources"), []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	ents, rels := graphtest.RandomGraph(5501, 40, 64)
	if err := s.UpsertEntities(audited(ctx, "UpsertEntities"), ents); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < len(rels); i += 16 {
				if err := s.UpsertRelations(audited(ctx, "UpsertRelations"), rels[i:i+1]); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	more, _ := graphtest.RandomGraph(5502, 30, 0)
	for i := range more {
		more[i].Name = graph.EntityName(fmt.Sprintf("actors/bulk-%d", i))
	}
	b, err := s.BeginBulk(audited(ctx, "load"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(more); i += 10 {
		if err := b.UpsertEntities(audited(ctx, "load"), more[i:i+10]); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.End(ctx); err != nil {
		t.Fatal(err)
	}

	trail, total, err := s.ListChanges(ctx, graph.ChangeQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	want := 1 + len(ents) + len(rels) + len(more)
	if total != want {
		t.Fatalf("the trail holds %d changes, want %d", total, want)
	}
	for _, limit := range []int{7, 1000} {
		got := readLog(t, s, graph.ChangeCursor{}, limit)
		checkOrder(t, got)
		if len(got) != want {
			t.Fatalf("limit %d: the log holds %d changes, the trail %d", limit, len(got), want)
		}
		seen := map[string]int64{}
		for _, c := range got {
			if _, dup := seen[c.Resource]; dup {
				t.Fatalf("limit %d: %s read twice", limit, c.Resource)
			}
			seen[c.Resource] = c.Version
		}
		for _, c := range trail {
			if seen[c.Resource] != c.Version {
				t.Fatalf("limit %d: %s is at version %d in the log, %d in the trail", limit, c.Resource, seen[c.Resource], c.Version)
			}
		}
		last := got[len(got)-1]
		if last.Index != len(more)-1 {
			t.Errorf("limit %d: the load's version holds %d changes, want %d", limit, last.Index+1, len(more))
		}
		// Resumed from each change's token, the rest is what the whole read gave.
		for _, i := range []int{0, len(got) - len(more) - 1, len(got) - len(more) + 3, len(got) - 2} {
			cur, err := graph.ParseChangeToken(graph.After(got[i]).Token())
			if err != nil {
				t.Fatal(err)
			}
			rest := readLog(t, s, cur, limit)
			if len(rest) != len(got)-i-1 || rest[0].Resource != got[i+1].Resource {
				t.Fatalf("limit %d: resumed after change %d, read %d changes starting with %s; want %d starting with %s",
					limit, i, len(rest), rest[0].Resource, len(got)-i-1, got[i+1].Resource)
			}
		}
	}
}

// TestChangeLogRefusesAVersionTooOld: a trail whose first changes were recorded before changes carried
// versions holds the log only after them; a read from before is refused with the oldest version kept.
func TestChangeLogRefusesAVersionTooOld(t *testing.T) {
	s := freshStore(t)
	ctx := context.Background()
	if err := s.UpsertSources(audited(ctx, "UpsertSources"), []graph.Source{{Name: "sources/random", Title: "random", Kind: graph.SourceOther}}); err != nil {
		t.Fatal(err)
	}
	ents, _ := graphtest.RandomGraph(5503, 5, 0)
	if err := s.UpsertEntities(audited(ctx, "UpsertEntities"), ents[:2]); err != nil {
		t.Fatal(err)
	}
	// The first two versions' changes as a trail from before versions: without them.
	if err := dgraph.UnversionChanges(ctx, s, 2); err != nil {
		t.Fatal(err)
	}
	other, err := dgraph.Open(ctx, dgraphCfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.UpsertEntities(audited(ctx, "UpsertEntities"), ents[2:]); err != nil {
		t.Fatal(err)
	}
	_, err = other.ReadChangeLog(ctx, graph.ChangeCursor{Version: 1}, 10)
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Kind != graph.FailedPrecondition || ge.Reason != graph.ReasonVersionTooOld || ge.Metadata["oldest_version"] != "2" {
		t.Fatalf("a read after version 1 gave %v; want FAILED_PRECONDITION %s with oldest_version 2", err, graph.ReasonVersionTooOld)
	}
	got := readLog(t, other, graph.ChangeCursor{Version: 2}, 10)
	if len(got) != 3 || got[0].Version != 3 {
		t.Fatalf("after version 2 the log holds %d changes (first at %d), want the 3 entities at version 3", len(got), got[0].Version)
	}
}
