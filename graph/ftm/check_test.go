package ftm

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/polgraph/polgraph/graph"
)

// invalid lists every way a subgraph breaks the rules of a polgraph dataset (data/FORMAT.md,
// graph/limits.go): an oracle written apart from Read, to hold every record Read makes to.
func invalid(g graph.Subgraph) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	text := func(what, s string, most int, freeText bool) {
		if len(s) > most {
			bad("%s: %d bytes, at most %d", what, len(s), most)
		}
		if i, c := graph.ControlAt(s, freeText); i >= 0 {
			bad("%s: control character %U at byte %d", what, c, i)
		}
		if !utf8.ValidString(s) {
			bad("%s: not UTF-8", what)
		}
	}
	required := func(what, s string) {
		if strings.TrimSpace(s) == "" {
			bad("%s: required", what)
		}
	}
	date := func(what string, d graph.FuzzyDate) {
		if d.IsZero() {
			return
		}
		if back, err := graph.ParseFuzzyDate(d.String()); err != nil || back != d {
			bad("%s: %v is not a date", what, d)
		}
	}
	order := func(what string, from, to graph.FuzzyDate) {
		if !from.IsZero() && !to.IsZero() && to.LastDay() < from.FirstDay() {
			bad("%s: %s is before %s", what, to, from)
		}
	}

	sources := map[graph.SourceName]graph.Source{}
	for _, s := range g.Sources {
		w := "source " + string(s.Name)
		if coll, slug, _ := strings.Cut(string(s.Name), "/"); coll != "sources" || !graph.ValidSlug(slug) {
			bad("%s: not a source name", w)
		}
		if _, ok := sources[s.Name]; ok {
			bad("%s: twice", w)
		}
		sources[s.Name] = s
		required(w+": title", s.Title)
		text(w+": title", s.Title, graph.MaxTitle, true)
		text(w+": outlet", s.Outlet, graph.MaxOutlet, false)
		text(w+": author", s.Author, graph.MaxAuthor, false)
		text(w+": url", s.URL, graph.MaxURL, false)
		text(w+": licence", s.Licence, graph.MaxLicence, false)
		if !slices.Contains([]graph.SourceKind{graph.SourceArticle, graph.SourceSocialPost, graph.SourceDataset, graph.SourceOther}, s.Kind) {
			bad("%s: kind %q", w, s.Kind)
		}
		date(w+": published", s.Published)
		date(w+": retrieved", s.Retrieved)
	}

	kinds := map[graph.EntityName]graph.Kind{}
	slugs := map[string]bool{}
	for _, e := range g.Entities {
		w := "entity " + string(e.Name)
		text(w+": name", string(e.Name), graph.MaxName, false)
		kind, err := graph.ParseEntityName(string(e.Name))
		if err != nil {
			bad("%s: %v", w, err)
		} else if kind != e.Kind {
			bad("%s: kind %s, its name says %s", w, e.Kind, kind)
		}
		if slugs[graph.Slug(e.Name)] {
			bad("%s: slug used twice", w)
		}
		slugs[graph.Slug(e.Name)] = true
		kinds[e.Name] = e.Kind
		required(w+": display_name", e.DisplayName)
		text(w+": display_name", e.DisplayName, graph.MaxDisplayName, false)
		for _, n := range append([]string{e.DisplayName}, e.Aliases...) {
			for _, r := range n {
				if unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d' {
					bad("%s: the name %q holds the invisible character %U", w, n, r)
				}
			}
		}
		if len(e.Aliases) > graph.MaxAliases {
			bad("%s: %d aliases", w, len(e.Aliases))
		}
		for i, a := range e.Aliases {
			required(fmt.Sprintf("%s: aliases[%d]", w, i), a)
			text(fmt.Sprintf("%s: aliases[%d]", w, i), a, graph.MaxAlias, false)
			if a == e.DisplayName || slices.Index(e.Aliases, a) < i {
				bad("%s: alias %q repeats a name", w, a)
			}
		}
		for _, o := range e.Attributes.OtherNames {
			if !slices.Contains(e.Aliases, o.Name) {
				bad("%s: other name %q is not an alias", w, o.Name)
			}
			text(w+": other name note", o.Note, graph.MaxNote, false)
			text(w+": other name lang", o.Lang, graph.MaxLang, false)
		}
		text(w+": description", e.Description, graph.MaxDescription, true)
		if n := e.Identifiers.Count(); n > graph.MaxIdentifiers {
			bad("%s: %d identifiers", w, n)
		}
		for k, vs := range e.Identifiers {
			if len(vs) == 0 {
				bad("%s: identifiers.%s is empty", w, k)
			}
			for i, v := range vs {
				if id, ok := graph.ParseIdentifier(k + ":" + v); !ok || id.Scheme != k {
					bad("%s: identifiers.%s: %q is not scheme:value", w, k, v)
				}
				text(w+": identifiers."+k, v, graph.MaxIdentifierValue, false)
				if slices.Index(vs, v) < i {
					bad("%s: identifiers.%s: %q twice", w, k, v)
				}
			}
		}
		date(w+": valid_from", e.ValidFrom)
		date(w+": valid_to", e.ValidTo)
		order(w+": valid_to", e.ValidFrom, e.ValidTo)
		a := e.Attributes
		date(w+": birth_date", a.BirthDate)
		date(w+": death_date", a.DeathDate)
		order(w+": death_date", a.BirthDate, a.DeathDate)
		if (!a.BirthDate.IsZero() || !a.DeathDate.IsZero() || a.Gender != "") && e.Kind != graph.KindActor {
			bad("%s: only people have births, deaths and genders", w)
		}
		text(w+": gender", a.Gender, graph.MaxGender, false)
		for field, ls := range map[string][]graph.WebLink{"links": a.Links, "images": a.Images} {
			if len(ls) > graph.MaxLinks {
				bad("%s: %d %s", w, len(ls), field)
			}
			for _, l := range ls {
				text(w+": "+field, l.URL, graph.MaxURL, false)
				text(w+": "+field+" note", l.Note, graph.MaxNote, false)
				if u, err := url.Parse(l.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
					bad("%s: %s: %q is not a web address", w, field, l.URL)
				}
			}
		}
		if len(a.ContactDetails) > graph.MaxLinks {
			bad("%s: %d contact details", w, len(a.ContactDetails))
		}
		for _, c := range a.ContactDetails {
			required(w+": contact type", c.Type)
			required(w+": contact value", c.Value)
			text(w+": contact type", c.Type, graph.MaxContactType, false)
			text(w+": contact value", c.Value, graph.MaxContactValue, false)
			text(w+": contact note", c.Note, graph.MaxNote, false)
		}
		if len(graph.RecordJSON(graph.EntityRecord(e))) > graph.MaxRecordBytes {
			bad("%s: the record is longer than a line may be", w)
		}
	}

	names := map[graph.RelationName]bool{}
	for _, r := range g.Relations {
		w := "relation " + string(r.Name)
		if !r.Type.Valid() {
			bad("%s: type %q", w, r.Type)
		}
		fk, ok1 := kinds[r.From]
		tk, ok2 := kinds[r.To]
		if !ok1 || !ok2 {
			bad("%s: an end is not among the entities", w)
		} else if !r.Type.Joins(fk, tk) {
			bad("%s: %s cannot join %s to %s", w, r.Type, fk, tk)
		}
		if r.From == r.To {
			bad("%s: joins an entity to itself", w)
		}
		if r.Type.Symmetric() && r.From > r.To {
			bad("%s: symmetric, but from > to", w)
		}
		key, err := graph.RelationKey(r)
		if err != nil {
			bad("%s: %v", w, err)
		} else if key != "" && !graph.ValidSlug(key) {
			bad("%s: key %q is not a slug", w, key)
		}
		if names[r.Name] {
			bad("%s: named twice", w)
		}
		names[r.Name] = true
		text(w+": role", r.Role, graph.MaxRole, false)
		date(w+": valid_from", r.ValidFrom)
		date(w+": valid_to", r.ValidTo)
		date(w+": date", r.Date)
		order(w+": valid_to", r.ValidFrom, r.ValidTo)
		if !r.Date.IsZero() && (!r.ValidFrom.IsZero() || !r.ValidTo.IsZero()) {
			bad("%s: both an event and a state", w)
		}
		if len(r.Claims) == 0 || len(r.Claims) > graph.MaxClaims {
			bad("%s: %d claims", w, len(r.Claims))
		}
		for i, c := range r.Claims {
			cw := fmt.Sprintf("%s: claims[%d]", w, i)
			if _, ok := sources[c.Source.Name]; !ok {
				bad("%s: source %s is not among the sources", cw, c.Source.Name)
			}
			if _, err := graph.ClaimKey(r.Name, c); err != nil {
				bad("%s: %v", cw, err)
			}
			if strings.TrimSpace(c.Excerpt) == "" && c.Record == "" {
				bad("%s: neither an excerpt nor a record", cw)
			}
			text(cw+": record", c.Record, graph.MaxRecordID, false)
			text(cw+": excerpt", c.Excerpt, len(c.Excerpt), true)
			if n := utf8.RuneCountInString(c.Excerpt); n > graph.MaxExcerpt {
				bad("%s: excerpt of %d characters", cw, n)
			}
			if c.Confidence < 0 || c.Confidence > 1 {
				bad("%s: confidence %g", cw, c.Confidence)
			}
			if c.Status.Index() < 0 {
				bad("%s: status %q", cw, c.Status)
			}
		}
		if _, err := graph.RelationRecord(r); err != nil {
			bad("%s: %v", w, err)
		}
	}
	return out
}
