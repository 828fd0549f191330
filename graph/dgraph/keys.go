package dgraph

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/dgraph-io/dgo/v230"
	"github.com/dgraph-io/dgo/v230/protos/api"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/auth"
)

// API keys are nodes of type Key (schema.dql), found by pg.key_hash, pg.key_id or pg.key_name; they have
// no pg.name, so nothing that reads or writes the graph by resource name can reach them.

var _ auth.KeyStore = (*Keys)(nil)

type keyJSON struct {
	UID       string `json:"uid"`
	ID        string `json:"pg.key_id"`
	Name      string `json:"pg.key_name"`
	Hash      string `json:"pg.key_hash"`
	Role      string `json:"pg.key_role"`
	CreatedAt int64  `json:"pg.key_created_at"`
	RevokedAt int64  `json:"pg.key_revoked_at"`
}

const keyFields = `uid pg.key_id pg.key_name pg.key_hash pg.key_role pg.key_created_at pg.key_revoked_at`

func (k keyJSON) key() auth.Key {
	role, _ := auth.ParseRole(k.Role) // a role that does not parse is NoRole: it allows nothing
	out := auth.Key{ID: auth.KeyID(k.ID), Name: k.Name, Role: role, Hash: k.Hash, Created: time.UnixMilli(k.CreatedAt).UTC()}
	if k.RevokedAt != 0 {
		out.Revoked = time.UnixMilli(k.RevokedAt).UTC()
	}
	return out
}

// CreateKey implements auth.KeyStore. Two keys created at once with the same name conflict in Dgraph (the
// name is @upsert), and the one retried finds the name taken.
func (ks *Keys) CreateKey(ctx context.Context, k auth.Key) error {
	s := ks.s
	const op = "dgraph.CreateKey"
	if !k.ID.Valid() || len(k.Hash) != 64 || k.Role < auth.Reader || k.Role > auth.Admin {
		return &graph.Error{Op: op, Kind: graph.Invalid, Message: fmt.Sprintf("not a key to store: id %q, role %s", k.ID, k.Role)}
	}
	if err := auth.CheckKeyName(k.Name); err != nil {
		return err
	}
	q := `query q($name: string, $id: string, $hash: string) {
  byName(func: eq(pg.key_name, $name)) @filter(NOT has(pg.key_revoked_at)) { pg.key_id }
  byID(func: eq(pg.key_id, $id)) { uid }
  byHash(func: eq(pg.key_hash, $hash)) { uid }
}`
	return s.keyTxn(ctx, op, func(txn writeTxn) error {
		resp, err := txn.query(ctx, q, map[string]string{"$name": k.Name, "$id": string(k.ID), "$hash": k.Hash})
		if err != nil {
			return err
		}
		var res struct {
			ByName []keyJSON `json:"byName"`
			ByID   []keyJSON `json:"byID"`
			ByHash []keyJSON `json:"byHash"`
		}
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
		}
		if len(res.ByName) > 0 {
			return &graph.Error{Op: op, Kind: graph.Invalid, Reason: "KEY_NAME_TAKEN",
				Message: fmt.Sprintf("a key named %s exists (%s): revoke it first, or choose another name", k.Name, res.ByName[0].ID)}
		}
		if len(res.ByID) > 0 || len(res.ByHash) > 0 {
			return &graph.Error{Op: op, Kind: graph.Internal, Message: "a new key's id or hash is taken; try again"}
		}
		nodes := []map[string]any{{"uid": "_:key", "dgraph.type": "Key", "pg.key_id": string(k.ID),
			"pg.key_name": k.Name, "pg.key_hash": k.Hash, "pg.key_role": k.Role.String(), "pg.key_created_at": k.Created.UnixMilli()}}
		nodes = append(nodes, keyChange(ctx, "CreateKey", graph.Change{Resource: string(k.ID), Action: graph.ActionCreate, After: keyRecord(k)})...)
		set, err := setQuads(nodes)
		if err != nil {
			return err
		}
		_, err = txn.Mutate(ctx, &api.Mutation{Set: set, CommitNow: true})
		return err
	})
}

// KeyByHash implements auth.KeyStore. A key is not found only on an alpha that shows at least the graph
// this store has seen: an alpha that has just restarted shows nothing to polgraph's user until it has
// loaded its access rules, then, for a moment, an older graph. Such an answer proves nothing, and is
// Unavailable (DATABASE_NOT_READY, with a retry delay) rather than "no such key", so that no valid key is
// refused, or remembered as unknown, while Dgraph comes back.
func (ks *Keys) KeyByHash(ctx context.Context, hash string) (auth.Key, error) {
	s := ks.s
	const op = "dgraph.KeyByHash"
	seen := s.seen.Load() // before the read, as in Ping
	q := `query q($h: string) {` + versionBlock + `q(func: eq(pg.key_hash, $h)) { ` + keyFields + ` } }`
	resp, err := s.dg.NewReadOnlyTxn().QueryWithVars(ctx, q, map[string]string{"$h": hash})
	if err != nil {
		return auth.Key{}, s.wrap(op, err)
	}
	var res struct{ Q []keyJSON }
	if err := json.Unmarshal(resp.Json, &res); err != nil {
		return auth.Key{}, &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
	}
	for _, k := range res.Q {
		if k.Hash == hash {
			return k.key(), nil
		}
	}
	_, shows, err := shownMeta(resp.Json)
	if err != nil {
		return auth.Key{}, &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
	}
	if shows < seen {
		return auth.Key{}, &graph.Error{Op: op, Kind: graph.Unavailable, Reason: "DATABASE_NOT_READY", RetryAfter: time.Second,
			Message: fmt.Sprintf("the API key cannot be checked yet: Dgraph shows graph version %d, older than the %d already seen (it is starting, or lags behind its group); try again", shows, seen)}
	}
	return auth.Key{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "KEY_NOT_FOUND", Message: "no such key"}
}

// ListKeys implements auth.KeyStore.
func (ks *Keys) ListKeys(ctx context.Context) ([]auth.Key, error) {
	s := ks.s
	var res struct{ Q []keyJSON }
	if err := s.query(ctx, "dgraph.ListKeys", `{ q(func: type(Key)) { `+keyFields+` } }`, nil, &res); err != nil {
		return nil, err
	}
	out := make([]auth.Key, 0, len(res.Q))
	for _, r := range res.Q {
		k := r.key()
		k.Hash = ""
		out = append(out, k)
	}
	slices.SortStableFunc(out, func(a, b auth.Key) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(string(a.ID), string(b.ID))
	})
	return out, nil
}

// RevokeKey implements auth.KeyStore. By name, it revokes the key not yet revoked; when every key with the
// name is revoked already, it returns the one revoked last, unchanged.
func (ks *Keys) RevokeKey(ctx context.Context, idOrName string, at time.Time) (auth.Key, error) {
	s := ks.s
	const op = "dgraph.RevokeKey"
	pred := "pg.key_name"
	if strings.HasPrefix(idOrName, "keys/") {
		pred = "pg.key_id"
	}
	q := `query q($v: string) { q(func: eq(` + pred + `, $v)) { ` + keyFields + ` } }`
	var out auth.Key
	err := s.keyTxn(ctx, op, func(txn writeTxn) error {
		resp, err := txn.query(ctx, q, map[string]string{"$v": idOrName})
		if err != nil {
			return err
		}
		var res struct{ Q []keyJSON }
		if err := json.Unmarshal(resp.Json, &res); err != nil {
			return &graph.Error{Op: op, Kind: graph.Internal, Message: "cannot decode Dgraph's answer", Err: err}
		}
		if len(res.Q) == 0 {
			return &graph.Error{Op: op, Kind: graph.NotFound, Reason: "KEY_NOT_FOUND", Message: "no key has the id or name " + idOrName}
		}
		// The key still valid, else the one revoked last.
		slices.SortFunc(res.Q, func(a, b keyJSON) int {
			if (a.RevokedAt == 0) != (b.RevokedAt == 0) {
				if a.RevokedAt == 0 {
					return -1
				}
				return 1
			}
			return cmp.Compare(b.RevokedAt, a.RevokedAt)
		})
		k := res.Q[0]
		if k.RevokedAt != 0 {
			out = k.key()
			return nil
		}
		before := keyRecord(k.key())
		k.RevokedAt = at.UnixMilli()
		nodes := []map[string]any{{"uid": k.UID, "pg.key_revoked_at": k.RevokedAt}}
		nodes = append(nodes, keyChange(ctx, "RevokeKey", graph.Change{Resource: string(k.ID), Action: actionRevoke, Before: before, After: keyRecord(k.key())})...)
		set, err := setQuads(nodes)
		if err != nil {
			return err
		}
		if _, err := txn.Mutate(ctx, &api.Mutation{Set: set, CommitNow: true}); err != nil {
			return err
		}
		out = k.key()
		return nil
	})
	out.Hash = ""
	return out, err
}

// keyTxn runs do in a transaction, retried with backoff (in a fresh transaction) when Dgraph aborts it for
// a concurrent write: the writes of API keys and of saved views, which touch no graph version.
// Errors that are not *graph.Error are wrapped (s.wrap) with op.
func (s *Store) keyTxn(ctx context.Context, op string, do func(writeTxn) error) error {
	lagging := 0
	for attempt := 1; ; attempt++ {
		txn := s.newWriteTxn()
		err := do(txn)
		txn.Discard(ctx)
		var ge *graph.Error
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ge):
			return err
		}
		if retry, err := s.lagged(ctx, op, err, &lagging); retry {
			attempt--
			continue
		} else if err != nil {
			return err
		}
		if !errors.Is(err, dgo.ErrAborted) || attempt == maxAttempts {
			return s.wrap(op, err)
		}
		s.retries.Add(1)
		backoff := time.Duration(10+rand.IntN(10*attempt)) * time.Millisecond
		select {
		case <-ctx.Done():
			return s.wrap(op, ctx.Err())
		case <-time.After(backoff):
		}
	}
}

// actionRevoke is the trail's action for a key revoked.
const actionRevoke = "REVOKE"

// keyChange is the trail's record of a change to a key or a saved view, made by whom ctx's WriteMeta names ("local"
// when it names nobody), through method.
func keyChange(ctx context.Context, method string, c graph.Change) []map[string]any {
	meta, ok := graph.WriteMetaFrom(ctx)
	if !ok || meta.Principal == "" {
		meta = graph.WriteMeta{Principal: "local", Aliases: []string{"local"}}
	}
	meta.Method, meta.RequestID = method, ""
	return changeNodes(meta, []graph.Change{c}, "", graph.WriteResult{}, 0)
}

// keyRecord is a key as the trail shows it: never its hash.
func keyRecord(k auth.Key) string {
	rec := map[string]any{"id": k.ID, "name": k.Name, "role": k.Role.String(), "created": k.Created.UTC().Format(time.RFC3339)}
	if !k.Revoked.IsZero() {
		rec["revoked"] = k.Revoked.UTC().Format(time.RFC3339)
	}
	b, _ := json.Marshal(rec)
	return string(b)
}

// Keys are the API keys kept in Dgraph (auth.KeyStore), hashed, over the store's connection.
type Keys struct{ s *Store }

// Keys returns the API keys kept in this store's Dgraph.
func (s *Store) Keys() *Keys { return &Keys{s} }
