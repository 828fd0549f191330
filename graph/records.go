package graph

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The dataset format's records as written (data/FORMAT.md): what dataset files hold, and how the audit
// trail shows a resource before and after a change. Empty optional fields are left out.
type (
	// SourceOut is a source record.
	SourceOut struct {
		Record    string `json:"record"`
		Name      string `json:"name"`
		Title     string `json:"title"`
		Kind      string `json:"kind"`
		Outlet    string `json:"outlet,omitempty"`
		Author    string `json:"author,omitempty"`
		Published string `json:"published,omitempty"`
		URL       string `json:"url,omitempty"`
		Retrieved string `json:"retrieved,omitempty"`
		Licence   string `json:"licence,omitempty"`
	}
	// EntityOut is an entity record.
	EntityOut struct {
		Record      string          `json:"record"`
		Name        string          `json:"name"`
		DisplayName string          `json:"display_name"`
		Aliases     []AliasOut      `json:"aliases,omitempty"`
		Description string          `json:"description,omitempty"`
		Identifiers Identifiers     `json:"identifiers,omitempty"`
		ValidFrom   string          `json:"valid_from,omitempty"`
		ValidTo     string          `json:"valid_to,omitempty"`
		DatesFrom   string          `json:"dates_from,omitempty"`
		BirthDate   string          `json:"birth_date,omitempty"`
		DeathDate   string          `json:"death_date,omitempty"`
		Gender      string          `json:"gender,omitempty"`
		Links       []WebLink       `json:"links,omitempty"`
		Images      []WebLink       `json:"images,omitempty"`
		Contacts    []ContactDetail `json:"contact_details,omitempty"`
		Deleted     *TombstoneOut   `json:"deleted,omitempty"`
		MergedInto  string          `json:"merged_into,omitempty"`
	}
	// AliasOut is an alias as written: a plain string, or an object when it has a language or a note.
	AliasOut Alias
	// ClaimOut is a claim of a relation record.
	ClaimOut struct {
		Source     string        `json:"source"`
		Excerpt    string        `json:"excerpt,omitempty"`
		Record     string        `json:"record_id,omitempty"`
		Confidence float64       `json:"confidence"`
		Status     string        `json:"status"`
		SaidBy     string        `json:"said_by,omitempty"`
		Key        string        `json:"key,omitempty"`
		Retracted  *TombstoneOut `json:"retracted,omitempty"`
	}
	// RelationOut is a relation record with its claims.
	RelationOut struct {
		Record     string        `json:"record"`
		Type       string        `json:"type"`
		From       string        `json:"from"`
		To         string        `json:"to"`
		Key        string        `json:"key,omitempty"`
		Role       string        `json:"role,omitempty"`
		Via        string        `json:"via,omitempty"`
		Term       string        `json:"term,omitempty"`
		ValidFrom  string        `json:"valid_from,omitempty"`
		ValidTo    string        `json:"valid_to,omitempty"`
		Date       string        `json:"date,omitempty"`
		DatesFrom  string        `json:"dates_from,omitempty"`
		Claims     []ClaimOut    `json:"claims"`
		Deleted    *TombstoneOut `json:"deleted,omitempty"`
		MergedInto string        `json:"merged_into,omitempty"`
	}
	// TombstoneOut says when, by whom and why a resource was retracted or deleted (the trail shows it;
	// a dataset file holds a claim's retraction, never a deletion).
	TombstoneOut struct {
		Time   string `json:"time"`
		By     string `json:"by"`
		Reason string `json:"reason"`
	}
)

func tombstoneOut(t Tombstone) *TombstoneOut {
	if t.IsZero() {
		return nil
	}
	return &TombstoneOut{Time: t.Time.UTC().Format("2006-01-02T15:04:05Z"), By: t.By, Reason: t.Reason}
}

// TombstoneOutOf is a tombstone as records write it (nil for none).
func TombstoneOutOf(t Tombstone) *TombstoneOut { return tombstoneOut(t) }

// Tombstone reads a tombstone back from a record (to the second).
func (t TombstoneOut) Tombstone() Tombstone {
	at, _ := time.Parse("2006-01-02T15:04:05Z", t.Time)
	return Tombstone{Time: at, By: t.By, Reason: t.Reason}
}

// SourceRecord is a source as the dataset format writes it.
func SourceRecord(s Source) SourceOut {
	return SourceOut{Record: "source", Name: string(s.Name), Title: s.Title, Kind: string(s.Kind),
		Outlet: s.Outlet, Author: s.Author, Published: s.Published.String(), URL: s.URL,
		Retrieved: s.Retrieved.String(), Licence: s.Licence}
}

// MarshalJSON writes a plain alias as a string.
func (a AliasOut) MarshalJSON() ([]byte, error) {
	if a.Lang == "" && a.Note == "" {
		return json.Marshal(a.Name)
	}
	return json.Marshal(Alias(a))
}

// AliasesOut lists an entity's aliases as records write them, each with its language and note if it has
// them.
func AliasesOut(e Entity) []AliasOut {
	if len(e.Aliases) == 0 {
		return nil
	}
	out := make([]AliasOut, len(e.Aliases))
	for i, a := range e.Aliases {
		out[i] = AliasOut{Name: a}
		for _, o := range e.Attributes.OtherNames {
			if o.Name == a {
				out[i] = AliasOut(o)
				break
			}
		}
	}
	return out
}

// EntityRecord is an entity as the dataset format writes it.
func EntityRecord(e Entity) EntityOut {
	a := e.Attributes
	return EntityOut{Record: "entity", Name: string(e.Name), DisplayName: e.DisplayName, Aliases: AliasesOut(e),
		Description: e.Description, Identifiers: e.Identifiers, ValidFrom: e.ValidFrom.String(), ValidTo: e.ValidTo.String(), DatesFrom: a.DatesFrom,
		BirthDate: a.BirthDate.String(), DeathDate: a.DeathDate.String(), Gender: a.Gender, Links: a.Links, Images: a.Images,
		Contacts: a.ContactDetails, Deleted: tombstoneOut(e.Deleted), MergedInto: string(e.MergedInto)}
}

// RelationRecord is a relation as the dataset format writes it. The relation's key and each claim's key
// are read back from their names, which must be the ones RelationNameFor and ClaimNameFor derive.
func RelationRecord(r Relation) (RelationOut, error) {
	key, err := RelationKey(r)
	if err != nil {
		return RelationOut{}, err
	}
	out := RelationOut{Record: "relation", Type: string(r.Type), From: string(r.From), To: string(r.To), Key: key,
		Role: r.Role, Via: string(r.Via), Term: string(r.Term), ValidFrom: r.ValidFrom.String(), ValidTo: r.ValidTo.String(), Date: r.Date.String(), DatesFrom: r.DatesFrom,
		Claims: make([]ClaimOut, len(r.Claims)), Deleted: tombstoneOut(r.Deleted), MergedInto: string(r.MergedInto)}
	for i, c := range r.Claims {
		ck, err := ClaimKey(r.Name, c)
		if err != nil {
			return RelationOut{}, err
		}
		out.Claims[i] = ClaimOut{Source: string(c.Source.Name), Excerpt: c.Excerpt, Record: c.Record, Confidence: c.Confidence,
			Status: string(c.Status), SaidBy: string(c.SaidBy), Key: ck, Retracted: tombstoneOut(c.Retracted)}
	}
	return out, nil
}

// RecordJSON writes a record as one line of JSON.
func RecordJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// RelationKey reads a relation's key back from its name.
func RelationKey(r Relation) (string, error) {
	base := string(RelationNameFor(r.From, r.Type, r.To, ""))
	switch rest, ok := strings.CutPrefix(string(r.Name), base); {
	case ok && rest == "":
		return "", nil
	case ok && len(rest) > 1 && rest[0] == '.':
		return rest[1:], nil
	}
	return "", fmt.Errorf("relation %s is not named as %s.<key>", r.Name, base)
}

// ClaimKey reads a claim's key back from its name.
func ClaimKey(rel RelationName, c Claim) (string, error) {
	base := ClaimNameFor(rel, c.Source.Name, "")
	switch rest, ok := strings.CutPrefix(c.Name, base); {
	case ok && rest == "":
		return "", nil
	case ok && len(rest) > 1 && rest[0] == '-':
		return rest[1:], nil
	}
	return "", fmt.Errorf("claim %s is not named as %s-<key>", c.Name, base)
}
