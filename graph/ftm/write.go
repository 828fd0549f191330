package ftm

import (
	"cmp"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// entityJSON is a FollowTheMoney entity as Write writes it.
type entityJSON struct {
	ID         string              `json:"id"`
	Schema     string              `json:"schema"`
	Properties map[string][]string `json:"properties"`
	Referents  []string            `json:"referents,omitempty"`
}

// add appends values to a property, leaving out empty ones and repeats.
func (e *entityJSON) add(prop string, values ...string) {
	for _, v := range values {
		if v != "" && !slices.Contains(e.Properties[prop], v) {
			e.Properties[prop] = append(e.Properties[prop], v)
		}
	}
}

// writer holds what Write has made.
type writer struct {
	out    []*entityJSON
	used   map[string]bool
	ids    map[graph.EntityName]string
	byName map[graph.EntityName]*entityJSON
	kinds  map[graph.EntityName]graph.Kind
	shown  map[graph.EntityName]string // display names
}

// Write writes a subgraph as FollowTheMoney entities, one JSON object per line, sorted by id: the reverse
// of Read, so that what Read made, written and read again, is what it was, and FtM read and written keeps
// every property polgraph models (README.md has the tables).
//
// An entity's id is its first "ftm" identifier (the others are its referents), else polgraph-<slug>.
// Actors become Person, seats Position, organisations Organization (Company when an identifier only
// Company has, such as isin_code, says so), parties Organization with the topic pol.party. A relation
// becomes the interval Read would read it from, when reading that interval gives the relation back as it
// is: MEMBER_OF Membership (Employment when its role is "employee"), PART_OF between organisations
// Membership, LEADS Directorship, HOLDS_OFFICE Occupancy, FAMILY Family, FORMERLY_WORKED_WITH,
// CAMPAIGNED_WITH and APPEARED_WITH Associate, and a seat's PART_OF read from its Position's organization
// that organization again; any other relation becomes an UnknownLink with the type as role and polgraph's
// role as summary. An interval's id is its first claim's record when that is a free FtM id (else
// polgraph-<relation name>, with the record in recordId), and it keeps the claim's source as publisher,
// sourceUrl and retrievedAt. Deleted entities and relations are left out; a relation's end the subgraph
// lacks is written bare, named with the words of its slug. What FtM has no place for is left out: images,
// contact details other than email and phone, identifiers of other schemes (ocd), an alias's language, an
// actor's valid_from and valid_to, a relation's via and term, a claim's excerpt, confidence and status.
//
// The error is the writer's, or one naming a relation whose end is not a resource name.
func Write(w io.Writer, g graph.Subgraph) error {
	wr := &writer{used: map[string]bool{}, ids: map[graph.EntityName]string{}, byName: map[graph.EntityName]*entityJSON{},
		kinds: map[graph.EntityName]graph.Kind{}, shown: map[graph.EntityName]string{}}
	ents := slices.Clone(g.Entities)
	slices.SortFunc(ents, func(a, b graph.Entity) int { return cmp.Compare(a.Name, b.Name) })
	for _, e := range ents {
		if e.Deleted.IsZero() && wr.byName[e.Name] == nil {
			wr.entity(e)
		}
	}
	rels := slices.Clone(g.Relations)
	slices.SortFunc(rels, func(a, b graph.Relation) int { return cmp.Compare(a.Name, b.Name) })
	for _, r := range rels {
		if !r.Deleted.IsZero() {
			continue
		}
		if err := wr.relation(r); err != nil {
			return fmt.Errorf("ftm.Write: %w", err)
		}
	}
	slices.SortFunc(wr.out, func(a, b *entityJSON) int { return cmp.Compare(a.ID, b.ID) })
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range wr.out {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("ftm.Write: %w", err)
		}
	}
	return nil
}

// longHash is a deterministic id part made from s: 16 hex digits of its SHA-1.
func longHash(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// newID returns preferred when it is a free FtM id, else polgraph-<fallback> (with a hash of fallback
// when that is taken or too long), and marks it used.
func (wr *writer) newID(preferred, fallback string) string {
	id := preferred
	if id == "" || !validID(id) || wr.used[id] {
		id = "polgraph-" + fallback
		if !validID(id) || wr.used[id] {
			id = "polgraph-" + longHash(fallback)
		}
	}
	wr.used[id] = true
	return id
}

// schemaOf chooses the FtM schema of an entity.
func schemaOf(e graph.Entity) string {
	switch e.Kind {
	case graph.KindActor:
		return schemaPerson
	case graph.KindSeat:
		return schemaPosition
	}
	for _, p := range idProperties {
		if p.level == levelCompany && len(e.Identifiers[p.scheme]) > 0 {
			return schemaCompany
		}
	}
	return schemaOrganization
}

// entity writes an entity.
func (wr *writer) entity(e graph.Entity) *entityJSON {
	ftmIDs := e.Identifiers[schemeFTM]
	out := &entityJSON{Schema: schemaOf(e), Properties: map[string][]string{}}
	out.ID = wr.newID(first(ftmIDs), graph.Slug(e.Name))
	for _, ref := range ftmIDs {
		if ref != out.ID && validID(ref) && !slices.Contains(out.Referents, ref) {
			out.Referents = append(out.Referents, ref)
		}
	}
	wr.out = append(wr.out, out)
	wr.ids[e.Name], wr.byName[e.Name], wr.kinds[e.Name], wr.shown[e.Name] = out.ID, out, e.Kind, e.DisplayName

	out.add(propName, e.DisplayName)
	for _, a := range e.Aliases {
		note := ""
		for _, o := range e.Attributes.OtherNames {
			if o.Name == a {
				note = o.Note
				break
			}
		}
		switch note {
		case noteName:
			out.add(propName, a)
		case notePreviousName, "former name":
			out.add(propPreviousName, a)
		case noteWeakAlias:
			out.add(propWeakAlias, a)
		default:
			out.add(propAlias, a)
		}
	}
	out.add(propSummary, e.Description)
	if e.Kind == graph.KindParty {
		out.add(propTopics, topicParty)
	}
	for _, p := range idProperties {
		if has(out.Schema, p.level) {
			out.add(p.prop, e.Identifiers[p.scheme]...)
		}
	}
	a := e.Attributes
	switch e.Kind {
	case graph.KindActor:
		out.add(propBirthDate, a.BirthDate.String())
		out.add(propDeathDate, a.DeathDate.String())
		out.add(propGender, a.Gender)
	case graph.KindSeat:
		out.add(propInception, e.ValidFrom.String())
		out.add(propDissolution, e.ValidTo.String())
	default:
		out.add(propIncorporation, e.ValidFrom.String())
		out.add(propDissolution, e.ValidTo.String())
	}
	legal := has(out.Schema, levelLegalEntity)
	for _, l := range a.Links {
		switch {
		case l.Note == noteSource || !legal && l.Note != noteWikipedia:
			out.add(propSourceURL, l.URL)
		case l.Note == noteWikipedia:
			out.add(propWikipediaURL, l.URL)
		default:
			out.add(propWebsite, l.URL)
		}
	}
	if legal {
		for _, c := range a.ContactDetails {
			for _, cp := range contactProperties {
				if c.Type == cp.typ {
					out.add(cp.prop, c.Value)
				}
			}
		}
	}
	return out
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// end returns the FtM entity a relation's end is written as, writing a bare one when the subgraph lacks
// it.
func (wr *writer) end(name graph.EntityName) (*entityJSON, error) {
	if e := wr.byName[name]; e != nil {
		return e, nil
	}
	kind, err := graph.ParseEntityName(string(name))
	if err != nil {
		return nil, err
	}
	// The slug's words as the name: read back, it gives the same slug.
	return wr.entity(graph.Entity{Name: name, Kind: kind, DisplayName: strings.ReplaceAll(graph.Slug(name), "-", " ")}), nil
}

// relation writes a relation as its interval, or as a Position's organization.
func (wr *writer) relation(r graph.Relation) error {
	from, err := wr.end(r.From)
	if err != nil {
		return fmt.Errorf("relation %s: from: %w", r.Name, err)
	}
	to, err := wr.end(r.To)
	if err != nil {
		return fmt.Errorf("relation %s: to: %w", r.Name, err)
	}
	fk, tk := wr.kinds[r.From], wr.kinds[r.To]
	group := func(k graph.Kind) bool { return k == graph.KindParty || k == graph.KindOrganisation }
	var c graph.Claim
	if len(r.Claims) > 0 {
		c = r.Claims[0]
	}

	// Each relation goes to the interval Read makes it from, when reading that interval gives it back as
	// it is; else to an UnknownLink, which always does.

	schema, ends, role := schemaUnknownLink, intervalEnds[schemaUnknownLink], propRole
	switch {
	case r.Type == graph.MemberOf && fk == graph.KindActor && group(tk) && r.Role == "employee":
		schema = schemaEmployment
	case r.Type == graph.MemberOf && fk == graph.KindActor && group(tk):
		schema = schemaMembership
	case r.Type == graph.PartOf && group(fk) && group(tk):
		schema = schemaMembership
	case r.Type == graph.PartOf && fk == graph.KindSeat && !r.Dated() && r.Role == "" && c.Record == from.ID:
		from.add(propOrganization, to.ID) // read from the Position's organization
		return nil
	case r.Type == graph.Leads && fk == graph.KindActor && group(tk) && r.Role != "": // Read gives no role "director"
		schema = schemaDirectorship
	case r.Type == graph.HoldsOffice && fk == graph.KindActor && tk == graph.KindSeat && r.Role == cut(wr.shown[r.To], graph.MaxRole):
		schema, role = schemaOccupancy, "" // Read takes the role from the position's name
	case r.Type == graph.Family && fk == graph.KindActor && tk == graph.KindActor:
		schema, role = schemaFamily, propRelationship
	case r.Type == graph.FormerlyWorkedWith || r.Type == graph.CampaignedWith || r.Type == graph.AppearedWith:
		if t, ok := associateType(r.Role); ok && t == r.Type && fk == graph.KindActor && tk == graph.KindActor {
			schema, role = schemaAssociate, propRelationship
		}
	}
	if schema != schemaUnknownLink {
		ends = intervalEnds[schema]
	}
	out := &entityJSON{Schema: schema, Properties: map[string][]string{}}
	out.ID = wr.newID(c.Record, strings.TrimPrefix(string(r.Name), "relations/"))
	wr.out = append(wr.out, out)
	out.add(ends[0], from.ID)
	out.add(ends[1], to.ID)
	if schema == schemaUnknownLink {
		out.add(propRole, string(r.Type))
		out.add(propSummary, r.Role)
	} else if role != "" {
		out.add(role, r.Role)
	}
	out.add(propStartDate, r.ValidFrom.String())
	out.add(propEndDate, r.ValidTo.String())
	out.add(propDate, r.Date.String())
	if c.Record != out.ID {
		out.add(propRecordID, c.Record)
	}
	out.add(propPublisher, cmp.Or(c.Source.Outlet, c.Source.Title))
	out.add(propSourceURL, c.Source.URL)
	out.add(propRetrievedAt, c.Source.Retrieved.String())
	return nil
}
