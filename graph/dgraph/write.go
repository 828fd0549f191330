package dgraph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"

	"github.com/polgraph/polgraph/graph"
)

var _ graph.Writer = (*Store)(nil)

// maxAttempts bounds the retries of a transaction that Dgraph aborted because another one wrote the same
// keys at the same time.
const maxAttempts = 12

// upsert writes one batch in one transaction: it looks up the uids of names (the resources written and
// the ones they point at), lets build turn them into deletions and a JSON set, and commits. A transaction
// aborted by a concurrent write is retried from scratch, in a fresh transaction, with backoff.
func (s *Store) upsert(ctx context.Context, op string, names []string, build buildFunc) error {
	for attempt := 1; ; attempt++ {
		err := s.upsertOnce(ctx, names, build)
		if err == nil {
			return nil
		}
		var ge *graph.Error
		if errors.As(err, &ge) {
			return err
		}
		if !errors.Is(err, dgo.ErrAborted) {
			return s.wrap(op, err)
		}
		if attempt == maxAttempts {
			return &graph.Error{Op: op, Kind: graph.Unavailable, Reason: "WRITE_CONFLICTS",
				Message: fmt.Sprintf("gave up after %d attempts: concurrent writes to the same resources kept conflicting", attempt), Err: err}
		}
		s.retries.Add(1)
		// Exponential, capped at 2 s, with jitter so that writers that collided do not collide again.
		base := min(time.Duration(10<<attempt)*time.Millisecond, 2*time.Second)
		backoff := base/2 + time.Duration(rand.Int64N(int64(base)))
		s.log.Debug("transaction aborted by a concurrent write; retrying", "op", op, "attempt", attempt, "backoff", backoff)
		select {
		case <-ctx.Done():
			return s.wrap(op, ctx.Err())
		case <-time.After(backoff):
		}
	}
}

// buildFunc turns the uids of the names that exist into deletions and a JSON set; it may read more
// through txn, whose reads take part in its conflict detection.
type buildFunc func(ctx context.Context, txn *dgo.Txn, uids map[string]string) (del []byte, set []map[string]any, err error)

func (s *Store) upsertOnce(ctx context.Context, names []string, build buildFunc) error {
	txn := s.dg.NewTxn()
	defer txn.Discard(ctx)
	uids := map[string]string{}
	for _, chunk := range chunks(names, 500) {
		q, vars := nameBlocks(chunk, "uid pg.name")
		resp, err := txn.QueryWithVars(ctx, q, vars)
		if err != nil {
			return err
		}
		var res map[string][]nameRef
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return err
		}
		for _, rows := range res {
			for _, r := range rows {
				uids[r.Name] = r.UID
			}
		}
	}
	del, set, err := build(ctx, txn, uids)
	if err != nil {
		return err
	}
	setJSON, err := json.Marshal(set)
	if err != nil {
		return err
	}
	// Deletions go first, in their own mutation, so that the values set next replace what was there.
	if len(del) > 0 {
		if _, err := txn.Mutate(ctx, &api.Mutation{DelNquads: del}); err != nil {
			return err
		}
	}
	if _, err := txn.Mutate(ctx, &api.Mutation{SetJson: setJSON}); err != nil {
		return err
	}
	return txn.Commit(ctx)
}

// node returns the JSON object for a resource: its uid when it exists, else a blank node.
func node(uids map[string]string, name, typ string) map[string]any {
	if u, ok := uids[name]; ok {
		return map[string]any{"uid": u, "pg.name": name, "dgraph.type": typ}
	}
	return map[string]any{"uid": "_:" + blank(name), "pg.name": name, "dgraph.type": typ}
}

// blank turns a resource name into a blank-node label.
func blank(name string) string {
	return "b" + strconv.FormatUint(fnv(name), 36)
}

func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// clear lists deletions of every value of preds on an existing node.
func clear(del *strings.Builder, uids map[string]string, name string, preds ...string) {
	u, ok := uids[name]
	if !ok {
		return
	}
	for _, p := range preds {
		fmt.Fprintf(del, "<%s> <%s> * .\n", u, p)
	}
}

func ref(uids map[string]string, name string) (map[string]any, error) {
	u, ok := uids[name]
	if !ok {
		return nil, &graph.Error{Op: "dgraph.upsert", Kind: graph.Invalid, Message: "refers to " + name + ", which is not in the graph"}
	}
	return map[string]any{"uid": u}, nil
}

// UpsertSources implements graph.Writer.
func (s *Store) UpsertSources(ctx context.Context, sources []graph.Source) error {
	names := make([]string, len(sources))
	for i, src := range sources {
		names[i] = string(src.Name)
	}
	return s.upsert(ctx, "dgraph.UpsertSources", names, func(ctx context.Context, txn *dgo.Txn, uids map[string]string) ([]byte, []map[string]any, error) {
		set := make([]map[string]any, 0, len(sources))
		for _, src := range sources {
			n := node(uids, string(src.Name), "Source")
			n["pg.title"], n["pg.source_kind"], n["pg.outlet"] = src.Title, string(src.Kind), src.Outlet
			n["pg.author"], n["pg.published"], n["pg.url"] = src.Author, src.Published.String(), src.URL
			set = append(set, n)
		}
		return nil, set, nil
	})
}

// UpsertEntities implements graph.Writer.
func (s *Store) UpsertEntities(ctx context.Context, entities []graph.Entity) error {
	names := make([]string, len(entities))
	for i, e := range entities {
		names[i] = string(e.Name)
	}
	return s.upsert(ctx, "dgraph.UpsertEntities", names, func(ctx context.Context, txn *dgo.Txn, uids map[string]string) ([]byte, []map[string]any, error) {
		var del strings.Builder
		set := make([]map[string]any, 0, len(entities))
		for _, e := range entities {
			clear(&del, uids, string(e.Name), "pg.aliases", "pg.search_keys", "pg.search_tokens", "pg.ocd_id")
			n := node(uids, string(e.Name), "Entity")
			n["pg.kind"], n["pg.display_name"], n["pg.description"] = string(e.Kind), e.DisplayName, e.Description
			n["pg.valid_from"], n["pg.valid_to"] = e.ValidFrom.String(), e.ValidTo.String()
			n["pg.aliases"], n["pg.search_keys"], n["pg.search_tokens"] = nonNil(e.Aliases), e.SearchKeys(), e.SearchTokens()
			ids := "{}"
			if len(e.Identifiers) > 0 {
				b, _ := json.Marshal(e.Identifiers)
				ids = string(b)
			}
			n["pg.identifiers"] = ids
			if ocd := e.Identifiers["ocd"]; ocd != "" {
				n["pg.ocd_id"] = ocd
			}
			set = append(set, n)
		}
		return []byte(del.String()), set, nil
	})
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// UpsertRelations implements graph.Writer.
func (s *Store) UpsertRelations(ctx context.Context, relations []graph.Relation) error {
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	add(metaName)
	for _, r := range relations {
		add(string(r.Name))
		add(string(r.From))
		add(string(r.To))
		add(string(r.Via))
		for _, c := range r.Claims {
			add(c.Name)
			add(string(c.Source.Name))
			add(string(c.SaidBy))
		}
	}
	return s.upsert(ctx, "dgraph.UpsertRelations", names, func(ctx context.Context, txn *dgo.Txn, uids map[string]string) ([]byte, []map[string]any, error) {
		kept, err := existingClaims(ctx, txn, relations, uids)
		if err != nil {
			return nil, nil, err
		}
		version, err := graphVersion(ctx, txn, uids)
		if err != nil {
			return nil, nil, err
		}
		version++ // this write's version
		meta := node(uids, metaName, "Meta")
		meta["pg.version"] = version
		var del strings.Builder
		set := []map[string]any{meta}
		for _, r := range relations {
			rn := string(r.Name)
			clear(&del, uids, rn, "pg.via", "pg.start_day", "pg.end_day")
			n := node(uids, rn, "Relation")
			from, err := ref(uids, string(r.From))
			if err != nil {
				return nil, nil, err
			}
			to, err := ref(uids, string(r.To))
			if err != nil {
				return nil, nil, err
			}
			n["pg.rel_type"], n["pg.from"], n["pg.to"], n["pg.role"] = string(r.Type), from, to, r.Role
			n["pg.valid_from"], n["pg.valid_to"], n["pg.date"] = r.ValidFrom.String(), r.ValidTo.String(), r.Date.String()
			if r.Via != "" {
				if n["pg.via"], err = ref(uids, string(r.Via)); err != nil {
					return nil, nil, err
				}
			}
			p := r.Period()
			if p.Start != graph.OpenPeriod.Start {
				n["pg.start_day"] = p.Start
			}
			if p.End != graph.OpenPeriod.End {
				n["pg.end_day"] = p.End
			}
			// The summary covers every claim of the relation: those written now and those other loads wrote.
			n["pg.support"] = encodeSupport(graph.SupportOf(append(kept[r.Name], r.Claims...)))
			n["pg.changed"] = version
			set = append(set, n)
			for _, c := range r.Claims {
				clear(&del, uids, c.Name, "pg.said_by")
				cn := node(uids, c.Name, "Claim")
				src, err := ref(uids, string(c.Source.Name))
				if err != nil {
					return nil, nil, err
				}
				cn["pg.claim_of"] = map[string]any{"uid": n["uid"]}
				cn["pg.source"], cn["pg.excerpt"], cn["pg.confidence"], cn["pg.status"] = src, c.Excerpt, c.Confidence, string(c.Status)
				if c.SaidBy != "" {
					if cn["pg.said_by"], err = ref(uids, string(c.SaidBy)); err != nil {
						return nil, nil, err
					}
				}
				set = append(set, cn)
			}
		}
		return []byte(del.String()), set, nil
	})
}

// existingClaims returns, for each relation already in the graph, its claims that this write does not
// replace (claims from other sources, loaded from other files), with their status and confidence.
func existingClaims(ctx context.Context, txn *dgo.Txn, relations []graph.Relation, uids map[string]string) (map[graph.RelationName][]graph.Claim, error) {
	var list []string
	for _, r := range relations {
		if u, ok := uids[string(r.Name)]; ok {
			if !uidPattern.MatchString(u) {
				return nil, fmt.Errorf("malformed uid %q", u)
			}
			list = append(list, u)
		}
	}
	out := map[graph.RelationName][]graph.Claim{}
	if len(list) == 0 {
		return out, nil
	}
	// The uids come from Dgraph and were checked above; no user text is in the query.
	resp, err := txn.Query(ctx, `{ q(func: uid(`+strings.Join(list, ",")+`)) { pg.name
  claims: ~pg.claim_of { pg.name pg.status pg.confidence } } }`)
	if err != nil {
		return nil, err
	}
	var res struct {
		Q []struct {
			Name   string `json:"pg.name"`
			Claims []struct {
				Name       string  `json:"pg.name"`
				Status     string  `json:"pg.status"`
				Confidence float64 `json:"pg.confidence"`
			}
		}
	}
	if err := json.Unmarshal(resp.Json, &res); err != nil {
		return nil, err
	}
	writing := map[string]bool{}
	for _, r := range relations {
		for _, c := range r.Claims {
			writing[c.Name] = true
		}
	}
	for _, r := range res.Q {
		for _, c := range r.Claims {
			if !writing[c.Name] {
				out[graph.RelationName(r.Name)] = append(out[graph.RelationName(r.Name)],
					graph.Claim{Name: c.Name, Status: graph.ClaimStatus(c.Status), Confidence: c.Confidence})
			}
		}
	}
	return out, nil
}

// metaName names the node holding the graph's version (see schema.dql).
const metaName = "meta/graph"

// graphVersion reads the graph's version in txn: 0 before the first write of relations. Every relation
// write sets it, so concurrent writers conflict on it and one of them retries: versions never repeat.
func graphVersion(ctx context.Context, txn *dgo.Txn, uids map[string]string) (int64, error) {
	u, ok := uids[metaName]
	if !ok {
		return 0, nil
	}
	resp, err := txn.QueryWithVars(ctx, `query q($u: string) { q(func: uid($u)) { pg.version } }`, map[string]string{"$u": u})
	if err != nil {
		return 0, err
	}
	var res struct {
		Q []struct {
			Version int64 `json:"pg.version"`
		}
	}
	if err := json.Unmarshal(resp.Json, &res); err != nil || len(res.Q) == 0 {
		return 0, err
	}
	return res.Q[0].Version, nil
}
