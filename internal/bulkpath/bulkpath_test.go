package bulkpath

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/internal/graphtest"
	"github.com/polgraph/polgraph/internal/snapfile"
)

// loaded is a store that holds what a load of N-Quads wrote, nothing since: its feed gives nothing (a fill
// must come from the file), and it says which load and how many nodes.
type loaded struct {
	bulk   string
	counts graph.GraphCounts
}

func (l loaded) Version(context.Context) (int64, error)  { return 1, nil }
func (l loaded) GraphID(context.Context) (string, error) { return "graph-1", nil }
func (l loaded) Bulk(context.Context) (string, graph.GraphCounts, error) {
	return l.bulk, l.counts, nil
}
func (l loaded) Changes(_ context.Context, since int64, _ func(graph.Changed)) (int64, error) {
	if since != 1 {
		panic("the fill asked the store from version 0")
	}
	return 1, nil
}

func readBack(t *testing.T, path string, w Written) graphtest.FeedGraph {
	t.Helper()
	c := w.Checked
	feed := snapfile.New(loaded{w.BulkID, graph.GraphCounts{Sources: c.Sources, Entities: c.Entities, Relations: c.Relations, Claims: c.Claims}}, path,
		slog.New(slog.DiscardHandler))
	defer feed.Close()
	st := graphtest.ReadFeed(t, feed)
	if f := feed.LastFill(); !f.FromFile {
		t.Fatalf("%s was not read back: %s", path, f.Why)
	}
	return st
}

func files(lines ...string) func() ([]dataset.File, func(), error) {
	return func() ([]dataset.File, func(), error) {
		return []dataset.File{{Name: "f.jsonl", R: strings.NewReader(strings.Join(lines, "\n") + "\n")}}, func() {}, nil
	}
}

const (
	header    = `{"record":"dataset","format":"polgraph/v1","name":"t"}`
	source    = `{"record":"source","name":"sources/a","title":"A report","kind":"ARTICLE","published":"2019-05"}`
	entityA   = `{"record":"entity","name":"actors/a","display_name":"A","aliases":["Ay","A."],"valid_from":"1970"}`
	entityB   = `{"record":"entity","name":"parties/b","display_name":"B","valid_to":"2020-03"}`
	relation1 = `{"record":"relation","type":"MEMBER_OF","from":"actors/a","to":"parties/b","valid_from":"2001","claims":[{"source":"sources/a","excerpt":"a \"member\"","confidence":0.9,"status":"REPORTED"},{"source":"sources/a","excerpt":"no","confidence":0.5,"status":"DENIED","key":"k"}]}`
	relation2 = `{"record":"relation","type":"ENDORSES","from":"parties/b","to":"actors/a","claims":[{"source":"sources/a","excerpt":"b backs a","confidence":0.7,"status":"ALLEGED"}]}`
)

// TestFilesInAnyOrderGiveOneSnapshot writes the same records in stage order (one reading, the fill beside
// the N-Quads) and out of it (a reading per stage after the N-Quads'): the N-Quads are as many, and the
// two files read back to the same graph, every record in it.
func TestFilesInAnyOrderGiveOneSnapshot(t *testing.T) {
	dir := t.TempDir()
	var got []graphtest.FeedGraph
	var quads []int64
	for i, open := range []func() ([]dataset.File, func(), error){
		files(header, source, entityA, entityB, relation1, relation2),
		files(header, relation2, entityB, relation1, source, entityA),
	} {
		path := filepath.Join(dir, string(rune('a'+i))+".snapshot")
		var nq bytes.Buffer
		w, err := Write(open, &nq, path)
		if err != nil {
			t.Fatal(err)
		}
		if w.NoSnapshot != "" || w.Checked.InStageOrder != (i == 0) {
			t.Fatalf("files %d: %+v", i, w)
		}
		if w.Quads == 0 || int64(strings.Count(nq.String(), "\n")) != w.Quads || !strings.Contains(nq.String(), `<pg.bulk_id> "`+w.BulkID+`"`) {
			t.Fatalf("files %d: %d N-Quads counted, written:\n%s", i, w.Quads, nq.String())
		}
		quads = append(quads, w.Quads)
		got = append(got, readBack(t, path, w))
	}
	if quads[0] != quads[1] {
		t.Errorf("%d N-Quads in stage order, %d out of it", quads[0], quads[1])
	}
	if diff := cmp.Diff(got[0], got[1], cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("the two files read back differently (-in order +out of order):\n%s", diff)
	}
	st := got[0]
	if len(st.Sources) != 1 || len(st.Entities) != 2 || len(st.Links) != 2 {
		t.Fatalf("read back: %d sources, %d entities, %d relations", len(st.Sources), len(st.Entities), len(st.Links))
	}
	if e := st.Entities["actors/a"]; !slices2Equal(e.Aliases, []string{"Ay", "A."}) || e.ValidFrom.Year != 1970 {
		t.Errorf("actors/a read back as %+v", e)
	}
	for name, h := range st.Headers {
		l := st.Links[name]
		if h.Relation.Name != name || h.ClaimCount != len(h.Relation.Claims) || l.Support != h.Support {
			t.Errorf("relation %s read back as %+v, its link %+v", name, h, l)
		}
		if h.Relation.Type == graph.MemberOf && (len(h.Relation.Claims) != 2 || l.Life.End == graph.OpenPeriod.End) {
			t.Errorf("the membership lost its claims or its end's lifetime: %+v, %+v", h, l)
		}
	}
}

func slices2Equal(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// TestAnEntityWithoutAPackLeavesNoSnapshot: an alias given twice is valid, but Dgraph keeps it once and a
// fill reads such an entity from its predicates, in an order the file cannot know. The N-Quads are
// written whole all the same, and no snapshot file, with the reason.
func TestAnEntityWithoutAPackLeavesNoSnapshot(t *testing.T) {
	twice := strings.Replace(entityA, `["Ay","A."]`, `["Ay","Ay"]`, 1)
	for _, lines := range [][]string{
		{header, source, twice, entityB, relation1, relation2},
		{header, relation1, twice, entityB, source, relation2},
	} {
		path := filepath.Join(t.TempDir(), "graph.snapshot")
		var nq, plain bytes.Buffer
		w, err := Write(files(lines...), &nq, path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(w.NoSnapshot, "entity actors/a is written without a pack") {
			t.Errorf("NoSnapshot: %q", w.NoSnapshot)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("a snapshot file was left: %v", err)
		}
		without, err := Write(files(lines...), &plain, "")
		if err != nil {
			t.Fatal(err)
		}
		if w.Quads != without.Quads || nq.Len() != plain.Len() {
			t.Errorf("%d N-Quads (%d bytes) written beside no snapshot, %d (%d bytes) without one", w.Quads, nq.Len(), without.Quads, plain.Len())
		}
	}
}

// TestInvalidFilesWriteNothing: a file that fails its check writes neither N-Quads nor a snapshot file.
func TestInvalidFilesWriteNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.snapshot")
	var nq bytes.Buffer
	_, err := Write(files(header, source, entityA, relation1), &nq, path)
	if err == nil || !strings.Contains(err.Error(), "parties/b") {
		t.Fatalf("Write of a relation to an unknown entity: %v", err)
	}
	if nq.Len() != 0 {
		t.Errorf("%d bytes of N-Quads written", nq.Len())
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a snapshot file was left: %v", err)
	}
}
