package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"google.golang.org/grpc"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

const resolveUsage = `usage: polgraph resolve [flags]
       polgraph resolve merge FROM INTO --reason WHY
       polgraph resolve apart A B --reason WHY [--withdraw]

The pairs of entities of the graph that may be one, best first, each with why: people of one surname
scored on their names, given-name forms, ids and birth years; parties and organisations of one name form
(ListMatchCandidates; --judged lists the pairs judged not the same instead). "merge" approves a pair: FROM
is merged into INTO (MergeEntities, undone by UnmergeEntities). "apart" rejects it: the pair is judged not
the same, and no list, import or merge joins it again until the judgement is withdrawn (SeparateEntities).
Entities are named by resource name, or by a name the graph knows. Listing needs the editor role; merge and
apart the admin role.`

// resolveCmd is `polgraph resolve`: the pairs of entities that may be one, and a reviewer's word on one.
func resolveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var limit *int
	var kind, entity, reason *string
	var judged, withdraw *bool
	c, fs, err := parseClientCommand("resolve", resolveUsage, 0, 3, false, args, stderr, func(fs *flag.FlagSet) {
		limit = fs.Int("limit", 20, "how many pairs")
		kind = fs.String("kind", "", "only entities of this kind (actor, party, organisation, seat)")
		entity = fs.String("entity", "", "only pairs with this entity")
		judged = fs.Bool("judged", false, "list the pairs judged not the same, with who judged, when and why")
		reason = fs.String("reason", "", "why (merge and apart)")
		withdraw = fs.Bool("withdraw", false, "apart: withdraw the judgement instead")
	})
	if err != nil {
		return err
	}
	verb := fs.Arg(0)
	if (verb == "" && fs.NArg() != 0) || (verb != "" && (verb != "merge" && verb != "apart" || fs.NArg() != 3)) {
		fs.Usage()
		return errUsage
	}
	if verb != "" {
		writeTarget{server: c.server}.say(stderr)
	}
	conn, err := c.dialConn()
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	names := make([]string, 0, 2)
	for _, n := range append(fs.Args()[min(fs.NArg(), 1):], *entity) {
		if n == "" {
			continue
		}
		name, err := entityNamed(ctx, conn, n)
		if err != nil {
			return c.callError(err)
		}
		names = append(names, name)
	}
	switch verb {
	case "merge":
		resp, err := pb.NewWriteServiceClient(conn).MergeEntities(ctx, &pb.MergeEntitiesRequest{From: names[0], Into: names[1], Reason: *reason})
		if err != nil {
			return c.callError(err)
		}
		if c.json {
			return printJSON(stdout, resp)
		}
		fmt.Fprintf(stdout, "%s merged into %s; undo with UnmergeEntities.\n", names[0], names[1])
		return nil
	case "apart":
		resp, err := pb.NewWriteServiceClient(conn).SeparateEntities(ctx, &pb.SeparateEntitiesRequest{A: names[0], B: names[1], Reason: *reason, Withdraw: *withdraw})
		if err != nil {
			return c.callError(err)
		}
		if c.json {
			return printJSON(stdout, resp)
		}
		r := resp.GetResult()
		switch {
		case len(r.GetCreated())+len(r.GetUpdated()) == 0 && *withdraw:
			fmt.Fprintf(stdout, "%s and %s were not judged apart.\n", names[0], names[1])
		case len(r.GetCreated())+len(r.GetUpdated()) == 0:
			fmt.Fprintf(stdout, "%s and %s were judged not the same already, for that reason.\n", names[0], names[1])
		case *withdraw:
			fmt.Fprintf(stdout, "The judgement on %s and %s is withdrawn.\n", names[0], names[1])
		default:
			fmt.Fprintf(stdout, "%s and %s are judged not the same.\n", names[0], names[1])
		}
		return nil
	}
	req := &pb.ListMatchCandidatesRequest{Judged: *judged, PageSize: int32(min(max(*limit, 1), 1000))}
	if len(names) > 0 {
		req.Entity = names[0]
	}
	if *kind != "" {
		k, ok := pb.EntityKind_value["ENTITY_KIND_"+strings.ToUpper(*kind)]
		if !ok {
			return fmt.Errorf("--kind %q: want actor, party, organisation or seat", *kind)
		}
		req.Kind = pb.EntityKind(k)
	}
	resp, err := pb.NewReviewServiceClient(conn).ListMatchCandidates(ctx, req)
	if err != nil {
		return c.callError(err)
	}
	if c.json {
		return printJSON(stdout, resp)
	}
	n := int(resp.GetTotalSize())
	if *judged {
		fmt.Fprintf(stdout, "%d %s judged not the same\n", n, plural(n, "pair", "pairs"))
	} else {
		fmt.Fprintf(stdout, "%d %s that may be one\n", n, plural(n, "pair", "pairs"))
	}
	for _, p := range resp.GetCandidates() {
		fmt.Fprintf(stdout, "%s (%s) ~ %s (%s): %s\n", p.GetA().GetName(), p.GetA().GetDisplayName(), p.GetB().GetName(), p.GetB().GetDisplayName(),
			p.GetExplanation())
		if j := p.GetJudgement(); j != nil {
			fmt.Fprintf(stdout, "  judged not the same by %s on %s: %s\n", j.GetBy(), j.GetTime().AsTime().Format("2006-01-02"), j.GetReason())
		}
	}
	return nil
}

// entityNamed is the resource name of the entity a user names: a resource name as it is, else the entity
// the graph knows by that name (GetEntity).
func entityNamed(ctx context.Context, conn grpc.ClientConnInterface, n string) (string, error) {
	if graph.LooksLikeResourceName(n) {
		return n, nil
	}
	e, err := pb.NewGraphServiceClient(conn).GetEntity(ctx, &pb.GetEntityRequest{Name: n})
	if err != nil {
		return "", err
	}
	return e.GetEntity().GetName(), nil
}
