package dgraph_test

import (
	"context"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
)

// TestViewsAreTrailedAndDumped: each change of a saved view is in the audit trail, under the view's name
// and its author's credential, with what it was and became; a view is a node Dump and TypeCounts (which
// backups are checked by) count, and is counted no more once deleted.
func TestViewsAreTrailedAndDumped(t *testing.T) {
	if _, err := store.Version(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { restoreGraph(t) })
	s := freshStore(t)
	ctx := graph.WithWriteMeta(context.Background(), graph.WriteMeta{Principal: "key alice (keys/0123456789ab)", Aliases: []string{"alice", "keys/0123456789ab"}})
	v, err := s.CreateView(ctx, graph.SavedView{Title: "Trail", Query: "q=1", Notes: []graph.ViewNote{{Target: "actors/a", Text: "a note"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	counts, err := s.TypeCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts.Counts["View"] != 1 {
		t.Errorf("TypeCounts with one view: %v", counts.Counts)
	}
	var dump strings.Builder
	if _, err := s.Dump(ctx, &dump); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dump.String(), `"type":"View"`) || !strings.Contains(dump.String(), `"pg.view_name":"views/trail"`) {
		t.Errorf("the dump holds no view:\n%s", dump.String())
	}
	up, err := s.UpdateView(ctx, graph.SavedView{Name: v.Name, Title: "Trail, again"}, []string{graph.ViewFieldTitle}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteView(ctx, v.Name, ""); err != nil {
		t.Fatal(err)
	}
	changes, total, err := s.ListChanges(context.Background(), graph.ChangeQuery{Resource: "views/trail", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes { // newest first
		got = append(got, c.Action+" "+c.Method+" by "+c.Principal)
	}
	want := []string{"DELETE DeleteView by key alice (keys/0123456789ab)", "UPDATE UpdateView by key alice (keys/0123456789ab)",
		"CREATE CreateView by key alice (keys/0123456789ab)"}
	if total != 3 || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the trail of views/trail (%d): %q; want %q", total, got, want)
	}
	if !strings.Contains(changes[1].Before, `"title":"Trail"`) || !strings.Contains(changes[1].After, `"title":"Trail, again"`) ||
		!strings.Contains(changes[1].After, up.Etag) || !strings.Contains(changes[2].After, `"text":"a note"`) {
		t.Errorf("the update's change: before %s, after %s; the create's after %s", changes[1].Before, changes[1].After, changes[2].After)
	}
	if changes[0].Version != 0 {
		t.Errorf("a view's change is at graph version %d; want none: views are not the graph's", changes[0].Version)
	}
	// By the key's name too, as the trail is searched.
	if _, n, err := s.ListChanges(context.Background(), graph.ChangeQuery{Principal: "alice", Limit: 10}); err != nil || n != 3 {
		t.Errorf("the trail by alice: %d changes, %v; want 3", n, err)
	}
	counts, err = s.TypeCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts.Counts["View"] != 0 {
		t.Errorf("TypeCounts once the view was deleted: %v", counts.Counts)
	}
}
