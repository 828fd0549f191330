package graph

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Identifiers are an entity's external ids, by scheme ("wikidata", "ocd", "parlparse"): any scheme, and
// several values of one scheme where a publisher gives them (a person with two Wikidata items merged
// upstream). Values of a scheme are kept in the order given, without repeats.
type Identifiers map[string][]string

// Identifier is one external id.
type Identifier struct {
	Scheme, Value string
}

// String writes it as `scheme:value`, the form lookups accept.
func (id Identifier) String() string { return id.Scheme + ":" + id.Value }

// ParseIdentifier reads `scheme:value` (wikidata:Q123, ocd:ocd-division/country:gb/..., parlparse:uk.org.
// publicwhip/person/10001). The scheme is lower-case letters, digits, '_', '-' or '.', 1 to 64 bytes; it
// reports false for anything else, including resource names (collection/slug).
func ParseIdentifier(s string) (Identifier, bool) {
	scheme, value, ok := strings.Cut(s, ":")
	if !ok || scheme == "" || len(scheme) > MaxIdentifierKey || strings.TrimSpace(value) == "" {
		return Identifier{}, false
	}
	for _, c := range scheme {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return Identifier{}, false
		}
	}
	return Identifier{Scheme: scheme, Value: value}, true
}

// First returns the first value of a scheme, or "".
func (ids Identifiers) First(scheme string) string {
	if vs := ids[scheme]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Has reports whether the entity has this value of the scheme.
func (ids Identifiers) Has(scheme, value string) bool { return slices.Contains(ids[scheme], value) }

// Add adds a value to a scheme (creating the map if needed) and reports whether it was new.
func (ids *Identifiers) Add(scheme, value string) bool {
	if *ids == nil {
		*ids = Identifiers{}
	}
	if slices.Contains((*ids)[scheme], value) {
		return false
	}
	(*ids)[scheme] = append((*ids)[scheme], value)
	return true
}

// Clone copies the identifiers.
func (ids Identifiers) Clone() Identifiers {
	if ids == nil {
		return nil
	}
	out := make(Identifiers, len(ids))
	for k, v := range ids {
		out[k] = slices.Clone(v)
	}
	return out
}

// Pairs lists every id, by scheme and then in the order given.
func (ids Identifiers) Pairs() []Identifier {
	var out []Identifier
	for _, k := range slices.Sorted(maps.Keys(ids)) {
		for _, v := range ids[k] {
			out = append(out, Identifier{k, v})
		}
	}
	return out
}

// Count is how many ids there are, over every scheme.
func (ids Identifiers) Count() int {
	n := 0
	for _, v := range ids {
		n += len(v)
	}
	return n
}

// Conflict returns a scheme both sets have without a value in common ("", false when none): two entities
// with different Wikidata items are not one.
func (ids Identifiers) Conflict(other Identifiers) (string, bool) {
	for _, k := range slices.Sorted(maps.Keys(ids)) {
		theirs, ok := other[k]
		if !ok || len(theirs) == 0 || len(ids[k]) == 0 {
			continue
		}
		if !slices.ContainsFunc(ids[k], func(v string) bool { return slices.Contains(theirs, v) }) {
			return k, true
		}
	}
	return "", false
}

// MarshalJSON writes a scheme with one value as a string and one with several as an array, so that
// files of the first format version read the same.
func (ids Identifiers) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(ids))
	for k, v := range ids {
		if len(v) == 1 {
			out[k] = v[0]
		} else {
			out[k] = v
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads each scheme's value as a string or an array of strings.
func (ids *Identifiers) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(Identifiers, len(raw))
	for k, v := range raw {
		var one string
		if err := json.Unmarshal(v, &one); err == nil {
			out[k] = []string{one}
			continue
		}
		var many []string
		if err := json.Unmarshal(v, &many); err != nil {
			return fmt.Errorf("identifiers.%s: want a string or an array of strings", k)
		}
		out[k] = many
	}
	*ids = out
	return nil
}

// Alias is another name of an entity with what is known of it: its language (a BCP 47 tag such as `cy`
// or `gd`) and a note (`maiden name`, `former name`, `transliteration`).
type Alias struct {
	Name string `json:"name"`
	Lang string `json:"lang,omitempty"`
	Note string `json:"note,omitempty"`
}

// ValidLang reports whether s is a language tag as aliases take them: BCP 47's letters, digits and
// hyphens (en, cy, gd, bn-Latn), at most MaxLang bytes.
func ValidLang(s string) bool {
	if s == "" || len(s) > MaxLang {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// WebLink is an address about the entity (a profile page, an official site, an image) with a note.
type WebLink struct {
	URL  string `json:"url"`
	Note string `json:"note,omitempty"`
}

// ContactDetail is a way to reach the entity: its type (`email`, `phone`, `twitter`, `address`...), value
// and a note.
type ContactDetail struct {
	Type  string `json:"type"`
	Value string `json:"value"`
	Note  string `json:"note,omitempty"`
}

// Attributes are what published data says of an entity beyond its names: all optional.
type Attributes struct {
	BirthDate, DeathDate FuzzyDate
	Gender               string
	Links                []WebLink
	Images               []WebLink
	ContactDetails       []ContactDetail
	// OtherNames are the aliases that have a language or a note; each is also in Entity.Aliases, which
	// searches read.
	OtherNames []Alias
	// DatesFrom says where the entity's valid_from and valid_to come from: a citation of the public
	// record, or the FOUNDED or DISSOLVED relation they were taken from (as Relation.DatesFrom does).
	DatesFrom string
}

// IsZero reports whether no attribute is set.
func (a Attributes) IsZero() bool {
	return a.BirthDate.IsZero() && a.DeathDate.IsZero() && a.Gender == "" && len(a.Links) == 0 &&
		len(a.Images) == 0 && len(a.ContactDetails) == 0 && len(a.OtherNames) == 0 && a.DatesFrom == ""
}

// attributesJSON is Attributes as stored and written, dates as text.
type attributesJSON struct {
	BirthDate      string          `json:"birth_date,omitempty"`
	DeathDate      string          `json:"death_date,omitempty"`
	Gender         string          `json:"gender,omitempty"`
	Links          []WebLink       `json:"links,omitempty"`
	Images         []WebLink       `json:"images,omitempty"`
	ContactDetails []ContactDetail `json:"contact_details,omitempty"`
	OtherNames     []Alias         `json:"other_names,omitempty"`
	DatesFrom      string          `json:"dates_from,omitempty"`
}

// MarshalJSON writes the attributes with dates as text.
func (a Attributes) MarshalJSON() ([]byte, error) {
	return json.Marshal(attributesJSON{BirthDate: a.BirthDate.String(), DeathDate: a.DeathDate.String(), Gender: a.Gender,
		Links: a.Links, Images: a.Images, ContactDetails: a.ContactDetails, OtherNames: a.OtherNames, DatesFrom: a.DatesFrom})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (a *Attributes) UnmarshalJSON(b []byte) error {
	var j attributesJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	out := Attributes{Gender: j.Gender, Links: j.Links, Images: j.Images, ContactDetails: j.ContactDetails, OtherNames: j.OtherNames, DatesFrom: j.DatesFrom}
	var err error
	if j.BirthDate != "" {
		if out.BirthDate, err = ParseFuzzyDate(j.BirthDate); err != nil {
			return fmt.Errorf("birth_date: %w", err)
		}
	}
	if j.DeathDate != "" {
		if out.DeathDate, err = ParseFuzzyDate(j.DeathDate); err != nil {
			return fmt.Errorf("death_date: %w", err)
		}
	}
	*a = out
	return nil
}
