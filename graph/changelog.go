package graph

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// ChangeCursor is a place in the change log: after every change of the versions up to Version, and
// after the first Skip changes of version Version+1.
type ChangeCursor struct {
	Version int64
	Skip    int
	// Mark is the store's own note of where a read stopped within a version, which lets the next read
	// start there without counting; a store ignores a mark that is not its own or not for this place.
	Mark string
}

// After is the cursor just after change c (as ChangeLog read it: Version and Index set).
func After(c Change) ChangeCursor { return ChangeCursor{Version: c.Version - 1, Skip: c.Index + 1} }

// Token is the cursor as a client passes it back: "VERSION:SKIP" (the Mark is not part of it).
func (c ChangeCursor) Token() string {
	return strconv.FormatInt(c.Version, 10) + ":" + strconv.Itoa(c.Skip)
}

// ParseChangeToken reads a cursor from Token's form, or from a plain version ("120": after every change
// up to version 120).
func ParseChangeToken(s string) (ChangeCursor, error) {
	v, skip, hasSkip := strings.Cut(strings.TrimSpace(s), ":")
	version, err := strconv.ParseInt(v, 10, 64)
	if err != nil || version < 0 {
		return ChangeCursor{}, fmt.Errorf("%q is not a version or a resume token (VERSION or VERSION:SKIP)", s)
	}
	c := ChangeCursor{Version: version}
	if hasSkip {
		n, err := strconv.Atoi(skip)
		if err != nil || n < 0 {
			return ChangeCursor{}, fmt.Errorf("%q is not a resume token (VERSION:SKIP)", s)
		}
		c.Skip = n
	}
	return c, nil
}

// ChangePage is one read of the change log.
type ChangePage struct {
	// Changes are in commit order: by version, then by Index within a version.
	Changes []Change
	// Next is where the following read starts: just after Changes, or, when the read reached the graph's
	// version, after Version.
	Next ChangeCursor
	// Version is the graph's version the page was read at.
	Version int64
}

// ChangeLog reads the audit trail by graph version: every change to the graph (sources, entities,
// relations and their claims, retractions, deletions, merges and unmerges, loads) in commit order. It
// holds complete versions only: a version a bulk load still holds open is not read until the load ends.
type ChangeLog interface {
	// ReadChangeLog returns the changes after cursor, at most limit of them (a store may return fewer),
	// up to the graph's version. FailedPrecondition with ReasonVersionTooOld (and the oldest version it
	// can start after, in Metadata["oldest_version"]) when the cursor lies before the history the log
	// holds; Unavailable, DeadlineExceeded or Internal errors otherwise.
	ReadChangeLog(ctx context.Context, after ChangeCursor, limit int) (ChangePage, error)
}

// The reasons of the change feed's errors.
const (
	// ReasonVersionTooOld: the feed was asked to start before the oldest version whose changes it holds.
	ReasonVersionTooOld = "VERSION_TOO_OLD"
	// ReasonWatcherTooSlow: a watcher did not take what the feed had for it in time, and was ended.
	ReasonWatcherTooSlow = "WATCHER_TOO_SLOW"
)

// ActionLoad is the action of the one change a load that records no change per resource writes (an
// N-Quads load through dgraph bulk): the graph was written whole, so a watcher reads it again (an export)
// instead of applying changes.
const ActionLoad = "LOAD"
