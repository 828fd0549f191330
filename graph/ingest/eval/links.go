package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/ingest"
	"github.com/polgraph/polgraph/graph/review"
)

// LinkReport scores how the reader links the names documents use to a graph that already holds every
// entity the annotations know, each under its fullest name only, and for every person a namesake of the
// same family name and another given name (as "Howard Flight" stands beside "Michael Howard"). A mention
// whose text is a name the annotation gives an entity is right when linked to that entity, wrong when
// linked to another of the graph, and a duplicate when linked to an entity proposed anew.
type LinkReport struct {
	Documents int
	// Mentions of annotated entities, and how each was linked.
	Mentions, Right, Wrong, Duplicate int
	// WrongLinks and Duplicates say which, for tuning: "document: mention → entity".
	WrongLinks, Duplicates []string
}

// Precision is Right/(Right+Wrong): of the mentions linked to the graph, those linked to their entity.
// Recall is Right/Mentions. Both are 1 when there is nothing to count.
func (r LinkReport) Precision() float64 { return ratio(r.Right, r.Right+r.Wrong) }
func (r LinkReport) Recall() float64    { return ratio(r.Right, r.Mentions) }

// namesakeGiven are the given names of the namesakes Links adds, the first of another initial than the
// person's.
var namesakeGiven = []string{"Gareth", "Pauline", "Desmond"}

// Links reads every annotated document, its path resolved against root, each on its own with a reader
// over the graph LinkReport describes (entities of one name and kind in several annotations are one), and
// scores the links of its mentions.
func Links(anns []Annotation, root string) (LinkReport, error) {
	known := map[string]graph.Entity{} // by kind and key of the fullest name
	for _, a := range anns {
		for _, e := range a.Entities {
			k := string(e.Kind) + "|" + key(e.Name)
			if _, ok := known[k]; !ok {
				known[k] = graph.Entity{Name: graph.EntityName(graph.CollectionOf(e.Kind) + "/" + graph.TrimSlug(graph.Slugify(e.Name), 80)),
					Kind: e.Kind, DisplayName: e.Name}
			}
		}
	}
	var ents []graph.Entity
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range known {
			if !yield(k) {
				return
			}
		}
	}) {
		e := known[k]
		ents = append(ents, e)
		if words := strings.Fields(e.DisplayName); e.Kind == graph.KindActor && len(words) > 1 {
			given := namesakeGiven[slices.IndexFunc(namesakeGiven, func(g string) bool { return !strings.EqualFold(g[:1], words[0][:1]) })]
			n := given + " " + strings.Join(words[1:], " ")
			ents = append(ents, graph.Entity{Name: graph.EntityName("actors/namesake-" + graph.TrimSlug(graph.Slugify(n), 80)), Kind: graph.KindActor, DisplayName: n})
		}
	}
	var rep LinkReport
	for _, a := range anns {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(a.Document)))
		if err != nil {
			return LinkReport{}, fmt.Errorf("%s: document: %w", a.File, err)
		}
		rd, err := ingest.NewReader(ents).Read(ingest.Input{Path: a.Document, Content: b})
		if err != nil {
			return LinkReport{}, fmt.Errorf("%s: %w", a.File, err)
		}
		rep.Documents++
		// The entity each annotated name of the document means in the graph; a name two entities share
		// is left out.
		means := map[string]graph.EntityName{}
		shared := map[string]bool{}
		for _, e := range a.Entities {
			n := known[string(e.Kind)+"|"+key(e.Name)].Name
			for _, form := range append([]string{e.Name}, e.Aliases...) {
				k := key(form)
				if m, ok := means[k]; ok && m != n {
					shared[k] = true
				}
				means[k] = n
			}
		}
		// A description resolved to its holder ("the chancellor" → Gordon Brown) is two mentions of one
		// span, the post's and the holder's: it names the post, and is scored so.
		postOf := map[review.Span]graph.EntityName{}
		for _, m := range rd.Mentions {
			if want, ok := means[key(m.Text)]; ok && m.Entity == want {
				postOf[m.Span] = want
			}
		}
		for _, m := range rd.Mentions {
			k := key(m.Text)
			want, ok := means[k]
			if !ok || shared[k] {
				continue
			}
			if named, ok := postOf[m.Span]; ok && named != m.Entity {
				continue // the holder a description was resolved to: not this mention's link
			}
			rep.Mentions++
			switch {
			case m.Entity == want:
				rep.Right++
			case m.Proposed:
				rep.Duplicate++
				rep.Duplicates = append(rep.Duplicates, fmt.Sprintf("%s: %q → %s", a.File, m.Text, m.Entity))
			default:
				rep.Wrong++
				rep.WrongLinks = append(rep.WrongLinks, fmt.Sprintf("%s: %q → %s, not %s", a.File, m.Text, m.Entity, want))
			}
		}
	}
	return rep, nil
}
