package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/polgraph/polgraph/graph"
)

// asEditor is ctx with the WriteMeta the gRPC adapter gives a call by the key named name.
func asEditor(ctx context.Context, name string) context.Context {
	return graph.WithWriteMeta(ctx, graph.WriteMeta{Principal: "key " + name + " (keys/0123456789ab)", Aliases: []string{name, "keys/0123456789ab"}, Method: "CreateView"})
}

// createView creates a view, failing t when it cannot.
func createView(t *testing.T, s Subject, ctx context.Context, v graph.SavedView, id string) graph.SavedView {
	t.Helper()
	got, err := s.CreateView(ctx, v, id)
	must(t, err)
	return got
}

// viewNames are the names of views, in their order.
func viewNames(vs []graph.SavedView) []graph.ViewName {
	out := []graph.ViewName{}
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return out
}

// testSavedViews: a view created reads back as given, named from its title, credited to its author; an
// update changes the fields its mask names and nothing else, with a new etag; a delete removes it.
func testSavedViews(t *testing.T, s Subject) {
	ctx := asEditor(t.Context(), "alice")
	before := time.Now().Add(-time.Second)
	given := graph.SavedView{Title: "  Labour in 2015 ", Description: "Who stood where.\nAnd why.", Query: "open=actors/lutfur-rahman&asof=2015",
		Notes: []graph.ViewNote{{Target: "actors/lutfur-rahman", Text: "Elected mayor"}, {Target: "relations/lutfur-rahman.founded.aspire", Text: "2014"}},
		Story: "Tower-Hamlets-2015", StoryOrder: 3,
		// What a caller may not set is ignored.
		Name: "views/mine", CreatedBy: "mallory", Etag: "x"}
	v := createView(t, s, ctx, given, "")
	want := graph.SavedView{Name: "views/labour-in-2015", Title: "Labour in 2015", Description: given.Description, Query: given.Query,
		Notes: given.Notes, Story: "tower-hamlets-2015", StoryOrder: 3, CreatedBy: "alice", UpdatedBy: "alice"}
	ignore := cmpopts.IgnoreFields(graph.SavedView{}, "Created", "Updated", "Etag")
	if d := diffWith(want, v, ignore); d != "" {
		t.Errorf("CreateView (-want +got):\n%s", d)
	}
	if v.Created.Before(before) || !v.Updated.Equal(v.Created) || v.Etag == "" {
		t.Errorf("CreateView: created %v, updated %v, etag %q; want now, the same, and an etag", v.Created, v.Updated, v.Etag)
	}
	got, err := s.GetView(t.Context(), v.Name)
	must(t, err)
	diff(t, "GetView after CreateView", v, got)

	// An update of the title and notes leaves the rest; the etag changes.
	bob := asEditor(t.Context(), "bob")
	up, err := s.UpdateView(bob, graph.SavedView{Name: v.Name, Title: "Labour, 2015", Query: "ignored", Notes: []graph.ViewNote{{Target: "parties/labour", Text: "Lost the seat"}}},
		[]string{graph.ViewFieldTitle, graph.ViewFieldNotes}, v.Etag)
	must(t, err)
	want = v
	want.Title, want.Notes, want.UpdatedBy = "Labour, 2015", []graph.ViewNote{{Target: "parties/labour", Text: "Lost the seat"}}, "bob"
	if d := diffWith(want, up, cmpopts.IgnoreFields(graph.SavedView{}, "Updated", "Etag")); d != "" {
		t.Errorf("UpdateView of title and notes (-want +got):\n%s", d)
	}
	if up.Etag == v.Etag || up.Updated.Before(v.Updated) {
		t.Errorf("UpdateView: etag %q (was %q), updated %v (was %v); want a new etag, and no earlier", up.Etag, v.Etag, up.Updated, v.Updated)
	}
	got, err = s.GetView(t.Context(), v.Name)
	must(t, err)
	diff(t, "GetView after UpdateView", up, got)

	// An empty mask sets every field: those left empty are emptied.
	all, err := s.UpdateView(bob, graph.SavedView{Name: v.Name, Title: "Bare", Query: "open=parties/labour"}, nil, "")
	must(t, err)
	want = up
	want.Title, want.Query, want.Description, want.Notes, want.Story, want.StoryOrder = "Bare", "open=parties/labour", "", nil, "", 0
	if d := diffWith(want, all, cmpopts.IgnoreFields(graph.SavedView{}, "Updated", "Etag")); d != "" {
		t.Errorf("UpdateView of every field (-want +got):\n%s", d)
	}
	got, err = s.GetView(t.Context(), v.Name)
	must(t, err)
	diff(t, "GetView after UpdateView of every field", all, got)

	must(t, s.DeleteView(ctx, v.Name, all.Etag))
	if _, err := s.GetView(t.Context(), v.Name); graph.KindOf(err) != graph.NotFound || reasonOf(err) != graph.ReasonViewNotFound {
		t.Errorf("GetView of a deleted view: %v; want NotFound, %s", err, graph.ReasonViewNotFound)
	}
	page, _, err := s.ListViews(t.Context(), graph.ViewQuery{})
	must(t, err)
	diff(t, "ListViews after the only view was deleted", []graph.ViewName{}, viewNames(page))
	for _, op := range []struct {
		name string
		err  error
	}{
		{"UpdateView", func() error {
			_, err := s.UpdateView(ctx, graph.SavedView{Name: v.Name, Title: "x", Query: "x"}, nil, "")
			return err
		}()},
		{"DeleteView", s.DeleteView(ctx, v.Name, "")},
	} {
		if graph.KindOf(op.err) != graph.NotFound {
			t.Errorf("%s of a deleted view: %v; want NotFound", op.name, op.err)
		}
	}
	// Views are not the graph's: it is still empty, at version 0.
	if n := counts(t, s); n != (graph.GraphCounts{}) || version(t, s) != 0 {
		t.Errorf("views changed the graph: counts %+v, version %d", n, version(t, s))
	}
}

// testViewIDs: ids made from titles take -2, -3 … when taken; an id given that is taken is AlreadyExists;
// a title with nothing to make an id of gives "view".
func testViewIDs(t *testing.T, s Subject) {
	ctx := asEditor(t.Context(), "alice")
	v := graph.SavedView{Title: "Aspire's founders", Query: "open=parties/aspire"}
	var got []graph.ViewName
	for range 3 {
		got = append(got, createView(t, s, ctx, v, "").Name)
	}
	got = append(got, createView(t, s, ctx, v, "aspires-founders-4").Name)
	got = append(got, createView(t, s, ctx, v, "").Name)
	got = append(got, createView(t, s, ctx, graph.SavedView{Title: "Сходство", Query: "q=1"}, "").Name)
	diff(t, "names of views made from one title", []graph.ViewName{"views/aspires-founders", "views/aspires-founders-2",
		"views/aspires-founders-3", "views/aspires-founders-4", "views/aspires-founders-5", "views/view"}, got)
	_, err := s.CreateView(ctx, v, "aspires-founders-2")
	if graph.KindOf(err) != graph.AlreadyExists || reasonOf(err) != graph.ReasonViewExists {
		t.Errorf("CreateView under an id taken: %v (kind %v); want AlreadyExists, %s", err, graph.KindOf(err), graph.ReasonViewExists)
	}
	// A deleted view's id is free again.
	must(t, s.DeleteView(ctx, "views/aspires-founders-2", ""))
	diff(t, "the id of a deleted view, made again", graph.ViewName("views/aspires-founders-2"), createView(t, s, ctx, v, "").Name)
}

// testViewEtags: an update or a delete given an etag that is no longer the view's is Aborted and changes
// nothing.
func testViewEtags(t *testing.T, s Subject) {
	ctx := asEditor(t.Context(), "alice")
	v := createView(t, s, ctx, graph.SavedView{Title: "Seats", Query: "open=seats/poplar"}, "seats")
	up, err := s.UpdateView(ctx, graph.SavedView{Name: v.Name, Title: "Seats held"}, []string{graph.ViewFieldTitle}, v.Etag)
	must(t, err)
	_, err = s.UpdateView(ctx, graph.SavedView{Name: v.Name, Title: "Stale"}, []string{graph.ViewFieldTitle}, v.Etag)
	if graph.KindOf(err) != graph.Aborted || reasonOf(err) != graph.ReasonEtagMismatch {
		t.Errorf("UpdateView with a stale etag: %v (kind %v); want Aborted, %s", err, graph.KindOf(err), graph.ReasonEtagMismatch)
	}
	if err := s.DeleteView(ctx, v.Name, v.Etag); graph.KindOf(err) != graph.Aborted {
		t.Errorf("DeleteView with a stale etag: %v (kind %v); want Aborted", err, graph.KindOf(err))
	}
	got, err := s.GetView(t.Context(), v.Name)
	must(t, err)
	diff(t, "the view after refused changes", up, got)
	must(t, s.DeleteView(ctx, v.Name, up.Etag))
}

// testListViews: a story's views in their order (then by title), every view newest first, a page at a
// time, with the story matched whatever its case.
func testListViews(t *testing.T, s Subject) {
	ctx := asEditor(t.Context(), "alice")
	for _, v := range []struct {
		id, title, story string
		order            int32
	}{
		{"a", "Third", "tower-hamlets", 3},
		{"b", "First", "tower-hamlets", 1},
		{"c", "Elsewhere", "", 0},
		{"d", "Second, b", "Tower-Hamlets", 2},
		{"e", "Second, a", "tower-hamlets", 2},
		{"f", "Other story", "hackney", 1},
	} {
		createView(t, s, ctx, graph.SavedView{Title: v.title, Query: "q=" + v.id, Story: v.story, StoryOrder: v.order}, v.id)
		time.Sleep(3 * time.Millisecond) // creation times a millisecond apart at least
	}
	list := func(q graph.ViewQuery) ([]graph.ViewName, int) {
		t.Helper()
		vs, next, err := s.ListViews(t.Context(), q)
		must(t, err)
		return viewNames(vs), next
	}
	story, next := list(graph.ViewQuery{Story: "TOWER-HAMLETS"})
	diff(t, "a story's views", []graph.ViewName{"views/b", "views/e", "views/d", "views/a"}, story)
	diff(t, "next page of a whole story", 0, next)
	newest, _ := list(graph.ViewQuery{})
	diff(t, "every view", []graph.ViewName{"views/f", "views/e", "views/d", "views/c", "views/b", "views/a"}, newest)

	// Paging: pages of 2 give the same views in the same order.
	for _, q := range []graph.ViewQuery{{Story: "tower-hamlets"}, {}} {
		var paged []graph.ViewName
		offset := 0
		for i := 0; ; i++ {
			q.Offset, q.Limit = offset, 2
			page, next := list(q)
			if len(page) > 2 || i > 5 {
				t.Fatalf("ListViews(%+v): %v, next %d", q, page, next)
			}
			paged = append(paged, page...)
			if next == 0 {
				break
			}
			offset = next
		}
		whole, _ := list(graph.ViewQuery{Story: q.Story})
		diff(t, "views read in pages of 2, story "+q.Story, whole, paged)
	}
	none, _ := list(graph.ViewQuery{Story: "no-such-story"})
	diff(t, "a story without views", []graph.ViewName{}, none)
	if _, _, err := s.ListViews(t.Context(), graph.ViewQuery{Story: "not a story"}); fieldOf(err) != "story" {
		t.Errorf("ListViews of a malformed story: %v; want a violation of story", err)
	}
	if _, _, err := s.ListViews(t.Context(), graph.ViewQuery{Limit: 501}); fieldOf(err) != "page_size" {
		t.Errorf("ListViews of 501 a page: %v; want a violation of page_size", err)
	}
}

// fieldOf is the field of err's first violation, or "".
func fieldOf(err error) string {
	var ge *graph.Error
	if errors.As(err, &ge) && ge.Kind == graph.Invalid && len(ge.Violations) > 0 {
		return ge.Violations[0].Field
	}
	return ""
}

// testViewsRefuseBadFields: each bad field of a view is refused as Invalid with a violation naming it,
// by CreateView and UpdateView alike, and nothing is written.
func testViewsRefuseBadFields(t *testing.T, s Subject) {
	ctx := asEditor(t.Context(), "alice")
	good := graph.SavedView{Title: "Good", Query: "open=actors/a"}
	notes := func(ns ...graph.ViewNote) graph.SavedView { g := good; g.Notes = ns; return g }
	with := func(f func(*graph.SavedView)) graph.SavedView { g := good; f(&g); return g }
	many := make([]graph.ViewNote, 201)
	for i := range many {
		many[i] = graph.ViewNote{Target: "actors/a", Text: "x"}
	}
	for _, tc := range []struct {
		name  string
		view  graph.SavedView
		id    string
		field string
	}{
		{"no title", with(func(v *graph.SavedView) { v.Title = "  " }), "", "view.title"},
		{"long title", with(func(v *graph.SavedView) { v.Title = strings.Repeat("é", 201) }), "", "view.title"},
		{"title over lines", with(func(v *graph.SavedView) { v.Title = "a\nb" }), "", "view.title"},
		{"long description", with(func(v *graph.SavedView) { v.Description = strings.Repeat("d", 4001) }), "", "view.description"},
		{"no query", with(func(v *graph.SavedView) { v.Query = "" }), "", "view.query"},
		{"query over lines", with(func(v *graph.SavedView) { v.Query = "open=a\nb" }), "", "view.query"},
		{"query with its ?", with(func(v *graph.SavedView) { v.Query = "?open=a" }), "", "view.query"},
		{"long query", with(func(v *graph.SavedView) { v.Query = strings.Repeat("q", 16385) }), "", "view.query"},
		{"story with a space", with(func(v *graph.SavedView) { v.Story = "tower hamlets" }), "", "view.story"},
		{"long story", with(func(v *graph.SavedView) { v.Story = strings.Repeat("s", 101) }), "", "view.story"},
		{"too many notes", notes(many...), "", "view.notes"},
		{"note on a source", notes(graph.ViewNote{Target: "actors/a", Text: "ok"}, graph.ViewNote{Target: "sources/x", Text: "no"}), "", "view.notes[1].target"},
		{"note on nothing", notes(graph.ViewNote{Text: "no"}), "", "view.notes[0].target"},
		{"note on a bad slug", notes(graph.ViewNote{Target: "actors/Lutfur Rahman", Text: "no"}), "", "view.notes[0].target"},
		{"note without text", notes(graph.ViewNote{Target: "seats/poplar"}), "", "view.notes[0].text"},
		{"long note", notes(graph.ViewNote{Target: "relations/a.founded.b", Text: strings.Repeat("n", 2001)}), "", "view.notes[0].text"},
		{"upper-case id", good, "Mine", "view_id"},
		{"long id", good, strings.Repeat("i", 64), "view_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.CreateView(ctx, tc.view, tc.id)
			if fieldOf(err) != tc.field {
				t.Errorf("CreateView: %v; want Invalid with a violation of %s first", err, tc.field)
			}
		})
	}
	// The same checks on update, and of the mask's fields.
	v := createView(t, s, ctx, good, "good")
	if _, err := s.UpdateView(ctx, graph.SavedView{Name: v.Name, Notes: []graph.ViewNote{{Target: "claims/x", Text: "t"}}}, []string{"notes"}, ""); fieldOf(err) != "view.notes[0].target" {
		t.Errorf("UpdateView with a bad note: %v; want a violation of view.notes[0].target", err)
	}
	if _, err := s.UpdateView(ctx, graph.SavedView{Name: v.Name}, []string{"title", "etag"}, ""); fieldOf(err) != "update_mask.paths[1]" {
		t.Errorf("UpdateView of the etag: %v; want a violation of update_mask.paths[1]", err)
	}
	if _, err := s.GetView(t.Context(), "views/Not An Id"); fieldOf(err) != "name" {
		t.Errorf("GetView of a malformed name: %v; want a violation of name", err)
	}
	got, err := s.GetView(t.Context(), v.Name)
	must(t, err)
	diff(t, "the view after refused updates", v, got)
	page, _, err := s.ListViews(t.Context(), graph.ViewQuery{})
	must(t, err)
	diff(t, "views after refused creates", []graph.ViewName{"views/good"}, viewNames(page))
}

// testConcurrentViews: views created at once from one title all get ids of their own, and concurrent
// updates given the same etag are one applied and the others Aborted.
func testConcurrentViews(t *testing.T, s Subject) {
	ctx := asEditor(t.Context(), "alice")
	const n = 5
	names := make(chan graph.ViewName, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			v, err := s.CreateView(ctx, graph.SavedView{Title: "Race", Query: "q=race"}, "")
			names <- v.Name
			errs <- err
		}()
	}
	var got []graph.ViewName
	for range n {
		must(t, <-errs)
		got = append(got, <-names)
	}
	diff(t, "views created at once", sortedNames[graph.ViewName]("views/race", "views/race-2", "views/race-3", "views/race-4", "views/race-5"), sortedNames(got...))

	v, err := s.GetView(t.Context(), "views/race")
	must(t, err)
	results := make(chan error, n)
	for i := range n {
		go func() {
			_, err := s.UpdateView(ctx, graph.SavedView{Name: v.Name, StoryOrder: int32(i + 1)}, []string{graph.ViewFieldStoryOrder}, v.Etag)
			results <- err
		}()
	}
	applied := 0
	for range n {
		switch err := <-results; {
		case err == nil:
			applied++
		case graph.KindOf(err) != graph.Aborted:
			t.Errorf("a concurrent update: %v; want success or Aborted", err)
		}
	}
	if applied != 1 {
		t.Errorf("%d of %d concurrent updates with one etag applied; want 1", applied, n)
	}
}
