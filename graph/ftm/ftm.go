// Package ftm converts between polgraph and FollowTheMoney (FtM), the entity format of Aleph and
// OpenSanctions: Read maps FtM entities, one JSON object per line, to polgraph entities and relations
// with their claims; Write writes a subgraph back as FtM entities. README.md holds the full table.
//
// Entities. Person becomes an actor (actors/…); Organization, Company, LegalEntity and PublicBody become
// organisations (organisations/…), or parties (parties/…) when the entity says it is a political party:
// the topic pol.party, or a classification or legalForm with the word party (partei, parti, partido…);
// Position becomes a seat (seats/…), an office. The slug comes from the entity's first name (from its id
// when the name has no Latin letter or digit); entities whose slugs coincide are told apart by -2, -3…
// in the order of their FtM ids, so that names do not depend on the order of the input. The FtM id is
// kept as the identifier "ftm" (with the ids merged into it, its referents), wikidataId as "wikidata",
// and the other identifier properties under their names in snake case (registrationNumber →
// registration_number). Other names of name, alias, previousName and weakAlias become aliases (noted
// "name", —, "previous name", "weak alias"); summary, description or notes the description; birthDate,
// deathDate and gender the attributes of that name; website, sourceUrl and wikipediaUrl links; email and
// phone contact details; incorporationDate and dissolutionDate (a Position's inceptionDate and
// dissolutionDate) ValidFrom and ValidTo. Every other schema (Address, Vessel, Sanction…) is skipped.
//
// Relations. Membership becomes MEMBER_OF (PART_OF when the member is an organisation), Directorship
// LEADS, Employment MEMBER_OF with the role "employee", Family FAMILY, Associate FORMERLY_WORKED_WITH,
// CAMPAIGNED_WITH or APPEARED_WITH when its relationship says so (README.md lists the words), Occupancy
// HOLDS_OFFICE, a Position's organization PART_OF, and an UnknownLink whose role names a polgraph
// relation type (as Write writes them) that type. startDate and endDate become ValidFrom and ValidTo,
// date Date. Each relation has one claim: REPORTED, with the confidence of Options, citing the dataset
// source, its record the FtM id of the interval (or of the Position). Ownership, Representation,
// Succession and the like are skipped: polgraph's vocabulary has no type for them.
//
// Every record Read makes keeps graph's limits (graph/limits.go): a value too long is cut (a name, a
// description, a role) or dropped (an alias, an id, a link), a value with a control character dropped,
// and each such change, like each record skipped, is a line of the Report, as "file:line: field: why".
package ftm

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// DefaultConfidence is the confidence of a claim when Options gives none.
const DefaultConfidence = 0.9

// Options say what Read cites and how sure it is.
type Options struct {
	// Source is the dataset the entities come from, which every claim cites. Zero fields get defaults
	// from the file name: Name sources/ftm-<file name without extensions>, Title "FollowTheMoney entities
	// from <file name>", Kind DATASET. Outlet is the publisher; URL, Retrieved and Licence are kept as
	// given.
	Source graph.Source
	// Confidence is every claim's confidence, in (0, 1]; 0 means DefaultConfidence.
	Confidence float64
}

// source returns the source Options describe for file, with its defaults, or the problems with it.
func (o Options) source(file string) (graph.Source, error) {
	src := o.Source
	base := filepath.Base(file)
	if src.Name == "" {
		stem := base
		for ext := filepath.Ext(stem); ext != "" && len(ext) < len(stem); ext = filepath.Ext(stem) {
			stem = strings.TrimSuffix(stem, ext)
		}
		slug := slugify("ftm "+stem, maxSlug)
		src.Name = graph.SourceName("sources/" + slug)
	}
	if src.Title == "" {
		src.Title = "FollowTheMoney entities from " + base
	}
	if src.Kind == "" {
		src.Kind = graph.SourceDataset
	}
	var problems graph.Violations
	if coll, slug, _ := strings.Cut(string(src.Name), "/"); coll != "sources" || !graph.ValidSlug(slug) {
		problems.Add("source.name", "%s is not a source name: want sources/<slug>", quote(string(src.Name)))
	}
	switch src.Kind {
	case graph.SourceArticle, graph.SourceSocialPost, graph.SourceDataset, graph.SourceOther:
	default:
		problems.Add("source.kind", "%s is not a source kind (want DATASET)", quote(string(src.Kind)))
	}
	for _, f := range []struct {
		field, value string
		most         int
		freeText     bool
	}{
		{"source.title", src.Title, graph.MaxTitle, true},
		{"source.outlet", src.Outlet, graph.MaxOutlet, false},
		{"source.author", src.Author, graph.MaxAuthor, false},
		{"source.url", src.URL, graph.MaxURL, false},
		{"source.licence", src.Licence, graph.MaxLicence, false},
	} {
		if len(f.value) > f.most {
			problems.Add(f.field, "%d bytes; at most %d", len(f.value), f.most)
		}
		if i, c := graph.ControlAt(f.value, f.freeText); i >= 0 {
			problems.Add(f.field, "contains the control character %s at byte %d", controlName(c), i+1)
		}
	}
	if strings.TrimSpace(src.Title) == "" {
		problems.Add("source.title", "required")
	}
	if err := problems.Err("ftm.Read", "the options name no valid source"); err != nil {
		return graph.Source{}, err
	}
	return src, nil
}

// confidence returns the claims' confidence, or an error when Options give one out of range.
func (o Options) confidence() (float64, error) {
	c := o.Confidence
	switch {
	case c == 0:
		return DefaultConfidence, nil
	case math.IsNaN(c) || c < 0 || c > 1:
		return 0, graph.E("ftm.Read", graph.Invalid, "confidence %g is not in (0, 1]", c)
	}
	return c, nil
}

// Report says what Read made of its input.
type Report struct {
	Read      int // records (non-blank lines) read
	Entities  int // entities made
	Relations int // relations made
	Skipped   int // records skipped, each with a Problem
	// Problems lists every record skipped and every value cut or dropped, in the order of the input.
	Problems []Problem
}

// Problem is one line of a Report.
type Problem struct {
	File    string
	Line    int
	Field   string // the FtM field at fault ("id", "schema", "properties.name"), or ""
	Message string
	Skipped bool // the whole record was skipped
}

// String writes the problem as "file:line: field: message".
func (p Problem) String() string {
	at := fmt.Sprintf("%s:%d", p.File, p.Line)
	if p.Field != "" {
		at += ": " + p.Field
	}
	return at + ": " + p.Message
}

// String writes the counts and then each problem on a line of its own.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d records read: %d entities, %d relations, %d skipped\n", r.Read, r.Entities, r.Relations, r.Skipped)
	for _, p := range r.Problems {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}
