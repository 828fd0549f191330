package dataset

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
)

func TestInStagesWritesEachRecordOnce(t *testing.T) {
	t.Parallel()
	xs := make([]int, 1003)
	for i := range xs {
		xs[i] = i
	}
	for _, workers := range []int{1, 4} {
		var mu sync.Mutex
		var got []int
		var reported []int
		write := func(_ context.Context, batch []int) error {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, batch...)
			return nil
		}
		progress := func(stage string, done, total int) {
			if stage != "things" || total != len(xs) {
				t.Errorf("progress(%q, %d, %d)", stage, done, total)
			}
			reported = append(reported, done)
		}
		if err := inStages(context.Background(), "things", len(xs), eachOf(xs), 100, workers, write, progress); err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, xs) {
			t.Errorf("%d workers: wrote %d records, want each of %d once", workers, len(got), len(xs))
		}
		if !slices.IsSorted(reported) || reported[len(reported)-1] != len(xs) || len(reported) != 11 {
			t.Errorf("%d workers: progress went %v", workers, reported)
		}
	}
}

func TestInStagesStopsAtTheFirstError(t *testing.T) {
	t.Parallel()
	xs := make([]int, 1000)
	failure := errors.New("the database went away")
	var mu sync.Mutex
	calls := 0
	write := func(_ context.Context, batch []int) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 3 {
			return failure
		}
		return nil
	}
	err := inStages(context.Background(), "things", len(xs), eachOf(xs), 10, 4, write, func(string, int, int) {})
	if !errors.Is(err, failure) {
		t.Fatalf("got %v, want the write's error", err)
	}
	if calls > 3+4 {
		t.Errorf("%d batches were written after the failure; want the load to stop", calls-3)
	}
}

// flakyWriter refuses its first refusals writes as unavailable, then writes; it counts what it wrote.
type flakyWriter struct {
	mu       sync.Mutex
	refusals int
	err      error
	written  map[string]int
}

func (w *flakyWriter) write(stage string, n int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.refusals > 0 {
		w.refusals--
		return w.err
	}
	if w.written == nil {
		w.written = map[string]int{}
	}
	w.written[stage] += n
	return nil
}

func (w *flakyWriter) UpsertSources(_ context.Context, xs []graph.Source) error {
	return w.write("sources", len(xs))
}
func (w *flakyWriter) UpsertEntities(_ context.Context, xs []graph.Entity) error {
	return w.write("entities", len(xs))
}
func (w *flakyWriter) UpsertRelations(_ context.Context, xs []graph.Relation) error {
	return w.write("relations", len(xs))
}
func (w *flakyWriter) MergedInto(context.Context, []graph.EntityName) (map[graph.EntityName]graph.EntityName, error) {
	return nil, nil
}

func TestLoadRetriesTransientRefusalsAndReportsWhatItCommitted(t *testing.T) {
	t.Parallel()
	ds := &Dataset{Sources: make([]graph.Source, 30), Entities: make([]graph.Entity, 50)}
	unavailable := &graph.Error{Kind: graph.Unavailable, Message: "cannot reach Dgraph"}
	tests := []struct {
		name      string
		refusals  int
		err       error
		retryFor  time.Duration
		wantErr   bool
		wantStage []StageCount // when it fails (Done: what the writer committed)
		wantTries int
	}{
		{name: "unavailable, then written", refusals: 3, err: unavailable, retryFor: time.Minute, wantTries: 3},
		{name: "out of time, then written", refusals: 1, err: &graph.Error{Kind: graph.DeadlineExceeded}, retryFor: time.Minute, wantTries: 1},
		{name: "invalid is not retried", refusals: 1, err: &graph.Error{Kind: graph.Invalid, Message: "bad"}, retryFor: time.Minute, wantErr: true,
			wantStage: []StageCount{{Stage: "sources", Total: 30}}},
		{name: "a lapsed hold is not retried", refusals: 1, err: &graph.Error{Kind: graph.Unavailable, Reason: "LOAD_LEASE_LAPSED"}, retryFor: time.Minute, wantErr: true,
			wantStage: []StageCount{{Stage: "sources", Total: 30}}},
		{name: "retries end", refusals: 1000, err: unavailable, retryFor: 600 * time.Millisecond, wantErr: true,
			wantStage: []StageCount{{Stage: "sources", Total: 30}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := &flakyWriter{refusals: tt.refusals, err: tt.err}
			var retries atomic.Int64 // batches are written, and retried, from several goroutines
			err := LoadWith(context.Background(), w, ds, LoadOptions{Batch: 10, RetryFor: tt.retryFor,
				OnRetry: func(string, int, error) { retries.Add(1) }})
			tries := int(retries.Load())
			if tt.wantErr {
				var le *LoadError
				if !errors.As(err, &le) {
					t.Fatalf("got %v, want a LoadError", err)
				}
				// Batches written in parallel may commit while another fails: the report must say
				// exactly what the writer committed, and that is not everything.
				want := slices.Clone(tt.wantStage)
				for i := range want {
					want[i].Done = w.written[want[i].Stage]
					if want[i].Done >= want[i].Total {
						t.Errorf("%s: every record was written although a batch failed", want[i].Stage)
					}
				}
				if diff := cmp.Diff(want, le.Stages); diff != "" {
					t.Errorf("stages (-want +got):\n%s", diff)
				}
				if graph.KindOf(err) != graph.KindOf(tt.err) {
					t.Errorf("kind %v, want the refusal's %v", graph.KindOf(err), graph.KindOf(tt.err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tries != tt.wantTries {
				t.Errorf("%d retries, want %d", tries, tt.wantTries)
			}
			if w.written["sources"] != 30 || w.written["entities"] != 50 {
				t.Errorf("wrote %v, want every record once", w.written)
			}
		})
	}
}

func TestLoadErrorCountsWhatWasCommitted(t *testing.T) {
	t.Parallel()
	ds := &Dataset{Sources: make([]graph.Source, 30), Entities: make([]graph.Entity, 50), Relations: make([]graph.Relation, 40)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The load is cut in the entities stage, after 20 of them were written (one writer: in order).
	err := LoadWith(ctx, &cutWriter{cutAfter: 20, cancel: cancel}, ds, LoadOptions{Batch: 10})
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a LoadError", err)
	}
	want := []StageCount{{Stage: "sources", Done: 30, Total: 30}, {Stage: "entities", Done: 20, Total: 50}}
	// Four writers may have a batch or two in flight when the cut comes: what they committed counts too.
	if le.Stages[1].Done < 20 || le.Stages[1].Done > 40 {
		t.Errorf("entities committed %d, want 20 to 40", le.Stages[1].Done)
	}
	le.Stages[1].Done = 20
	if diff := cmp.Diff(want, le.Stages); diff != "" {
		t.Errorf("stages (-want +got):\n%s", diff)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want the cause, context.Canceled", err)
	}
}

// cutWriter writes sources, then cancels the load once cutAfter entities are written.
type cutWriter struct {
	flakyWriter
	cutAfter int
	cancel   func()
}

func (w *cutWriter) UpsertEntities(ctx context.Context, xs []graph.Entity) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := w.write("entities", len(xs))
	w.mu.Lock()
	if w.written["entities"] >= w.cutAfter {
		w.cancel()
	}
	w.mu.Unlock()
	return err
}
