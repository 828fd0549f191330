package dgraph

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// setNQuads turns the nodes a write sets (the objects of a JSON mutation: "uid" a uid or a blank node
// "_:label", every other key a predicate) into N-Quads. Writes go to Dgraph as N-Quads rather than JSON:
// Dgraph's JSON parser tries every string as a vector before taking it as a string, at a cost the
// profile of a load showed as a sixth of the alpha's time. Values are strings, integers, floats,
// booleans, lists of strings, and uid references ({"uid": ...}, alone or in a list, or nested nodes,
// which are written too); anything else is a bug the caller must hear of.
func setNQuads(set []map[string]any) ([]byte, error) {
	var b []byte
	var err error
	for _, n := range set {
		if b, err = appendNode(b, n); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func appendNode(b []byte, n map[string]any) ([]byte, error) {
	subject, err := nodeRef(n)
	if err != nil {
		return nil, err
	}
	// In a fixed order, so that a write's text is the same each time (and tests can read it).
	preds := make([]string, 0, len(n))
	for p := range n {
		if p != "uid" {
			preds = append(preds, p)
		}
	}
	slices.Sort(preds)
	for _, p := range preds {
		if b, err = appendValue(b, subject, p, n[p]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// nodeRef is a node's subject term: <0x1> for a uid, _:label for a blank node.
func nodeRef(n map[string]any) (string, error) {
	u, ok := n["uid"].(string)
	switch {
	case !ok || u == "":
		return "", fmt.Errorf("dgraph: a node written has no uid: %v", n)
	case strings.HasPrefix(u, "_:"):
		return u, nil
	case uidPattern.MatchString(u):
		return "<" + u + ">", nil
	}
	return "", fmt.Errorf("dgraph: %q is neither a uid nor a blank node", u)
}

func appendValue(b []byte, subject, pred string, v any) ([]byte, error) {
	var err error
	switch v := v.(type) {
	case nil:
		// As in a JSON mutation, a null sets nothing.
	case string:
		b = appendStr(b, subject, pred, v)
	case []string:
		for _, s := range v {
			b = appendStr(b, subject, pred, s)
		}
	case int:
		b = appendTyped(b, subject, pred, strconv.Itoa(v), "int")
	case int64:
		b = appendTyped(b, subject, pred, strconv.FormatInt(v, 10), "int")
	case float64:
		b = appendTyped(b, subject, pred, strconv.FormatFloat(v, 'g', -1, 64), "float")
	case bool:
		b = appendTyped(b, subject, pred, strconv.FormatBool(v), "boolean")
	case map[string]any:
		ref, rerr := nodeRef(v)
		if rerr != nil {
			return nil, fmt.Errorf("dgraph: %s: %w", pred, rerr)
		}
		b = appendEdge(b, subject, pred, ref)
		if len(v) > 1 {
			b, err = appendNode(b, v)
		}
	case []map[string]any:
		for _, m := range v {
			if b, err = appendValue(b, subject, pred, m); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("dgraph: %s: cannot write a %T as N-Quads", pred, v)
	}
	return b, err
}
