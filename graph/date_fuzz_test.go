package graph_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/polgraph/polgraph/graph"
)

// FuzzParseFuzzyDate: ParseFuzzyDate never panics; a date it reads is the input in its one written form
// (String gives the input back, and that reads as the same date), spans at least a day within its year;
// and an error says the input is not a date, naming it when it is short. The seeds are below and in testdata/fuzz/FuzzParseFuzzyDate.
func FuzzParseFuzzyDate(f *testing.F) {
	for _, s := range []string{"", "2024", "2024-07", "2024-07-04", "2024-02-30", "2024-02-29", "2023-02-29", "0999", "1000",
		"9999-12-31", "2024-13", "2024-00", "2024/07", "２０２４", "2024-7", "2024-07-4", " 2024", "-999", "2024-+1", "0999-01-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := graph.ParseFuzzyDate(s)
		if err != nil {
			// A short input is named whole; a long one may be cut short in the message.
			if !strings.Contains(err.Error(), "is not a date") ||
				(len(s) <= 32 && utf8.ValidString(s) && !strings.Contains(err.Error(), strconv.Quote(s))) {
				t.Fatalf("the error %q does not name the input %q as not a date", err, s)
			}
			if d != (graph.FuzzyDate{}) {
				t.Fatalf("%q: an error with the date %+v", s, d)
			}
			return
		}
		if d.String() != s {
			t.Fatalf("%q reads as %+v, which is written %q", s, d, d.String())
		}
		if back, err := graph.ParseFuzzyDate(d.String()); err != nil || back != d {
			t.Fatalf("%q reads as %+v, written %q, which reads as %+v, %v", s, d, d.String(), back, err)
		}
		if s == "" {
			return
		}
		if d.FirstDay() > d.LastDay() {
			t.Fatalf("%q: first day %d after last day %d", s, d.FirstDay(), d.LastDay())
		}
		year := graph.FuzzyDate{Year: d.Year}
		if d.FirstDay() < year.FirstDay() || d.LastDay() > year.LastDay() {
			t.Fatalf("%q spans days %d-%d, outside its year %d-%d", s, d.FirstDay(), d.LastDay(), year.FirstDay(), year.LastDay())
		}
	})
}
