package dgraph

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/polgraph/polgraph/graph"
)

// dumpTypes are the node types polgraph keeps, in the order Dump writes them, each with how many nodes
// one query reads (a snapshot part holds up to 16 MiB, a saved view up to 2 MiB of notes).
var dumpTypes = []struct {
	name string
	page int
}{
	{"Meta", 1000}, {"Source", 1000}, {"Entity", 1000}, {"Relation", 1000}, {"Claim", 1000},
	{"Judgement", 1000}, {"Change", 1000}, {"ChangeSet", 1000}, {"Request", 1000}, {"Key", 1000}, {"View", 8},
	{"ReviewDocument", 500}, {"ReviewProposal", 1000}, {"ReviewEntity", 1000},
	{"Snapshot", 100}, {"SnapshotPart", 4},
}

// DumpSummary is what Dump wrote: how many nodes of each type, and the graph's version then.
type DumpSummary struct {
	Counts  map[string]int `json:"counts"`
	Version int64          `json:"version"`
}

// Dump writes every node polgraph keeps (the graph, its tombstones and packs, the audit trail, request
// ids, API keys, saved views, the review queue, the shared snapshot copy) as Dgraph shows it now, one JSON object a line: {"type":…,"uid":…,"p":{predicate: value}}, types in a fixed
// order, nodes by uid, keys sorted, list values sorted. Two Dgraphs holding the same data give the same
// bytes, since a binary backup keeps uids. It fails with an Unavailable error when Dgraph does not answer.
// Each type is read in pages of its own transaction: dump a Dgraph nothing writes to.
func (s *Store) Dump(ctx context.Context, w io.Writer) (DumpSummary, error) {
	const op = "dgraph.Store.Dump"
	out := bufio.NewWriterSize(w, 1<<20)
	sum := DumpSummary{Counts: map[string]int{}}
	for _, t := range dumpTypes {
		after := "0x0"
		for {
			q := fmt.Sprintf(`{ q(func: type(%s), first: %d, after: %s) { uid expand(_all_) { uid } } }`, t.name, t.page, after)
			var res struct {
				Q []map[string]json.RawMessage `json:"q"`
			}
			if err := s.query(ctx, op, q, nil, &res); err != nil {
				return sum, err
			}
			for _, n := range res.Q {
				var uid string
				if err := json.Unmarshal(n["uid"], &uid); err != nil {
					return sum, &graph.Error{Op: op, Kind: graph.Internal, Message: "a node without uid in Dgraph's answer", Err: err}
				}
				delete(n, "uid")
				delete(n, "dgraph.type")
				p := make(map[string]any, len(n))
				for k, raw := range n {
					v, err := canonical(raw)
					if err != nil {
						return sum, &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
					}
					p[k] = v
				}
				if t.name == "Meta" && p["pg.name"] == metaName {
					if v, ok := p["pg.version"].(json.Number); ok {
						sum.Version, _ = v.Int64()
					}
				}
				line, err := json.Marshal(struct {
					Type string         `json:"type"`
					UID  string         `json:"uid"`
					P    map[string]any `json:"p"`
				}{t.name, uid, p})
				if err != nil {
					return sum, &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot encode a node", Err: err}
				}
				out.Write(line)
				if err := out.WriteByte('\n'); err != nil {
					return sum, &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot write the dump", Err: err}
				}
				sum.Counts[t.name]++
				after = uid
			}
			if len(res.Q) < t.page {
				break
			}
		}
	}
	if err := out.Flush(); err != nil {
		return sum, &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot write the dump", Err: err}
	}
	return sum, nil
}

// canonical decodes a value of Dgraph's answer with its numbers as written, its lists sorted (Dgraph keeps
// them as sets) and a uid edge reduced to the uid.
func canonical(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return sortValue(v), nil
}

func sortValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if u, ok := x["uid"].(string); ok && len(x) == 1 {
			return u
		}
		for k, e := range x {
			x[k] = sortValue(e)
		}
		return x
	case []any:
		keys := make([]string, len(x))
		for i, e := range x {
			x[i] = sortValue(e)
			b, _ := json.Marshal(x[i])
			keys[i] = string(b)
		}
		idx := make([]int, len(x))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmpUIDs(keys[a], keys[b]) })
		out := make([]any, len(x))
		for i, j := range idx {
			out[i] = x[j]
		}
		return out
	}
	return v
}

// cmpUIDs orders uids ("0x1f") by number and anything else as text.
func cmpUIDs(a, b string) int {
	ua, ea := strconv.ParseUint(trimUID(a), 16, 64)
	ub, eb := strconv.ParseUint(trimUID(b), 16, 64)
	if ea == nil && eb == nil {
		return cmp.Compare(ua, ub)
	}
	return cmp.Compare(a, b)
}

func trimUID(s string) string {
	if len(s) > 4 && s[0] == '"' && s[1] == '0' && s[2] == 'x' && s[len(s)-1] == '"' {
		return s[3 : len(s)-1]
	}
	return "not a uid"
}

// TypeCounts is how many nodes of each type Dump writes Dgraph holds now (types without nodes left out),
// and the graph's version: one query, to compare a restored Dgraph with what it should hold.
func (s *Store) TypeCounts(ctx context.Context) (DumpSummary, error) {
	const op = "dgraph.Store.TypeCounts"
	var q bytes.Buffer
	q.WriteString("{\n")
	for i, t := range dumpTypes {
		fmt.Fprintf(&q, "  t%d(func: type(%s)) { count(uid) }\n", i, t.name)
	}
	fmt.Fprintf(&q, "  meta(func: eq(pg.name, %q)) @filter(type(Meta)) { pg.version }\n}", metaName)
	var res map[string]json.RawMessage
	if err := s.query(ctx, op, q.String(), nil, &res); err != nil {
		return DumpSummary{}, err
	}
	sum := DumpSummary{Counts: map[string]int{}}
	for i, t := range dumpTypes {
		var c []struct {
			N int `json:"count"`
		}
		if err := json.Unmarshal(res[fmt.Sprintf("t%d", i)], &c); err != nil {
			return sum, &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
		}
		if len(c) > 0 && c[0].N > 0 {
			sum.Counts[t.name] = c[0].N
		}
	}
	var m []struct {
		V int64 `json:"pg.version"`
	}
	if err := json.Unmarshal(res["meta"], &m); err != nil {
		return sum, &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
	}
	if len(m) > 0 {
		sum.Version = m[0].V
	}
	return sum, nil
}
