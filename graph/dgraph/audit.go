package dgraph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
)

var _ graph.Trail = (*Store)(nil)

// requestName names the node that records the result of a principal's request id: scoped to the
// principal, so that one caller's id never replays another's answer.
func requestName(m graph.WriteMeta) string {
	h := sha256.Sum256([]byte(m.Principal + "\x00" + m.RequestID))
	return "requests/" + hex.EncodeToString(h[:12])
}

// replayed is what a write finds when its request id was already written: the first write's result.
type replayed struct{ result graph.WriteResult }

func (replayed) Error() string { return "the request was already written" }

func replayedResult(raw json.RawMessage, meta graph.WriteMeta) error {
	var r struct {
		Result string `json:"pg.request_result"`
	}
	json.Unmarshal(raw, &r)
	var res graph.WriteResult
	if err := readRequestRecord(r.Result, meta, &res); err != nil {
		return err
	}
	res.Replayed = true
	return replayed{res}
}

// requestRecord is what a request's node keeps (pg.request_result): the method and digest of the request
// that used the id, and its result. Records written before method and digest were kept are the result
// alone.
type requestRecord struct {
	Method string          `json:"method"`
	Digest string          `json:"digest"`
	Result json.RawMessage `json:"result"`
}

func requestRecordJSON(meta graph.WriteMeta, result any) (string, error) {
	b, err := json.Marshal(result)
	if err != nil {
		return "", err
	}
	rec, err := json.Marshal(requestRecord{Method: meta.Method, Digest: meta.Digest, Result: b})
	return string(rec), err
}

// readRequestRecord reads a recorded result into result, once graph.CheckReplay lets meta replay it.
func readRequestRecord(recorded string, meta graph.WriteMeta, result any) error {
	var rec requestRecord
	if err := json.Unmarshal([]byte(recorded), &rec); err != nil || rec.Result == nil {
		rec = requestRecord{Result: json.RawMessage(recorded)}
	}
	if err := graph.CheckReplay(meta, rec.Method, rec.Digest); err != nil {
		return err
	}
	if err := json.Unmarshal(rec.Result, result); err != nil {
		return &graph.Error{Op: meta.Method, Kind: graph.Internal, Message: "a recorded result cannot be read", Err: err}
	}
	return nil
}

// changeNodes are the trail's nodes for a write's changes, and the request's node with its result. Who
// wrote, how and under which request id go once per write, on a ChangeSet node that each Change points
// at: a load's every change naming the same principal in an index of its own made that index's entry
// for the principal grow with every change written, and the load slow down with it.
//
// version is the graph version the write commits at (0 for a change that is not the graph's: an API key's,
// a judgement's): each change carries it, so that the trail can be read in commit order (ReadChangeLog).
func changeNodes(m graph.WriteMeta, changes []graph.Change, request string, result graph.WriteResult, version int64) []map[string]any {
	now := time.Now().UnixMilli()
	out := make([]map[string]any, 0, len(changes)+2)
	if len(changes) > 0 {
		out = append(out, map[string]any{"uid": "_:changeset", "dgraph.type": "ChangeSet", "pg.change_principal": m.Principal,
			"pg.change_by": append([]string{m.Principal}, m.Aliases...), "pg.change_method": m.Method, "pg.change_request": m.RequestID})
		if m.Reason != "" {
			out[0]["pg.change_reason"] = m.Reason
		}
	}
	set := map[string]any{"uid": "_:changeset"}
	for i, c := range changes {
		out = append(out, map[string]any{"uid": "_:change" + strconv.Itoa(i), "dgraph.type": "Change", "pg.change_set": set,
			"pg.change_at": now, "pg.change_resource": c.Resource, "pg.change_action": c.Action,
			"pg.change_before": c.Before, "pg.change_after": c.After})
		if version > 0 {
			out[len(out)-1]["pg.change_version"] = version
		}
	}
	if request != "" {
		rec, _ := requestRecordJSON(m, result)
		out = append(out, map[string]any{"uid": "_:request", "dgraph.type": "Request", "pg.name": request, "pg.request_result": rec})
	}
	return out
}

// writtenVersion is the graph version a write's nodes commit at: the one its write of the meta node
// raises to, the one a bulk load holds when the write joins it (the meta node written with the load's
// lease), or, for a bulk load's batch (which writes no meta node), the version its nodes are marked
// changed with; 0 for a write that touches no version.
func writtenVersion(set []map[string]any, meta found) int64 {
	var v int64
	for _, n := range set {
		if n["pg.name"] == metaName {
			if x, ok := n["pg.version"].(int64); ok {
				return x
			}
			if _, ok := n["pg.lease_until"]; ok {
				return meta.Version
			}
		}
		if x, ok := n["pg.changed"].(int64); ok && x > v {
			v = x
		}
	}
	return v
}

// diff turns the records of what was (before, "" when new) and what will be into a change, or nothing
// when they are the same, counting it in res.
func diff(res *graph.WriteResult, changes *[]graph.Change, resource, before, after string) {
	switch {
	case before == "":
		res.Created = append(res.Created, resource)
		*changes = append(*changes, graph.Change{Resource: resource, Action: graph.ActionCreate, After: after})
	case before != after:
		res.Updated = append(res.Updated, resource)
		*changes = append(*changes, graph.Change{Resource: resource, Action: graph.ActionUpdate, Before: before, After: after})
	default:
		res.Unchanged++
	}
}

// decodeRaw reads a found resource's fields into v; false when it was not found.
func decodeRaw[T any](got map[string]found, name string) (T, bool) {
	var v T
	f, ok := got[name]
	if !ok || f.raw == nil {
		return v, false
	}
	return v, json.Unmarshal(f.raw, &v) == nil
}

// changeFields are a change's fields: who, how and under which request id are its ChangeSet's (or, in a
// trail written before change sets, its own).
const changeFields = `pg.change_at pg.change_version pg.change_principal pg.change_method pg.change_request pg.change_resource
  pg.change_action pg.change_before pg.change_after pg.change_set { pg.change_principal pg.change_method pg.change_request pg.change_reason }`

// changeJSON is a change as read.
type changeJSON struct {
	At        int64  `json:"pg.change_at"`
	Version   int64  `json:"pg.change_version"`
	Principal string `json:"pg.change_principal"`
	Method    string `json:"pg.change_method"`
	Request   string `json:"pg.change_request"`
	Resource  string `json:"pg.change_resource"`
	Action    string `json:"pg.change_action"`
	Before    string `json:"pg.change_before"`
	After     string `json:"pg.change_after"`
	Set       *struct {
		Principal string `json:"pg.change_principal"`
		Method    string `json:"pg.change_method"`
		Request   string `json:"pg.change_request"`
		Reason    string `json:"pg.change_reason"`
	} `json:"pg.change_set"`
}

func (r changeJSON) change() graph.Change {
	reason := ""
	if r.Set != nil {
		r.Principal, r.Method, r.Request, reason = r.Set.Principal, r.Set.Method, r.Set.Request, r.Set.Reason
	}
	return graph.Change{Time: time.UnixMilli(r.At).UTC(), Principal: r.Principal, Method: r.Method,
		RequestID: r.Request, Reason: reason, Resource: r.Resource, Action: r.Action, Before: r.Before, After: r.After, Version: r.Version}
}

// ListChanges implements graph.Trail.
func (s *Store) ListChanges(ctx context.Context, q graph.ChangeQuery) ([]graph.Change, int, error) {
	const op = "dgraph.ListChanges"
	vars := map[string]string{"$since": "0", "$until": strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10),
		"$first": strconv.Itoa(q.Limit), "$offset": strconv.Itoa(q.Offset)}
	if !q.Since.IsZero() {
		vars["$since"] = strconv.FormatInt(q.Since.UnixMilli(), 10)
	}
	if !q.Until.IsZero() {
		vars["$until"] = strconv.FormatInt(q.Until.UnixMilli(), 10)
	}
	decl := "$since: int, $until: int, $first: int, $offset: int"
	filters := []string{"lt(pg.change_at, $until)"}
	if q.Resource != "" {
		vars["$resource"] = q.Resource
		decl += ", $resource: string"
		filters = append(filters, "eq(pg.change_resource, $resource)")
	}
	// Every change in the time range, or a principal's: the changes of the change sets that name it (and,
	// in a trail written before change sets, the changes that name it themselves).
	root := `m as var(func: ge(pg.change_at, $since)) @filter(` + strings.Join(filters, " and ") + `)`
	if q.Principal != "" {
		vars["$principal"] = q.Principal
		decl += ", $principal: string"
		root = `by as var(func: eq(pg.change_by, $principal)) { set as ~pg.change_set }
  m as var(func: uid(by, set)) @filter(ge(pg.change_at, $since) and ` + strings.Join(filters, " and ") + `)`
	}
	dq := `query q(` + decl + `) {
  ` + root + `
  total(func: uid(m)) { n: count(uid) }
  q(func: uid(m), orderdesc: pg.change_at, first: $first, offset: $offset) { ` + changeFields + ` }
}`
	var res struct {
		Total []struct {
			N int `json:"n"`
		} `json:"total"`
		Q []changeJSON `json:"q"`
	}
	if err := s.query(ctx, op, dq, vars, &res); err != nil {
		return nil, 0, err
	}
	out := make([]graph.Change, 0, len(res.Q))
	for _, r := range res.Q {
		out = append(out, r.change())
	}
	total := 0
	if len(res.Total) > 0 {
		total = res.Total[0].N
	}
	return out, total, nil
}

// RequestResult implements graph.Trail.
func (s *Store) RequestResult(ctx context.Context, meta graph.WriteMeta, result any) (bool, error) {
	const op = "dgraph.RequestResult"
	name := requestName(meta)
	var res struct {
		Q []struct {
			Result string `json:"pg.request_result"`
		} `json:"q"`
	}
	q, vars := nameBlocks([]string{name}, "pg.name pg.request_result")
	if err := s.query(ctx, op, q, vars, &res); err != nil {
		return false, err
	}
	if len(res.Q) == 0 {
		return false, nil
	}
	if err := readRequestRecord(res.Q[0].Result, meta, result); err != nil {
		return false, err
	}
	return true, nil
}

// RecordRequest implements graph.Trail.
func (s *Store) RecordRequest(ctx context.Context, meta graph.WriteMeta, result any) error {
	name := requestName(meta)
	b, err := requestRecordJSON(meta, result)
	if err != nil {
		return &graph.Error{Op: "dgraph.RecordRequest", Kind: graph.Internal, Message: "a result cannot be recorded", Err: err}
	}
	return s.upsert(ctx, write{op: "dgraph.RecordRequest", lookup: []string{name}, fields: "uid pg.name",
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			n := node(got, name, "Request")
			n["pg.request_result"] = string(b)
			return nil, []map[string]any{n}, nil
		}})
}

// resultOf is where a write adds its result for the caller: graph.WriteMeta.Result, if any.
func resultOf(ctx context.Context) *graph.WriteResult {
	m, _ := graph.WriteMetaFrom(ctx)
	return m.Result
}

// relationRecordJSON is a relation as a dataset record; "" only for a relation not named as derived.
func relationRecordJSON(r graph.Relation) string {
	rec, err := graph.RelationRecord(r)
	if err != nil {
		return ""
	}
	return graph.RecordJSON(rec)
}
