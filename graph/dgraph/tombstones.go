package dgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
)

var _ graph.Tombstones = (*Store)(nil)

// principal is who makes a write, for a tombstone: the write's principal, or "local".
func principal(ctx context.Context) string {
	if m, ok := graph.WriteMetaFrom(ctx); ok && m.Principal != "" {
		return m.Principal
	}
	return "local"
}

// relationOfClaim is the relation a claim's name belongs to (relations/…/claims/…).
func relationOfClaim(claim string) (string, bool) {
	rel, _, ok := strings.Cut(claim, "/claims/")
	return rel, ok && strings.HasPrefix(rel, "relations/")
}

// RetractClaim implements graph.Tombstones. The claim's relation gets a new summary (the retracted claim
// no longer counts) and is marked changed, so that the graph in memory follows.
func (s *Store) RetractClaim(ctx context.Context, claim, reason string) (graph.WriteResult, error) {
	const op = "dgraph.RetractClaim"
	rel, ok := relationOfClaim(claim)
	if !ok {
		return graph.WriteResult{}, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "CLAIM_NOT_FOUND", Message: "no claim named " + claim}
	}
	var res graph.WriteResult
	by, now := principal(ctx), time.Now().UTC()
	if t, ok := graph.RecordedTombstone(ctx); ok {
		by, now = t.By, t.Time.UTC()
	}
	fields := `uid pg.name pg.version pg.lease_until ` + retractedFields + ` claims: ~pg.claim_of { pg.name pg.status pg.confidence pg.source { pg.name } ` + retractedFields + ` }`
	err := s.upsert(ctx, write{op: op, lookup: []string{claim, rel, metaName}, fields: fields,
		auditFields: relationFields,
		result:      &res,
		audit: func(got map[string]found) (changes []graph.Change, r graph.WriteResult) {
			old, _ := decodeRaw[relationJSON](got, rel)
			prev := old.relation()
			after := prev
			after.Claims = make([]graph.Claim, len(prev.Claims))
			for i, c := range prev.Claims {
				if c.Name == claim && c.Retracted.IsZero() {
					c.Retracted = graph.Tombstone{Time: now, By: by, Reason: reason}
				}
				after.Claims[i] = c
			}
			before, afterJSON := relationRecordJSON(prev), relationRecordJSON(after)
			if before == afterJSON {
				r.Unchanged++
				return nil, r
			}
			r.Updated = []string{claim, rel}
			// The change is the relation's: its history shows its claims' retractions.
			return []graph.Change{{Resource: rel, Action: graph.ActionRetract, Before: before, After: afterJSON}}, r
		},
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			c, ok := got[claim]
			if !ok {
				return nil, nil, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "CLAIM_NOT_FOUND", Message: "no claim named " + claim}
			}
			var already struct {
				At *int64 `json:"pg.retracted_at"`
			}
			if err := decodeInto(op, c, &already); err != nil {
				return nil, nil, err
			}
			if already.At != nil {
				return nil, nil, nil // retracted already: the first retraction stands
			}
			version, set, err := s.versionFor(got[metaName], node(got, metaName, "Meta"), nil)
			if err != nil {
				return nil, nil, err
			}
			set = append(set, map[string]any{"uid": c.UID, "pg.retracted_at": now.UnixMilli(), "pg.retracted_by": by, "pg.retract_reason": reason})
			var claims []graph.Claim
			for _, x := range got[rel].Claims {
				cl := graph.Claim{Name: x.Name, Status: graph.ClaimStatus(x.Status), Confidence: x.Confidence, Retracted: x.retracted()}
				if x.Source != nil {
					cl.Source.Name = graph.SourceName(x.Source.Name)
				}
				if x.Name == claim {
					cl.Retracted = graph.Tombstone{Time: now, By: by, Reason: reason}
				}
				claims = append(claims, cl)
			}
			set = append(set, map[string]any{"uid": got[rel].UID, "pg.support": encodeSupport(claims), "pg.changed": version})
			return dropPack(nil, got[rel].UID), set, nil
		}})
	return res, err
}

// DeleteRelation implements graph.Tombstones.
func (s *Store) DeleteRelation(ctx context.Context, name graph.RelationName, reason string) (graph.WriteResult, error) {
	const op = "dgraph.DeleteRelation"
	var res graph.WriteResult
	by, now := principal(ctx), time.Now().UTC()
	err := s.upsert(ctx, write{op: op, lookup: []string{string(name), metaName},
		fields:      `uid pg.name pg.version pg.lease_until ` + deletedFields,
		auditFields: relationFields,
		result:      &res,
		audit: func(got map[string]found) ([]graph.Change, graph.WriteResult) {
			var r graph.WriteResult
			old, _ := decodeRaw[relationJSON](got, string(name))
			return deletion(&r, old.relation(), now, by, reason), r
		},
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			f, ok := got[string(name)]
			if !ok {
				return nil, nil, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "RELATION_NOT_FOUND", Message: "no relation named " + string(name)}
			}
			var t tombstoneJSON
			if err := decodeInto(op, f, &t); err != nil {
				return nil, nil, err
			}
			if t.DeletedAt != nil {
				return nil, nil, nil // deleted already
			}
			version, set, err := s.versionFor(got[metaName], node(got, metaName, "Meta"), nil)
			if err != nil {
				return nil, nil, err
			}
			set = append(set, deletedNode(f.UID, now, by, reason, version))
			return dropPack(nil, f.UID), set, nil
		}})
	return res, err
}

// deletion is the change a relation's deletion makes (none when it was deleted already).
func deletion(r *graph.WriteResult, rel graph.Relation, now time.Time, by, reason string) []graph.Change {
	if !rel.Deleted.IsZero() {
		r.Unchanged++
		return nil
	}
	after := rel
	after.Deleted = graph.Tombstone{Time: now, By: by, Reason: reason}
	r.Updated = append(r.Updated, string(rel.Name))
	return []graph.Change{{Resource: string(rel.Name), Action: graph.ActionDelete, Before: relationRecordJSON(rel), After: relationRecordJSON(after)}}
}

// dropPack deletes the pack of a node a write changes without packing it again (pack.go): the graph held
// in memory then reads the node's predicates. uid comes from Dgraph.
func dropPack(del []byte, uid string) []byte {
	return fmt.Appendf(del, "<%s> <pg.pack> * .\n", uid)
}

// deletedNode marks a node deleted, and changed at version (so that the graph in memory drops it).
func deletedNode(uid string, now time.Time, by, reason string, version int64) map[string]any {
	n := map[string]any{"uid": uid, "pg.deleted_at": now.UnixMilli(), "pg.deleted_by": by, "pg.delete_reason": reason}
	if version > 0 {
		n["pg.changed"] = version
	}
	return n
}

// DeleteEntity implements graph.Tombstones: the entity and each of its relations not deleted yet.
func (s *Store) DeleteEntity(ctx context.Context, name graph.EntityName, reason string) (graph.WriteResult, error) {
	const op = "dgraph.DeleteEntity"
	var res graph.WriteResult
	by, now := principal(ctx), time.Now().UTC()
	type entityWhole struct {
		entityJSON
		Out []relationJSON `json:"outWhole"`
		In  []relationJSON `json:"inWhole"`
	}
	err := s.upsert(ctx, write{op: op, lookup: []string{string(name), metaName},
		fields: `uid pg.name pg.version pg.lease_until ` + deletedFields + ` pg.merged_into { pg.name }` +
			` out: ~pg.from @filter(not has(pg.deleted_at)) { uid } in: ~pg.to @filter(not has(pg.deleted_at)) { uid }`,
		auditFields: entityFields + ` outWhole: ~pg.from @filter(not has(pg.deleted_at)) { ` + relationFields + ` } inWhole: ~pg.to @filter(not has(pg.deleted_at)) { ` + relationFields + ` }`,
		result:      &res,
		audit: func(got map[string]found) ([]graph.Change, graph.WriteResult) {
			var r graph.WriteResult
			old, _ := decodeRaw[entityWhole](got, string(name))
			e := s.entityForTrail(ctx, old.entityJSON)
			if !e.Deleted.IsZero() {
				r.Unchanged++
				return nil, r
			}
			after := e
			after.Deleted = graph.Tombstone{Time: now, By: by, Reason: reason}
			r.Updated = append(r.Updated, string(name))
			changes := []graph.Change{{Resource: string(name), Action: graph.ActionDelete,
				Before: graph.RecordJSON(graph.EntityRecord(e)), After: graph.RecordJSON(graph.EntityRecord(after))}}
			for _, rel := range append(old.Out, old.In...) {
				changes = append(changes, deletion(&r, rel.relation(), now, by, reason)...)
			}
			return changes, r
		},
		mutate: func(got map[string]found, _ map[string]string) ([]byte, []map[string]any, error) {
			f, ok := got[string(name)]
			if !ok {
				return nil, nil, &graph.Error{Op: op, Kind: graph.NotFound, Reason: "ENTITY_NOT_FOUND", Message: "no entity named " + string(name)}
			}
			var t struct {
				tombstoneJSON
				Merged *nameRef `json:"pg.merged_into"`
			}
			if err := decodeInto(op, f, &t); err != nil {
				return nil, nil, err
			}
			if t.Merged != nil {
				return nil, nil, &graph.Error{Op: op, Kind: graph.FailedPrecondition, Reason: "ENTITY_MERGED",
					Message: fmt.Sprintf("%s was merged into %s: delete %s, or undo the merge", name, t.Merged.Name, t.Merged.Name)}
			}
			if t.DeletedAt != nil {
				return nil, nil, nil // deleted already
			}
			// A bulk load's batches do not conflict with other writes: a deletion waits for the load's end,
			// lest the load join a live relation to the entity after it.
			if m := got[metaName]; m.Lease > now.UnixMilli() {
				return nil, nil, leaseHeld{time.UnixMilli(m.Lease)}
			}
			version, set, err := s.versionFor(got[metaName], node(got, metaName, "Meta"), nil)
			if err != nil {
				return nil, nil, err
			}
			set = append(set, deletedNode(f.UID, now, by, reason, version))
			del := dropPack(nil, f.UID)
			for _, r := range append(f.Out, f.In...) {
				set = append(set, deletedNode(r.UID, now, by, reason, version))
				del = dropPack(del, r.UID)
			}
			return del, set, nil
		}})
	return res, err
}

// decodeInto reads more of a found resource's fields into v. It fails, with an Internal error, only when
// a field Dgraph returned is not of the type v gives it.
func decodeInto(op string, f found, v any) error {
	if f.raw == nil {
		return nil
	}
	if err := json.Unmarshal(f.raw, v); err != nil {
		return &graph.Error{Op: op, Kind: graph.Internal, Message: "the stored " + f.Name + " does not decode", Err: err}
	}
	return nil
}
