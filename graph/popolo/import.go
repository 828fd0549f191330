package popolo

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/resolve"
)

// Graph is what an import reads of the graph it merges into; *dgraph.Store is one, and so is polgraph's
// API through a client.
type Graph interface {
	// EntitiesByIdentifier returns, for each value of a scheme, the live entities that hold it.
	EntitiesByIdentifier(ctx context.Context, scheme string, values []string) (map[string][]graph.Entity, error)
	// FindByName returns the live entities whose display name or an alias is text, normalised.
	FindByName(ctx context.Context, text string) ([]graph.Entity, error)
	// GetEntities returns the entities with these names that exist, keyed by name.
	GetEntities(ctx context.Context, names []graph.EntityName) (map[graph.EntityName]graph.Entity, error)
}

// NameBatcher finds many names at once (FindByName's answers keyed by the name normalised); an import
// uses it, when its Graph is one, instead of one round trip per record. *dgraph.Store is one.
type NameBatcher interface {
	FindByNames(ctx context.Context, texts []string) (map[string][]graph.Entity, error)
}

// Searcher finds entities by a name spelt nearly alike (Store.Search); an import uses it, when its Graph
// is one, to find the person a name with a typo or an honorific means. *dgraph.Store is one.
type Searcher interface {
	Search(ctx context.Context, q graph.SearchQuery) ([]graph.SearchResult, error)
}

// searchCandidates bounds how many people a near spelling brings for scoring.
const searchCandidates = 5

// Input is one Popolo file to import.
type Input struct {
	Name string // the file's name, for messages and the default source
	File *File
	// Source is the dataset the file's claims cite; zero fields get defaults (SourceFor).
	Source graph.Source
}

// Options tune an import.
type Options struct {
	// Confidence of every claim (default 0.95: a parliament's own list, compiled by a monitor).
	Confidence float64
}

// Report says what an import did with each record: merged with an entity of the graph (and how), created,
// or skipped (and why).
type Report struct {
	// NearDuplicates counts the records not merged with an entity they may be (each has a line).
	NearDuplicates                         int
	Created, Merged, Relations, Duplicates int
	Lines                                  []string // one per merge, skip or truncation, in input order
}

func (r *Report) say(format string, args ...any) {
	r.Lines = append(r.Lines, fmt.Sprintf(format, args...))
}

// SourceFor fills the zero fields of a file's source: named sources/<slug of the file name>-popolo, a
// DATASET titled after the file, published by the hosts of its meta.sources, at the first of them.
func SourceFor(in Input) graph.Source {
	s := in.Source
	base := strings.TrimSuffix(filepath.Base(in.Name), filepath.Ext(in.Name))
	if s.Name == "" {
		slug := graph.Slugify(base)
		if slug == "" {
			slug = "file"
		}
		s.Name = graph.SourceName("sources/" + graph.TrimSlug(slug, 93) + "-popolo")
	}
	if s.Title == "" {
		s.Title = "Popolo data: " + filepath.Base(in.Name)
	}
	s.Kind = graph.SourceDataset
	var sources []string
	if in.File != nil && in.File.Meta != nil {
		sources = in.File.Meta.Sources
	}
	if s.Outlet == "" {
		var hosts []string
		for _, src := range sources {
			if u, err := url.Parse(src); err == nil && u.Host != "" && !slices.Contains(hosts, u.Host) {
				hosts = append(hosts, u.Host)
			}
		}
		s.Outlet = trimBytes(strings.Join(hosts, ", "), graph.MaxOutlet)
	}
	if s.URL == "" && len(sources) > 0 && len(sources[0]) <= graph.MaxURL && !hasControl(sources[0]) {
		s.URL = sources[0]
	}
	return s
}

// Import maps Popolo files to records, merged with what g holds. The records are not checked against
// the dataset format's limits here: write them and read them back (dataset.Read) before loading. It
// returns g's errors, and Invalid for a file whose records contradict each other.
func Import(ctx context.Context, g Graph, inputs []Input, opts Options) (graph.Subgraph, *Report, error) {
	if opts.Confidence == 0 {
		opts.Confidence = 0.95
	}
	im := &importer{g: g, opts: opts, rep: &Report{}, byID: map[graph.Identifier]graph.EntityName{},
		ents: map[graph.EntityName]*graph.Entity{}, taken: map[string]bool{}, rels: map[graph.RelationName]int{}}
	for _, in := range inputs {
		if err := im.file(ctx, in); err != nil {
			return graph.Subgraph{}, nil, err
		}
	}
	out := graph.Subgraph{Sources: im.sources, Relations: im.relations}
	for _, n := range im.order {
		out.Entities = append(out.Entities, *im.ents[n])
	}
	return out, im.rep, nil
}

type importer struct {
	g     Graph
	opts  Options
	rep   *Report
	byID  map[graph.Identifier]graph.EntityName // ids of the entities of this import
	ents  map[graph.EntityName]*graph.Entity
	order []graph.EntityName
	taken map[string]bool           // slugs used or known to be used
	asked map[graph.EntityName]bool // names probe has asked the graph about

	sources   []graph.Source
	relations []graph.Relation
	rels      map[graph.RelationName]int // index in relations
	files     []*fileState
	names     map[string][]graph.Entity // the graph's entities by name normalised, when found in a batch
}

// candidate is a record of the file on its way to an entity.
type candidate struct {
	what   string // persons[3], for messages
	entity graph.Entity
	suffix string // a preferred qualifier when the slug is taken (a birth year)
}

// fileState maps the file's ids to entity names.
type fileState struct {
	in      Input
	dataset string
	source  graph.Source
	person  map[string]graph.EntityName
	org     map[string]graph.EntityName
	orgRec  map[string]Organization
	area    map[string]graph.EntityName
	post    map[string]graph.EntityName
	postRec map[string]Post
	term    map[string]graph.EntityName
	earlier []*fileState // the files of the same import read before this one
}

func (im *importer) file(ctx context.Context, in Input) error {
	f := in.File
	st := &fileState{in: in, source: SourceFor(in), person: map[string]graph.EntityName{}, org: map[string]graph.EntityName{},
		orgRec: map[string]Organization{}, area: map[string]graph.EntityName{}, post: map[string]graph.EntityName{},
		postRec: map[string]Post{}, term: map[string]graph.EntityName{}, earlier: im.files}
	im.files = append(im.files, st)
	st.dataset = graph.Slug(st.source.Name)
	im.sources = append(im.sources, st.source)

	// Organisations first: terms are named after their legislature. A regional branch of a party
	// (resolve.Branch) comes after the others, so that its party is known, whether in the graph or in this
	// file; it becomes an organisation of its own, PART_OF the party.
	var cands []candidate
	var targets []*map[string]graph.EntityName
	var ids []string
	add := func(c candidate, popoloID string, m *map[string]graph.EntityName) {
		cands, targets, ids = append(cands, c), append(targets, m), append(ids, popoloID)
	}
	type branch struct {
		c        candidate
		id       string
		regional string
		party    string
	}
	var branches []branch
	for i, o := range f.Organizations {
		what := fmt.Sprintf("organizations[%d]", i)
		if o.ID == "" || strings.TrimSpace(o.Name) == "" {
			im.rep.say("%s: %s: skipped: an organization needs an id and a name", in.Name, what)
			continue
		}
		st.orgRec[o.ID] = o
		if noParty(o) {
			im.rep.say("%s: %s: skipped: %q stands for no party; memberships on its behalf are kept, without a party", in.Name, what, o.Name)
			continue
		}
		kind := graph.KindOrganisation
		if strings.EqualFold(o.Classification, "party") {
			kind = graph.KindParty
		}
		e := im.entity(st, what, kind, o.ID, o.Name, o.OtherNames, o.Identifiers)
		e.Description = describe(o.Classification, "")
		e.Attributes.Links = im.links(in.Name, what+".links", o.Links)
		e.ValidFrom, e.ValidTo = im.date(in.Name, what+".founding_date", o.FoundingDate), im.date(in.Name, what+".dissolution_date", o.DissolutionDt)
		var others []string
		for _, n := range o.OtherNames {
			others = append(others, n.FullName())
		}
		if regional, party, ok := resolve.Branch(o.Name, others); ok && kind == graph.KindParty {
			branches = append(branches, branch{candidate{what: what, entity: e}, o.ID, regional, party})
			continue
		}
		add(candidate{what: what, entity: e}, o.ID, &st.org)
	}
	if err := im.resolve(ctx, cands, targets, ids); err != nil {
		return err
	}
	cands, targets, ids = nil, nil, nil
	parents := map[string]graph.EntityName{}
	for _, b := range branches {
		parent, err := im.party(ctx, b.party)
		if err != nil {
			return err
		}
		if parent == "" {
			add(b.c, b.id, &st.org) // no party of that name: a party of its own
			continue
		}
		c := b.c
		c.entity.DisplayName = trimBytes(strings.TrimSpace(b.regional), graph.MaxDisplayName)
		c.entity.Aliases = slices.DeleteFunc(c.entity.Aliases, func(a string) bool { return graph.NormalizeName(a) == graph.NormalizeName(b.regional) })
		c.entity.Kind = graph.KindOrganisation
		c.entity.Description = trimBytes("A branch of the "+strings.TrimPrefix(b.party, "the ")+".", graph.MaxDescription)
		if kind, err := im.kindCalled(ctx, b.regional); err != nil {
			return err
		} else if kind != "" {
			c.entity.Kind = kind // the graph holds it already, as a party or an organisation
		}
		im.rep.say("%s: %s: %q is %s, a branch of %s", in.Name, c.what, b.c.entity.DisplayName, c.entity.DisplayName, parent)
		parents[b.id] = parent
		add(c, b.id, &st.org)
	}
	if err := im.resolve(ctx, cands, targets, ids); err != nil {
		return err
	}
	for id, parent := range parents {
		if n := st.org[id]; n != "" && n != parent {
			im.relate(st, graph.Relation{Type: graph.PartOf, From: n, To: parent}, "", "organizations/"+id)
		}
	}
	cands, targets, ids = nil, nil, nil
	for i, p := range f.Persons {
		what := fmt.Sprintf("persons[%d]", i)
		name := strings.TrimSpace(p.Name)
		if name == "" {
			name = strings.TrimSpace(p.GivenName + " " + p.FamilyName)
		}
		if name == "" { // parlparse: the current main name, else the last main one, else any
			for _, o := range p.OtherNames {
				if n := o.FullName(); n != "" && (name == "" || strings.EqualFold(o.Note, "main") && o.EndDate == "") {
					name = n
				}
			}
		}
		if name == "" {
			name = strings.TrimSpace(p.SortName)
		}
		if p.ID == "" || name == "" {
			im.rep.say("%s: %s: skipped: a person needs an id and a name", in.Name, what)
			continue
		}
		e := im.entity(st, what, graph.KindActor, p.ID, name, p.OtherNames, p.Identifiers)
		e.Description = trimBytes(strings.TrimSpace(p.Summary), graph.MaxDescription)
		a := &e.Attributes
		a.BirthDate, a.DeathDate = im.date(in.Name, what+".birth_date", p.BirthDate), im.date(in.Name, what+".death_date", p.DeathDate)
		a.Gender = trimBytes(p.Gender, graph.MaxGender)
		a.Links = im.links(in.Name, what+".links", p.Links)
		images := p.Images
		if p.Image != "" && !slices.ContainsFunc(images, func(l Link) bool { return l.URL == p.Image }) {
			images = append([]Link{{URL: p.Image}}, images...)
		}
		a.Images = im.links(in.Name, what+".images", images)
		contacts := p.ContactDetails
		if p.Email != "" && !slices.ContainsFunc(contacts, func(c ContactDetail) bool { return c.Value == p.Email }) {
			contacts = append([]ContactDetail{{Type: "email", Value: p.Email}}, contacts...)
		}
		for j, c := range contacts {
			note := c.Note
			if note == "" {
				note = c.Label
			}
			switch {
			case strings.TrimSpace(c.Type) == "" || strings.TrimSpace(c.Value) == "" || len(c.Type) > graph.MaxContactType || len(c.Value) > graph.MaxContactValue:
				im.rep.say("%s: %s.contact_details[%d]: left out: a contact needs a type and a value within polgraph's limits", in.Name, what, j)
			case len(a.ContactDetails) >= graph.MaxLinks:
				im.rep.say("%s: %s.contact_details[%d]: left out: more than %d", in.Name, what, j, graph.MaxLinks)
			default:
				a.ContactDetails = append(a.ContactDetails, graph.ContactDetail{Type: trimBytes(c.Type, graph.MaxContactType),
					Value: trimBytes(c.Value, graph.MaxContactValue), Note: trimBytes(note, graph.MaxNote)})
			}
		}
		suffix := ""
		if !a.BirthDate.IsZero() {
			suffix = strconv.Itoa(a.BirthDate.Year)
		}
		add(candidate{what: what, entity: e, suffix: suffix}, p.ID, &st.person)
	}
	for i, ar := range f.Areas {
		what := fmt.Sprintf("areas[%d]", i)
		if ar.ID == "" || strings.TrimSpace(ar.Name) == "" {
			im.rep.say("%s: %s: skipped: an area needs an id and a name", in.Name, what)
			continue
		}
		e := im.entity(st, what, graph.KindSeat, ar.ID, ar.Name, nil, ar.Identifiers)
		e.Description = describe(ar.Type, "")
		add(candidate{what: what, entity: e}, ar.ID, &st.area)
	}
	for i, p := range f.Posts {
		what := fmt.Sprintf("posts[%d]", i)
		label := strings.TrimSpace(p.Label)
		if label == "" {
			label = strings.TrimSpace(p.Role)
		}
		if p.ID == "" || label == "" {
			im.rep.say("%s: %s: skipped: a post needs an id and a label", in.Name, what)
			continue
		}
		st.postRec[p.ID] = p
		e := im.entity(st, what, graph.KindSeat, p.ID, label, nil, p.Identifiers)
		e.Description = describe("office", st.orgName(p.OrganizationID))
		e.ValidFrom, e.ValidTo = im.date(in.Name, what+".start_date", p.StartDate), im.date(in.Name, what+".end_date", p.EndDate)
		add(candidate{what: what, entity: e}, p.ID, &st.post)
	}
	for i, ev := range f.Events {
		what := fmt.Sprintf("events[%d]", i)
		if !strings.EqualFold(ev.Classification, "legislative period") && !strings.HasPrefix(ev.ID, "term/") {
			im.rep.say("%s: %s: skipped: only legislative periods are imported (this is %q)", in.Name, what, ev.Classification)
			continue
		}
		if ev.ID == "" {
			im.rep.say("%s: %s: skipped: a legislative period needs an id", in.Name, what)
			continue
		}
		body := st.orgName(ev.OrganizationID)
		display := strings.TrimSpace(ev.Name)
		if display == "" {
			display = ev.ID
		}
		if body != "" && !strings.Contains(display, body) {
			display = body + ", " + display
		}
		e := im.entity(st, what, graph.KindOrganisation, ev.ID, display, nil, nil)
		e.Description = describe("legislative period", body)
		e.ValidFrom, e.ValidTo = im.date(in.Name, what+".start_date", ev.StartDate), im.date(in.Name, what+".end_date", ev.EndDate)
		prefix := ""
		if n, ok := st.org[ev.OrganizationID]; ok {
			prefix = graph.Slug(n) + "-"
		}
		c := candidate{what: what, entity: e}
		c.entity.Name = graph.EntityName("organisations/" + graph.TrimSlug(prefix+graph.Slugify(ev.ID), 90))
		add(c, ev.ID, &st.term)
	}
	if err := im.resolve(ctx, cands, targets, ids); err != nil {
		return err
	}
	im.structure(st)
	im.memberships(st)
	return nil
}

// orgsCalled returns the live parties and organisations of the graph that name names in one of its forms
// (resolve.OrgVariants, each found by FindByName), each once.
func (im *importer) orgsCalled(ctx context.Context, name string) ([]graph.Entity, error) {
	key := resolve.OrgKey(name)
	var out []graph.Entity
	seen := map[graph.EntityName]bool{}
	for _, v := range resolve.OrgVariants(name) {
		found, err := im.findByName(ctx, v)
		if err != nil {
			return nil, err
		}
		for _, e := range found {
			if (e.Kind == graph.KindParty || e.Kind == graph.KindOrganisation) && e.Deleted.IsZero() && !seen[e.Name] && resolve.Called(e, key) {
				seen[e.Name] = true
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// party returns the one party, of this import or of the graph, that name names (resolve.OrgKey), or "".
func (im *importer) party(ctx context.Context, name string) (graph.EntityName, error) {
	key := resolve.OrgKey(name)
	found := map[graph.EntityName]graph.Entity{}
	for n, e := range im.ents {
		if e.Kind == graph.KindParty && e.Deleted.IsZero() && resolve.Called(*e, key) {
			found[n] = *e
		}
	}
	es, err := im.orgsCalled(ctx, name)
	if err != nil {
		return "", err
	}
	for _, e := range es {
		if e.Kind == graph.KindParty {
			found[e.Name] = e
		}
	}
	if len(found) != 1 {
		return "", nil
	}
	for n, e := range found {
		if _, ok := im.ents[n]; !ok { // the graph's: the import names it, so it carries it
			im.ents[n] = &e
			im.order = append(im.order, n)
		}
		return n, nil
	}
	return "", nil
}

// kindCalled returns the kind of the one party or organisation of the graph that name names
// (resolve.OrgKey), or "".
func (im *importer) kindCalled(ctx context.Context, name string) (graph.Kind, error) {
	es, err := im.orgsCalled(ctx, name)
	if err != nil || len(es) != 1 {
		return "", err
	}
	return es[0].Kind, nil
}

// noParty reports whether an organization stands for having no party.
func noParty(o Organization) bool {
	switch strings.ToLower(strings.TrimSpace(o.ID)) {
	case "none", "unknown", "independent", "ind":
		return true
	}
	switch strings.ToLower(strings.TrimSpace(o.Name)) {
	case "none", "unknown", "independent", "non-affiliated", "no party":
		return true
	}
	return false
}

func (st *fileState) orgName(id string) string {
	if o, ok := st.orgRec[id]; ok {
		return o.Name
	}
	return ""
}

func describe(what, of string) string {
	what = strings.TrimSpace(what)
	if what == "" {
		return ""
	}
	if of != "" {
		return trimBytes(strings.ToUpper(what[:1])+what[1:]+" of the "+of+".", graph.MaxDescription)
	}
	return trimBytes(strings.ToUpper(what[:1])+what[1:]+".", graph.MaxDescription)
}

// entity makes the entity a record stands for, before it is named.
func (im *importer) entity(st *fileState, what string, kind graph.Kind, id, name string, others []OtherName, ids []Identifier) graph.Entity {
	e := graph.Entity{Kind: kind, DisplayName: trimBytes(strings.TrimSpace(name), graph.MaxDisplayName)}
	if e.DisplayName == "" {
		e.DisplayName = trimBytes(id, graph.MaxDisplayName) // a name of nothing but control characters
	}
	if e.DisplayName == "" {
		e.DisplayName = "(no name)"
	}
	own := idOf(st.dataset, id)
	e.Identifiers.Add(own.Scheme, trimBytes(own.Value, graph.MaxIdentifierValue))
	for j, x := range ids {
		scheme, value := schemeOf(x.Scheme), strings.TrimSpace(x.Identifier)
		switch {
		case scheme == "" || value == "" || len(scheme) > graph.MaxIdentifierKey || len(value) > graph.MaxIdentifierValue || hasControl(value):
			im.rep.say("%s: %s.identifiers[%d]: left out: an id needs a scheme and a value within polgraph's limits", st.in.Name, what, j)
		case scheme == "ocd" && !strings.HasPrefix(value, "ocd-division/"):
			im.rep.say("%s: %s.identifiers[%d]: left out: %q is not an Open Civic Data division id", st.in.Name, what, j, value)
		case e.Identifiers.Count() >= graph.MaxIdentifiers && !e.Identifiers.Has(scheme, value):
			im.rep.say("%s: %s.identifiers[%d]: left out: more than %d ids", st.in.Name, what, j, graph.MaxIdentifiers)
		default:
			e.Identifiers.Add(scheme, value)
		}
	}
	seen := map[string]bool{e.DisplayName: true}
	for j, o := range others {
		n := o.FullName()
		key := n // spellings that differ only in case are kept: the source wrote them
		switch {
		case n == "" || seen[key]:
			continue // the name itself in another language, or a repeat
		case len(n) > graph.MaxAlias || graph.NameProblem(n) != "":
			im.rep.say("%s: %s.other_names[%d]: left out: longer than %d bytes or holding a control or invisible character", st.in.Name, what, j, graph.MaxAlias)
			continue
		case len(e.Aliases) >= graph.MaxAliases:
			im.rep.say("%s: %s.other_names[%d]: left out: more than %d names", st.in.Name, what, j, graph.MaxAliases)
			continue
		}
		seen[key] = true
		e.Aliases = append(e.Aliases, n)
		lang := o.Lang
		if !graph.ValidLang(lang) {
			lang = ""
		}
		if lang != "" || o.Note != "" {
			e.Attributes.OtherNames = append(e.Attributes.OtherNames, graph.Alias{Name: n, Lang: lang, Note: trimBytes(o.Note, graph.MaxNote)})
		}
	}
	return e
}

func hasControl(s string) bool { i, _ := graph.ControlAt(s, false); return i >= 0 }

func (im *importer) links(file, what string, ls []Link) []graph.WebLink {
	var out []graph.WebLink
	for j, l := range ls {
		switch {
		case strings.TrimSpace(l.URL) == "" || len(l.URL) > graph.MaxURL || hasControl(l.URL):
			im.rep.say("%s: %s[%d]: left out: no address, or one longer than %d bytes", file, what, j, graph.MaxURL)
		case slices.ContainsFunc(out, func(w graph.WebLink) bool { return w.URL == l.URL }):
		case len(out) >= graph.MaxLinks:
			im.rep.say("%s: %s[%d]: left out: more than %d", file, what, j, graph.MaxLinks)
		default:
			out = append(out, graph.WebLink{URL: l.URL, Note: trimBytes(l.Note, graph.MaxNote)})
		}
	}
	return out
}

func (im *importer) date(file, what, s string) graph.FuzzyDate {
	s = strings.TrimSpace(s)
	if s == "" {
		return graph.FuzzyDate{}
	}
	if len(s) > 10 { // a timestamp: its day
		s = s[:10]
	}
	d, err := graph.ParseFuzzyDate(s)
	if err != nil {
		im.rep.say("%s: %s: left out: %v", file, what, err)
		return graph.FuzzyDate{}
	}
	return d
}

// trimBytes makes s fit a field of at most n bytes on one line: control characters (line breaks, tabs,
// NUL) become spaces, runs of spaces one, and it is cut at a character boundary.
func trimBytes(s string, n int) string {
	if i, _ := graph.ControlAt(s, false); i >= 0 || strings.Contains(s, "  ") {
		s = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == utf8.RuneError {
				return ' '
			}
			return r
		}, s)), " ")
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// resolve names candidates: after an entity of this import or of the graph with one of their ids, or
// with their name, or anew; and records each under its Popolo id.
func (im *importer) resolve(ctx context.Context, cands []candidate, targets []*map[string]graph.EntityName, popoloIDs []string) error {
	// The graph's holders of every id, one query per scheme.
	values := map[string][]string{}
	for _, c := range cands {
		for _, id := range c.entity.Identifiers.Pairs() {
			if _, ok := im.byID[id]; !ok && !slices.Contains(values[id.Scheme], id.Value) {
				values[id.Scheme] = append(values[id.Scheme], id.Value)
			}
		}
	}
	holders := map[graph.Identifier][]graph.Entity{}
	for _, scheme := range slices.Sorted(maps.Keys(values)) {
		vs := values[scheme]
		for start := 0; start < len(vs); start += 500 {
			got, err := im.g.EntitiesByIdentifier(ctx, scheme, vs[start:min(start+500, len(vs))])
			if err != nil {
				return fmt.Errorf("popolo.Import: %w", err)
			}
			for v, es := range got {
				holders[graph.Identifier{Scheme: scheme, Value: v}] = es
			}
		}
	}
	if nb, ok := im.g.(NameBatcher); ok {
		var names []string
		for _, c := range cands {
			for _, n := range resolve.Lookups(c.entity) {
				if k := graph.NormalizeName(n); k != "" {
					if _, done := im.names[k]; !done && !slices.Contains(names, n) {
						names = append(names, n)
					}
				}
			}
		}
		found, err := nb.FindByNames(ctx, names)
		if err != nil {
			return fmt.Errorf("popolo.Import: %w", err)
		}
		if im.names == nil {
			im.names = map[string][]graph.Entity{}
		}
		for _, n := range names {
			k := graph.NormalizeName(n)
			im.names[k] = found[k]
		}
	}
	var fresh []int
	for i, c := range cands {
		name, how := im.match(ctx, c, holders)
		if name == "" {
			var err error
			if name, how, err = im.byName(ctx, c); err != nil {
				return err
			}
		}
		if name == "" {
			fresh = append(fresh, i)
			continue
		}
		im.rep.Merged++
		im.rep.say("%s: merged with %s (%s) %s", c.what, name, im.ents[name].DisplayName, how)
		im.record(name, c, targets[i], popoloIDs[i], false)
	}
	// New entities: a slug of the name, told apart when taken in the graph or in this import.
	var probe []graph.EntityName
	for _, i := range fresh {
		for _, slug := range slugChoices(cands[i]) {
			for _, coll := range graph.Collections {
				probe = append(probe, graph.EntityName(coll+"/"+slug))
			}
		}
	}
	if err := im.probe(ctx, probe); err != nil {
		return err
	}
	for _, i := range fresh {
		c := cands[i]
		slug := ""
		for _, s := range slugChoices(c) {
			if !im.taken[s] {
				slug = s
				break
			}
		}
		for n := 2; slug == ""; n++ {
			s := slugChoices(c)[0]
			s = graph.TrimSlug(s, 100-len(strconv.Itoa(n))-1) + "-" + strconv.Itoa(n)
			if err := im.probe(ctx, namesIn(s)); err != nil {
				return err
			}
			if !im.taken[s] {
				slug = s
			}
		}
		im.taken[slug] = true
		c.entity.Name = graph.EntityName(graph.CollectionOf(c.entity.Kind) + "/" + slug)
		e := c.entity
		im.ents[e.Name] = &e
		im.order = append(im.order, e.Name)
		im.rep.Created++
		im.record(e.Name, c, targets[i], popoloIDs[i], true)
	}
	return nil
}

// match finds the one entity, of this import or of the graph, that holds one of c's ids; it returns ""
// when none does, or several do (said in the report).
func (im *importer) match(ctx context.Context, c candidate, holders map[graph.Identifier][]graph.Entity) (graph.EntityName, string) {
	found := map[graph.EntityName]graph.Identifier{}
	var order []graph.EntityName
	for _, id := range c.entity.Identifiers.Pairs() {
		if n, ok := im.byID[id]; ok {
			if _, seen := found[n]; !seen {
				order = append(order, n)
				found[n] = id
			}
			continue
		}
		for _, e := range holders[id] {
			if e.Kind != c.entity.Kind {
				continue
			}
			if _, seen := found[e.Name]; !seen {
				order = append(order, e.Name)
				found[e.Name] = id
				if _, ok := im.ents[e.Name]; !ok {
					ec := e
					im.ents[e.Name] = &ec
					im.order = append(im.order, e.Name)
				}
			}
		}
	}
	switch len(order) {
	case 0:
		return "", ""
	case 1:
		return order[0], "by " + found[order[0]].String()
	}
	im.rep.say("%s: not merged: its ids are held by %d entities (%s); created anew", c.what, len(order), joinNames(order))
	return "", ""
}

// findByName returns the live entities of the graph called name (FindByName), from the batch when it
// asked for the name.
func (im *importer) findByName(ctx context.Context, name string) ([]graph.Entity, error) {
	if found, ok := im.names[graph.NormalizeName(name)]; ok {
		return found, nil
	}
	found, err := im.g.FindByName(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("popolo.Import: %w", err)
	}
	return found, nil
}

// byName finds the one entity of the graph of c's kind that c's name names, with no id against it (ids a
// file gives its own records never are: resolve.FileLocal): called by it as written; for an
// organisation, by another form of it (resolve.OrgKey: "Conservative" is "Conservatives"); for a person,
// by another form of the given name, or a near spelling (Searcher), when a second reason agrees
// (resolve.ComparePeople). Of several
// entities so called, the one that holds the same id of another file is the record imported again. What
// it does not merge but resembles c, it reports.
func (im *importer) byName(ctx context.Context, c candidate) (graph.EntityName, string, error) {
	var same []graph.Entity
	seen := map[graph.EntityName]bool{}
	how := "by its name, which no other " + strings.ToLower(string(c.entity.Kind)) + " has"
	consider := func(e graph.Entity) {
		if e.Kind != c.entity.Kind || !e.Deleted.IsZero() || seen[e.Name] {
			return
		}
		seen[e.Name] = true
		if k, conflict := resolve.GlobalIDs(c.entity.Identifiers).Conflict(resolve.GlobalIDs(e.Identifiers)); conflict {
			im.rep.say("%s: not merged with %s by name: their %s ids differ", c.what, e.Name, k)
			return
		}
		same = append(same, e)
	}
	found, err := im.findByName(ctx, c.entity.DisplayName)
	if err != nil {
		return "", "", err
	}
	for _, e := range found {
		consider(e)
	}
	switch {
	case len(same) > 0:
	case c.entity.Kind == graph.KindParty || c.entity.Kind == graph.KindOrganisation:
		key := resolve.OrgKey(c.entity.DisplayName)
		found, err := im.orgsCalled(ctx, c.entity.DisplayName)
		if err != nil {
			return "", "", err
		}
		for _, e := range found {
			consider(e)
		}
		how = "by a form of its name (" + key + "), which no other " + strings.ToLower(string(c.entity.Kind)) + " has"
	case c.entity.Kind == graph.KindActor:
		merge, why, err := im.nearPeople(ctx, c, seen)
		if err != nil {
			return "", "", err
		}
		same = merge
		if len(merge) == 1 {
			how = "by a near form of its name: " + why
		}
	}
	if len(same) > 1 {
		if again := sameLocalID(c.entity, same); again != nil {
			same, how = []graph.Entity{*again}, "by its name and its id in the file it was imported from"
		}
	}
	switch len(same) {
	case 0:
		return "", "", nil
	case 1:
		e := same[0]
		if _, ok := im.ents[e.Name]; !ok {
			im.ents[e.Name] = &e
			im.order = append(im.order, e.Name)
		}
		return e.Name, how, nil
	}
	names := make([]graph.EntityName, len(same))
	for i, e := range same {
		names[i] = e.Name
	}
	im.rep.say("%s: not merged: %q names %d entities (%s); created anew", c.what, c.entity.DisplayName, len(same), joinNames(names))
	return "", "", nil
}

// nearPeople returns the people of the graph, not seen yet, that a person's record is one of by
// resolve.ComparePeople: found by another form of the given name, or by a near spelling (Searcher). It
// reports those it may be but does not merge with, and returns why when it merges with one.
func (im *importer) nearPeople(ctx context.Context, c candidate, seen map[graph.EntityName]bool) ([]graph.Entity, string, error) {
	var near []graph.Entity
	for _, v := range resolve.Lookups(c.entity)[1:] {
		found, err := im.findByName(ctx, v)
		if err != nil {
			return nil, "", err
		}
		near = append(near, found...)
	}
	if sr, ok := im.g.(Searcher); ok {
		found, err := sr.Search(ctx, graph.SearchQuery{Text: strings.Join(resolve.PersonWords(c.entity.DisplayName), " "), Kinds: []graph.Kind{graph.KindActor}})
		if err != nil {
			return nil, "", fmt.Errorf("popolo.Import: %w", err)
		}
		for _, r := range found[:min(len(found), searchCandidates)] {
			near = append(near, r.Entity)
		}
	}
	var merge []graph.Entity
	why := ""
	for _, e := range near {
		if e.Kind != graph.KindActor || !e.Deleted.IsZero() || seen[e.Name] {
			continue
		}
		seen[e.Name] = true
		switch sc := resolve.ComparePeople(c.entity, e); sc.Decision {
		case resolve.Merge:
			merge = append(merge, e)
			why = sc.String()
		case resolve.Propose:
			im.rep.NearDuplicates++
			im.rep.say("%s: not merged with %s (%s), which it may be: %s", c.what, e.Name, e.DisplayName, sc)
		}
	}
	return merge, why, nil
}

// sameLocalID returns the one entity of es that holds c's file-local id under another file's name (the
// same record, imported from a copy of its file), or nil.
func sameLocalID(c graph.Entity, es []graph.Entity) *graph.Entity {
	local := func(v string) string { _, id, _ := strings.Cut(v, "/"); return id }
	var mine []string
	for _, v := range c.Identifiers[resolve.FileLocal] {
		mine = append(mine, local(v))
	}
	var hit *graph.Entity
	for i, e := range es {
		if slices.ContainsFunc(e.Identifiers[resolve.FileLocal], func(v string) bool { return slices.Contains(mine, local(v)) }) {
			if hit != nil {
				return nil
			}
			hit = &es[i]
		}
	}
	return hit
}

// record maps a Popolo id to its entity; an entity it was merged with (not fresh) gains what the
// candidate adds.
func (im *importer) record(name graph.EntityName, c candidate, target *map[string]graph.EntityName, popoloID string, fresh bool) {
	(*target)[popoloID] = name
	e := im.ents[name]
	if !fresh {
		mergeInto(e, c.entity)
	}
	for _, id := range e.Identifiers.Pairs() {
		im.byID[id] = name
	}
}

// mergeInto adds to e what c has that e lacks: names, ids, attributes, dates, a description.
func mergeInto(e *graph.Entity, c graph.Entity) {
	have := map[string]bool{graph.NormalizeName(e.DisplayName): true}
	for _, a := range e.Aliases {
		have[graph.NormalizeName(a)] = true
	}
	for _, n := range append([]string{c.DisplayName}, c.Aliases...) {
		if k := graph.NormalizeName(n); !have[k] && len(e.Aliases) < graph.MaxAliases {
			have[k] = true
			e.Aliases = append(e.Aliases, n)
			for _, o := range c.Attributes.OtherNames {
				if o.Name == n {
					e.Attributes.OtherNames = append(e.Attributes.OtherNames, o)
				}
			}
		}
	}
	for _, id := range c.Identifiers.Pairs() {
		if e.Identifiers.Count() < graph.MaxIdentifiers || e.Identifiers.Has(id.Scheme, id.Value) {
			e.Identifiers.Add(id.Scheme, id.Value)
		}
	}
	a, ca := &e.Attributes, c.Attributes
	if a.BirthDate.IsZero() {
		a.BirthDate = ca.BirthDate
	}
	if a.DeathDate.IsZero() {
		a.DeathDate = ca.DeathDate
	}
	if a.Gender == "" {
		a.Gender = ca.Gender
	}
	a.Links = addLinks(a.Links, ca.Links)
	a.Images = addLinks(a.Images, ca.Images)
	for _, d := range ca.ContactDetails {
		if !slices.Contains(a.ContactDetails, d) && len(a.ContactDetails) < graph.MaxLinks {
			a.ContactDetails = append(a.ContactDetails, d)
		}
	}
	if e.Description == "" {
		e.Description = c.Description
	}
	if e.ValidFrom.IsZero() && e.ValidTo.IsZero() {
		e.ValidFrom, e.ValidTo = c.ValidFrom, c.ValidTo
	}
}

func addLinks(have, more []graph.WebLink) []graph.WebLink {
	for _, l := range more {
		if !slices.ContainsFunc(have, func(h graph.WebLink) bool { return h.URL == l.URL }) && len(have) < graph.MaxLinks {
			have = append(have, l)
		}
	}
	return have
}

// slugChoices lists the slugs a new entity may take, in order: a slug of its name (or its given name
// for a candidate whose name has no letters polgraph keeps), then qualified by its suffix.
func slugChoices(c candidate) []string {
	base := graph.Slug(c.entity.Name) // a term is named before it is resolved
	if base == "" {
		base = graph.Slugify(c.entity.DisplayName)
	}
	if base == "" {
		base = strings.ToLower(string(c.entity.Kind)) + "-" + graph.Slugify(c.entity.Identifiers.Pairs()[0].Value)
		base = strings.TrimSuffix(base, "-")
	}
	base = graph.TrimSlug(base, 90)
	out := []string{base}
	if c.suffix != "" {
		out = append(out, base+"-"+c.suffix)
	}
	return out
}

func namesIn(slug string) []graph.EntityName {
	out := make([]graph.EntityName, len(graph.Collections))
	for i, coll := range graph.Collections {
		out[i] = graph.EntityName(coll + "/" + slug)
	}
	return out
}

// probe learns which of names the graph holds, marking their slugs taken.
func (im *importer) probe(ctx context.Context, names []graph.EntityName) error {
	if im.asked == nil {
		im.asked = map[graph.EntityName]bool{}
	}
	var ask []graph.EntityName
	for _, n := range names {
		if !im.asked[n] {
			ask = append(ask, n)
			im.asked[n] = true
		}
	}
	for start := 0; start < len(ask); start += 500 {
		got, err := im.g.GetEntities(ctx, ask[start:min(start+500, len(ask))])
		if err != nil {
			return fmt.Errorf("popolo.Import: %w", err)
		}
		for n := range got {
			im.taken[graph.Slug(n)] = true
		}
	}
	return nil
}

func joinNames(ns []graph.EntityName) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

// claim is the file's claim for one record.
func (im *importer) claim(st *fileState, rel graph.RelationName, record string) graph.Claim {
	return graph.Claim{Name: graph.ClaimNameFor(rel, st.source.Name, ""), Source: graph.Source{Name: st.source.Name},
		Record: trimBytes(record, graph.MaxRecordID), Confidence: im.opts.Confidence, Status: graph.StatusReported}
}

// relate adds a relation, telling it apart by a key when one of the same name holds something else, and
// counting exact repeats.
func (im *importer) relate(st *fileState, r graph.Relation, key, record string) (repeat bool) {
	if r.Type.Symmetric() && r.From > r.To {
		r.From, r.To = r.To, r.From
	}
	for n := 1; ; n++ {
		k := key
		if n > 1 {
			k = strings.Trim(key+"-"+strconv.Itoa(n), "-")
		}
		r.Name = graph.RelationNameFor(r.From, r.Type, r.To, k)
		i, ok := im.rels[r.Name]
		if !ok {
			break
		}
		held := im.relations[i]
		if held.Role == r.Role && held.Via == r.Via && held.Term == r.Term && held.ValidFrom == r.ValidFrom && held.ValidTo == r.ValidTo && held.Date == r.Date {
			if !slices.ContainsFunc(held.Claims, func(c graph.Claim) bool { return c.Source.Name == st.source.Name }) {
				im.relations[i].Claims = append(held.Claims, im.claim(st, r.Name, record))
				return false
			}
			return true
		}
	}
	r.Claims = []graph.Claim{im.claim(st, r.Name, record)}
	im.rels[r.Name] = len(im.relations)
	im.relations = append(im.relations, r)
	im.rep.Relations++
	return false
}

// structure adds what holds the file's bodies together: each term and post PART_OF its organisation.
func (im *importer) structure(st *fileState) {
	f := st.in.File
	for _, ev := range f.Events {
		term, ok1 := st.term[ev.ID]
		org, ok2 := st.org[ev.OrganizationID]
		if ok1 && ok2 && term != org {
			t := im.ents[term]
			im.relate(st, graph.Relation{Type: graph.PartOf, From: term, To: org, ValidFrom: t.ValidFrom, ValidTo: t.ValidTo}, "", "events/"+ev.ID)
		}
	}
	for _, p := range f.Posts {
		post, ok1 := st.post[p.ID]
		org, ok2 := st.org[p.OrganizationID]
		if ok1 && ok2 {
			e := im.ents[post]
			im.relate(st, graph.Relation{Type: graph.PartOf, From: post, To: org, ValidFrom: e.ValidFrom, ValidTo: e.ValidTo}, "", "posts/"+p.ID)
		}
	}
}

// memberships maps each membership to a relation.
func (im *importer) memberships(st *fileState) {
	f := st.in.File
	// A seat that a membership of a body holds is PART_OF the body while its members sat: from the first
	// membership's start to the last one's end (open when one of them is).
	type span struct {
		from, to graph.FuzzyDate
		open     [2]bool // a membership without a start, or without an end
		record   string
	}
	partOf := map[[2]graph.EntityName]*span{}
	var partOrder [][2]graph.EntityName
	for i, m := range f.Memberships {
		what := fmt.Sprintf("%s: memberships[%d]", st.in.Name, i)
		person, ok := find(st, func(f *fileState) map[string]graph.EntityName { return f.person }, m.PersonID)
		if !ok {
			im.rep.say("%s: skipped: person %q is not among the file's persons", what, m.PersonID)
			continue
		}
		org, hasOrg := find(st, orgs, m.OrganizationID)
		orgRec, _ := find(st, orgRecs, m.OrganizationID)
		var seat graph.EntityName
		switch {
		case m.PostID != "":
			if seat, ok = find(st, posts, m.PostID); !ok {
				im.rep.say("%s: skipped: post %q is not among the file's posts", what, m.PostID)
				continue
			}
			if !hasOrg {
				p, _ := find(st, postRecs, m.PostID)
				org, hasOrg = find(st, orgs, p.OrganizationID)
				orgRec, _ = find(st, orgRecs, p.OrganizationID)
			}
		case m.AreaID != "":
			if seat, ok = find(st, func(f *fileState) map[string]graph.EntityName { return f.area }, m.AreaID); !ok {
				im.rep.say("%s: skipped: area %q is not among the file's areas", what, m.AreaID)
				continue
			}
		}
		r := graph.Relation{From: person, Role: strings.TrimSpace(m.Role)}
		if r.Role == "" {
			r.Role = strings.TrimSpace(m.Label)
		}
		if r.Role == "" && m.PostID != "" {
			p, _ := find(st, postRecs, m.PostID)
			r.Role = strings.TrimSpace(p.Role)
		}
		if hasOrg && (r.Role == "" || strings.EqualFold(r.Role, "member")) && !strings.EqualFold(orgRec.Classification, "party") {
			r.Role = "Member of the " + strings.TrimPrefix(orgRec.Name, "the ")
		}
		r.Role = trimBytes(r.Role, graph.MaxRole)
		if m.OnBehalfOfID != "" {
			if p, ok := find(st, orgs, m.OnBehalfOfID); ok {
				r.Via = p
			} else if o, known := find(st, orgRecs, m.OnBehalfOfID); known && noParty(o) {
				r.Role = trimBytes(strings.TrimSpace(r.Role+", "+noPartyLabel(o)), graph.MaxRole) // the label kept
			} else {
				im.rep.say("%s: on_behalf_of %q left out: not among the file's organizations", what, m.OnBehalfOfID)
			}
		}
		if m.LegislativePeriodID != "" {
			if t, ok := find(st, func(f *fileState) map[string]graph.EntityName { return f.term }, m.LegislativePeriodID); ok {
				r.Term = t
			} else {
				im.rep.say("%s: legislative_period %q left out: not among the file's events", what, m.LegislativePeriodID)
			}
		}
		r.ValidFrom, r.ValidTo = im.date(st.in.Name, what+".start_date", m.StartDate), im.date(st.in.Name, what+".end_date", m.EndDate)
		if !r.ValidFrom.IsZero() && !r.ValidTo.IsZero() && r.ValidFrom.FirstDay() > r.ValidTo.LastDay() {
			im.rep.say("%s: end_date %s before start_date %s: both left out", what, r.ValidTo, r.ValidFrom)
			r.ValidFrom, r.ValidTo = graph.FuzzyDate{}, graph.FuzzyDate{}
		}
		if r.Term != "" { // a bound not given is its term's
			t := im.ents[r.Term]
			if r.ValidFrom.IsZero() && (t.ValidFrom.IsZero() || r.ValidTo.IsZero() || t.ValidFrom.FirstDay() <= r.ValidTo.LastDay()) {
				r.ValidFrom = t.ValidFrom
			}
			if r.ValidTo.IsZero() && (t.ValidTo.IsZero() || r.ValidFrom.IsZero() || t.ValidTo.LastDay() >= r.ValidFrom.FirstDay()) {
				r.ValidTo = t.ValidTo
			}
		}
		switch {
		case seat != "":
			r.Type, r.To = graph.HoldsOffice, seat
			if k := [2]graph.EntityName{seat, org}; hasOrg && !strings.EqualFold(orgRec.Classification, "party") && seat != org && m.PostID == "" {
				sp := partOf[k]
				if sp == nil {
					sp = &span{from: r.ValidFrom, to: r.ValidTo, record: "areas/" + m.AreaID}
					partOf[k] = sp
					partOrder = append(partOrder, k)
				}
				sp.open[0] = sp.open[0] || r.ValidFrom.IsZero()
				sp.open[1] = sp.open[1] || r.ValidTo.IsZero()
				if !r.ValidFrom.IsZero() && (sp.from.IsZero() || r.ValidFrom.FirstDay() < sp.from.FirstDay()) {
					sp.from = r.ValidFrom
				}
				if !r.ValidTo.IsZero() && (sp.to.IsZero() || r.ValidTo.LastDay() > sp.to.LastDay()) {
					sp.to = r.ValidTo
				}
			}
		case hasOrg:
			r.Type, r.To = graph.MemberOf, org
		default:
			im.rep.say("%s: skipped: no organization, area or post to be a member of", what)
			continue
		}
		key := ""
		switch {
		case r.Term != "":
			key = graph.Slug(r.Term)
		case !r.ValidFrom.IsZero():
			key = r.ValidFrom.String()
		}
		if !r.ValidFrom.IsZero() && r.Term != "" && r.ValidFrom != im.ents[r.Term].ValidFrom {
			key += "-" + r.ValidFrom.String() // joined during the term
		}
		record := m.ID
		if record == "" {
			record = "memberships/" + strings.Join([]string{m.PersonID, m.OrganizationID, m.AreaID + m.PostID, m.OnBehalfOfID, m.LegislativePeriodID, m.StartDate, m.EndDate}, "|")
		}
		if im.relate(st, r, graph.TrimSlug(key, 60), record) {
			im.rep.Duplicates++
			im.rep.say("%s: left out: it repeats an earlier membership", what)
			continue
		}
		// Sitting for a party is being its member then: the party's members are its neighbours in every
		// read, without following vias.
		if r.Via != "" && r.Via != r.To {
			if p := im.ents[r.Via]; p != nil && (p.Kind == graph.KindParty || p.Kind == graph.KindOrganisation) {
				im.relate(st, graph.Relation{Type: graph.MemberOf, From: person, To: r.Via, Term: r.Term, ValidFrom: r.ValidFrom, ValidTo: r.ValidTo},
					graph.TrimSlug(key, 60), record)
			}
		}
	}
	for _, k := range partOrder {
		sp := partOf[k]
		rel := graph.Relation{Type: graph.PartOf, From: k[0], To: k[1]}
		if !sp.open[0] {
			rel.ValidFrom = sp.from
		}
		if !sp.open[1] {
			rel.ValidTo = sp.to
		}
		im.relate(st, rel, "", sp.record)
	}
}

// noPartyLabel is how a membership on behalf of no party says so: "Independent", else "no party".
func noPartyLabel(o Organization) string {
	if n := strings.TrimSpace(o.Name); strings.EqualFold(n, "independent") || strings.EqualFold(o.ID, "independent") || strings.EqualFold(o.ID, "ind") {
		return "Independent"
	}
	return "no party"
}

// find looks an id up in a file's records, then in those of the files imported before it (parlparse's
// ministers.json names the people of people.json).
func find[V any](st *fileState, of func(*fileState) map[string]V, id string) (V, bool) {
	if v, ok := of(st)[id]; ok {
		return v, true
	}
	for i := len(st.earlier) - 1; i >= 0; i-- {
		if v, ok := of(st.earlier[i])[id]; ok {
			return v, true
		}
	}
	var zero V
	return zero, false
}

func orgs(f *fileState) map[string]graph.EntityName  { return f.org }
func orgRecs(f *fileState) map[string]Organization   { return f.orgRec }
func posts(f *fileState) map[string]graph.EntityName { return f.post }
func postRecs(f *fileState) map[string]Post          { return f.postRec }
