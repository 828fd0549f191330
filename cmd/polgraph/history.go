package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// historyCmd is `polgraph history NAME`: a resource's changes in the audit trail, newest first.
func historyCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var limit *int
	c, fs, err := parseClientCommand("history", "usage: polgraph history [flags] NAME\n\nThe changes of an entity (by resource name or by name), a relation, a source, a claim's relation or an API key (keys/ID), newest first (needs an editor's key).",
		1, 1, false, args, stderr, func(fs *flag.FlagSet) {
			limit = fs.Int("limit", 20, "how many changes (at most 500)")
		})
	if err != nil {
		return err
	}
	name := fs.Arg(0)
	conn, err := c.dialConn()
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if !graph.LooksLikeResourceName(name) && !strings.HasPrefix(name, "relations/") && !strings.HasPrefix(name, "keys/") {
		// A name or alias: the entity it names.
		e, err := pb.NewGraphServiceClient(conn).GetEntity(ctx, &pb.GetEntityRequest{Name: name})
		if err != nil {
			return c.callError(err)
		}
		name = e.GetEntity().GetName()
	}
	resp, err := pb.NewWriteServiceClient(conn).ListChanges(ctx, &pb.ListChangesRequest{Resource: name, PageSize: int32(*limit)})
	if err != nil {
		return c.callError(err)
	}
	if c.json {
		return printJSON(stdout, resp)
	}
	if len(resp.GetChanges()) == 0 {
		fmt.Fprintf(stdout, "No changes of %s in the audit trail.\n", name)
		return nil
	}
	fmt.Fprintf(stdout, "%s: %d %s, newest first\n", name, resp.GetTotalSize(), plural(int(resp.GetTotalSize()), "change", "changes"))
	for _, ch := range resp.GetChanges() {
		req := ""
		if ch.GetRequestId() != "" {
			req = " (request " + ch.GetRequestId() + ")"
		}
		fmt.Fprintf(stdout, "  %s  %-7s by %s through %s%s\n", ch.GetTime().AsTime().Format("2006-01-02 15:04:05Z"), ch.GetAction(),
			ch.GetPrincipal(), ch.GetMethod(), req)
		what := changed(ch.GetBefore(), ch.GetAfter())
		if what != "" {
			fmt.Fprintf(stdout, "    %s\n", what)
		}
		if r := ch.GetReason(); r != "" && !strings.Contains(what, r) {
			fmt.Fprintf(stdout, "    reason: %s\n", r)
		}
	}
	if n := int(resp.GetTotalSize()) - len(resp.GetChanges()); n > 0 {
		fmt.Fprintf(stdout, "  … and %d older (--limit, or --json for before and after)\n", n)
	}
	return nil
}

// changed says in a line what a change did to a record: the fields it set, changed or removed, and the
// reason of a retraction or deletion.
func changed(before, after string) string {
	var b, a map[string]json.RawMessage
	if json.Unmarshal([]byte(after), &a) != nil {
		return ""
	}
	json.Unmarshal([]byte(before), &b)
	var parts []string
	var fields []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if k == "record" || k == "deleted" {
			continue
		}
		if old, ok := b[k]; !ok || !bytes.Equal(old, a[k]) {
			fields = append(fields, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[k]; !ok {
			fields = append(fields, k)
		}
	}
	if before == "" {
		fields = nil // a creation sets them all
	}
	var tomb struct {
		Reason string `json:"reason"`
	}
	if raw, ok := a["deleted"]; ok && json.Unmarshal(raw, &tomb) == nil {
		parts = append(parts, "deleted: "+strconv.Quote(tomb.Reason))
	} else if len(fields) == 1 && fields[0] == "claims" {
		// A retraction: the claims that gained a tombstone.
		var bc, ac []map[string]json.RawMessage
		json.Unmarshal(b["claims"], &bc)
		json.Unmarshal(a["claims"], &ac)
		for i, c := range ac {
			if raw, ok := c["retracted"]; ok && (i >= len(bc) || bc[i]["retracted"] == nil) && json.Unmarshal(raw, &tomb) == nil {
				parts = append(parts, fmt.Sprintf("claims[%d] retracted: %s", i, strconv.Quote(tomb.Reason)))
				fields = nil
			}
		}
	}
	if len(fields) > 0 {
		parts = append([]string{"changed: " + strings.Join(fields, ", ")}, parts...)
	}
	return strings.Join(parts, "; ")
}
