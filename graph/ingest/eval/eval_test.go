package eval_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/ingest"
	"github.com/polgraph/polgraph/graph/ingest/eval"
	"github.com/polgraph/polgraph/graph/review"
)

func TestScore(t *testing.T) {
	t.Parallel()
	gold := []eval.Annotation{{
		File: "a.json", Document: "a.txt",
		Entities: []eval.Entity{
			{Name: "Lutfur Rahman", Kind: graph.KindActor, Aliases: []string{"Mr Rahman"}},
			{Name: "Ajmal Masroor", Kind: graph.KindActor},
			{Name: "Rabina Khan", Kind: graph.KindActor},
			{Name: "Aspire", Kind: graph.KindParty},
		},
		Relations: []eval.Relation{
			{Type: graph.Endorses, From: "Lutfur Rahman", To: "Ajmal Masroor", Status: graph.StatusDenied},
			{Type: graph.FormerlyWorkedWith, From: "Rabina Khan", To: "Lutfur Rahman", Status: graph.StatusReported},
			{Type: graph.MemberOf, From: "Lutfur Rahman", To: "Aspire", Status: graph.StatusReported},
		},
		MustNot: []eval.Relation{{Type: graph.Founded, From: "Rabina Khan", To: "Aspire", Note: "not said"}},
	}}
	ents := []eval.PredictedEntity{
		{Name: "actors/lutfur-rahman", Kind: graph.KindActor, Names: []string{"Lutfur Rahman"}},
		{Name: "actors/ajmal-mashroor", Kind: graph.KindActor, Names: []string{"Ajmal Mashroor", "Ajmal Masroor"}},
		{Name: "actors/rabina-khan", Kind: graph.KindActor, Names: []string{"Rabina Khan"}},
		{Name: "parties/aspire", Kind: graph.KindOrganisation, Names: []string{"Aspire"}}, // wrong kind
		{Name: "actors/nobody", Kind: graph.KindActor, Names: []string{"Nobody"}},
	}
	p := func(t graph.RelationType, from, to graph.EntityName, s graph.ClaimStatus) review.Proposal {
		return review.Proposal{Type: t, From: from, To: to, Status: s}
	}
	tests := []struct {
		name      string
		proposals []review.Proposal
		check     func(t *testing.T, r eval.Report)
	}{
		{"denial kept, symmetric either way", []review.Proposal{
			p(graph.Endorses, "actors/lutfur-rahman", "actors/ajmal-mashroor", graph.StatusDenied),
			p(graph.FormerlyWorkedWith, "actors/lutfur-rahman", "actors/rabina-khan", graph.StatusReported),
		}, func(t *testing.T, r eval.Report) {
			if r.Relation != (eval.Counts{Found: 2, Gold: 3, Correct: 2, Predicted: 2}) || r.DenialsKept != 1 || r.DenialsGold != 1 || len(r.DenialsAsSupport) != 0 {
				t.Errorf("relations %+v, denials %d/%d, as support %v", r.Relation, r.DenialsKept, r.DenialsGold, r.DenialsAsSupport)
			}
		}},
		{"precision by rule", []review.Proposal{
			{Type: graph.FormerlyWorkedWith, From: "actors/rabina-khan", To: "actors/lutfur-rahman", Status: graph.StatusReported, Rule: "party-name"},
			{Type: graph.Founded, From: "actors/rabina-khan", To: "parties/aspire", Status: graph.StatusReported, Rule: "founded"},
			{Type: graph.Endorses, From: "actors/rabina-khan", To: "actors/lutfur-rahman", Status: graph.StatusReported, Rule: "founded"},
		}, func(t *testing.T, r eval.Report) {
			if got := r.ByRule["party-name"]; got == nil || *got != (eval.Counts{Correct: 1, Predicted: 1}) {
				t.Errorf("party-name: %+v", got)
			}
			if got := r.ByRule["founded"]; got == nil || *got != (eval.Counts{Correct: 0, Predicted: 2}) {
				t.Errorf("founded: %+v", got)
			}
			var b strings.Builder
			if err := r.Write(&b, false); err != nil || !strings.Contains(b.String(), "founded                              2          0       0.00") {
				t.Errorf("the report's rule table:\n%s", b.String())
			}
		}},
		{"denial proposed as support", []review.Proposal{
			p(graph.Endorses, "actors/lutfur-rahman", "actors/ajmal-mashroor", graph.StatusAlleged),
		}, func(t *testing.T, r eval.Report) {
			if len(r.DenialsAsSupport) != 1 || r.Relation.Correct != 0 || r.DenialsKept != 0 {
				t.Errorf("as support %v, correct %d, kept %d", r.DenialsAsSupport, r.Relation.Correct, r.DenialsKept)
			}
		}},
		{"must not, wrong direction, wrong kind, unknown entity, repeats", []review.Proposal{
			p(graph.Founded, "actors/rabina-khan", "parties/aspire", graph.StatusReported),
			p(graph.FormerlyWorkedWith, "actors/rabina-khan", "actors/nobody", graph.StatusReported),
			p(graph.Endorses, "actors/ajmal-mashroor", "actors/lutfur-rahman", graph.StatusDenied),
			p(graph.Endorses, "actors/ajmal-mashroor", "actors/lutfur-rahman", graph.StatusDenied),
		}, func(t *testing.T, r eval.Report) {
			if r.Relation.Predicted != 3 || r.Relation.Correct != 0 || len(r.MustNot) != 0 {
				t.Errorf("relations %+v, must not %v (Aspire was read as an organisation, so no must-not matches)", r.Relation, r.MustNot)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := eval.Score(gold, eval.Prediction{Entities: ents, Relations: tt.proposals})
			if r.EntityGold != 4 || r.EntityFound != 3 || r.EntityPredicted != 5 || r.EntityCorrect != 3 {
				t.Errorf("entities: found %d/%d, correct %d/%d", r.EntityFound, r.EntityGold, r.EntityCorrect, r.EntityPredicted)
			}
			tt.check(t, r)
		})
	}
	asParty := slices.Clone(ents)
	asParty[3].Kind = graph.KindParty
	r := eval.Score(gold, eval.Prediction{Entities: asParty, Relations: []review.Proposal{p(graph.Founded, "actors/rabina-khan", "parties/aspire", graph.StatusDenied)}})
	if len(r.MustNot) != 1 {
		t.Errorf("a must-not reading proposed (at any status) is not reported: %v", r.MustNot)
	}
}

func TestReadAnnotationsNamesProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("a.json", `{"document": "x.txt", "entities": [{"name": "A", "kind": "PERSON"}],
		"relations": [{"type": "LIKES", "from": "A", "to": "B", "status": "MAYBE"}]}`)
	write("b.json", `{"document": "y.txt", "entities": [], "relations": [], "extra": 1}`)
	_, err := eval.ReadAnnotations(dir)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"a.json: entities[0].kind", "a.json: relations[0].type", "a.json: relations[0].to: \"B\"",
		"a.json: relations[0].status", "b.json", "extra"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// The scores on the committed annotations. These are floors: a change that makes reading worse fails
// here; one that makes it better raises them (and the README's table). Relation precision is held to the
// target, 0.85, not to today's figure: recall is bought with it.
func TestCommittedScores(t *testing.T) {
	t.Parallel()
	type floor struct {
		entityRecall, relRecall, relPrecision float64
	}
	check := func(t *testing.T, rep eval.Report, f floor) {
		t.Helper()
		var b strings.Builder
		rep.Write(&b, true)
		t.Log("\n" + b.String())
		if rep.EntityPrecision() < 0.85 {
			t.Errorf("entity precision %.2f, under 0.85", rep.EntityPrecision())
		}
		if rep.EntityRecall() < f.entityRecall || rep.Relation.Recall() < f.relRecall || rep.Relation.Precision() < f.relPrecision {
			t.Errorf("entity recall %.2f (floor %.2f), relation recall %.2f (floor %.2f), relation precision %.2f (floor %.2f)",
				rep.EntityRecall(), f.entityRecall, rep.Relation.Recall(), f.relRecall, rep.Relation.Precision(), f.relPrecision)
		}
		if len(rep.DenialsAsSupport) > 0 || rep.DenialsKept < rep.DenialsGold && rep.DenialsGold == 1 {
			t.Errorf("denials proposed as support: %v; denials kept %d of %d", rep.DenialsAsSupport, rep.DenialsKept, rep.DenialsGold)
		}
		if len(rep.MustNot) > 0 {
			t.Errorf("readings that must not be proposed: %v", rep.MustNot)
		}
	}
	t.Run("bbc", func(t *testing.T) {
		t.Parallel()
		anns, err := eval.ReadAnnotations("../../../data/annotations/bbc")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := eval.Run(anns, "../../../data/annotations/texts", nil)
		if err != nil {
			t.Fatal(err)
		}
		check(t, rep, floor{0.92, 0.54, 0.85})
	})
	t.Run("held out", func(t *testing.T) {
		t.Parallel()
		anns, err := eval.ReadAnnotations("../../../data/annotations/bbc-heldout")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := eval.Run(anns, "../../../data/annotations/texts", nil)
		if err != nil {
			t.Fatal(err)
		}
		check(t, rep, floor{0.94, 0.54, 0.85})
	})
	t.Run("blind", func(t *testing.T) {
		// 30 articles drawn at random and annotated before the reader's output on them was seen; first
		// scored at relation recall 0.18, precision 0.91, entity recall 0.75, precision 0.87.
		t.Parallel()
		anns, err := eval.ReadAnnotations("../../../data/annotations/bbc-blind")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := eval.Run(anns, "../../../data/annotations/texts", nil)
		if err != nil {
			t.Fatal(err)
		}
		check(t, rep, floor{0.9, 0.55, 0.85})
	})
	t.Run("against what the graph knows of 2004–05", func(t *testing.T) {
		// Who held the offices and led the parties then (data/annotations/known): "the prime minister" in
		// an article of 2004–05 is Tony Blair; "the home secretary" is no one (two held it).
		t.Parallel()
		f, err := os.Open("../../../data/annotations/known/uk-2004-05.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ds, err := dataset.Read([]dataset.File{{Name: "uk-2004-05.jsonl", R: f}})
		if err != nil {
			t.Fatal(err)
		}
		within := graph.Period{Start: graph.FuzzyDate{Year: 2004}.FirstDay(), End: graph.FuzzyDate{Year: 2005}.LastDay()}
		for _, set := range []struct {
			dir   string
			floor floor
		}{{"bbc", floor{0.9, 0.56, 0.85}}, {"bbc-heldout", floor{0.92, 0.56, 0.85}}, {"bbc-blind", floor{0.88, 0.58, 0.85}}} {
			anns, err := eval.ReadAnnotations("../../../data/annotations/" + set.dir)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := eval.RunAsOf(anns, "../../../data/annotations/texts", ds.Entities, ingest.HoldingsOf(ds.Relations), within)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(set.dir, func(t *testing.T) { check(t, rep, set.floor) })
			if rep.Referred.Predicted == 0 {
				t.Errorf("%s: no description resolved through the graph", set.dir)
			}
		}
	})
	t.Run("seeds", func(t *testing.T) {
		t.Parallel()
		anns, err := eval.ReadAnnotations("../../../data/annotations/seeds")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := eval.Run(anns, "../../../data/annotations/texts", nil)
		if err != nil {
			t.Fatal(err)
		}
		check(t, rep, floor{0.9, 0.55, 0.85})
	})
	t.Run("seeds against the default graph", func(t *testing.T) {
		t.Parallel()
		f, err := os.Open("../../../data/tower-hamlets/tower-hamlets.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ds, err := dataset.Read([]dataset.File{{Name: "tower-hamlets.jsonl", R: f}})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := eval.Run(eval.FromDataset(ds), "../../../data/annotations/texts/seeds", nil)
		if err != nil {
			t.Fatal(err)
		}
		check(t, rep, floor{0.85, 0.44, 0.85})
		if rep.DenialsKept != 1 {
			t.Errorf("the denial of Lutfur Rahman's support for Ajmal Masroor was not kept as a denial")
		}
	})
}
