package ingest

import (
	"slices"
	"testing"
)

// TestPolgraphsRecordIsConsistent: in gazetteer/holders.tsv and opposition.tsv, no two holders of a post
// overlap, and every post is one the gazetteer knows.
func TestPolgraphsRecordIsConsistent(t *testing.T) {
	lx := NewReader(nil).lx
	for post, hs := range shippedHolders {
		if lx.byName[post] == nil {
			t.Errorf("holders.tsv: %s is no post of the gazetteer", post)
		}
		hs = slices.Clone(hs)
		slices.SortFunc(hs, func(a, b Holding) int { return a.Period.Start - b.Period.Start })
		for i := 1; i < len(hs); i++ {
			if hs[i].Period.Start <= hs[i-1].Period.End {
				t.Errorf("holders.tsv: %s: %s and %s overlap", post, hs[i-1].Holder, hs[i].Holder)
			}
		}
	}
	for i, o := range shippedOpposition {
		if lx.byName[o.party] == nil {
			t.Errorf("opposition.tsv: %s is no party of the gazetteer", o.party)
		}
		if i > 0 && o.period.Start <= shippedOpposition[i-1].period.End {
			t.Errorf("opposition.tsv: line %d overlaps the one before", i+1)
		}
	}
	if len(shippedHolders) < 8 || len(shippedOpposition) < 4 {
		t.Errorf("the record is short: %d posts, %d oppositions", len(shippedHolders), len(shippedOpposition))
	}
}
