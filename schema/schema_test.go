package schema

import (
	"slices"
	"strings"
	"testing"
)

func TestPredicatesListsEveryDeclaredPredicate(t *testing.T) {
	preds := Predicates()
	for _, want := range []string{"pg.name", "pg.from", "pg.to", "pg.version", "pg.url", "pq.id", "pq.body"} {
		if !slices.Contains(preds, want) {
			t.Errorf("Predicates() lacks %s: %v", want, preds)
		}
	}
	// Every line that declares a predicate (name, colon, type) is listed once.
	declared := 0
	for _, line := range strings.Split(DQL, "\n") {
		if (strings.HasPrefix(line, "pg.") || strings.HasPrefix(line, "pq.")) && strings.Contains(line, ":") {
			declared++
		}
	}
	if declared != len(preds) || len(slices.Compact(slices.Sorted(slices.Values(preds)))) != len(preds) {
		t.Errorf("%d predicate lines, %d predicates listed: %v", declared, len(preds), preds)
	}
}

func TestReversesListsReversedPredicates(t *testing.T) {
	got := Reverses()
	for _, want := range []string{"pg.from", "pg.to", "pg.via", "pg.claim_of", "pg.source", "pg.said_by"} {
		if !slices.Contains(got, want) {
			t.Errorf("Reverses() lacks %s: %v", want, got)
		}
	}
	if slices.Contains(got, "pg.name") || slices.Contains(got, "pg.merged_into") {
		t.Errorf("Reverses() lists a predicate without @reverse: %v", got)
	}
}
