// Package popolo reads Popolo JSON (https://www.popoloproject.com), the format parliament monitors
// publish legislatures in, into polgraph's records, merging with what the graph already holds; and writes
// the graph back out as Popolo.
//
// Both shapes of real files are read: EveryPolitician's, whose memberships join a person to the
// legislature for an area and a legislative period, on behalf of a party; and mySociety's parlparse, whose
// memberships name posts (seats and ministerial offices) and roles. The mapping (README.md beside this
// file has it as a table):
//
//   - a person is an actor; an organisation classified as a party is a party; any other organisation
//     (legislature, chamber, executive, department, committee) is an organisation;
//   - an area is a seat (a constituency or region), and so is a post (an office such as "Prime
//     Minister"); a seat is PART_OF the organisation it elects to or belongs to;
//   - a legislative period (an event) is an organisation `<legislature>-<period>` PART_OF its
//     legislature, with its dates; memberships name it as their term;
//   - a membership with an area or a post is HOLDS_OFFICE from the person to that seat, with its role
//     (a bare "member" becomes "Member of <legislature>"), the party it was on behalf of as via, its term
//     and its dates (the term's when it has none of its own); one with neither is MEMBER_OF the
//     organisation (or, on behalf of a party and in a legislature, of the legislature);
//   - every relation has one claim from the file, a dataset source, pointing at the membership's id (or,
//     for a file without ids, at a key made of its fields) instead of an excerpt.
//
// Merging: an entity whose ids (wikidata, ocd, parlparse, everypolitician, ...) the graph already holds
// keeps its name and gains the file's names, ids and attributes it lacks; failing that, one whose name or
// alias is that of exactly one entity of its kind in the graph (and no id says otherwise) does the same.
// Everything else is new, named by a slug of its name (told apart by a suffix when taken).
package popolo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// File is a Popolo document, with the fields polgraph models: Decode reads them (ignoring the others) and
// Write writes them (leaving out the empty ones).
type File struct {
	Persons       []Person       `json:"persons"`
	Organizations []Organization `json:"organizations"`
	Memberships   []Membership   `json:"memberships"`
	Areas         []Area         `json:"areas"`
	Posts         []Post         `json:"posts,omitempty"`
	Events        []Event        `json:"events"`
	Meta          *Meta          `json:"meta,omitempty"`
}

// Meta is what a Popolo file says of itself.
type Meta struct {
	Sources []string `json:"sources,omitempty"`
}

// Identifier is a Popolo identifier.
type Identifier struct {
	Scheme     string `json:"scheme"`
	Identifier string `json:"identifier"`
}

// OtherName is a Popolo other name. parlparse writes its names in parts (given and family names, a
// peer's title), without `name`; FullName puts them together.
type OtherName struct {
	Name            string `json:"name"`
	Lang            string `json:"lang,omitempty"`
	Note            string `json:"note,omitempty"`
	StartDate       string `json:"start_date,omitempty"`
	EndDate         string `json:"end_date,omitempty"`
	HonorificPrefix string `json:"honorific_prefix,omitempty"`
	GivenName       string `json:"given_name,omitempty"`
	AdditionalName  string `json:"additional_name,omitempty"`
	FamilyName      string `json:"family_name,omitempty"`
	LordName        string `json:"lordname,omitempty"`
	LordOfName      string `json:"lordofname,omitempty"`
}

// FullName is the name, or its parts put together: "Diane Abbott"; a peer's "Lord Adonis" or "Baroness
// Amos of Brondesbury" from honorific_prefix, lordname and lordofname.
func (o OtherName) FullName() string {
	if n := strings.TrimSpace(o.Name); n != "" {
		return n
	}
	if o.LordName != "" || o.LordOfName != "" {
		n := strings.Join(strings.Fields(o.HonorificPrefix+" "+o.LordName), " ")
		if o.LordOfName != "" {
			n += " of " + o.LordOfName
		}
		return strings.TrimSpace(n)
	}
	return strings.Join(strings.Fields(o.GivenName+" "+o.AdditionalName+" "+o.FamilyName), " ")
}

// Link is a Popolo link or image.
type Link struct {
	URL  string `json:"url"`
	Note string `json:"note,omitempty"`
}

// ContactDetail is a Popolo contact detail.
type ContactDetail struct {
	Type  string `json:"type"`
	Value string `json:"value"`
	Label string `json:"label,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Person is a Popolo person.
type Person struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	OtherNames     []OtherName     `json:"other_names,omitempty"`
	Identifiers    []Identifier    `json:"identifiers,omitempty"`
	BirthDate      string          `json:"birth_date,omitempty"`
	DeathDate      string          `json:"death_date,omitempty"`
	Gender         string          `json:"gender,omitempty"`
	Image          string          `json:"image,omitempty"`
	Images         []Link          `json:"images,omitempty"`
	Links          []Link          `json:"links,omitempty"`
	ContactDetails []ContactDetail `json:"contact_details,omitempty"`
	Summary        string          `json:"summary,omitempty"`
	// parlparse's people.json names people through other_names only (given_name, family_name, note
	// "Main").
	GivenName  string `json:"given_name,omitempty"`
	FamilyName string `json:"family_name,omitempty"`
	SortName   string `json:"sort_name,omitempty"`
	Email      string `json:"email,omitempty"`
}

// Organization is a Popolo organization.
type Organization struct {
	ID             string       `json:"id"`
	Name           string       `json:"name"`
	Classification string       `json:"classification,omitempty"`
	OtherNames     []OtherName  `json:"other_names,omitempty"`
	Identifiers    []Identifier `json:"identifiers,omitempty"`
	Links          []Link       `json:"links,omitempty"`
	FoundingDate   string       `json:"founding_date,omitempty"`
	DissolutionDt  string       `json:"dissolution_date,omitempty"`
	ParentID       string       `json:"parent_id,omitempty"`
}

// Area is a Popolo area.
type Area struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Type        string       `json:"type,omitempty"`
	Identifiers []Identifier `json:"identifiers,omitempty"`
	ParentID    string       `json:"parent_id,omitempty"`
}

// Post is a Popolo post: a seat or an office.
type Post struct {
	ID             string       `json:"id"`
	Label          string       `json:"label,omitempty"`
	Role           string       `json:"role,omitempty"`
	OrganizationID string       `json:"organization_id,omitempty"`
	AreaID         string       `json:"area_id,omitempty"`
	Area           *Area        `json:"area,omitempty"`
	StartDate      string       `json:"start_date,omitempty"`
	EndDate        string       `json:"end_date,omitempty"`
	Identifiers    []Identifier `json:"identifiers,omitempty"`
}

// Event is a Popolo event; those classified "legislative period" are terms.
type Event struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Classification string `json:"classification"`
	OrganizationID string `json:"organization_id,omitempty"`
	StartDate      string `json:"start_date,omitempty"`
	EndDate        string `json:"end_date,omitempty"`
}

// Membership is a Popolo membership.
type Membership struct {
	ID                  string `json:"id"`
	PersonID            string `json:"person_id"`
	OrganizationID      string `json:"organization_id,omitempty"`
	PostID              string `json:"post_id,omitempty"`
	AreaID              string `json:"area_id,omitempty"`
	OnBehalfOfID        string `json:"on_behalf_of_id,omitempty"`
	LegislativePeriodID string `json:"legislative_period_id,omitempty"`
	Role                string `json:"role,omitempty"`
	Label               string `json:"label,omitempty"`
	StartDate           string `json:"start_date,omitempty"`
	EndDate             string `json:"end_date,omitempty"`
	StartReason         string `json:"start_reason,omitempty"`
	EndReason           string `json:"end_reason,omitempty"`
}

// Decode reads a Popolo document. A file that is not one (not JSON, or JSON without persons,
// organizations or memberships) is an Invalid error naming the file and, for JSON errors, the line.
func Decode(r io.Reader, file string) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("popolo.Decode %s: %w", file, err)
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		line := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line = 1 + strings.Count(string(b[:min(int(se.Offset), len(b))]), "\n")
		case errors.As(err, &te):
			line = 1 + strings.Count(string(b[:min(int(te.Offset), len(b))]), "\n")
			err = fmt.Errorf("%s: want %s, got %s", te.Field, te.Type, te.Value)
		}
		return nil, invalid(file, line, "", "not Popolo JSON: %v", err)
	}
	if len(f.Persons) == 0 && len(f.Organizations) == 0 && len(f.Memberships) == 0 {
		return nil, invalid(file, 1, "", "no persons, organizations or memberships: not a Popolo file")
	}
	return &f, nil
}

func invalid(file string, line int, field, format string, args ...any) error {
	at := file
	if line > 0 {
		at = fmt.Sprintf("%s:%d", file, line)
	}
	if field != "" {
		at += ": " + field
	}
	var v graph.Violations
	v.Add(at, format, args...)
	return v.Err("popolo.Read", "the file cannot be imported; nothing was written")
}

var (
	wikidataPattern = regexp.MustCompile(`^Q[1-9][0-9]*$`)
	uuidPattern     = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// idOf is the identifier a Popolo id gives its record in polgraph, so that a second import finds it:
// a scheme its shape tells (ocd, parlparse, wikidata, everypolitician for UUIDs), else `popolo` with the
// id qualified by the dataset, since short ids ("labour", "term/4") are unique only within one file.
func idOf(dataset, id string) graph.Identifier {
	switch {
	case strings.HasPrefix(id, "ocd-division/"):
		return graph.Identifier{Scheme: "ocd", Value: id}
	case strings.HasPrefix(id, "uk.org.publicwhip/"):
		return graph.Identifier{Scheme: "parlparse", Value: id}
	case wikidataPattern.MatchString(id):
		return graph.Identifier{Scheme: "wikidata", Value: id}
	case uuidPattern.MatchString(id):
		return graph.Identifier{Scheme: "everypolitician", Value: id}
	}
	return graph.Identifier{Scheme: "popolo", Value: dataset + "/" + id}
}

// schemeOf maps a Popolo identifier scheme to polgraph's: lower case, and only the characters a scheme
// may hold (ParseIdentifier), so that `GetEntity wikidata:Q…` works for every one.
func schemeOf(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}
