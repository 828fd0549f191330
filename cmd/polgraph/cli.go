package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// clientFlags are the flags shared by the analyst commands, which call a running polgraph over gRPC.
type clientFlags struct {
	server, asOf, types, excludeTypes, statuses, undated string
	minConfidence                                        float64
	json                                                 bool
	timeout                                              time.Duration
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.server, "server", envOr("POLGRAPH_ADDR", "127.0.0.1:50051"), "polgraph's gRPC address ($POLGRAPH_ADDR)")
	fs.StringVar(&c.asOf, "as-of", "", "only relations that held at this date: YYYY, YYYY-MM or YYYY-MM-DD")
	fs.StringVar(&c.undated, "undated", "", "whether relations without a date count: include or exclude (default: exclude with --as-of, include without)")
	fs.StringVar(&c.types, "types", "", "only these relation types, comma-separated (e.g. ENDORSES,MEMBER_OF)")
	fs.StringVar(&c.excludeTypes, "exclude-types", "", "never these relation types, comma-separated")
	fs.StringVar(&c.statuses, "statuses", "", "claim statuses that count, comma-separated (default ALLEGED,REPORTED,CONFIRMED)")
	fs.Float64Var(&c.minConfidence, "min-confidence", 0, "only relations with a counted claim at least this sure (0 to 1)")
	fs.BoolVar(&c.json, "json", false, "print the answer as JSON")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "give up after this long")
}

// filter builds the request filter; unknown names are left for the server to refuse with a clear message.
func (c *clientFlags) filter() *pb.RelationFilter {
	f := &pb.RelationFilter{AsOf: c.asOf, MinConfidence: c.minConfidence}
	for _, t := range splitList(c.types) {
		f.IncludeTypes = append(f.IncludeTypes, pb.RelationType(pb.RelationType_value["RELATION_TYPE_"+t]))
	}
	for _, t := range splitList(c.excludeTypes) {
		f.ExcludeTypes = append(f.ExcludeTypes, pb.RelationType(pb.RelationType_value["RELATION_TYPE_"+t]))
	}
	for _, s := range splitList(c.statuses) {
		f.Statuses = append(f.Statuses, pb.ClaimStatus(pb.ClaimStatus_value["CLAIM_STATUS_"+s]))
	}
	if c.undated != "" {
		f.Undated = pb.UndatedPolicy(pb.UndatedPolicy_value["UNDATED_POLICY_"+strings.ToUpper(c.undated)])
	}
	return f
}

// checkNames refuses names the vocabulary does not have before any call is made.
func (c *clientFlags) checkNames() error {
	var v graph.Violations
	for flagName, list := range map[string]string{"--types": c.types, "--exclude-types": c.excludeTypes} {
		for _, t := range splitList(list) {
			if !graph.RelationType(t).Valid() {
				v.Add(flagName, "%q is not a relation type", t)
			}
		}
	}
	for _, s := range splitList(c.statuses) {
		if graph.ClaimStatus(s).Index() < 0 {
			v.Add("--statuses", "%q is not a claim status (ALLEGED, REPORTED, CONFIRMED, DENIED)", s)
		}
	}
	if u := strings.ToLower(c.undated); u != "" && u != "include" && u != "exclude" {
		v.Add("--undated", "%q: want include or exclude", c.undated)
	}
	return v.Err("", "invalid flags")
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.ToUpper(strings.TrimSpace(p)); p != "" {
			out = append(out, strings.ReplaceAll(p, "-", "_"))
		}
	}
	return out
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func (c *clientFlags) dial() (pb.GraphServiceClient, func(), error) {
	conn, err := grpc.NewClient(c.server, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, nil, err
	}
	return pb.NewGraphServiceClient(conn), func() { conn.Close() }, nil
}

// callError explains a failed call in the terms of the CLI.
func (c *clientFlags) callError(err error) error {
	st := status.Convert(err)
	msg := st.Message()
	if st.Code().String() == "Unavailable" && !strings.Contains(msg, "Dgraph") {
		msg = fmt.Sprintf("cannot reach polgraph at %s (start it with `make run`, or pass --server): %s", c.server, msg)
	}
	var b strings.Builder
	b.WriteString(msg)
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				fmt.Fprintf(&b, "\n  %s: %s", v.GetField(), v.GetDescription())
			}
		}
	}
	return fmt.Errorf("%s (%s)", b.String(), st.Code())
}

func printJSON(w io.Writer, m proto.Message) error {
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// clientCommand parses an analyst command's flags (its own, added by more, and the shared ones) and
// wants exactly nargs arguments.
func clientCommand(name, usage string, nargs int, args []string, stderr io.Writer, more func(*flag.FlagSet)) (*clientFlags, *flag.FlagSet, error) {
	c := &clientFlags{}
	fs := flag.NewFlagSet("polgraph "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c.register(fs)
	more(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorder(args)); err != nil || fs.NArg() != nargs {
		if err == nil {
			fs.Usage()
		}
		return nil, nil, errUsage
	}
	if err := c.checkNames(); err != nil {
		return nil, nil, err
	}
	return c, fs, nil
}

// call dials the server, makes one call under the command's timeout, and prints its answer: as JSON with
// --json, else with write.
func call[M proto.Message](ctx context.Context, c *clientFlags, stdout io.Writer, do func(context.Context, pb.GraphServiceClient) (M, error), write func(M)) error {
	client, done, err := c.dial()
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := do(ctx, client)
	if err != nil {
		return c.callError(err)
	}
	if c.json {
		return printJSON(stdout, resp)
	}
	write(resp)
	return nil
}

// pathCmd is `polgraph path FROM TO`.
func pathCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var maxDepth, maxPaths *int
	var coTemporal *bool
	var directed *bool
	c, fs, err := clientCommand("path", "usage: polgraph path [flags] FROM TO\n\nFROM and TO are resource names (actors/keir-starmer) or names (\"Keir Starmer\").",
		2, args, stderr, func(fs *flag.FlagSet) {
			maxDepth = fs.Int("max-depth", 0, "longest path in hops (default 4, at most 8)")
			maxPaths = fs.Int("max-paths", 0, "how many routes (default 3, at most 20)")
			directed = fs.Bool("directed", false, "follow relations only in their direction")
			coTemporal = fs.Bool("co-temporal", false, "only routes whose hops all held at one moment (of --as-of, or of all time)")
		})
	if err != nil {
		return err
	}
	from, to := fs.Arg(0), fs.Arg(1)
	return call(ctx, c, stdout, func(ctx context.Context, client pb.GraphServiceClient) (*pb.FindPathsResponse, error) {
		return client.FindPaths(ctx, &pb.FindPathsRequest{From: from, To: to, MaxDepth: int32(*maxDepth),
			MaxPaths: int32(*maxPaths), Directed: *directed, Filter: c.filter(), CoTemporal: *coTemporal})
	}, func(resp *pb.FindPathsResponse) { writePaths(stdout, from, to, resp) })
}

// writePaths prints paths for a reader: each hop with every relation that makes it, its verdict, and one
// line of evidence per claim.
func writePaths(w io.Writer, from, to string, resp *pb.FindPathsResponse) {
	names := map[string]string{}
	for _, e := range resp.GetEntities() {
		names[e.GetName()] = e.GetDisplayName()
	}
	show := func(n string) string {
		if d, ok := names[n]; ok {
			return d
		}
		return n
	}
	if len(resp.GetPaths()) == 0 {
		fmt.Fprintf(w, "No path from %s to %s within the depth and filters asked.\n", from, to)
		return
	}
	for i, p := range resp.GetPaths() {
		ents := p.GetEntities()
		fmt.Fprintf(w, "Path %d (%d hops): %s\n", i+1, len(p.GetHops()), chain(ents, p.GetHops(), show))
		if len(p.GetDuring()) > 0 {
			var spans []string
			for _, d := range p.GetDuring() {
				spans = append(spans, d.GetFrom()+"–"+d.GetTo())
			}
			fmt.Fprintf(w, "  held as a whole during %s\n", strings.Join(spans, ", "))
		}
		for _, h := range p.GetHops() {
			rels := append([]*pb.Relation{h.GetRelation()}, hopParallel(h)...)
			if len(rels) > 1 {
				fmt.Fprintf(w, "  %d relations, %s\n", len(rels), h.GetVerdict().GetSummary())
			}
			for _, r := range rels {
				fmt.Fprintf(w, "  %s %s %s%s", show(r.GetFrom()), typeWords(r.GetType()), show(r.GetTo()), when(r))
				if v := r.GetVerdict(); v.GetDenyingClaims() > 0 {
					fmt.Fprintf(w, " [disputed: %s]", v.GetSummary())
				}
				fmt.Fprintln(w)
				for _, c := range r.GetClaims() {
					fmt.Fprintf(w, "    %s %.2f  %q — %s\n", strings.TrimPrefix(c.GetStatus().String(), "CLAIM_STATUS_"),
						c.GetConfidence(), oneLine(c.GetExcerpt(), 140), sourceLine(c.GetSource()))
				}
			}
		}
		fmt.Fprintln(w)
	}
}

func hopParallel(h *pb.Hop) []*pb.Relation {
	var out []*pb.Relation
	for _, p := range h.GetParallel() {
		out = append(out, p.GetRelation())
	}
	return out
}

// chain writes a route on one line: each hop by its first relation's type, and how many more it has.
func chain(ents []string, hops []*pb.Hop, show func(string) string) string {
	var b strings.Builder
	for i, e := range ents {
		b.WriteString(show(e))
		if i < len(hops) {
			t := strings.TrimPrefix(hops[i].GetRelation().GetType().String(), "RELATION_TYPE_")
			if n := len(hops[i].GetParallel()); n > 0 {
				t += fmt.Sprintf(" +%d", n)
			}
			switch {
			case hops[i].GetRelation().GetSymmetric():
				fmt.Fprintf(&b, " —%s— ", t)
			case hops[i].GetForward():
				fmt.Fprintf(&b, " —%s→ ", t)
			default:
				fmt.Fprintf(&b, " ←%s— ", t)
			}
		}
	}
	return b.String()
}

func typeWords(t pb.RelationType) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(t.String(), "RELATION_TYPE_")), "_", " ")
}

// when writes a relation's dates, or says it has none.
func when(r *pb.Relation) string {
	switch {
	case r.GetValidFrom() != "" || r.GetValidTo() != "":
		return fmt.Sprintf(" (%s–%s)", r.GetValidFrom(), r.GetValidTo())
	case r.GetDate() != "":
		return " (" + r.GetDate() + ")"
	}
	return " (undated)"
}

func sourceLine(s *pb.Source) string {
	parts := []string{}
	if s.GetOutlet() != "" {
		parts = append(parts, s.GetOutlet())
	} else {
		parts = append(parts, oneLine(s.GetTitle(), 50))
	}
	if s.GetPublished() != "" {
		parts = append(parts, s.GetPublished())
	}
	return strings.Join(parts, ", ")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// aroundCmd is `polgraph around NAME`.
func aroundCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var depth, perNode, maxNodes, maxEdges *int
	c, fs, err := clientCommand("around", "usage: polgraph around [flags] NAME", 1, args, stderr, func(fs *flag.FlagSet) {
		depth = fs.Int("depth", 1, "hops out, 1 to 3")
		perNode = fs.Int("max-per-node", 0, "new neighbours shown per entity (default 25)")
		maxNodes = fs.Int("max-nodes", 0, "entities in all (default 100)")
		maxEdges = fs.Int("max-edges", 0, "relations in all (default 1000)")
	})
	if err != nil {
		return err
	}
	return call(ctx, c, stdout, func(ctx context.Context, client pb.GraphServiceClient) (*pb.ExploreNeighborhoodResponse, error) {
		return client.ExploreNeighborhood(ctx, &pb.ExploreNeighborhoodRequest{Name: fs.Arg(0), Depth: int32(*depth),
			MaxPerNode: int32(*perNode), MaxNodes: int32(*maxNodes), MaxEdges: int32(*maxEdges), Filter: c.filter()})
	}, func(resp *pb.ExploreNeighborhoodResponse) { writeNeighborhood(stdout, resp) })
}

func writeNeighborhood(w io.Writer, resp *pb.ExploreNeighborhoodResponse) {
	names := map[string]string{}
	dist := map[string]int32{}
	for _, n := range resp.GetNodes() {
		names[n.GetEntity().GetName()] = n.GetEntity().GetDisplayName()
		dist[n.GetEntity().GetName()] = n.GetDistance()
	}
	show := func(n string) string {
		if d, ok := names[n]; ok {
			return d
		}
		return n
	}
	center := resp.GetCenter()
	fmt.Fprintf(w, "%s (%s): %d entities around it\n", center.GetDisplayName(), kindWord(center.GetKind()), resp.GetTotalNodes()-1)
	// Each node once, under the edge that reached it from one hop nearer.
	for _, n := range resp.GetNodes()[1:] {
		name := n.GetEntity().GetName()
		var via []string
		for _, e := range resp.GetEdges() {
			var other string
			switch name {
			case e.GetFrom():
				other = e.GetTo()
			case e.GetTo():
				other = e.GetFrom()
			default:
				continue
			}
			if d, ok := dist[other]; ok && d == n.GetDistance()-1 {
				arrow := "—"
				if !e.GetSymmetric() {
					arrow = "→"
				}
				disputed := ""
				if v := e.GetVerdict(); v.GetDenyingClaims() > 0 {
					disputed = " [disputed: " + v.GetSummary() + "]"
				}
				via = append(via, fmt.Sprintf("%s %s %s %s%s%s", show(e.GetFrom()), typeWords(e.GetType()), arrow, show(e.GetTo()), edgeWhen(e), disputed))
			}
		}
		fmt.Fprintf(w, "%s%s (%s)  %s\n", strings.Repeat("  ", int(n.GetDistance())), n.GetEntity().GetDisplayName(),
			kindWord(n.GetEntity().GetKind()), strings.Join(via, "; "))
	}
	for _, t := range resp.GetTruncated() {
		var parts []string
		for _, c := range t.GetByType() {
			dir := "in"
			if c.GetOutgoing() {
				dir = "out"
			}
			parts = append(parts, fmt.Sprintf("%d %s %s", c.GetCount(), typeWords(c.GetType()), dir))
		}
		fmt.Fprintf(w, "%s: %d more %s not shown (%d %s: %s)\n", show(t.GetEntity()), t.GetLeftOut(), plural(int(t.GetLeftOut()), "entity", "entities"),
			t.GetRelationsLeftOut(), plural(int(t.GetRelationsLeftOut()), "relation", "relations"), strings.Join(parts, ", "))
	}
	if n := resp.GetEdgesLeftOut(); n > 0 {
		fmt.Fprintf(w, "%d more %s among these entities not shown (raise --max-edges)\n", n, plural(int(n), "relation", "relations"))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func edgeWhen(e *pb.Edge) string {
	return when(&pb.Relation{ValidFrom: e.GetValidFrom(), ValidTo: e.GetValidTo(), Date: e.GetDate()})
}

func kindWord(k pb.EntityKind) string {
	return strings.ToLower(strings.TrimPrefix(k.String(), "ENTITY_KIND_"))
}

// reorder moves flags before positional arguments, so `polgraph path A B --max-depth 3` works.
func reorder(args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && i+1 < len(args) && !isBoolFlag(a) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(flags, pos...)
}

func isBoolFlag(a string) bool {
	a = strings.TrimLeft(a, "-")
	return a == "json" || a == "directed"
}
