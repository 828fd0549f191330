package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// watchCmd is `polgraph watch`: the graph's changes as they are committed (WatchChanges), one line each
// or JSON lines, resuming by itself when the server ends a watcher that fell behind.
func watchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var since, entities, around, types, kinds *string
	var depth, limit *int
	var caughtUp *bool
	c, fs, err := parseClientCommand("watch", "usage: polgraph watch [flags]\n\nThe graph's changes as they are committed, in commit order, one a line (--json: the changes as JSON lines), from now or from --since, until interrupted.",
		0, 0, false, args, stderr, func(fs *flag.FlagSet) {
			since = fs.String("since", "", "start after this graph version (0: from the oldest change kept), or a resume token VERSION:SKIP; default: now")
			entities = fs.String("entities", "", "only changes of these entities and their relations (resource names, comma-separated)")
			around = fs.String("around", "", "only changes within --depth hops of this entity (a resource name)")
			depth = fs.Int("depth", 1, "hops around --around (1 to 3)")
			types = fs.String("types", "", "only changes of relations of these types (comma-separated, e.g. MEMBER_OF,ENDORSES)")
			kinds = fs.String("kinds", "", "only changes of entities of these kinds, and of relations with an end of one (actor, party, seat, organisation)")
			limit = fs.Int("limit", 0, "stop after this many changes (0: no limit)")
			caughtUp = fs.Bool("until-caught-up", false, "stop once every change up to the graph's version at the start is shown")
		})
	if err != nil {
		return err
	}
	req := &pb.WatchChangesRequest{Center: *around, UntilCaughtUp: *caughtUp}
	if *since != "" {
		cur, err := graph.ParseChangeToken(*since)
		if err != nil {
			return fmt.Errorf("--since: %w", err)
		}
		if cur.Skip > 0 {
			req.ResumeToken = cur.Token()
		} else {
			req.SinceVersion = &cur.Version
		}
	}
	if *around != "" {
		req.Depth = int32(*depth)
	}
	for _, e := range strings.Split(*entities, ",") {
		if e = strings.TrimSpace(e); e != "" {
			req.Entities = append(req.Entities, e)
		}
	}
	for _, t := range splitList(*types) {
		req.RelationTypes = append(req.RelationTypes, pb.RelationType(pb.RelationType_value["RELATION_TYPE_"+strings.ToUpper(t)]))
	}
	for _, k := range splitList(*kinds) {
		req.Kinds = append(req.Kinds, pb.EntityKind(pb.EntityKind_value["ENTITY_KIND_"+strings.ToUpper(k)]))
	}
	// A watch lasts until interrupted: --timeout bounds it only when given.
	timed := false
	fs.Visit(func(f *flag.Flag) { timed = timed || f.Name == "timeout" })
	if timed {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	conn, err := c.dialConn()
	if err != nil {
		return err
	}
	defer conn.Close()
	client := pb.NewGraphServiceClient(conn)
	shown := 0
	for {
		stream, err := client.WatchChanges(ctx, req)
		if err != nil {
			return c.callError(err)
		}
		for {
			resp, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				if token := resumeToken(err); token != "" {
					// The server ended the watcher for falling behind: go on from where it stopped.
					fmt.Fprintf(stderr, "polgraph watch: fell behind; resuming from %s\n", token)
					req.ResumeToken, req.SinceVersion = token, nil
					break
				}
				if ctx.Err() != nil {
					return nil
				}
				return c.callError(err)
			}
			for _, ch := range resp.GetChanges() {
				if c.json {
					b, err := protojson.Marshal(ch)
					if err != nil {
						return err
					}
					fmt.Fprintln(stdout, string(b))
				} else {
					printChange(stdout, ch)
				}
				if shown++; *limit > 0 && shown >= *limit {
					return nil
				}
			}
		}
	}
}

// resumeToken is where to resume after a watch the server ended for falling behind, or "".
func resumeToken(err error) string {
	st := status.Convert(err)
	if st.Code() != codes.ResourceExhausted {
		return ""
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == graph.ReasonWatcherTooSlow {
			return info.GetMetadata()["resume_token"]
		}
	}
	return ""
}

// printChange writes a change on a line: its version and place, when, what, who and through what, and
// what it changed.
func printChange(w io.Writer, ch *pb.Change) {
	line := fmt.Sprintf("%d.%d  %s  %-7s %s  by %s through %s", ch.GetVersion(), ch.GetIndex(),
		ch.GetTime().AsTime().Format(time.DateTime+"Z"), ch.GetAction(), ch.GetResource(), ch.GetPrincipal(), ch.GetMethod())
	if what := changed(ch.GetBefore(), ch.GetAfter()); what != "" {
		line += "  (" + what + ")"
	}
	fmt.Fprintln(w, line)
}
