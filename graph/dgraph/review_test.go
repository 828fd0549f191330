package dgraph_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/polgraph/polgraph/graph"
)

// TestLiveEntitiesListsWhatReadersLinkTo writes more entities than one page of LiveEntities, deletes one
// and merges another, and checks that every live one is listed once, with its names, and no other.
func TestLiveEntitiesListsWhatReadersLinkTo(t *testing.T) {
	ctx := graph.WithWriteMeta(context.Background(), graph.WriteMeta{Principal: "test", Method: "test"})
	var ents []graph.Entity
	for i := range 5003 {
		ents = append(ents, graph.Entity{Name: graph.EntityName(fmt.Sprintf("actors/live-%05d", i)), Kind: graph.KindActor,
			DisplayName: fmt.Sprintf("Live %d", i), Aliases: []string{fmt.Sprintf("L%d", i), fmt.Sprintf("Lv %d", i)}})
	}
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	if _, err := store.DeleteEntity(ctx, "actors/live-00001", "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.MergeEntity(ctx, "actors/live-00002", "actors/live-00003", "test"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := store.Queue().LiveEntities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d live entities in %s", len(got), time.Since(start).Round(time.Millisecond))
	byName := map[graph.EntityName]graph.Entity{}
	for _, e := range got {
		if _, twice := byName[e.Name]; twice {
			t.Errorf("%s is listed twice", e.Name)
		}
		byName[e.Name] = e
	}
	for _, gone := range []graph.EntityName{"actors/live-00001", "actors/live-00002"} {
		if _, ok := byName[gone]; ok {
			t.Errorf("%s is deleted or merged, yet listed", gone)
		}
	}
	for i, e := range ents {
		if i == 1 || i == 2 {
			continue
		}
		got, ok := byName[e.Name]
		if !ok {
			t.Errorf("%s is not listed", e.Name)
			continue
		}
		if i == 3 {
			// The merged entity's names are the kept one's aliases now.
			if !slices.Contains(got.Aliases, "Live 2") {
				t.Errorf("the entity merged into %s lends it no alias: %v", e.Name, got.Aliases)
			}
			continue
		}
		if diff := cmp.Diff(graph.Entity{Name: e.Name, Kind: e.Kind, DisplayName: e.DisplayName, Aliases: e.Aliases},
			graph.Entity{Name: got.Name, Kind: got.Kind, DisplayName: got.DisplayName, Aliases: got.Aliases}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", e.Name, diff)
		}
	}
}
