package graph

import (
	_ "embed"
	"strings"
	"sync"
)

//go:embed nicknames/names.csv
var nicknamesCSV string

// hypocorisms maps a normalised given name to the names it is a short form of, or that are short forms of
// it ("kenneth" → ken, kenny, kendrick; "ken" → kenneth): one step only, so "bill" and "will" (both
// William's) are not each other's.
var hypocorisms = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	add := func(a, b string) {
		for _, x := range m[a] {
			if x == b {
				return
			}
		}
		m[a] = append(m[a], b)
	}
	for i, line := range strings.Split(nicknamesCSV, "\n") {
		f := strings.Split(strings.TrimSpace(line), ",")
		if i == 0 || len(f) != 3 || f[1] != "has_nickname" {
			continue
		}
		formal, short := NormalizeName(f[0]), NormalizeName(f[2])
		if formal == "" || short == "" || formal == short || strings.Contains(formal, " ") || strings.Contains(short, " ") {
			continue
		}
		add(formal, short)
		add(short, formal)
	}
	return m
})

// Hypocorisms returns the given names that name (a normalised given name) is a short form of, or that
// are short forms of it; nil for a name with none.
func Hypocorisms(name string) []string { return hypocorisms()[name] }

// GivenNames returns every given name the list holds, formal and short, normalised, in no order.
func GivenNames() []string {
	m := hypocorisms()
	out := make([]string, 0, len(m))
	for name := range m {
		out = append(out, name)
	}
	return out
}

// SameGivenName reports whether two normalised given names are one, or one is a short form of the other.
func SameGivenName(a, b string) bool {
	if a == b {
		return true
	}
	for _, x := range hypocorisms()[a] {
		if x == b {
			return true
		}
	}
	return false
}

// MaxSearchHypocorisms bounds how many short or long forms of one query word a search looks up.
const MaxSearchHypocorisms = 8

// SearchHypocorisms returns the forms of a normalised query word that a search looks up beside it: its
// Hypocorisms, at most MaxSearchHypocorisms of them.
func SearchHypocorisms(word string) []string {
	h := Hypocorisms(word)
	return h[:min(len(h), MaxSearchHypocorisms)]
}
