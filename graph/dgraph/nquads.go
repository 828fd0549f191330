package dgraph

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dgraph-io/dgo/v230/protos/api"
)

// setQuads turns the nodes a write sets (the objects of a JSON mutation: "uid" a uid or a blank node
// "_:label", every other key a predicate) into the N-Quads of a mutation's Set, already parsed. Writes go
// neither as JSON, whose parser tries every string as a vector before taking it as a string (a sixth of
// the alpha's time in a load's profile), nor as N-Quads text, which the alpha parses again: `dgraph
// live` parses its files itself and sends what it parsed, and so does polgraph. Values are strings,
// integers, floats, booleans, lists of strings, and uid references ({"uid": ...}, alone or in a list, or
// nested nodes, which are written too); anything else is a bug the caller must hear of. Each value is
// what the alpha's own parser makes of the same N-Quad written as text: a plain literal for a string
// (converted to the predicate's type), a typed one for the rest.
func setQuads(set []map[string]any) ([]*api.NQuad, error) {
	var out []*api.NQuad
	var err error
	for _, n := range set {
		if out, err = appendNodeQuads(out, n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func appendNodeQuads(out []*api.NQuad, n map[string]any) ([]*api.NQuad, error) {
	subject, err := nodeID(n)
	if err != nil {
		return nil, err
	}
	// In a fixed order, so that a write is the same each time (and tests can read it).
	preds := make([]string, 0, len(n))
	for p := range n {
		if p != "uid" {
			preds = append(preds, p)
		}
	}
	slices.Sort(preds)
	for _, p := range preds {
		if out, err = appendValueQuads(out, subject, p, n[p]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// nodeID is a node's subject: its uid (0x1f) or its blank node (_:label).
func nodeID(n map[string]any) (string, error) {
	u, ok := n["uid"].(string)
	switch {
	case !ok || u == "":
		return "", fmt.Errorf("dgraph: a node written has no uid: %v", n)
	case strings.HasPrefix(u, "_:") || uidPattern.MatchString(u):
		return u, nil
	}
	return "", fmt.Errorf("dgraph: %q is neither a uid nor a blank node", u)
}

func appendValueQuads(out []*api.NQuad, subject, pred string, v any) ([]*api.NQuad, error) {
	var val *api.Value // a literal's, appended after the switch
	var err error
	switch v := v.(type) {
	case nil:
		// As in a JSON mutation, a null sets nothing.
	case string:
		if !utf8.ValidString(v) {
			return nil, fmt.Errorf("dgraph: %s: %q is not UTF-8", pred, v)
		}
		val = &api.Value{Val: &api.Value_DefaultVal{DefaultVal: v}}
	case []string:
		for _, s := range v {
			if out, err = appendValueQuads(out, subject, pred, s); err != nil {
				return nil, err
			}
		}
	case int:
		val = &api.Value{Val: &api.Value_IntVal{IntVal: int64(v)}}
	case int64:
		val = &api.Value{Val: &api.Value_IntVal{IntVal: v}}
	case float64:
		val = &api.Value{Val: &api.Value_DoubleVal{DoubleVal: v}}
	case bool:
		val = &api.Value{Val: &api.Value_BoolVal{BoolVal: v}}
	case map[string]any:
		ref, rerr := nodeID(v)
		if rerr != nil {
			return nil, fmt.Errorf("dgraph: %s: %w", pred, rerr)
		}
		out = append(out, &api.NQuad{Subject: subject, Predicate: pred, ObjectId: ref})
		if len(v) > 1 {
			out, err = appendNodeQuads(out, v)
		}
	case []map[string]any:
		for _, m := range v {
			if out, err = appendValueQuads(out, subject, pred, m); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("dgraph: %s: cannot write a %T as N-Quads", pred, v)
	}
	if val != nil {
		out = append(out, &api.NQuad{Subject: subject, Predicate: pred, ObjectValue: val})
	}
	return out, err
}
