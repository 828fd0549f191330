package dataset_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/internal/synth"
)

// collector is a Sink that keeps what it is given, as a Dataset.
type collector struct {
	ds    dataset.Dataset
	fail  error // returned from the relation numbered failAt (from 1)
	calls int
}

func (c *collector) WriteSource(s graph.Source) error {
	c.ds.Sources = append(c.ds.Sources, s)
	return nil
}
func (c *collector) WriteEntity(e graph.Entity) error {
	c.ds.Entities = append(c.ds.Entities, e)
	return nil
}
func (c *collector) WriteRelation(r graph.Relation) error {
	c.calls++
	if c.fail != nil && c.calls == 2 {
		return c.fail
	}
	c.ds.Relations = append(c.ds.Relations, r)
	return nil
}

// generate is a generated dataset file of so many relations.
func generate(t *testing.T, relations int, seed uint64) string {
	t.Helper()
	var b bytes.Buffer
	w := dataset.NewWriter(&b, "generated", "")
	if _, err := synth.Generate(synth.Config{Relations: relations, Seed: seed}, synth.Sinks{w}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func one(name, content string) []dataset.File {
	return []dataset.File{{Name: name, R: strings.NewReader(content)}}
}

// Checking files and then reading them again record by record gives exactly what Read returns: every
// record, in file order within its kind, an undated relation dated by a term defined after it included.
func TestEachGivesWhatReadReturns(t *testing.T) {
	t.Parallel()
	lines := strings.Split(strings.TrimSuffix(v2, "\n"), "\n")
	backwards := append([]string{lines[0]}, lines[1:]...)
	slices.Reverse(backwards[1:])
	generated := generate(t, 1500, 5)
	towerHamlets, err := os.ReadFile("../../data/tower-hamlets/tower-hamlets.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"valid.jsonl": file(), "v2.jsonl": v2, "backwards.jsonl": strings.Join(backwards, "\n") + "\n",
		"generated.jsonl": generated, "tower-hamlets.jsonl": string(towerHamlets)} {
		t.Run(name, func(t *testing.T) {
			want, err := dataset.Read(one(name, content))
			if err != nil {
				t.Fatal(err)
			}
			checked, err := dataset.CheckFiles(one(name, content))
			if err != nil {
				t.Fatal(err)
			}
			if checked.Sources != len(want.Sources) || checked.Entities != len(want.Entities) || checked.Relations != len(want.Relations) {
				t.Errorf("CheckFiles counted %d sources, %d entities, %d relations; Read read %d, %d, %d", checked.Sources, checked.Entities,
					checked.Relations, len(want.Sources), len(want.Entities), len(want.Relations))
			}
			var got collector
			if err := checked.Each(one(name, content), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Sources, got.ds.Sources); diff != "" {
				t.Errorf("sources (-Read +Each):\n%s", diff)
			}
			if diff := cmp.Diff(want.Entities, got.ds.Entities); diff != "" {
				t.Errorf("entities (-Read +Each):\n%s", diff)
			}
			if diff := cmp.Diff(want.Relations, got.ds.Relations); diff != "" {
				t.Errorf("relations (-Read +Each):\n%s", diff)
			}
		})
	}
}

// Each stops at the sink's first error and returns it; files that changed since they were checked and
// are no longer valid get the reader's error.
func TestEachStopsAtAProblem(t *testing.T) {
	t.Parallel()
	content := file(`{"record":"relation","type":"ENDORSES","from":"actors/b","to":"actors/a","claims":[{"source":"sources/s","excerpt":"B backs A.","confidence":0.5,"status":"ALLEGED"}]}`)
	checked, err := dataset.CheckFiles(one("f.jsonl", content))
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	sink := &collector{fail: boom}
	if err := checked.Each(one("f.jsonl", content), sink); !errors.Is(err, boom) {
		t.Errorf("Each with a failing sink: %v, want %v", err, boom)
	}
	changed := strings.Replace(content, `"confidence":0.5`, `"confidence":5`, 1)
	err = checked.Each(one("f.jsonl", changed), &collector{})
	if graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), "changed since it was checked") {
		t.Errorf("Each over a changed file: %v", err)
	}
}

// recorder is a bulk graph.Writer that keeps what it is given, checking the stage order a load
// promises: no entity before every source, no relation before every entity.
type recorder struct {
	mu       sync.Mutex
	ds       dataset.Dataset
	want     [3]int // how many sources and entities there are
	outOfRow []string
	ended    bool
}

func (r *recorder) UpsertSources(_ context.Context, xs []graph.Source) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ds.Sources = append(r.ds.Sources, xs...)
	return nil
}
func (r *recorder) UpsertEntities(_ context.Context, xs []graph.Entity) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ds.Sources) != r.want[0] {
		r.outOfRow = append(r.outOfRow, fmt.Sprintf("entities after %d of %d sources", len(r.ds.Sources), r.want[0]))
	}
	r.ds.Entities = append(r.ds.Entities, xs...)
	return nil
}
func (r *recorder) UpsertRelations(_ context.Context, xs []graph.Relation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ds.Entities) != r.want[1] {
		r.outOfRow = append(r.outOfRow, fmt.Sprintf("relations after %d of %d entities", len(r.ds.Entities), r.want[1]))
	}
	r.ds.Relations = append(r.ds.Relations, xs...)
	return nil
}
func (r *recorder) MergedInto(context.Context, []graph.EntityName) (map[graph.EntityName]graph.EntityName, error) {
	return nil, nil
}
func (r *recorder) BeginBulk(context.Context) (graph.Bulk, error) { return r, nil }
func (r *recorder) End(context.Context) error {
	r.mu.Lock()
	r.ended = true
	r.mu.Unlock()
	return nil
}

func sortedByName(ds *dataset.Dataset) {
	slices.SortFunc(ds.Sources, func(a, b graph.Source) int { return strings.Compare(string(a.Name), string(b.Name)) })
	slices.SortFunc(ds.Entities, func(a, b graph.Entity) int { return strings.Compare(string(a.Name), string(b.Name)) })
	slices.SortFunc(ds.Relations, func(a, b graph.Relation) int { return strings.Compare(string(a.Name), string(b.Name)) })
}

// Loading checked files writes exactly what loading Read's dataset writes, stage after stage, whether the
// files hold their records in stage order (one more pass) or not (one pass per stage), in one file or
// spread over several.
func TestCheckedLoadWritesWhatLoadWithWrites(t *testing.T) {
	t.Parallel()
	generated := generate(t, 3000, 7)
	lines := strings.Split(strings.TrimSuffix(generated, "\n"), "\n")
	backwards := append([]string{lines[0]}, lines[1:]...)
	slices.Reverse(backwards[1:])
	// Two files: the first half of the records in one, the second in the other.
	half := len(lines) / 2
	first := strings.Join(lines[:half], "\n") + "\n"
	second := strings.Join(append([]string{lines[0]}, lines[half:]...), "\n") + "\n"
	tests := []struct {
		name    string
		files   func() []dataset.File
		inOrder bool
	}{
		{"generated, in stage order", func() []dataset.File { return one("g.jsonl", generated) }, true},
		{"backwards", func() []dataset.File { return one("b.jsonl", strings.Join(backwards, "\n")+"\n") }, false},
		{"two files, in stage order", func() []dataset.File {
			return []dataset.File{{Name: "1.jsonl", R: strings.NewReader(first)}, {Name: "2.jsonl", R: strings.NewReader(second)}}
		}, true},
		{"two files, the relations' first", func() []dataset.File {
			return []dataset.File{{Name: "2.jsonl", R: strings.NewReader(second)}, {Name: "1.jsonl", R: strings.NewReader(first)}}
		}, false},
		{"the spec's example", func() []dataset.File { return one("v2.jsonl", v2) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ds, err := dataset.Read(tt.files())
			if err != nil {
				t.Fatal(err)
			}
			checked, err := dataset.CheckFiles(tt.files())
			if err != nil {
				t.Fatal(err)
			}
			claims := 0
			for _, r := range ds.Relations {
				claims += len(r.Claims)
			}
			if checked.Claims != claims {
				t.Errorf("CheckFiles counted %d claims; Read read %d", checked.Claims, claims)
			}
			if checked.InStageOrder != tt.inOrder {
				t.Errorf("InStageOrder = %v, want %v", checked.InStageOrder, tt.inOrder)
			}
			counts := [3]int{len(ds.Sources), len(ds.Entities), len(ds.Relations)}
			want := &recorder{want: counts}
			if err := dataset.LoadWith(context.Background(), want, ds, dataset.LoadOptions{Batch: 40}); err != nil {
				t.Fatal(err)
			}
			got := &recorder{want: counts}
			opened := 0
			open := func() ([]dataset.File, func(), error) { opened++; return tt.files(), func() {}, nil }
			if err := checked.Load(context.Background(), got, open, dataset.LoadOptions{Batch: 40}); err != nil {
				t.Fatal(err)
			}
			if wantOpened := map[bool]int{true: 1, false: 3}[tt.inOrder]; opened != wantOpened {
				t.Errorf("the files were read %d times, want %d", opened, wantOpened)
			}
			if len(got.outOfRow) > 0 || !got.ended {
				t.Errorf("stages out of order: %v (ended: %v)", got.outOfRow, got.ended)
			}
			sortedByName(&want.ds)
			sortedByName(&got.ds)
			if diff := cmp.Diff(want.ds, got.ds); diff != "" {
				t.Errorf("written (-LoadWith +Checked.Load):\n%s", diff)
			}
		})
	}
}

// Files that changed since they were checked stop the load with the reader's error, as a LoadError
// saying what was committed before.
func TestCheckedLoadStopsWhenTheFilesChanged(t *testing.T) {
	t.Parallel()
	content := generate(t, 500, 7)
	checked, err := dataset.CheckFiles(one("g.jsonl", content))
	if err != nil {
		t.Fatal(err)
	}
	// The last claim's confidence is now negative.
	i := strings.LastIndex(content, `"confidence":`) + len(`"confidence":`)
	changed := content[:i] + "-" + content[i:]
	for _, inOrder := range []bool{true, false} {
		checked.InStageOrder = inOrder
		rec := &recorder{want: [3]int{checked.Sources, checked.Entities, checked.Relations}}
		err := checked.Load(context.Background(), rec, func() ([]dataset.File, func(), error) { return one("g.jsonl", changed), func() {}, nil },
			dataset.LoadOptions{Batch: 40})
		var le *dataset.LoadError
		if !errors.As(err, &le) || graph.KindOf(err) != graph.Invalid || !strings.Contains(err.Error(), "changed since it was checked") {
			t.Fatalf("in stage order %v: %v, want a LoadError of the reader's problem", inOrder, err)
		}
		if len(rec.ds.Relations) == checked.Relations {
			t.Errorf("in stage order %v: every relation was written", inOrder)
		}
	}
}
