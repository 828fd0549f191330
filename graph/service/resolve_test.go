package service_test

import (
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/memstore"
	"github.com/polgraph/polgraph/graph/service"
)

// TestResolveByAnotherFormOfTheGivenName: a name no entity has finds the one person called by another
// form of its given name, and says which when several are.
func TestResolveByAnotherFormOfTheGivenName(t *testing.T) {
	ctx := t.Context()
	store := memstore.New()
	ents := []graph.Entity{
		{Name: "actors/kenneth-clarke", Kind: graph.KindActor, DisplayName: "Kenneth Clarke"},
		{Name: "actors/william-smith", Kind: graph.KindActor, DisplayName: "William Smith"},
		{Name: "actors/billy-smith", Kind: graph.KindActor, DisplayName: "Billy Smith"},
		{Name: "organisations/ken-clarke-trust", Kind: graph.KindOrganisation, DisplayName: "Kenny Clarke"},
		{Name: "actors/ken-livingstone", Kind: graph.KindActor, DisplayName: "Ken Livingstone"},
	}
	if err := store.UpsertEntities(ctx, ents); err != nil {
		t.Fatal(err)
	}
	svc := &service.Service{Store: store}
	for _, c := range []struct {
		text   string
		want   graph.EntityName
		reason string
	}{
		{text: "Ken Clarke", want: "actors/kenneth-clarke"},           // the organisation called Kenny Clarke is no person
		{text: "Kenneth Livingstone", want: "actors/ken-livingstone"}, // a long form finds the short one too
		{text: "Ken Livingstone", want: "actors/ken-livingstone"},     // as written first
		{text: "Bill Smith", reason: "AMBIGUOUS_NAME"},                // William Smith and Billy Smith
		{text: "Clarke", reason: "ENTITY_NOT_FOUND"},                  // one word has no given name to swap
		{text: "Ken Cash", reason: "ENTITY_NOT_FOUND"},
	} {
		e, err := svc.Resolve(ctx, "name", c.text)
		var ge *graph.Error
		switch {
		case c.reason == "" && err != nil:
			t.Errorf("Resolve(%q): %v", c.text, err)
		case c.reason == "" && e.Name != c.want:
			t.Errorf("Resolve(%q) = %s, want %s", c.text, e.Name, c.want)
		case c.reason != "" && (!errorAs(err, &ge) || ge.Reason != c.reason):
			t.Errorf("Resolve(%q) = %s, %v; want an error with reason %s", c.text, e.Name, err, c.reason)
		}
	}
}
