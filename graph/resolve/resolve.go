// Package resolve decides whether two records name one entity: an organisation by the forms of its name
// ("Conservative", "Conservatives", "The Conservative Party"), a regional branch apart from its party
// ("Scottish Labour Party" is part of Labour, not Labour), and a person by a score of explained features
// (names with the forms of their given names, ids, birth years, kinds). Imports ask it before they merge
// a record with an entity of the graph; what it only proposes, they report.
package resolve

import (
	"fmt"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// OrgKey is the form organisation names are matched in: graph.NormalizeName, "&" read as "and", without
// a leading "the" or a trailing "party", and the last word singular. "The Conservative Party",
// "Conservatives" and "Conservative" have one key; so have "Liberal Democrats" and "Liberal Democrat".
func OrgKey(name string) string {
	words := strings.Fields(graph.NormalizeName(strings.ReplaceAll(name, "&", " and ")))
	if len(words) > 1 && words[0] == "the" {
		words = words[1:]
	}
	if len(words) > 1 && words[len(words)-1] == "party" {
		words = words[:len(words)-1]
	}
	if n := len(words); n > 0 {
		words[n-1] = singular(words[n-1])
	}
	return strings.Join(words, " ")
}

// singular drops the plural ending of an English word, where it has one that a party's name takes
// ("conservatives", "democrats", "greens"); other words are left as they are.
func singular(w string) string {
	switch {
	case len(w) < 5 || strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}

// Called reports whether a name or alias of e has the organisation name key (OrgKey).
func Called(e graph.Entity, key string) bool {
	return slices.ContainsFunc(append([]string{e.DisplayName}, e.Aliases...), func(n string) bool { return OrgKey(n) == key })
}

// OrgVariants returns the names an organisation may be known by in the graph, given one of its names:
// the name itself, with and without "The" and "Party", singular and plural. An entity found by one of
// them is the same organisation only when OrgKey agrees.
func OrgVariants(name string) []string {
	key := OrgKey(name)
	if key == "" {
		return []string{name}
	}
	words := strings.Fields(key)
	last := words[len(words)-1]
	stems := []string{key}
	if plural := strings.Join(append(slices.Clone(words[:len(words)-1]), last+"s"), " "); singular(last+"s") == last {
		stems = append(stems, plural)
	}
	out := []string{name}
	for _, s := range stems {
		for _, v := range []string{s, s + " party", "the " + s, "the " + s + " party"} {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// regions are the words a regional branch's name starts with.
var regions = []string{"scottish", "welsh", "northern irish", "irish", "english", "london", "cornish", "ulster"}

// Branch tells whether an organisation, called name and also others, is the regional branch of a party:
// its name, or one of its other names, is a region's adjective before a name of the party ("Welsh
// Labour"; "Labour" also called "Scottish Labour Party"). It returns the branch's regional name and the
// party's name, as written.
func Branch(name string, others []string) (regional, party string, ok bool) {
	if p, ok := afterRegion(name); ok {
		return name, p, true
	}
	key := OrgKey(name)
	for _, o := range others {
		if p, ok := afterRegion(o); ok && OrgKey(p) == key {
			return o, name, true
		}
	}
	return "", "", false
}

// afterRegion returns what follows a region's adjective at the start of name.
func afterRegion(name string) (string, bool) {
	words := strings.Fields(name)
	norm := strings.Fields(graph.NormalizeName(name))
	if len(words) != len(norm) {
		return "", false // a name whose words normalisation splits or joins: not read as a branch
	}
	for _, r := range regions {
		rw := strings.Fields(r)
		if len(norm) > len(rw) && slices.Equal(norm[:len(rw)], rw) {
			rest := strings.Join(words[len(rw):], " ")
			if OrgKey(rest) == "" || OrgKey(rest) == "party" {
				return "", false
			}
			return rest, true
		}
	}
	return "", false
}

// Decision is what a score decides of two records.
type Decision int

const (
	Apart   Decision = iota // two entities
	Propose                 // perhaps one: a reviewer decides
	Merge                   // one entity
)

func (d Decision) String() string {
	return [...]string{"apart", "propose", "merge"}[d]
}

// Feature is one reason in a score, with its weight (its log-odds, roughly: positive for one entity).
type Feature struct {
	Name   string
	Weight float64
	Why    string
}

// Score is what the features of a pair add up to, and the decision it makes.
type Score struct {
	Total    float64
	Features []Feature
	Decision Decision
}

// String explains a score: its decision, its total and each feature.
func (s Score) String() string {
	parts := make([]string, len(s.Features))
	for i, f := range s.Features {
		parts[i] = fmt.Sprintf("%s %+.1f (%s)", f.Name, f.Weight, f.Why)
	}
	return fmt.Sprintf("%s at %.1f: %s", s.Decision, s.Total, strings.Join(parts, "; "))
}

// Thresholds: a pair scoring MergeAt or more is one entity, ProposeAt or more perhaps one. A name the
// same as written, and nothing against it, merges (as imports always merged a name that one entity of
// the graph has); another form of a given name needs a second reason, such as the same birth year.
const (
	MergeAt   = 4.0
	ProposeAt = 2.0
)

// Weights of the features.
const (
	wSameName       = 4.0
	wGivenNameForm  = 2.5
	wSameInitial    = 1.0
	wOtherName      = -4.0
	wSameBirthYear  = 2.0
	wOtherBirthYear = -8.0
	wSharedID       = 10.0
	wConflictingID  = -10.0
	wOtherKind      = -20.0
)

// ComparePeople scores whether two records of people name one person.
func ComparePeople(a, b graph.Entity) Score {
	var fs []Feature
	add := func(name string, w float64, why string, args ...any) {
		fs = append(fs, Feature{Name: name, Weight: w, Why: fmt.Sprintf(why, args...)})
	}
	if a.Kind != b.Kind {
		add("kind", wOtherKind, "%s and %s", a.Kind, b.Kind)
	}
	switch how := compareNames(a, b); how {
	case "same":
		add("name", wSameName, "the same name")
	case "form":
		add("name", wGivenNameForm, "the same surname, and given names one a form of the other")
	case "close":
		add("name", wGivenNameForm, "names spelt nearly alike")
	case "initial":
		add("name", wSameInitial, "the same surname and initial")
	default:
		add("name", wOtherName, "names that differ")
	}
	if k, conflict := GlobalIDs(a.Identifiers).Conflict(GlobalIDs(b.Identifiers)); conflict {
		add("ids", wConflictingID, "their %s ids differ", k)
	} else if id, ok := sharedID(a.Identifiers, b.Identifiers); ok {
		add("ids", wSharedID, "both hold %s", id)
	}
	if ya, yb := a.Attributes.BirthDate.Year, b.Attributes.BirthDate.Year; ya != 0 && yb != 0 {
		if ya == yb {
			add("born", wSameBirthYear, "both born in %d", ya)
		} else {
			add("born", wOtherBirthYear, "born in %d and in %d", ya, yb)
		}
	}
	return decide(fs)
}

func decide(fs []Feature) Score {
	s := Score{Features: fs}
	for _, f := range fs {
		s.Total += f.Weight
	}
	switch {
	case s.Total >= MergeAt:
		s.Decision = Merge
	case s.Total >= ProposeAt:
		s.Decision = Propose
	}
	return s
}

// compareNames says how the best pair of the two records' names agrees (PersonWords): "same", "form"
// (the same surname, the given names one a form of the other), "close" (spelt nearly alike), "initial"
// (the same surname and first initial), or "".
func compareNames(a, b graph.Entity) string {
	best := ""
	rank := map[string]int{"": 0, "initial": 1, "close": 2, "form": 3, "same": 4}
	for _, x := range append([]string{a.DisplayName}, a.Aliases...) {
		for _, y := range append([]string{b.DisplayName}, b.Aliases...) {
			if h := nameAgreement(x, y); rank[h] > rank[best] {
				best = h
			}
		}
	}
	return best
}

func nameAgreement(x, y string) string {
	wx, wy := PersonWords(x), PersonWords(y)
	if len(wx) == 0 || len(wy) == 0 {
		return ""
	}
	if slices.Equal(wx, wy) {
		return "same"
	}
	if len(wx) < 2 || len(wy) < 2 {
		return ""
	}
	if wx[len(wx)-1] == wy[len(wy)-1] && graph.SameGivenName(wx[0], wy[0]) && slices.Equal(wx[1:], wy[1:]) {
		return "form"
	}
	if len(wx) == len(wy) && closeWords(wx, wy) {
		return "close"
	}
	if wx[len(wx)-1] == wy[len(wy)-1] && wx[0][0] == wy[0][0] {
		return "initial"
	}
	return ""
}

// closeWords reports whether two names of as many words are spelt nearly alike: each word within a
// letter or two of the other's (graph.EditBudget), the surnames within one.
func closeWords(a, b []string) bool {
	for i := range a {
		budget := graph.EditBudget(len([]rune(a[i])))
		if i == len(a)-1 {
			budget = min(budget, 1)
		}
		if graph.EditsWithin([]rune(a[i]), []rune(b[i]), budget) < 0 {
			return false
		}
	}
	return true
}

// honorifics are the words a person's name may start with that are no part of it.
var honorifics = map[string]bool{"mr": true, "mrs": true, "ms": true, "miss": true, "dr": true, "sir": true, "dame": true,
	"rt": true, "hon": true, "right": true, "honourable": true, "prof": true, "professor": true, "cllr": true, "councillor": true, "rev": true}

// PersonWords is a person's name as compared: normalised, its words without the honorifics it starts
// with ("Rt Hon Sir Kenneth Clarke" is kenneth clarke) or the letters after it (qc, mp, msp, obe…).
func PersonWords(name string) []string {
	words := strings.Fields(graph.NormalizeName(name))
	for len(words) > 1 && honorifics[words[0]] {
		words = words[1:]
	}
	for len(words) > 1 && postNominals[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	return words
}

var postNominals = map[string]bool{"mp": true, "msp": true, "am": true, "ms": true, "mla": true, "mep": true, "qc": true, "kc": true,
	"obe": true, "mbe": true, "cbe": true, "kbe": true, "dbe": true, "pc": true}

// FileLocal is the identifier scheme of ids that one file gives its records (Popolo's own ids, kept as
// "popolo": <file>/<id>): they name a record within its file, so two of them never say two entities are
// different.
const FileLocal = "popolo"

// GlobalIDs returns ids without the file-local ones.
func GlobalIDs(ids graph.Identifiers) graph.Identifiers {
	if _, ok := ids[FileLocal]; !ok {
		return ids
	}
	out := ids.Clone()
	delete(out, FileLocal)
	return out
}

func sharedID(a, b graph.Identifiers) (graph.Identifier, bool) {
	for _, id := range GlobalIDs(a).Pairs() {
		if b.Has(id.Scheme, id.Value) {
			return id, true
		}
	}
	return graph.Identifier{}, false
}
