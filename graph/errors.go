package graph

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrorKind classifies errors so that each adapter can answer in its own terms (gRPC codes, exit codes).
type ErrorKind int

// The error kinds.
const (
	Internal           ErrorKind = iota // a bug or an unexpected answer from a dependency
	Invalid                             // the request or input is malformed
	NotFound                            // a named entity or relation does not exist
	Unavailable                         // the database cannot be reached
	ResourceExhausted                   // the query would pass the work budget
	DeadlineExceeded                    // the deadline passed
	Unauthenticated                     // the caller's credential is missing, unknown or revoked
	PermissionDenied                    // the caller's role does not allow the call
	FailedPrecondition                  // the graph is not in a state the request can apply to (a merged entity)
	AlreadyExists                       // what a request would create exists already (a saved view's id)
	Aborted                             // a concurrent change came first (a saved view's etag no longer matches)
)

func (k ErrorKind) String() string {
	return [...]string{"internal", "invalid", "not found", "unavailable", "resource exhausted", "deadline exceeded",
		"unauthenticated", "permission denied", "failed precondition", "already exists", "aborted"}[k]
}

// FieldViolation names one problem with one field of a request or an input record.
type FieldViolation struct {
	Field       string // e.g. "max_depth", or "tower-hamlets.jsonl:12: claims[0].excerpt"
	Description string
}

// Error is polgraph's error: an operation, a kind, a message safe to show a user, and optionally the
// fields at fault and the underlying cause (which is logged, never shown).
type Error struct {
	// Op names what failed: a request's checks by its RPC ("FindPaths"), anything else by its package and
	// function ("dgraph.UpsertRelations", "walk.FindPaths").
	Op         string
	Kind       ErrorKind
	Message    string
	Violations []FieldViolation
	Reason     string // an UPPER_SNAKE reason for machines, e.g. "AMBIGUOUS_NAME"
	// RetryAfter, when set, tells the client when trying again may succeed (ResourceExhausted,
	// Unavailable).
	RetryAfter time.Duration
	// Metadata is what a client needs to act on the error besides its reason (google.rpc.ErrorInfo's
	// metadata): where to resume a change feed, the oldest version it holds.
	Metadata map[string]string
	Err      error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op + ": ")
	}
	b.WriteString(e.Message)
	for _, v := range e.Violations {
		fmt.Fprintf(&b, "\n  %s: %s", v.Field, v.Description)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// E builds an Error.
func E(op string, kind ErrorKind, format string, args ...any) *Error {
	return &Error{Op: op, Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// KindOf returns the kind of the first *Error in err's chain, or Internal.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Violations collects field violations and turns them into one Invalid error.
type Violations []FieldViolation

// Add records a problem with a field.
func (v *Violations) Add(field, format string, args ...any) {
	*v = append(*v, FieldViolation{Field: field, Description: fmt.Sprintf(format, args...)})
}

// Err returns nil when nothing was recorded, else an Invalid *Error listing every problem.
func (v Violations) Err(op, message string) error {
	if len(v) == 0 {
		return nil
	}
	return &Error{Op: op, Kind: Invalid, Message: message, Violations: v, Reason: "INVALID_ARGUMENT"}
}

// ReasonMergedMeanwhile is the reason of the error of a write that names an entity merged while it was
// being written: written again, it goes to the entity it was merged into.
const ReasonMergedMeanwhile = "ENTITY_MERGED_MEANWHILE"
