package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// WriteMeta says who writes and why. Set on a context (WithWriteMeta), it makes every write of a Store
// record, in the same transaction, one Change per resource it changes, and (with a RequestID) the write's
// result, so that a retried call gets the first call's answer.
type WriteMeta struct {
	Principal string // who, as the trail shows it: "key alice (keys/…)", "certificate CN=…", "local (user)"
	// Aliases are the other names the trail can be searched by: a key's name and id, a certificate's
	// common name, a local user's name.
	Aliases []string
	Method  string // the RPC, e.g. "UpsertEntities"
	// RequestID is the caller's idempotency key, or "": a write that finds its id recorded writes nothing
	// and reports the recorded result (Replayed). Give it only to a write made in one transaction.
	RequestID string
	// Digest identifies the request itself (RequestDigest): an id recorded for another method or another
	// request refuses the write (ReasonRequestIDReused) instead of replaying the other's result.
	Digest string
	// Reason is why the write was made, when the caller must say (a retraction, a deletion, a merge or an
	// unmerge): the trail keeps it with the write's changes.
	Reason string
	// Result, when set, collects what the writes made with the context changed.
	Result *WriteResult
}

type writeMetaKey struct{}

// WithWriteMeta returns ctx carrying m.
func WithWriteMeta(ctx context.Context, m WriteMeta) context.Context {
	return context.WithValue(ctx, writeMetaKey{}, m)
}

// WriteMetaFrom returns the WriteMeta ctx carries, if any.
func WriteMetaFrom(ctx context.Context) (WriteMeta, bool) {
	m, ok := ctx.Value(writeMetaKey{}).(WriteMeta)
	return m, ok
}

// The actions a Change records.
const (
	ActionCreate  = "CREATE"
	ActionUpdate  = "UPDATE"
	ActionRetract = "RETRACT"
	ActionDelete  = "DELETE"
	ActionMerge   = "MERGE"   // an entity merged into another (the entity merged)
	ActionUnmerge = "UNMERGE" // a merge undone
)

// Change is one resource changed by one write: the audit trail's entry.
type Change struct {
	Time      time.Time
	Principal string
	Method    string
	RequestID string
	Reason    string // the reason the write was given, if any (WriteMeta.Reason)
	Resource  string
	Action    string
	// Before and After are the resource as a dataset record (JSON), "" when it did not exist (Before).
	Before, After string
	// Version is the graph version the change committed at (0 for a change that is not the graph's: an
	// API key's, a judgement's, or one recorded before changes carried versions); Index is its place
	// among the changes of that version, from 0, as ChangeLog reads them.
	Version int64
	Index   int
}

// ChangeQuery asks for a page of the audit trail, newest first.
type ChangeQuery struct {
	Resource, Principal string    // "" for any
	Since, Until        time.Time // zero for open
	Offset, Limit       int
}

// WriteResult says what a write changed.
type WriteResult struct {
	Created, Updated []string
	Unchanged        int
	Replayed         bool // the recorded result of an earlier call with the same request id
	Version          int64
	// MayBe are the entities the write created that may be ones the graph held (UpsertEntities).
	MayBe []MayBe
}

// MayBe is an entity a write created that may be one the graph already held, with the score that says so.
type MayBe struct {
	Created, Existing EntityName
	Score             float64
	Merge             bool   // the score merges (else it proposes)
	Explanation       string // the score in words
}

// Add counts what another write changed too.
func (r *WriteResult) Add(o WriteResult) {
	r.Created = append(r.Created, o.Created...)
	r.Updated = append(r.Updated, o.Updated...)
	r.Unchanged += o.Unchanged
	r.Replayed = r.Replayed || o.Replayed
	r.Version = max(r.Version, o.Version)
	r.MayBe = append(r.MayBe, o.MayBe...)
}

// ChangeScanner is a Trail that reads every change made from an instant on, in pages, in no set order but
// creation order among a resource's changes of one millisecond, each with its Time, Resource, Action and
// Before: what rebuilding a past graph needs, which undoes them all.
type ChangeScanner interface {
	ScanChanges(ctx context.Context, since time.Time, each func([]Change) error) error
}

// Trail is where a Store keeps the audit trail. Methods return Unavailable, DeadlineExceeded or Internal
// errors.
type Trail interface {
	// ListChanges returns a page of the changes matching q, newest first, and how many match in all.
	ListChanges(ctx context.Context, q ChangeQuery) ([]Change, int, error)
	// RequestResult reads into result the result recorded for a principal's request id, and reports
	// whether there is one.
	// whether there is one; an id recorded for another method or request is an Invalid error
	// (CheckReplay).
	RequestResult(ctx context.Context, meta WriteMeta, result any) (bool, error)
	// RecordRequest records the result of a principal's request id, with the method and digest of the
	// request, for a write made in several transactions (a single-transaction write records its own, with
	// WriteMeta.RequestID).
	RecordRequest(ctx context.Context, meta WriteMeta, result any) error
}

// ReasonRequestIDReused is the reason of the error of a write whose request id was recorded for another
// request.
const ReasonRequestIDReused = "REQUEST_ID_REUSED"

// CheckReplay checks that a request id recorded for method and digest (both "" in records written before
// they were kept) may replay its result for the write meta describes.
func CheckReplay(meta WriteMeta, method, digest string) error {
	if method == "" || method == meta.Method && digest == meta.Digest {
		return nil
	}
	what := "another " + method + " request"
	if method != meta.Method {
		what = "a " + method + " request"
	}
	return &Error{Op: meta.Method, Kind: Invalid, Reason: ReasonRequestIDReused,
		Message: fmt.Sprintf("request_id %q was already used by %s: a request id names one request, so send this one with a new id", meta.RequestID, what)}
}

// Retraction and deletion limits.
const (
	MaxReason    = 1000 // bytes of a retraction's or a deletion's reason
	MaxRequestID = 100  // bytes of a request id
)

type recordedTombstoneKey struct{}

// WithRecordedTombstone has the tombstones written under ctx dated and signed as t, not now by the
// writer: a load restoring a retraction that a dataset file records (t's reason is ignored; each write
// gives its own).
func WithRecordedTombstone(ctx context.Context, t Tombstone) context.Context {
	return context.WithValue(ctx, recordedTombstoneKey{}, t)
}

// RecordedTombstone is the tombstone WithRecordedTombstone put in ctx, if any.
func RecordedTombstone(ctx context.Context) (Tombstone, bool) {
	t, ok := ctx.Value(recordedTombstoneKey{}).(Tombstone)
	return t, ok
}

// Tombstones keep what is retracted or deleted, marked, so that nothing is lost and the trail can show it.
type Tombstones interface {
	// RetractClaim marks a claim retracted (it is kept and shown, and never counts) and recomputes its
	// relation's summary, dated now and signed by the writer unless ctx says otherwise
	// (WithRecordedTombstone). NotFound for an unknown claim.
	RetractClaim(ctx context.Context, claim, reason string) (WriteResult, error)
	// DeleteRelation marks a relation deleted: no search finds it any more. NotFound for an unknown one.
	DeleteRelation(ctx context.Context, name RelationName, reason string) (WriteResult, error)
	// DeleteEntity marks an entity and each of its relations deleted. NotFound for an unknown one.
	DeleteEntity(ctx context.Context, name EntityName, reason string) (WriteResult, error)
}

// Merger merges two records of one entity, and undoes a merge.
type Merger interface {
	// MergeEntity merges from into into: from's relations and claims move to into (relations into already
	// has take the claims they lack; a claim both hold stays where it was), from's names become into's
	// aliases, and from is kept as a tombstone that redirects to into (as each relation moved does to where
	// it went). It records what it did on from, so that UnmergeEntity can undo it. Invalid for entities of
	// two kinds or with conflicting identifiers; FailedPrecondition when either is deleted or merged;
	// NotFound for an unknown one.
	MergeEntity(ctx context.Context, from, into EntityName, reason string) (WriteResult, error)
	// UnmergeEntity undoes the merge of from: the relations and claims that moved go back, into loses the
	// names it gained, and from is restored. Claims written to the merged relations since stay with into.
	// FailedPrecondition when from is not merged, or into has since been merged or deleted.
	UnmergeEntity(ctx context.Context, from EntityName, reason string) (WriteResult, error)
	// MergedInto tells, of these entities, where each that was merged now resolves (following merges of
	// merges).
	MergedInto(ctx context.Context, names []EntityName) (map[EntityName]EntityName, error)
}

// MergeClaims is a relation's claims after a write of some of them, as every Writer keeps them: those
// written replace those of the same name (a retraction stands); the others stay. In claim-name order, as
// reads return them.
func MergeClaims(old, written []Claim) []Claim {
	byName := map[string]Claim{}
	for _, c := range old {
		byName[c.Name] = c
	}
	for _, c := range written {
		c.Retracted = byName[c.Name].Retracted
		byName[c.Name] = c
	}
	out := make([]Claim, 0, len(byName))
	for _, c := range byName {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Claim) int { return strings.Compare(a.Name, b.Name) })
	return out
}
