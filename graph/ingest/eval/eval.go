// Package eval scores what the ingest pipeline proposes against hand annotations
// (data/annotations/README.md): entity recall and precision, relation recall and precision by type,
// denials kept as denials, and readings that must not be proposed.
package eval

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/review"
)

// Annotation is one document read by hand.
type Annotation struct {
	File      string     `json:"-"` // the annotation's file, for messages
	Document  string     `json:"document"`
	Annotator string     `json:"annotator,omitempty"`
	Entities  []Entity   `json:"entities"`
	Relations []Relation `json:"relations"`
	MustNot   []Relation `json:"must_not,omitempty"`
}

// Entity is an annotated entity: its fullest name, kind and the other names the text uses.
type Entity struct {
	Name    string     `json:"name"`
	Kind    graph.Kind `json:"kind"`
	Aliases []string   `json:"aliases,omitempty"`
}

// Relation is an annotated relation; From and To are entity names of the same annotation.
type Relation struct {
	Type    graph.RelationType `json:"type"`
	From    string             `json:"from"`
	To      string             `json:"to"`
	Status  graph.ClaimStatus  `json:"status,omitempty"`
	Excerpt string             `json:"excerpt,omitempty"`
	Note    string             `json:"note,omitempty"`
}

// ReadAnnotations reads every *.json file under dir (recursively), checking each: a problem is reported
// as FILE: FIELD: what is wrong, and every problem of every file is reported.
func ReadAnnotations(dir string) ([]Annotation, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no annotation files (*.json)", dir)
	}
	sort.Strings(files)
	var out []Annotation
	var problems []string
	for _, f := range files {
		a, ps := readAnnotation(f)
		problems = append(problems, ps...)
		out = append(out, a)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("invalid annotations:\n  %s", strings.Join(problems, "\n  "))
	}
	return out, nil
}

func readAnnotation(file string) (Annotation, []string) {
	a := Annotation{File: file}
	b, err := os.ReadFile(file)
	if err != nil {
		return a, []string{err.Error()}
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, []string{fmt.Sprintf("%s: %v", file, err)}
	}
	a.File = file
	var ps []string
	bad := func(field, format string, args ...any) {
		ps = append(ps, fmt.Sprintf("%s: %s: %s", file, field, fmt.Sprintf(format, args...)))
	}
	if a.Document == "" {
		bad("document", "required: the annotated text's path")
	}
	names := map[string]graph.Kind{}
	for i, e := range a.Entities {
		switch {
		case strings.TrimSpace(e.Name) == "":
			bad(fmt.Sprintf("entities[%d].name", i), "required")
		case graph.CollectionOf(e.Kind) == "":
			bad(fmt.Sprintf("entities[%d].kind", i), "%q is not ACTOR, PARTY, SEAT or ORGANISATION", e.Kind)
		case names[e.Name] != "":
			bad(fmt.Sprintf("entities[%d].name", i), "%q is annotated twice", e.Name)
		}
		names[e.Name] = e.Kind
	}
	check := func(field string, rs []Relation) {
		for i, r := range rs {
			at := fmt.Sprintf("%s[%d]", field, i)
			if !r.Type.Valid() {
				bad(at+".type", "%q is not in the vocabulary", r.Type)
			}
			for _, end := range []struct{ field, name string }{{"from", r.From}, {"to", r.To}} {
				if names[end.name] == "" {
					bad(at+"."+end.field, "%q is not an annotated entity", end.name)
				}
			}
			if r.Status != "" && r.Status.Index() < 0 {
				bad(at+".status", "%q is not ALLEGED, REPORTED, CONFIRMED or DENIED", r.Status)
			}
		}
	}
	check("relations", a.Relations)
	check("must_not", a.MustNot)
	return a, ps
}

// Prediction is what the pipeline proposed: entities with every name it used for them, and relations
// between their resource names.
type Prediction struct {
	Entities  []PredictedEntity
	Relations []review.Proposal
}

// PredictedEntity is an entity the pipeline linked a mention to.
type PredictedEntity struct {
	Name  graph.EntityName
	Kind  graph.Kind
	Names []string
}

// Add adds a reading's proposals and entities; known are the graph's entities the reading's proposals
// may name (nil when reading against an empty graph).
func (p *Prediction) Add(r review.Reading, known map[graph.EntityName]graph.Entity) {
	have := map[graph.EntityName]int{}
	for i, e := range p.Entities {
		have[e.Name] = i
	}
	add := func(name graph.EntityName, kind graph.Kind, names []string) {
		if i, ok := have[name]; ok {
			p.Entities[i].Names = append(p.Entities[i].Names, names...)
			return
		}
		have[name] = len(p.Entities)
		p.Entities = append(p.Entities, PredictedEntity{Name: name, Kind: kind, Names: names})
	}
	for _, e := range r.Entities {
		add(e.Name, e.Kind, append([]string{e.DisplayName}, e.Aliases...))
	}
	for _, pr := range r.Proposals {
		for _, n := range []graph.EntityName{pr.From, pr.To} {
			if e, ok := known[n]; ok {
				add(n, e.Kind, append([]string{e.DisplayName}, e.Aliases...))
			}
		}
	}
	// The graph's entities the document names: found too, though there is nothing to propose.
	for _, m := range r.Mentions {
		if e, ok := known[m.Entity]; ok {
			add(m.Entity, e.Kind, append([]string{e.DisplayName}, e.Aliases...))
		}
	}
	p.Relations = append(p.Relations, r.Proposals...)
}

// Report is a score.
type Report struct {
	Documents int
	// Entities: gold entities found, of all gold; predicted entities that are gold, of all predicted.
	EntityFound, EntityGold, EntityCorrect, EntityPredicted int
	// Relations, overall and by type.
	Relation Counts
	ByType   map[graph.RelationType]*Counts
	// ByRule counts, for each rule of the reader (Proposal.Rule), its proposals and those right: a rule
	// that is often wrong can be found and cut.
	ByRule map[string]*Counts
	// Referred counts the proposals an end of which a pronoun or a description stood for (their
	// Resolved notes), and those right: the references measured on their own.
	Referred Counts
	// DenialsKept counts gold denials proposed as DENIED; DenialsGold all gold denials.
	DenialsKept, DenialsGold int
	// DenialsAsSupport are proposals that support what a gold annotation says is denied.
	DenialsAsSupport []string
	// MustNot are proposals of readings an annotation says must not be proposed.
	MustNot []string
	// Missed and Wrong list gold relations not found and proposals that are not gold, for tuning;
	// MissedEntities and WrongEntities the same for entities.
	Missed, Wrong                 []string
	MissedEntities, WrongEntities []string
}

// Counts are relation counts: gold relations found, of all gold; proposals that are gold, of all
// proposals.
type Counts struct{ Found, Gold, Correct, Predicted int }

// Recall is Found/Gold (1 when there is no gold).
func (c Counts) Recall() float64 { return ratio(c.Found, c.Gold) }

// Precision is Correct/Predicted (1 when nothing was predicted).
func (c Counts) Precision() float64 { return ratio(c.Correct, c.Predicted) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// EntityRecall and EntityPrecision are the entity scores.
func (r Report) EntityRecall() float64    { return ratio(r.EntityFound, r.EntityGold) }
func (r Report) EntityPrecision() float64 { return ratio(r.EntityCorrect, r.EntityPredicted) }

// key folds a name for matching: case, accents, punctuation, a leading "the", titles.
func key(s string) string {
	s = strings.ToLower(graph.NormalizeName(s))
	f := strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	for len(f) > 1 && (f[0] == "the" || f[0] == "mr" || f[0] == "mrs" || f[0] == "ms" || f[0] == "dr" || f[0] == "sir" || f[0] == "cllr" || f[0] == "lord" || f[0] == "baroness") {
		f = f[1:]
	}
	return strings.Join(f, " ")
}

// goldEntity is a gold entity of one annotation, with an id unique over all annotations: entities of the
// same name and kind in several annotations are one.
type goldEntity struct {
	id    string
	kind  graph.Kind
	names map[string]bool
}

// Add adds another report's counts to r: scores of several documents.
func (r *Report) Add(o Report) {
	r.Documents += o.Documents
	r.EntityFound += o.EntityFound
	r.EntityGold += o.EntityGold
	r.EntityCorrect += o.EntityCorrect
	r.EntityPredicted += o.EntityPredicted
	r.Relation.add(o.Relation)
	r.Referred.add(o.Referred)
	for t, c := range o.ByType {
		r.countsOf(t).add(*c)
	}
	for rule, c := range o.ByRule {
		r.ruleCounts(rule).add(*c)
	}
	r.DenialsKept += o.DenialsKept
	r.DenialsGold += o.DenialsGold
	r.DenialsAsSupport = append(r.DenialsAsSupport, o.DenialsAsSupport...)
	r.MustNot = append(r.MustNot, o.MustNot...)
	r.Missed = append(r.Missed, o.Missed...)
	r.Wrong = append(r.Wrong, o.Wrong...)
	r.MissedEntities = append(r.MissedEntities, o.MissedEntities...)
	r.WrongEntities = append(r.WrongEntities, o.WrongEntities...)
}

// countsOf is the counts of a relation type, made when missing.
func (r *Report) countsOf(t graph.RelationType) *Counts {
	if r.ByType == nil {
		r.ByType = map[graph.RelationType]*Counts{}
	}
	c := r.ByType[t]
	if c == nil {
		c = &Counts{}
		r.ByType[t] = c
	}
	return c
}

// ruleCounts is the counts of a reader's rule, made when missing.
func (r *Report) ruleCounts(rule string) *Counts {
	if r.ByRule == nil {
		r.ByRule = map[string]*Counts{}
	}
	c := r.ByRule[rule]
	if c == nil {
		c = &Counts{}
		r.ByRule[rule] = c
	}
	return c
}

func (c *Counts) add(o Counts) {
	c.Found += o.Found
	c.Gold += o.Gold
	c.Correct += o.Correct
	c.Predicted += o.Predicted
}

// Score compares predictions with annotations, pooled: entities that share a name and kind in several
// annotations are one. Run scores each document on its own and adds the scores up.
func Score(gold []Annotation, pred Prediction) Report {
	rep := Report{Documents: len(gold), ByType: map[graph.RelationType]*Counts{}}
	// Gold entities, merged across annotations by shared names of the same kind.
	var ents []*goldEntity
	byName := map[string][]*goldEntity{}
	idOf := map[string]map[string]string{} // annotation file → entity name → gold id
	for _, a := range gold {
		idOf[a.File] = map[string]string{}
		for _, e := range a.Entities {
			names := append([]string{e.Name}, e.Aliases...)
			var g *goldEntity
			for _, n := range names {
				for _, x := range byName[key(n)] {
					if x.kind == e.Kind && g == nil && (key(n) == key(e.Name) || len(strings.Fields(key(n))) > 1) {
						g = x
					}
				}
			}
			if g == nil {
				g = &goldEntity{id: e.Name, kind: e.Kind, names: map[string]bool{}}
				ents = append(ents, g)
			}
			for _, n := range names {
				g.names[key(n)] = true
				byName[key(n)] = append(byName[key(n)], g)
			}
			idOf[a.File][e.Name] = g.id
		}
	}
	// Predicted entity → gold entities: same kind and a name in common. Several annotations may name one
	// entity differently ("Respect", "Respect Coalition"): a predicted entity may match each.
	match := map[graph.EntityName][]*goldEntity{}
	found := map[*goldEntity]bool{}
	for _, p := range pred.Entities {
		for _, n := range p.Names {
			for _, g := range byName[key(n)] {
				if g.kind == p.Kind && !slices.Contains(match[p.Name], g) {
					match[p.Name] = append(match[p.Name], g)
				}
			}
		}
		if gs := match[p.Name]; len(gs) > 0 {
			for _, g := range gs {
				found[g] = true
			}
			rep.EntityCorrect++
		} else {
			rep.WrongEntities = append(rep.WrongEntities, fmt.Sprintf("%s %q", p.Name, p.Names))
		}
	}
	for _, g := range ents {
		if !found[g] {
			rep.MissedEntities = append(rep.MissedEntities, fmt.Sprintf("%s %s", g.kind, g.id))
		}
	}
	rep.EntityPredicted = len(pred.Entities)
	rep.EntityGold = len(ents)
	rep.EntityFound = len(found)

	type triple struct {
		typ      graph.RelationType
		from, to string
	}
	norm := func(t graph.RelationType, from, to string) triple {
		if t.Symmetric() && to < from {
			from, to = to, from
		}
		return triple{t, from, to}
	}
	// Gold readings: a relation with its polarity (supported, or denied). One text may do both: supporters
	// say the mayor backs a candidate, the mayor's party denies it.
	type reading struct {
		triple
		denied bool
	}
	denied := func(s graph.ClaimStatus) bool { return s == graph.StatusDenied }
	goldRel := map[reading]graph.ClaimStatus{}
	goldExcerpt := map[reading]string{}
	var goldOrder []reading
	mustNot := map[triple]string{}
	for _, a := range gold {
		for _, r := range a.Relations {
			g := reading{norm(r.Type, idOf[a.File][r.From], idOf[a.File][r.To]), denied(r.Status)}
			if _, ok := goldRel[g]; !ok {
				goldOrder = append(goldOrder, g)
				goldExcerpt[g] = r.Excerpt
			}
			goldRel[g] = r.Status
		}
		for _, r := range a.MustNot {
			mustNot[norm(r.Type, idOf[a.File][r.From], idOf[a.File][r.To])] = a.File + ": " + r.Note
		}
	}
	hit := map[reading]bool{}
	seenPred := map[string]bool{}
	for _, p := range pred.Relations {
		gfs, gts := match[p.From], match[p.To]
		desc := fmt.Sprintf("%s %s → %s [%s] %q", p.Type, p.From, p.To, p.Status, p.Excerpt)
		// The gold reading the proposal's ends may stand for: the first that is gold, else the first.
		var t triple
		var gf, gt *goldEntity
	ends:
		for _, f := range gfs {
			for _, to := range gts {
				if gf == nil {
					gf, gt, t = f, to, norm(p.Type, f.id, to.id)
				}
				if _, ok := goldRel[reading{norm(p.Type, f.id, to.id), denied(p.Status)}]; ok {
					gf, gt, t = f, to, norm(p.Type, f.id, to.id)
					break ends
				}
			}
		}
		// One proposal per (type, ends, polarity) counts: the same reading from several sentences is one.
		dedupe := fmt.Sprint(p.Type, p.From, p.To, denied(p.Status))
		if seenPred[dedupe] {
			continue
		}
		seenPred[dedupe] = true
		c := rep.countsOf(p.Type)
		c.Predicted++
		rule := rep.ruleCounts(p.Rule)
		rule.Predicted++
		rep.Relation.Predicted++
		referred := len(p.Resolved) > 0
		if referred {
			rep.Referred.Predicted++
		}
		g := reading{t, denied(p.Status)}
		_, ok := goldRel[g]
		if gf == nil || gt == nil {
			ok = false
		}
		if ok {
			c.Correct++
			rule.Correct++
			rep.Relation.Correct++
			if referred {
				rep.Referred.Correct++
			}
			hit[g] = true
			continue
		}
		rep.Wrong = append(rep.Wrong, desc)
		if gf == nil || gt == nil {
			continue
		}
		if note, bad := mustNot[t]; bad {
			rep.MustNot = append(rep.MustNot, desc+" ("+note+")")
		}
		if _, deniedInGold := goldRel[reading{t, true}]; deniedInGold && !g.denied {
			rep.DenialsAsSupport = append(rep.DenialsAsSupport, desc)
		}
	}
	for _, g := range goldOrder {
		c := rep.countsOf(g.typ)
		c.Gold++
		rep.Relation.Gold++
		if g.denied {
			rep.DenialsGold++
		}
		if hit[g] {
			c.Found++
			rep.Relation.Found++
			if g.denied {
				rep.DenialsKept++
			}
		} else {
			miss := fmt.Sprintf("%s %s → %s [%s]", g.typ, g.from, g.to, goldRel[g])
			if goldExcerpt[g] != "" {
				miss += fmt.Sprintf(" %q", goldExcerpt[g])
			}
			rep.Missed = append(rep.Missed, miss)
		}
	}
	return rep
}

// Write writes the report as a table for people.
func (r Report) Write(w io.Writer, verbose bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "documents: %d\n", r.Documents)
	fmt.Fprintf(&b, "entities:  recall %.2f (%d/%d)  precision %.2f (%d/%d)\n", r.EntityRecall(), r.EntityFound, r.EntityGold,
		r.EntityPrecision(), r.EntityCorrect, r.EntityPredicted)
	fmt.Fprintf(&b, "relations: recall %.2f (%d/%d)  precision %.2f (%d/%d)\n", r.Relation.Recall(), r.Relation.Found, r.Relation.Gold,
		r.Relation.Precision(), r.Relation.Correct, r.Relation.Predicted)
	fmt.Fprintf(&b, "ends a pronoun or a description stood for: %d proposals, %d right\n", r.Referred.Predicted, r.Referred.Correct)
	fmt.Fprintf(&b, "denials kept as denials: %d/%d; denials proposed as support: %d; must-not readings proposed: %d\n",
		r.DenialsKept, r.DenialsGold, len(r.DenialsAsSupport), len(r.MustNot))
	types := make([]graph.RelationType, 0, len(r.ByType))
	for t := range r.ByType {
		types = append(types, t)
	}
	slices.Sort(types)
	fmt.Fprintf(&b, "%-22s %6s %6s %9s %10s\n", "by type", "gold", "found", "proposed", "correct")
	for _, t := range types {
		c := r.ByType[t]
		fmt.Fprintf(&b, "%-22s %6d %6d %9d %10d\n", t, c.Gold, c.Found, c.Predicted, c.Correct)
	}
	rules := make([]string, 0, len(r.ByRule))
	for rule := range r.ByRule {
		rules = append(rules, rule)
	}
	// The rules that propose most first: where a wrong one costs most.
	slices.SortFunc(rules, func(a, b string) int {
		return cmp.Or(cmp.Compare(r.ByRule[b].Predicted, r.ByRule[a].Predicted), cmp.Compare(a, b))
	})
	fmt.Fprintf(&b, "%-28s %9s %10s %10s\n", "by rule", "proposed", "correct", "precision")
	for _, rule := range rules {
		c := r.ByRule[rule]
		fmt.Fprintf(&b, "%-28s %9d %10d %10.2f\n", rule, c.Predicted, c.Correct, c.Precision())
	}
	if verbose {
		for _, l := range []struct {
			title string
			items []string
		}{{"denials proposed as support", r.DenialsAsSupport}, {"must-not readings proposed", r.MustNot},
			{"entities missed", r.MissedEntities}, {"entities not in the annotations", r.WrongEntities},
			{"missed", r.Missed}, {"not in the annotations", r.Wrong}} {
			if len(l.items) > 0 {
				fmt.Fprintf(&b, "\n%s:\n", l.title)
				for _, it := range l.items {
					fmt.Fprintf(&b, "  %s\n", it)
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
