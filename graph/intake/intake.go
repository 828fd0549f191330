// Package intake is the way into the graph from outside polgraph: records in the dataset format
// (data/FORMAT.md), checked exactly as `polgraph load` checks a file (graph/dataset), written as upserts
// with who wrote them in the audit trail, once per request id; and the retractions and deletions that keep
// what they remove as tombstones.
package intake

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/polgraph/polgraph/graph"
	"github.com/polgraph/polgraph/graph/dataset"
	"github.com/polgraph/polgraph/graph/resolve"
)

// Store is what intake writes to: the dataset writer, the audit trail, tombstones, and what tells which
// names the graph already holds.
type Store interface {
	graph.Writer
	graph.Trail
	graph.Tombstones
	graph.Merger
	graph.Judgements
	GetRelations(ctx context.Context, names []graph.RelationName) (map[graph.RelationName]graph.Relation, error)
	Known(ctx context.Context, entities []graph.EntityName, sources []graph.SourceName) (map[graph.EntityName]graph.Kind, map[graph.SourceName]bool, error)
	FindByNames(ctx context.Context, texts []string) (map[string][]graph.Entity, error)
	Version(ctx context.Context) (int64, error)
	Counts(ctx context.Context) (graph.GraphCounts, error)
}

// Limits on writes.
const (
	MaxBatch       = 1000      // records in one Upsert request
	MaxLoadLines   = 2_000_000 // lines of one Load
	MaxLoadBytes   = 512 << 20 // bytes of one Load
	MaxLoadFiles   = 100       // files of one Load
	MaxChangesPage = 500
	// LoadBatch is how many records one transaction of a Load writes.
	LoadBatch = 2000
)

// Service writes records, retractions and deletions, each change audited.
type Service struct {
	Store   Store
	Timeout time.Duration // bounds every write (none when 0)
	// LoadProgress, when set, is asked at the start of every Load for what to tell of its progress, given
	// how many records (sources, entities and relations) the load writes.
	LoadProgress func(records int) dataset.Progress
}

func (s *Service) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.Timeout > 0 {
		return context.WithTimeout(ctx, s.Timeout)
	}
	return context.WithCancel(ctx)
}

// Batch is the records of one write request, as dataset lines (one JSON record each), and the request
// field that holds them ("sources", "entities" or "relations"): a problem with the i-th record is
// reported as field[i].field.
type Batch struct {
	Field string
	Lines []string
}

// Upsert checks a batch whole (every problem of every record is reported; nothing is written when there
// is one) and writes it in one transaction, recording each change with meta's principal and method. With
// a request id it writes once: a retried call gets the first call's result (Replayed).
func (s *Service) Upsert(ctx context.Context, meta graph.WriteMeta, b Batch) (graph.WriteResult, error) {
	op := meta.Method
	var v graph.Violations
	checkRequestID(&v, meta.RequestID)
	graph.CheckCount(&v, b.Field, len(b.Lines), MaxBatch)
	if len(b.Lines) == 0 {
		v.Add(b.Field, "required: at least one record")
	}
	if err := v.Err(op, "invalid write"); err != nil {
		return graph.WriteResult{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	header := `{"record":"dataset","format":"` + dataset.Format + `","name":"` + b.Field + `"}`
	text := header + "\n" + strings.Join(b.Lines, "\n") + "\n"
	ds, err := dataset.ReadWith([]dataset.File{{Name: b.Field, R: strings.NewReader(text)}}, s.known(ctx))
	if err != nil {
		return graph.WriteResult{}, asRequestViolations(op, b.Field, err)
	}
	var res graph.WriteResult
	meta.Result = &res
	wctx := graph.WithWriteMeta(ctx, meta)
	switch b.Field {
	case "sources":
		err = s.Store.UpsertSources(wctx, ds.Sources)
	case "entities":
		if err = s.Store.UpsertEntities(wctx, ds.Entities); err == nil && !res.Replayed {
			res.MayBe, err = s.mayBe(ctx, ds.Entities, res.Created)
		}
	case "relations":
		// Relations that name a merged entity are written to the entity it was merged into (again, when
		// a merge commits while they are written).
		for attempt := 0; attempt < 3; attempt++ {
			var rels []graph.Relation
			if rels, err = dataset.Redirected(ctx, s.Store, ds.Relations); err == nil {
				err = s.Store.UpsertRelations(wctx, rels)
			}
			var ge *graph.Error
			if !errors.As(err, &ge) || ge.Reason != graph.ReasonMergedMeanwhile {
				break
			}
		}
	default:
		err = &graph.Error{Op: op, Kind: graph.Internal, Message: "no such batch: " + b.Field}
	}
	if err != nil {
		return graph.WriteResult{}, err
	}
	res.Version, err = s.Store.Version(ctx)
	return res, err
}

// known asks the store which of the names an input refers to without defining it the graph holds.
func (s *Service) known(ctx context.Context) dataset.Known {
	return func(ents []graph.EntityName, srcs []graph.SourceName) (map[graph.EntityName]graph.Kind, map[graph.SourceName]bool, error) {
		return s.Store.Known(ctx, ents, srcs)
	}
}

var atLine = regexp.MustCompile(`^(.*):(\d+)(?:: (.*))?$`)

// asRequestViolations turns the dataset check's FILE:LINE: FIELD violations of a batch into the request's
// fields: line 2 of the batch (after the header) is field[0].
func asRequestViolations(op, field string, err error) error {
	var ge *graph.Error
	if !errors.As(err, &ge) || ge.Kind != graph.Invalid {
		return err
	}
	out := &graph.Error{Op: op, Kind: graph.Invalid, Reason: "INVALID_ARGUMENT", Message: "invalid records; nothing was written"}
	for _, fv := range ge.Violations {
		m := atLine.FindStringSubmatch(fv.Field)
		if m == nil || m[1] != field {
			out.Violations = append(out.Violations, fv)
			continue
		}
		line, _ := strconv.Atoi(m[2])
		name := field
		if line >= 2 {
			name = fmt.Sprintf("%s[%d]", field, line-2)
		}
		if m[3] != "" {
			name += "." + m[3]
		}
		out.Violations = append(out.Violations, graph.FieldViolation{Field: name, Description: fv.Description})
	}
	return out
}

// checkRequestID checks a request id: optional, short, printable.
func checkRequestID(v *graph.Violations, id string) {
	if len(id) > graph.MaxRequestID {
		v.Add("request_id", "%d bytes; at most %d", len(id), graph.MaxRequestID)
	} else if i, r := graph.ControlAt(id, false); i >= 0 {
		v.Add("request_id", "contains the control character %U at byte %d", r, i+1)
	}
}

// LoadResult says what a load read and what the graph then holds.
type LoadResult struct {
	Sources, Entities, Relations, Claims int
	Graph                                graph.GraphCounts
	Replayed                             bool
}

// Load checks whole files of the dataset format (every problem as FILE:LINE: FIELD; nothing written
// when there is one; they may refer to what the graph holds) and writes them as `polgraph load` does,
// recording each change with meta's principal and method. With a request id it writes once: a retried
// call gets the first call's result. A load that failed part-way is taken up by loading again (writes
// are upserts): it ends with exactly the files' counts.
func (s *Service) Load(ctx context.Context, meta graph.WriteMeta, files []dataset.File) (LoadResult, error) {
	var v graph.Violations
	checkRequestID(&v, meta.RequestID)
	graph.CheckCount(&v, "file", len(files), MaxLoadFiles)
	if err := v.Err(meta.Method, "invalid load"); err != nil {
		return LoadResult{}, err
	}
	var res LoadResult
	if meta.RequestID != "" {
		found, err := s.Store.RequestResult(ctx, meta, &res)
		if err != nil || found {
			res.Replayed = found
			return res, err
		}
	}
	ds, err := dataset.ReadWith(files, s.known(ctx))
	if err != nil {
		return LoadResult{}, err
	}
	written := meta
	written.RequestID = "" // the load is many transactions: its request is recorded once it has ended
	written.Result = &graph.WriteResult{}
	var progress dataset.Progress
	if s.LoadProgress != nil {
		progress = s.LoadProgress(len(ds.Sources) + len(ds.Entities) + len(ds.Relations))
	}
	if err := dataset.Load(graph.WithWriteMeta(ctx, written), s.Store, ds, LoadBatch, progress); err != nil {
		return LoadResult{}, err
	}
	res = LoadResult{Sources: len(ds.Sources), Entities: len(ds.Entities), Relations: len(ds.Relations)}
	for _, r := range ds.Relations {
		res.Claims += len(r.Claims)
	}
	if res.Graph, err = s.Store.Counts(ctx); err != nil {
		return LoadResult{}, err
	}
	if meta.RequestID != "" {
		if err := s.Store.RecordRequest(ctx, meta, res); err != nil {
			return LoadResult{}, err
		}
	}
	return res, nil
}

// checkReason checks why a retraction or deletion is made: required, one line, bounded.
func checkReason(v *graph.Violations, reason string) {
	switch {
	case strings.TrimSpace(reason) == "":
		v.Add("reason", "required: say why")
	case len(reason) > graph.MaxReason:
		v.Add("reason", "%d bytes; at most %d", len(reason), graph.MaxReason)
	default:
		if i, r := graph.ControlAt(reason, false); i >= 0 {
			v.Add("reason", "contains the control character %U at byte %d", r, i+1)
		}
	}
}

// maxMayBe bounds how many entities of one write are looked up for the ones they may be.
const maxMayBe = 100

// mayBe finds, for each entity a write created (created names it), the entities of the graph it may be
// (resolve.Near), all of their names looked up at once; a new entity has no judgement yet to leave a pair
// out. A write of more than maxMayBe new entities is a load, which `polgraph resolve` reviews after.
func (s *Service) mayBe(ctx context.Context, written []graph.Entity, created []string) ([]graph.MayBe, error) {
	var fresh []graph.Entity
	var names []string
	for _, e := range written {
		if slices.Contains(created, string(e.Name)) {
			fresh = append(fresh, e)
			names = append(names, resolve.NearNames(e)...)
		}
	}
	if len(fresh) == 0 || len(fresh) > maxMayBe {
		return nil, nil
	}
	found, err := s.Store.FindByNames(ctx, names)
	if err != nil {
		return nil, err
	}
	var out []graph.MayBe
	for _, e := range fresh {
		for _, p := range resolve.Near(e, found, nil) {
			out = append(out, graph.MayBe{Created: e.Name, Existing: p.B.Name, Score: p.Score.Total,
				Merge: p.Score.Decision == resolve.Merge, Explanation: p.Score.String()})
		}
	}
	return out, nil
}

// tombstone runs a retraction or deletion once per request id.
func (s *Service) tombstone(ctx context.Context, meta graph.WriteMeta, name, reason string, valid func(string) bool, what string,
	do func(context.Context) (graph.WriteResult, error)) (graph.WriteResult, error) {
	var v graph.Violations
	if !valid(name) {
		v.Add("name", "%q is not %s", truncate(name, 80), what)
	}
	checkReason(&v, reason)
	checkRequestID(&v, meta.RequestID)
	if err := v.Err(meta.Method, "invalid request"); err != nil {
		return graph.WriteResult{}, err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var res graph.WriteResult
	if meta.RequestID != "" {
		found, err := s.Store.RequestResult(ctx, meta, &res)
		if err != nil || found {
			res.Replayed = found
			return res, err
		}
	}
	meta.Reason = reason
	res, err := do(graph.WithWriteMeta(ctx, meta))
	if err != nil {
		return graph.WriteResult{}, err
	}
	if res.Version, err = s.Store.Version(ctx); err != nil {
		return graph.WriteResult{}, err
	}
	if meta.RequestID != "" {
		err = s.Store.RecordRequest(ctx, meta, res)
	}
	return res, err
}

// RetractClaim marks a claim retracted, with why and who (meta's principal).
func (s *Service) RetractClaim(ctx context.Context, meta graph.WriteMeta, claim, reason string) (graph.WriteResult, error) {
	valid := func(n string) bool {
		return strings.HasPrefix(n, "relations/") && strings.Contains(n, "/claims/") && len(n) <= 400
	}
	return s.tombstone(ctx, meta, claim, reason, valid, "a claim name (relations/<relation>/claims/<source>)",
		func(ctx context.Context) (graph.WriteResult, error) {
			// A claim of a relation a merge moved is where the merge moved it.
			rel, suffix, _ := strings.Cut(claim, "/claims/")
			to, err := s.redirect(ctx, graph.RelationName(rel))
			if err != nil {
				return graph.WriteResult{}, err
			}
			return s.Store.RetractClaim(ctx, string(to)+"/claims/"+suffix, reason)
		})
}

// redirect is where a relation's name resolves: the relation a merge moved its claims to, if one did.
func (s *Service) redirect(ctx context.Context, name graph.RelationName) (graph.RelationName, error) {
	for range 8 {
		rels, err := s.Store.GetRelations(ctx, []graph.RelationName{name})
		if err != nil {
			return "", err
		}
		r, ok := rels[name]
		if !ok || r.MergedInto == "" {
			return name, nil
		}
		name = r.MergedInto
	}
	return name, nil
}

// DeleteRelation marks a relation deleted, with why and who.
func (s *Service) DeleteRelation(ctx context.Context, meta graph.WriteMeta, name, reason string) (graph.WriteResult, error) {
	valid := func(n string) bool {
		return strings.HasPrefix(n, "relations/") && !strings.Contains(n, "/claims/") && len(n) <= 400
	}
	return s.tombstone(ctx, meta, name, reason, valid, "a relation name (relations/<from>.<type>.<to>)",
		func(ctx context.Context) (graph.WriteResult, error) {
			to, err := s.redirect(ctx, graph.RelationName(name))
			if err != nil {
				return graph.WriteResult{}, err
			}
			return s.Store.DeleteRelation(ctx, to, reason)
		})
}

// MergeEntities merges from into into (both resource names), with why and who; admin's work.
func (s *Service) MergeEntities(ctx context.Context, meta graph.WriteMeta, from, into, reason string) (graph.WriteResult, error) {
	var v graph.Violations
	checkPair(&v, "from", from, "into", into, "is from: an entity is not merged into itself")
	valid := func(string) bool { return true } // checked above, with the field of each
	if err := v.Err(meta.Method, "invalid request"); err != nil {
		return graph.WriteResult{}, err
	}
	return s.tombstone(ctx, meta, from, reason, valid, "", func(ctx context.Context) (graph.WriteResult, error) {
		// A pair judged not the same is merged only once the judgement is withdrawn: a wrong merge is worse
		// than a missed one.
		js, err := s.Store.Separated(ctx, []graph.EntityName{graph.EntityName(from)})
		if err != nil {
			return graph.WriteResult{}, err
		}
		if j, ok := graph.NewApart(js).Of(graph.EntityName(from), graph.EntityName(into)); ok {
			return graph.WriteResult{}, &graph.Error{Op: meta.Method, Kind: graph.FailedPrecondition, Reason: graph.ReasonJudgedApart,
				Message: fmt.Sprintf("%s and %s were judged not the same by %s on %s (%q): withdraw the judgement first (SeparateEntities with withdraw)",
					from, into, j.By, j.At.Format(time.DateOnly), j.Reason)}
		}
		return s.Store.MergeEntity(ctx, graph.EntityName(from), graph.EntityName(into), reason)
	})
}

// checkPair checks the resource names of two entities a request names in fields fa and fb, and that they
// differ (else fb is refused with same).
func checkPair(v *graph.Violations, fa, a, fb, b, same string) {
	for _, f := range []struct{ field, name string }{{fa, a}, {fb, b}} {
		if _, err := graph.ParseEntityName(f.name); err != nil {
			v.Add(f.field, "%q is not an entity's resource name (e.g. actors/lutfur-rahman)", truncate(f.name, 80))
		}
	}
	if a == b && a != "" {
		v.Add(fb, "%s", same)
	}
}

// SeparateEntities records that a and b (resource names) are not one entity, with why and who; with
// withdraw, it withdraws that judgement instead. Admin's work, as merges are.
func (s *Service) SeparateEntities(ctx context.Context, meta graph.WriteMeta, a, b, reason string, withdraw bool) (graph.WriteResult, error) {
	var v graph.Violations
	checkPair(&v, "a", a, "b", b, "is a: an entity is not judged apart from itself")
	if err := v.Err(meta.Method, "invalid request"); err != nil {
		return graph.WriteResult{}, err
	}
	valid := func(string) bool { return true } // checked above, with the field of each
	return s.tombstone(ctx, meta, graph.JudgementName(graph.EntityName(a), graph.EntityName(b)), reason, valid, "",
		func(ctx context.Context) (graph.WriteResult, error) {
			if withdraw {
				return s.Store.WithdrawJudgement(ctx, graph.EntityName(a), graph.EntityName(b), reason)
			}
			return s.Store.SeparateEntities(ctx, graph.EntityName(a), graph.EntityName(b), reason)
		})
}

// UnmergeEntities undoes the merge of name (the merged entity), with why and who.
func (s *Service) UnmergeEntities(ctx context.Context, meta graph.WriteMeta, name, reason string) (graph.WriteResult, error) {
	valid := func(n string) bool { _, err := graph.ParseEntityName(n); return err == nil }
	return s.tombstone(ctx, meta, name, reason, valid, "an entity's resource name (e.g. actors/lutfur-rahman)",
		func(ctx context.Context) (graph.WriteResult, error) {
			return s.Store.UnmergeEntity(ctx, graph.EntityName(name), reason)
		})
}

// DeleteEntity marks an entity and its relations deleted, with why and who.
func (s *Service) DeleteEntity(ctx context.Context, meta graph.WriteMeta, name, reason string) (graph.WriteResult, error) {
	valid := func(n string) bool { _, err := graph.ParseEntityName(n); return err == nil }
	return s.tombstone(ctx, meta, name, reason, valid, "an entity's resource name (e.g. actors/lutfur-rahman)",
		func(ctx context.Context) (graph.WriteResult, error) {
			return s.Store.DeleteEntity(ctx, graph.EntityName(name), reason)
		})
}

// ListChanges returns a page of the audit trail, newest first, and how many changes match in all.
func (s *Service) ListChanges(ctx context.Context, q graph.ChangeQuery) ([]graph.Change, int, error) {
	var v graph.Violations
	if len(q.Resource) > graph.MaxQueryLength {
		v.Add("resource", "%d bytes; at most %d", len(q.Resource), graph.MaxQueryLength)
	}
	if len(q.Principal) > graph.MaxQueryLength {
		v.Add("principal", "%d bytes; at most %d", len(q.Principal), graph.MaxQueryLength)
	}
	if q.Limit < 0 || q.Limit > MaxChangesPage {
		v.Add("page_size", "must be between 0 and %d, got %d", MaxChangesPage, q.Limit)
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		v.Add("until", "must be after since")
	}
	if err := v.Err("ListChanges", "invalid request"); err != nil {
		return nil, 0, err
	}
	if q.Limit == 0 {
		q.Limit = 50
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return s.Store.ListChanges(ctx, q)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
