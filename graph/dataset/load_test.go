package dataset

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
)

func TestInBatchesWritesEachRecordOnce(t *testing.T) {
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
		if err := inBatches(context.Background(), "things", xs, 100, workers, write, progress); err != nil {
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

func TestInBatchesStopsAtTheFirstError(t *testing.T) {
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
	err := inBatches(context.Background(), "things", xs, 10, 4, write, func(string, int, int) {})
	if !errors.Is(err, failure) {
		t.Fatalf("got %v, want the write's error", err)
	}
	if calls > 3+4 {
		t.Errorf("%d batches were written after the failure; want the load to stop", calls-3)
	}
}
