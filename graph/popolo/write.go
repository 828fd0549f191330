package popolo

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// Write writes a subgraph as one Popolo document: actors as persons, parties and organisations as
// organizations (classified party, legislative period's bodies as they were read), the organisations
// relations name as their term as legislative periods (events), seats as areas (or posts, for offices
// that are PART_OF no legislature), HOLDS_OFFICE and MEMBER_OF relations as memberships with their role,
// via (on_behalf_of_id), term (legislative_period_id) and dates. Ids are the Popolo ids the records were
// read with (their everypolitician, parlparse, ocd or popolo ids) and resource names otherwise. Other
// relation types have no place in Popolo and are left out; so are deleted records.
func Write(w io.Writer, g graph.Subgraph) error {
	doc := File{Persons: []Person{}, Organizations: []Organization{}, Memberships: []Membership{}, Areas: []Area{}, Events: []Event{}}
	terms := map[graph.EntityName]bool{}
	partOf := map[graph.EntityName]graph.EntityName{} // a term's body
	bodies := map[graph.EntityName][]graph.Relation{} // a seat's PART_OF relations, by name
	for _, r := range g.Relations {
		if r.Deleted.IsZero() && r.Term != "" {
			terms[r.Term] = true
		}
		if r.Deleted.IsZero() && r.Type == graph.PartOf {
			partOf[r.From] = r.To
			bodies[r.From] = append(bodies[r.From], r)
		}
	}
	for _, rs := range bodies {
		slices.SortFunc(rs, func(a, b graph.Relation) int { return strings.Compare(string(a.Name), string(b.Name)) })
	}
	// bodyOf is the body a seat was held in by membership r: its term's, when the seat is part of that;
	// else the one the seat was part of when r began; else the first by name.
	bodyOf := func(r graph.Relation) (graph.EntityName, bool) {
		rs := bodies[r.To]
		if len(rs) == 0 {
			return "", false
		}
		if b, ok := partOf[r.Term]; ok && r.Term != "" && slices.ContainsFunc(rs, func(p graph.Relation) bool { return p.To == b }) {
			return b, true
		}
		if !r.ValidFrom.IsZero() {
			for _, p := range rs {
				if d := r.ValidFrom.FirstDay(); p.Period().Overlaps(graph.Period{Start: d, End: d}) {
					return p.To, true
				}
			}
		}
		return rs[0].To, true
	}
	ents := slices.Clone(g.Entities)
	slices.SortFunc(ents, func(a, b graph.Entity) int { return strings.Compare(string(a.Name), string(b.Name)) })
	byName := map[graph.EntityName]graph.Entity{}
	for _, e := range ents {
		byName[e.Name] = e
	}
	id := func(n graph.EntityName) string { return popoloID(byName[n], n) }
	for _, e := range ents {
		if !e.Deleted.IsZero() {
			continue
		}
		switch {
		case e.Kind == graph.KindActor:
			a := e.Attributes
			p := Person{ID: id(e.Name), Name: e.DisplayName, OtherNames: otherNames(e), Identifiers: identifiers(e),
				BirthDate: a.BirthDate.String(), DeathDate: a.DeathDate.String(), Gender: a.Gender, Summary: e.Description}
			for _, l := range a.Links {
				p.Links = append(p.Links, Link{URL: l.URL, Note: l.Note})
			}
			for _, l := range a.Images {
				p.Images = append(p.Images, Link{URL: l.URL, Note: l.Note})
			}
			if len(p.Images) > 0 {
				p.Image = p.Images[0].URL
			}
			for _, c := range a.ContactDetails {
				p.ContactDetails = append(p.ContactDetails, ContactDetail{Type: c.Type, Value: c.Value, Note: c.Note})
			}
			doc.Persons = append(doc.Persons, p)
		case terms[e.Name]:
			name := e.DisplayName
			if body, ok := byName[partOf[e.Name]]; ok {
				name = strings.TrimPrefix(name, body.DisplayName+", ")
			}
			doc.Events = append(doc.Events, Event{ID: id(e.Name), Name: name, Classification: "legislative period",
				OrganizationID: id(partOf[e.Name]), StartDate: e.ValidFrom.String(), EndDate: e.ValidTo.String()})
		case e.Kind == graph.KindSeat:
			doc.Areas = append(doc.Areas, Area{ID: id(e.Name), Name: e.DisplayName, Type: classification(e.Description), Identifiers: identifiers(e)})
		default:
			class := classification(e.Description)
			if e.Kind == graph.KindParty {
				class = "party"
			}
			doc.Organizations = append(doc.Organizations, Organization{ID: id(e.Name), Name: e.DisplayName, Classification: class,
				OtherNames: otherNames(e), Identifiers: identifiers(e), Links: links(e.Attributes.Links),
				FoundingDate: e.ValidFrom.String(), DissolutionDt: e.ValidTo.String()})
		}
	}
	rels := slices.Clone(g.Relations)
	slices.SortFunc(rels, func(a, b graph.Relation) int { return strings.Compare(string(a.Name), string(b.Name)) })
	// A membership of a party that only says what a seat held for it says (an import makes one for each)
	// is that membership's: it is not written again.
	type sitting struct {
		person, party, term graph.EntityName
		from, to            graph.FuzzyDate
	}
	sat := map[sitting]bool{}
	for _, r := range rels {
		if r.Deleted.IsZero() && r.Via != "" {
			sat[sitting{r.From, r.Via, r.Term, r.ValidFrom, r.ValidTo}] = true
		}
	}
	for _, r := range rels {
		if !r.Deleted.IsZero() || r.Type == graph.MemberOf && r.Via == "" && sat[sitting{r.From, r.To, r.Term, r.ValidFrom, r.ValidTo}] {
			continue
		}
		m := Membership{PersonID: id(r.From), Role: r.Role, OnBehalfOfID: optID(id, r.Via), LegislativePeriodID: optID(id, r.Term),
			StartDate: r.ValidFrom.String(), EndDate: r.ValidTo.String()}
		if r.Term != "" {
			t := byName[r.Term]
			if r.ValidFrom == t.ValidFrom { // the term's: Popolo leaves them to the legislative period
				m.StartDate = ""
			}
			if r.ValidTo == t.ValidTo {
				m.EndDate = ""
			}
		}
		switch r.Type {
		case graph.HoldsOffice:
			m.AreaID = id(r.To)
			if org, ok := bodyOf(r); ok {
				m.OrganizationID = id(org)
			}
		case graph.MemberOf:
			m.OrganizationID = id(r.To)
		default:
			continue
		}
		for _, c := range r.Claims {
			if c.Record != "" && !strings.HasPrefix(c.Record, "memberships/") && c.Retracted.IsZero() {
				m.ID = c.Record
				break
			}
		}
		if m.ID == "" {
			m.ID = string(r.Name) // a membership no file gave an id: its relation's name is one
		}
		if role, label, ok := strings.Cut(m.Role, ", "); ok && r.Via == "" && (label == "Independent" || label == "no party") {
			m.Role, m.OnBehalfOfID = role, map[string]string{"Independent": "independent", "no party": "none"}[label]
		}
		if strings.HasPrefix(m.Role, "Member of the ") {
			m.Role = "member"
		}
		doc.Memberships = append(doc.Memberships, m)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("popolo.Write: %w", err)
	}
	return nil
}

// popoloID is the id a record had in Popolo: its everypolitician, parlparse or ocd id, or its popolo id
// without the dataset it was qualified with; its resource name otherwise.
func popoloID(e graph.Entity, n graph.EntityName) string {
	for _, scheme := range []string{"everypolitician", "parlparse", "popolo"} {
		if v := e.Identifiers.First(scheme); v != "" {
			if scheme == "popolo" {
				_, v, _ = strings.Cut(v, "/")
			}
			return v
		}
	}
	if v := e.Identifiers.First("ocd"); v != "" && e.Kind == graph.KindSeat {
		return v
	}
	return string(n)
}

func optID(id func(graph.EntityName) string, n graph.EntityName) string {
	if n == "" {
		return ""
	}
	return id(n)
}

// classification reads back the classification an import wrote as the description ("Legislature.").
func classification(desc string) string {
	d := strings.TrimSuffix(desc, ".")
	if d == "" || strings.Contains(d, " ") && !strings.HasPrefix(d, "Legislative period") {
		if i := strings.Index(d, " of the "); i > 0 {
			return strings.ToLower(d[:i])
		}
		return ""
	}
	return strings.ToLower(d)
}

func identifiers(e graph.Entity) []Identifier {
	var out []Identifier
	for _, id := range e.Identifiers.Pairs() {
		if id.Scheme == "everypolitician" || id.Scheme == "popolo" {
			continue // the record's own id
		}
		out = append(out, Identifier{Scheme: id.Scheme, Identifier: id.Value})
	}
	return out
}

func otherNames(e graph.Entity) []OtherName {
	var out []OtherName
	for _, a := range graph.AliasesOut(e) {
		out = append(out, OtherName{Name: a.Name, Lang: a.Lang, Note: a.Note})
	}
	return out
}

func links(ls []graph.WebLink) []Link {
	var out []Link
	for _, l := range ls {
		out = append(out, Link{URL: l.URL, Note: l.Note})
	}
	return out
}
