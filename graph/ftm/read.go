package ftm

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// record is one FtM entity as read, before it is mapped.
type record struct {
	line      int
	id        string
	schema    string
	props     map[string][]string
	referents []string
}

// entity is a record mapped to a polgraph entity.
type entity struct {
	rec *record
	ent graph.Entity
}

// relation is a record (an interval, or a Position's organization) mapped to a relation, before it is
// named.
type relation struct {
	line   int
	record string // the FtM id the claim cites
	rel    graph.Relation
}

// reader holds what Read has read and made.
type reader struct {
	file       string
	src        graph.Source
	confidence float64
	rep        Report
	records    []*record
	byRecord   map[string]*record // each record's id (and referents) → the record
	byID       map[string]*entity // each entity's id and referents → the entity
	skippedAt  map[string]int     // the id of each record skipped → its line
	entities   []*entity
	relations  []*relation
}

// Read reads FollowTheMoney entities, one JSON object per line ({"id", "schema", "properties": {prop:
// [values]}}, with optional "datasets", "first_seen", "last_seen" and "referents"), from r, and maps them
// to polgraph records as the package comment says; file names the input in the report and gives the
// source its default name. The subgraph holds the entities and relations sorted by name and the one
// source every claim cites; every record in it is valid (graph/limits.go, graph.ParseEntityName,
// RelationType.Joins, data/FORMAT.md). Records Read cannot map are skipped, each with a line of the
// Report. The error is an Invalid *graph.Error for bad Options, or the error of reading r.
func Read(r io.Reader, file string, opts Options) (graph.Subgraph, Report, error) {
	src, err := opts.source(file)
	if err != nil {
		return graph.Subgraph{}, Report{}, err
	}
	conf, err := opts.confidence()
	if err != nil {
		return graph.Subgraph{}, Report{}, err
	}
	rd := &reader{file: file, src: src, confidence: conf, byRecord: map[string]*record{}, byID: map[string]*entity{},
		skippedAt: map[string]int{}}
	if err := rd.readLines(r); err != nil {
		return graph.Subgraph{}, rd.rep, fmt.Errorf("ftm.Read: %s: %w", file, err)
	}
	rd.mapEntities()
	rd.nameEntities()
	rd.mapRelations()
	rels := rd.nameRelations()

	g := graph.Subgraph{Sources: []graph.Source{src}}
	for _, e := range rd.entities {
		g.Entities = append(g.Entities, e.ent)
	}
	slices.SortFunc(g.Entities, func(a, b graph.Entity) int { return cmp.Compare(a.Name, b.Name) })
	g.Relations = rels
	rd.rep.Entities, rd.rep.Relations = len(g.Entities), len(g.Relations)
	slices.SortStableFunc(rd.rep.Problems, func(a, b Problem) int { return cmp.Compare(a.Line, b.Line) })
	return g, rd.rep, nil
}

// problem adds a line to the report.
func (rd *reader) problem(line int, field string, skipped bool, format string, args ...any) {
	rd.rep.Problems = append(rd.rep.Problems, Problem{File: rd.file, Line: line, Field: field,
		Message: fmt.Sprintf(format, args...), Skipped: skipped})
}

// skip reports a record skipped and remembers it, for the messages of the relations that refer to it.
func (rd *reader) skip(rec *record, field, format string, args ...any) {
	rd.problem(rec.line, field, true, format, args...)
	rd.rep.Skipped++
	rd.skippedAt[rec.id] = rec.line
	for _, ref := range rec.referents {
		if _, ok := rd.skippedAt[ref]; !ok {
			rd.skippedAt[ref] = rec.line
		}
	}
}

// readLines reads every line into a record, skipping (with a report line) those that are not one.
func (rd *reader) readLines(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for line := 1; ; line++ {
		text, n, err := nextLine(br, &buf, graph.MaxRecordBytes)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if n > graph.MaxRecordBytes {
			rd.rep.Read++
			rd.rep.Skipped++
			rd.problem(line, "", true, "the line is %d bytes, longer than %d MiB (the longest record polgraph reads); skipped", n, graph.MaxRecordBytes>>20)
			continue
		}
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\uFEFF"))
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		rd.rep.Read++
		if rec := rd.decode(line, text); rec != nil {
			rd.records = append(rd.records, rec)
		}
	}
}

// nextLine reads a line without its end into *buf; n is its length, and when it is longer than max the
// line is read to its end but not kept. It returns io.EOF when no line is left.
func nextLine(br *bufio.Reader, buf *[]byte, max int) (text []byte, n int, err error) {
	*buf = (*buf)[:0]
	var last [2]byte // the line's last two bytes, to leave its end out of n
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if n <= max+2 { // room for "\r\n"
			*buf = append(*buf, chunk...)
		}
		switch len(chunk) {
		case 0:
		case 1:
			last = [2]byte{last[1], chunk[0]}
		default:
			last = [2]byte{chunk[len(chunk)-2], chunk[len(chunk)-1]}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if n == 0 {
				return nil, 0, io.EOF
			}
		case err != nil:
			return nil, 0, err
		}
		break
	}
	if n > max+2 {
		if last[1] == '\n' {
			n--
			if last[0] == '\r' {
				n--
			}
		}
		return nil, n, nil
	}
	text = bytes.TrimSuffix(*buf, []byte("\n"))
	text = bytes.TrimSuffix(text, []byte("\r"))
	return text, len(text), nil
}

// decode reads one line into a record, or reports why it cannot and returns nil.
func (rd *reader) decode(line int, text []byte) *record {
	skipLine := func(field, format string, args ...any) *record {
		rd.rep.Skipped++
		rd.problem(line, field, true, format, args...)
		return nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(text, &top); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return skipLine("", "not valid JSON (%v at byte %d); skipped", syn, syn.Offset)
		}
		return skipLine("", "not a JSON object; want a FollowTheMoney entity {\"id\", \"schema\", \"properties\"}; skipped")
	}
	str := func(field string) (string, bool) {
		raw, ok := top[field]
		if !ok || string(raw) == "null" {
			skipLine(field, "required; skipped")
			return "", false
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			skipLine(field, "want a string; skipped")
			return "", false
		}
		if strings.TrimSpace(s) == "" {
			skipLine(field, "required; skipped")
			return "", false
		}
		return s, true
	}
	rec := &record{line: line, props: map[string][]string{}}
	var ok bool
	if rec.id, ok = str("id"); !ok {
		return nil
	}
	if !validID(rec.id) {
		return skipLine("id", "%s is not a FollowTheMoney id (letters, digits, dots and hyphens, at most %d bytes); skipped", quote(rec.id), maxIDLength)
	}
	if rec.schema, ok = str("schema"); !ok {
		return nil
	}
	if prev, ok := rd.byRecord[rec.id]; ok {
		return skipLine("id", "%s is already the id of the entity at line %d (merge its fragments first, e.g. with ftm aggregate); skipped", quote(rec.id), prev.line)
	}
	if raw, ok := top["properties"]; ok && string(raw) != "null" {
		var props map[string]json.RawMessage
		if err := json.Unmarshal(raw, &props); err != nil {
			return skipLine("properties", "want an object of property names and arrays of values; skipped")
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			var vs []string
			if err := json.Unmarshal(props[name], &vs); err != nil {
				var one string
				if json.Unmarshal(props[name], &one) != nil {
					rd.problem(line, propertyField(name), false, "want an array of strings; the property was left out")
					continue
				}
				vs = []string{one}
			}
			rec.props[name] = vs
		}
	}
	if raw, ok := top["referents"]; ok && string(raw) != "null" {
		var refs []string
		if err := json.Unmarshal(raw, &refs); err != nil {
			rd.problem(line, "referents", false, "want an array of ids; left out")
		}
		for i, ref := range refs {
			field := fmt.Sprintf("referents[%d]", i)
			switch prev, seen := rd.byRecord[ref]; {
			case ref == rec.id || slices.Contains(rec.referents, ref):
			case !validID(ref):
				rd.problem(line, field, false, "%s is not a FollowTheMoney id; left out", quote(ref))
			case seen:
				rd.problem(line, field, false, "%s is already an id at line %d; left out", quote(ref), prev.line)
			default:
				rec.referents = append(rec.referents, ref)
			}
		}
	}
	rd.byRecord[rec.id] = rec
	for _, ref := range rec.referents {
		rd.byRecord[ref] = rec
	}
	return rec
}

// plainName is how FollowTheMoney spells a property name.
var plainName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// propertyField names a property of the input in a report: properties.name, or properties["…"] quoted
// and cut short when the name is not one FollowTheMoney could have.
func propertyField(name string) string {
	if plainName.MatchString(name) {
		return "properties." + name
	}
	return "properties[" + quote(name) + "]"
}

// name is value for a name: one holding a character that cannot be seen (graph.InvisibleAt) is left out
// too, as polgraph refuses it.
func (rd *reader) name(rec *record, prop string, i, most int, cutLong bool) string {
	v := rd.value(rec, prop, i, most, cutLong)
	if at, c := graph.InvisibleAt(v); at >= 0 {
		rd.problem(rec.line, fmt.Sprintf("properties.%s[%d]", prop, i), false,
			"contains the invisible character %s at byte %d; the name was left out", graph.RuneName(c), at+1)
		return ""
	}
	return v
}

// value cleans the i-th value of a property: white space made single spaces, a value holding a control
// character left out, a value longer than most bytes cut (when cutLong) or left out, each change
// reported. It returns "" for a value to leave out.
func (rd *reader) value(rec *record, prop string, i, most int, cutLong bool) string {
	v := normalizeSpace(rec.props[prop][i])
	if v == "" {
		return ""
	}
	field := fmt.Sprintf("properties.%s[%d]", prop, i)
	if at, c := graph.ControlAt(v, false); at >= 0 {
		rd.problem(rec.line, field, false, "contains the control character %s at byte %d; the value was left out", controlName(c), at+1)
		return ""
	}
	if len(v) > most {
		if cutLong {
			rd.problem(rec.line, field, false, "%d bytes; cut to %d", len(v), most)
			return cut(v, most)
		}
		rd.problem(rec.line, field, false, "%d bytes; at most %d, so the value was left out", len(v), most)
		return ""
	}
	return v
}

// one returns the first usable value of a property (see value), reporting any later one as left out:
// polgraph holds one.
func (rd *reader) one(rec *record, prop string, most int, cutLong bool) string {
	vs := rec.props[prop]
	for i := range vs {
		v := rd.value(rec, prop, i, most, cutLong)
		if v == "" {
			continue
		}
		if rest := nonEmpty(vs[i+1:]); rest > 0 {
			rd.problem(rec.line, "properties."+prop, false, "%d more values left out; polgraph keeps one, the first (%s)", rest, quote(v))
		}
		return v
	}
	return ""
}

// nonEmpty counts the values that are not blank.
func nonEmpty(vs []string) int {
	n := 0
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			n++
		}
	}
	return n
}

// date reads the first value of a date property, reporting a bad one and any later one as left out.
func (rd *reader) date(rec *record, prop string) graph.FuzzyDate {
	v := rd.one(rec, prop, 64, false)
	if v == "" {
		return graph.FuzzyDate{}
	}
	d, err := parseDate(v)
	if err != nil {
		rd.problem(rec.line, "properties."+prop, false, "%v; left out", err)
	}
	return d
}

// mapEntities makes an entity of every record of an entity schema and skips every record that is
// neither such a record nor an interval Read maps.
func (rd *reader) mapEntities() {
	for _, rec := range rd.records {
		switch _, isEntity := entitySchemata[rec.schema]; {
		case isEntity:
			if e := rd.mapEntity(rec); e != nil {
				rd.entities = append(rd.entities, e)
				rd.byID[rec.id] = e
				for _, ref := range rec.referents {
					rd.byID[ref] = e
				}
			}
		case intervalEnds[rec.schema] != [2]string{}:
		case unmappedReasons[rec.schema] != "":
			rd.skip(rec, "schema", "%s is not mapped: %s; skipped", rec.schema, unmappedReasons[rec.schema])
		default:
			rd.skip(rec, "schema", "%s is not a schema polgraph maps (see graph/ftm/README.md); skipped", quote(rec.schema))
		}
	}
}

// isParty reports whether an organisation's properties say it is a political party.
func isParty(rec *record) bool {
	for _, t := range rec.props[propTopics] {
		if strings.TrimSpace(t) == topicParty {
			return true
		}
	}
	for _, prop := range []string{propClassification, propLegalForm} {
		for _, v := range rec.props[prop] {
			for _, w := range strings.Fields(graph.NormalizeName(v)) {
				if partyWords[w] {
					return true
				}
			}
		}
	}
	return false
}

// mapEntity maps an entity record, or skips it and returns nil.
func (rd *reader) mapEntity(rec *record) *entity {
	e := graph.Entity{Kind: entitySchemata[rec.schema]}
	if e.Kind == graph.KindOrganisation && isParty(rec) {
		e.Kind = graph.KindParty
	}

	// Names: the first usable name is shown, the others are aliases.
	names := rec.props[propName]
	first := len(names)
	for i := range names {
		if e.DisplayName = rd.name(rec, propName, i, graph.MaxDisplayName, true); e.DisplayName != "" {
			first = i
			break
		}
	}
	if e.DisplayName == "" {
		rd.skip(rec, "properties.name", "required: a %s without a name cannot be named; skipped", rec.schema)
		return nil
	}
	seen := map[string]bool{e.DisplayName: true}
	dropped, droppedField := 0, ""
	addAlias := func(prop, note string, i int) {
		a := rd.name(rec, prop, i, graph.MaxAlias, false)
		if a == "" || seen[a] {
			return
		}
		seen[a] = true
		if len(e.Aliases) >= graph.MaxAliases {
			if dropped == 0 {
				droppedField = fmt.Sprintf("properties.%s[%d]", prop, i)
			}
			dropped++
			return
		}
		e.Aliases = append(e.Aliases, a)
		if note != "" {
			e.Attributes.OtherNames = append(e.Attributes.OtherNames, graph.Alias{Name: a, Note: note})
		}
	}
	for i := first + 1; i < len(names); i++ {
		addAlias(propName, noteName, i)
	}
	for _, p := range aliasProperties {
		for i := range rec.props[p.prop] {
			addAlias(p.prop, p.note, i)
		}
	}
	if dropped > 0 {
		rd.problem(rec.line, droppedField, false, "%d more names left out from here on; an entity has at most %d aliases", dropped, graph.MaxAliases)
	}

	for _, prop := range descriptionProperties {
		if e.Description = rd.one(rec, prop, graph.MaxDescription, true); e.Description != "" {
			break
		}
	}

	rd.identifiers(rec, &e)

	switch {
	case has(rec.schema, levelPerson):
		a := &e.Attributes
		a.BirthDate, a.DeathDate = rd.date(rec, propBirthDate), rd.date(rec, propDeathDate)
		if !a.BirthDate.IsZero() && !a.DeathDate.IsZero() && a.DeathDate.LastDay() < a.BirthDate.FirstDay() {
			rd.problem(rec.line, "properties."+propDeathDate, false, "%s is before the birth date %s; left out", a.DeathDate, a.BirthDate)
			a.DeathDate = graph.FuzzyDate{}
		}
		a.Gender = rd.one(rec, propGender, graph.MaxGender, false)
	case has(rec.schema, levelPosition):
		e.ValidFrom, e.ValidTo = rd.date(rec, propInception), rd.date(rec, propDissolution)
	default:
		e.ValidFrom, e.ValidTo = rd.date(rec, propIncorporation), rd.date(rec, propDissolution)
	}
	if !e.ValidFrom.IsZero() && !e.ValidTo.IsZero() && e.ValidTo.LastDay() < e.ValidFrom.FirstDay() {
		rd.problem(rec.line, "properties."+propDissolution, false, "%s is before %s; left out", e.ValidTo, e.ValidFrom)
		e.ValidTo = graph.FuzzyDate{}
	}

	rd.links(rec, &e)
	rd.contacts(rec, &e)
	return &entity{rec: rec, ent: e}
}

// identifiers keeps the entity's FtM id, its identifier properties and its referents, at most
// graph.MaxIdentifiers in all.
func (rd *reader) identifiers(rec *record, e *graph.Entity) {
	dropped, droppedField := 0, ""
	add := func(field, scheme, v string) {
		if e.Identifiers.Has(scheme, v) {
			return
		}
		if e.Identifiers.Count() >= graph.MaxIdentifiers {
			if dropped == 0 {
				droppedField = field
			}
			dropped++
			return
		}
		e.Identifiers.Add(scheme, v)
	}
	add("id", schemeFTM, rec.id)
	for _, p := range idProperties {
		if !has(rec.schema, p.level) {
			continue
		}
		for i := range rec.props[p.prop] {
			if v := rd.value(rec, p.prop, i, graph.MaxIdentifierValue, false); v != "" {
				add(fmt.Sprintf("properties.%s[%d]", p.prop, i), p.scheme, v)
			}
		}
	}
	for i, ref := range rec.referents {
		add(fmt.Sprintf("referents[%d]", i), schemeFTM, ref)
	}
	if dropped > 0 {
		rd.problem(rec.line, droppedField, false, "%d more ids left out from here on; an entity has at most %d", dropped, graph.MaxIdentifiers)
	}
}

// links keeps the entity's web addresses: http and https only, at most graph.MaxLinks.
func (rd *reader) links(rec *record, e *graph.Entity) {
	for _, lp := range linkProperties {
		if !has(rec.schema, lp.level) {
			continue
		}
		for i := range rec.props[lp.prop] {
			u := rd.value(rec, lp.prop, i, graph.MaxURL, false)
			field := fmt.Sprintf("properties.%s[%d]", lp.prop, i)
			switch {
			case u == "" || slices.ContainsFunc(e.Attributes.Links, func(l graph.WebLink) bool { return l.URL == u }):
			case !webURL(u):
				rd.problem(rec.line, field, false, "%s is not an http or https address; left out", quote(u))
			case len(e.Attributes.Links) >= graph.MaxLinks:
				rd.problem(rec.line, field, false, "an entity has at most %d links; left out", graph.MaxLinks)
			default:
				e.Attributes.Links = append(e.Attributes.Links, graph.WebLink{URL: u, Note: lp.note})
			}
		}
	}
}

// contacts keeps the entity's email addresses and phone numbers, at most graph.MaxLinks.
func (rd *reader) contacts(rec *record, e *graph.Entity) {
	if !has(rec.schema, levelLegalEntity) {
		return
	}
	for _, cp := range contactProperties {
		for i := range rec.props[cp.prop] {
			v := rd.value(rec, cp.prop, i, graph.MaxContactValue, false)
			c := graph.ContactDetail{Type: cp.typ, Value: v}
			switch {
			case v == "" || slices.Contains(e.Attributes.ContactDetails, c):
			case len(e.Attributes.ContactDetails) >= graph.MaxLinks:
				rd.problem(rec.line, fmt.Sprintf("properties.%s[%d]", cp.prop, i), false, "an entity has at most %d contact details; left out", graph.MaxLinks)
			default:
				e.Attributes.ContactDetails = append(e.Attributes.ContactDetails, c)
			}
		}
	}
}

// nameEntities gives every entity its name. The slug comes from the display name (from the FtM id when
// the name makes none); entities whose slugs coincide keep it in the order of their FtM ids, the first
// bare and the others with -2, -3… (never a slug another entity has), so that names depend on the
// entities read and not on their order.
func (rd *reader) nameEntities() {
	groups := map[string][]*entity{}
	taken := map[string]bool{}
	for _, e := range rd.entities {
		base := slugify(e.ent.DisplayName, maxSlug)
		if base == "" {
			base = slugify(e.rec.id, maxSlug)
		}
		groups[base] = append(groups[base], e)
		taken[base] = true
	}
	for _, base := range slices.Sorted(maps.Keys(groups)) {
		es := groups[base]
		slices.SortFunc(es, func(a, b *entity) int { return cmp.Compare(a.rec.id, b.rec.id) })
		n := 1 // the last suffix tried: many entities of one name take linear, not quadratic, time
		for i, e := range es {
			slug := base
			if i > 0 {
				for n++; ; n++ {
					suffix := fmt.Sprintf("-%d", n)
					if slug = graph.TrimSlug(base, maxSlug-len(suffix)) + suffix; !taken[slug] {
						break
					}
				}
				taken[slug] = true
			}
			e.ent.Name = graph.EntityName(graph.CollectionOf(e.ent.Kind) + "/" + slug)
		}
	}
}

// mapRelations makes the relations of the interval records and of the Positions' organizations.
func (rd *reader) mapRelations() {
	for _, rec := range rd.records {
		if _, ok := intervalEnds[rec.schema]; ok {
			rd.mapInterval(rec)
		}
	}
	for _, e := range rd.entities {
		if e.rec.schema == schemaPosition {
			rd.positionOrganizations(e)
		}
	}
}

// end resolves the entity an interval's property names, or says why it cannot.
func (rd *reader) end(rec *record, prop string) (*entity, string) {
	var ids []string
	for _, v := range rec.props[prop] {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(ids, v) {
			ids = append(ids, v)
		}
	}
	if len(ids) == 0 {
		return nil, "required"
	}
	if len(ids) > 1 {
		rd.problem(rec.line, "properties."+prop, false, "%d entities; polgraph joins two, so the first (%s) was used", len(ids), quote(ids[0]))
	}
	if e, ok := rd.byID[ids[0]]; ok {
		return e, ""
	}
	return nil, rd.missing(ids[0])
}

// missing says why id names no entity Read made.
func (rd *reader) missing(id string) string {
	if line, ok := rd.skippedAt[id]; ok {
		return fmt.Sprintf("the entity %s was skipped (line %d)", quote(id), line)
	}
	if rec, ok := rd.byRecord[id]; ok {
		return fmt.Sprintf("%s is a %s (line %d), not an entity", quote(id), quote(rec.schema), rec.line)
	}
	return fmt.Sprintf("no entity %s in the input", quote(id))
}

// mapInterval maps an interval record to a relation, or skips it.
func (rd *reader) mapInterval(rec *record) {
	ends := intervalEnds[rec.schema]
	from, why := rd.end(rec, ends[0])
	if from == nil {
		rd.skip(rec, "properties."+ends[0], "%s; the %s was skipped", why, rec.schema)
		return
	}
	to, why := rd.end(rec, ends[1])
	if to == nil {
		rd.skip(rec, "properties."+ends[1], "%s; the %s was skipped", why, rec.schema)
		return
	}
	r := graph.Relation{From: from.ent.Name, To: to.ent.Name}
	switch rec.schema {
	case schemaMembership:
		r.Type = graph.MemberOf
		if from.ent.Kind != graph.KindActor {
			r.Type = graph.PartOf
		}
		r.Role = rd.one(rec, propRole, graph.MaxRole, true)
	case schemaDirectorship:
		r.Type = graph.Leads
		r.Role = cmp.Or(rd.one(rec, propRole, graph.MaxRole, true), "director")
	case schemaEmployment:
		r.Type = graph.MemberOf
		r.Role = cmp.Or(rd.one(rec, propRole, graph.MaxRole, true), "employee")
	case schemaFamily:
		r.Type = graph.Family
		r.Role = rd.one(rec, propRelationship, graph.MaxRole, true)
	case schemaAssociate:
		r.Role = rd.one(rec, propRelationship, graph.MaxRole, true)
		t, ok := associateType(r.Role)
		if !ok {
			rd.skip(rec, "properties."+propRelationship, "%s says no tie of polgraph's vocabulary (working, campaigning or appearing together); the Associate was skipped", quote(r.Role))
			return
		}
		r.Type = t
	case schemaOccupancy:
		r.Type = graph.HoldsOffice
		r.Role = to.ent.DisplayName
		if len(r.Role) > graph.MaxRole {
			rd.problem(rec.line, "properties.post", false, "the position's name is %d bytes; the role is cut to %d", len(r.Role), graph.MaxRole)
			r.Role = cut(r.Role, graph.MaxRole)
		}
	case schemaUnknownLink:
		role := rd.one(rec, propRole, graph.MaxRole, true)
		if r.Type = graph.RelationType(role); !r.Type.Valid() {
			rd.skip(rec, "properties."+propRole, "%s is not a polgraph relation type (an UnknownLink is read when its role is one, as Write writes them); skipped", quote(role))
			return
		}
		r.Role = rd.one(rec, propSummary, graph.MaxRole, true)
	}
	if r.From == r.To {
		rd.skip(rec, "properties."+ends[1], "a relation cannot join %s to itself; the %s was skipped", r.From, rec.schema)
		return
	}
	if !r.Type.Joins(from.ent.Kind, to.ent.Kind) {
		field := ends[1] // the first end can begin such a relation: the second is at fault
		if !slices.ContainsFunc(kinds, func(k graph.Kind) bool { return r.Type.Joins(from.ent.Kind, k) }) {
			field = ends[0]
		}
		rd.skip(rec, "properties."+field, "%s; the %s was skipped", cannotJoin(r.Type, from.ent, to.ent), rec.schema)
		return
	}
	if r.Type.Symmetric() && r.From > r.To {
		r.From, r.To = r.To, r.From
	}
	r.ValidFrom, r.ValidTo, r.Date = rd.date(rec, propStartDate), rd.date(rec, propEndDate), rd.date(rec, propDate)
	if !r.Date.IsZero() && (!r.ValidFrom.IsZero() || !r.ValidTo.IsZero()) {
		has := propStartDate
		if r.ValidFrom.IsZero() {
			has = propEndDate
		}
		rd.problem(rec.line, "properties."+propDate, false, "left out: a relation is an event (date) or a state (startDate, endDate), and this one has %s", has)
		r.Date = graph.FuzzyDate{}
	}
	if !r.ValidFrom.IsZero() && !r.ValidTo.IsZero() && r.ValidTo.LastDay() < r.ValidFrom.FirstDay() {
		rd.problem(rec.line, "properties."+propEndDate, false, "%s is before the start date %s; left out", r.ValidTo, r.ValidFrom)
		r.ValidTo = graph.FuzzyDate{}
	}
	rd.relations = append(rd.relations, &relation{line: rec.line, record: rec.id, rel: r})
}

// kinds lists the entity kinds.
var kinds = []graph.Kind{graph.KindActor, graph.KindParty, graph.KindSeat, graph.KindOrganisation}

// cannotJoin says why a relation of type t cannot go from one entity to another: "LEADS goes from an
// actor, and organisations/acme is an organisation".
func cannotJoin(t graph.RelationType, from, to graph.Entity) string {
	var froms, tos []string
	for _, k := range kinds {
		if slices.ContainsFunc(kinds, func(k2 graph.Kind) bool { return t.Joins(k, k2) }) {
			froms = append(froms, kindWord(k))
		}
		if t.Joins(from.Kind, k) {
			tos = append(tos, kindWord(k))
		}
	}
	if len(tos) == 0 {
		return fmt.Sprintf("%s goes from %s, and %s is %s", t, orList(froms), from.Name, kindWord(from.Kind))
	}
	return fmt.Sprintf("%s from %s goes to %s, and %s is %s", t, kindWord(from.Kind), orList(tos), to.Name, kindWord(to.Kind))
}

// kindWord names a kind with its article: "an actor".
func kindWord(k graph.Kind) string {
	w := strings.ToLower(string(k))
	if strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}

// orList joins words as "a, b or c".
func orList(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}

// positionOrganizations makes a seat PART_OF each organisation its Position's organization names.
func (rd *reader) positionOrganizations(seat *entity) {
	rec := seat.rec
	var done []graph.EntityName
	for i, id := range rec.props[propOrganization] {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		field := fmt.Sprintf("properties.%s[%d]", propOrganization, i)
		org, ok := rd.byID[id]
		switch {
		case !ok:
			rd.problem(rec.line, field, false, "%s; no PART_OF relation was made", rd.missing(id))
		case org == seat || !graph.PartOf.Joins(seat.ent.Kind, org.ent.Kind):
			rd.problem(rec.line, field, false, "%s cannot be PART_OF %s; no relation was made", seat.ent.Name, org.ent.Name)
		case slices.Contains(done, org.ent.Name):
		default:
			done = append(done, org.ent.Name)
			rd.relations = append(rd.relations, &relation{line: rec.line, record: rec.id,
				rel: graph.Relation{Type: graph.PartOf, From: seat.ent.Name, To: org.ent.Name}})
		}
	}
}

// start is when a relation begins, as written, for ordering and keys: its valid_from, else its date.
func start(r graph.Relation) string {
	if !r.ValidFrom.IsZero() {
		return r.ValidFrom.String()
	}
	return r.Date.String()
}

// nameRelations names every relation and gives it its claim. Relations that would get the same name are
// ordered by start and FtM id: the first keeps the bare name and each other gets its start date as key
// ("2011-05-05") or, when that is taken or it has none, a short hash of its FtM id; so the names depend
// on the relations read, not on their order, and an earlier relation keeps its name when later ones are
// added. It returns the relations sorted by name.
func (rd *reader) nameRelations() []graph.Relation {
	groups := map[graph.RelationName][]*relation{}
	for _, r := range rd.relations {
		base := graph.RelationNameFor(r.rel.From, r.rel.Type, r.rel.To, "")
		groups[base] = append(groups[base], r)
	}
	taken := map[graph.RelationName]bool{}
	for base := range groups {
		taken[base] = true
	}
	out := make([]graph.Relation, 0, len(rd.relations))
	for _, base := range slices.Sorted(maps.Keys(groups)) {
		rs := groups[base]
		slices.SortFunc(rs, func(a, b *relation) int {
			return cmp.Or(cmp.Compare(start(a.rel), start(b.rel)), cmp.Compare(a.record, b.record), cmp.Compare(a.line, b.line))
		})
		for i, r := range rs {
			name := base
			if i > 0 {
				name = ""
				for _, key := range []string{start(r.rel), shortHash(r.record)} {
					if n := graph.RelationNameFor(r.rel.From, r.rel.Type, r.rel.To, key); key != "" && !taken[n] {
						name = n
						break
					}
				}
				for n := 2; name == ""; n++ {
					key := fmt.Sprintf("%s-%d", shortHash(r.record), n)
					if c := graph.RelationNameFor(r.rel.From, r.rel.Type, r.rel.To, key); !taken[c] {
						name = c
					}
				}
				taken[name] = true
			}
			r.rel.Name = name
			r.rel.Claims = []graph.Claim{{Name: graph.ClaimNameFor(name, rd.src.Name, ""), Source: rd.src,
				Record: r.record, Confidence: rd.confidence, Status: graph.StatusReported}}
			out = append(out, r.rel)
		}
	}
	slices.SortFunc(out, func(a, b graph.Relation) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
