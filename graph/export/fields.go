package export

import (
	"strconv"
	"strings"

	"github.com/polgraph/polgraph/graph"
)

// field is a node or edge attribute of the XML formats: its name and its type, as GraphML spells types
// (string, boolean, int, double).
type field struct{ name, typ string }

// nodeFields are the node attributes GraphML and GEXF write, in the order they declare them (GraphML also
// has `label`, which GEXF writes as the node's label).
var nodeFields = []field{
	{"kind", "string"},
	{"aliases", "string"},     // joined with "; "
	{"other_names", "string"}, // JSON array of {name, lang, note}: the aliases with a language or a note
	{"description", "string"},
	{"identifiers", "string"}, // scheme:value joined with " "
	{"valid_from", "string"},
	{"valid_to", "string"},
	{"birth_date", "string"},
	{"death_date", "string"},
	{"gender", "string"},
	{"links", "string"},           // addresses joined with " "
	{"images", "string"},          // addresses joined with " "
	{"contact_details", "string"}, // JSON array of {type, value, note}
	{"deleted", "boolean"},
	{"merged_into", "string"},
	{"bare", "boolean"}, // only a relation refers to it: the subgraph does not hold it
}

// edgeFields are the edge attributes GraphML and GEXF write, in the order they declare them (GraphML also
// has `label`, the type in words, which GEXF writes as the edge's label).
var edgeFields = []field{
	{"type", "string"},
	{"role", "string"},
	{"via", "string"},
	{"term", "string"},
	{"valid_from", "string"},
	{"valid_to", "string"},
	{"date", "string"},
	{"symmetric", "boolean"},
	{"claims", "string"}, // JSON array of ClaimJSON
	{"claim_count", "int"},
	{"sources", "string"},     // source names joined with " "
	{"status", "string"},      // bestStatus
	{"confidence", "double"},  // the highest confidence of a supporting claim; absent when none
	{"verdict", "string"},     // graph.Verdict in words: "2 of 3 claims deny it"
	{"deleted", "boolean"},    // the relation was deleted
	{"merged_into", "string"}, // where a merge moved its claims
}

// nodeValues are a node's attribute values by field name; an empty string is left out.
func nodeValues(n node) (map[string]string, error) {
	as := aliases(n.Entity)
	v := map[string]string{
		"kind":        string(n.Kind),
		"aliases":     strings.Join(aliasNames(as), "; "),
		"description": n.Description,
		"identifiers": strings.Join(identifiers(n.Identifiers), " "),
		"valid_from":  n.ValidFrom.String(),
		"valid_to":    n.ValidTo.String(),
		"birth_date":  n.Attributes.BirthDate.String(),
		"death_date":  n.Attributes.DeathDate.String(),
		"gender":      n.Attributes.Gender,
		"links":       strings.Join(urls(n.Attributes.Links), " "),
		"images":      strings.Join(urls(n.Attributes.Images), " "),
		"deleted":     boolString(!n.Deleted.IsZero()),
		"merged_into": string(n.MergedInto),
		"bare":        boolString(n.bare),
	}
	var other []graph.Alias
	for _, a := range as {
		if a.Lang != "" || a.Note != "" {
			other = append(other, a)
		}
	}
	if len(other) > 0 {
		s, err := jsonString(other)
		if err != nil {
			return nil, err
		}
		v["other_names"] = s
	}
	if len(n.Attributes.ContactDetails) > 0 {
		s, err := jsonString(n.Attributes.ContactDetails)
		if err != nil {
			return nil, err
		}
		v["contact_details"] = s
	}
	return v, nil
}

// edgeValues are a relation's attribute values by field name; an empty string is left out.
func (m model) edgeValues(r graph.Relation) (map[string]string, error) {
	claims, err := jsonString(m.claimsJSON(r))
	if err != nil {
		return nil, err
	}
	v := map[string]string{
		"type":        string(r.Type),
		"role":        r.Role,
		"via":         string(r.Via),
		"term":        string(r.Term),
		"valid_from":  r.ValidFrom.String(),
		"valid_to":    r.ValidTo.String(),
		"date":        r.Date.String(),
		"symmetric":   boolString(r.Type.Symmetric()),
		"claims":      claims,
		"claim_count": strconv.Itoa(len(r.Claims)),
		"sources":     strings.Join(sourceNames(r), " "),
		"status":      string(bestStatus(r)),
		"verdict":     graph.VerdictOf(r.Claims).String(),
		"deleted":     boolString(!r.Deleted.IsZero()),
		"merged_into": string(r.MergedInto),
	}
	if c, ok := bestConfidence(r); ok {
		v["confidence"] = strconv.FormatFloat(c, 'f', -1, 64)
	}
	return v, nil
}
